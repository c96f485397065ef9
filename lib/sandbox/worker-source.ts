/**
 * Chrome: the script of the blob Worker that runs one piece of code inside the sandbox page.
 * A Worker, not the page itself, because only a Worker can be killed (terminate()) when the
 * code never ends. The page's CSP (manifest content_security_policy.sandbox) is inherited by
 * the blob Worker and forbids every network request; the names of removed-globals.ts are
 * removed as well, so code learns at once that they do not exist instead of meeting a CSP
 * refusal.
 */
import { installSandboxPrelude } from './prelude';
import { REMOVED_GLOBALS, REMOVED_NAVIGATOR, removeGlobals } from './removed-globals';

/** Runs inside the Worker; shipped as source text like the prelude, so it is self-contained. */
function workerMain(
  install: typeof installSandboxPrelude,
  remove: typeof removeGlobals,
  removed: { globals: readonly string[]; navigator: readonly string[] },
): void {
  const scope = globalThis as any;
  // Taken before removeGlobals deletes postMessage.
  const post = scope.postMessage.bind(scope) as (m: unknown) => void;
  let realm: ReturnType<typeof installSandboxPrelude> | null = null;
  scope.addEventListener('error', (e: ErrorEvent) => {
    if (!realm) return;
    realm.uncaught(e.error ?? e.message);
    e.preventDefault();
  });
  scope.addEventListener('unhandledrejection', (e: PromiseRejectionEvent) => {
    if (!realm) return;
    realm.uncaught(e.reason);
    e.preventDefault();
  });
  const onRun = (e: MessageEvent) => {
    const m = e.data;
    if (realm || !m || m.type !== 'run' || typeof m.code !== 'string') return;
    scope.removeEventListener('message', onRun);
    realm = install(scope, m.limits, { log: (line: string) => post({ type: 'log', line }) });
    remove(scope, removed.globals, removed.navigator);
    realm.run(m.code, typeof m.argsJson === 'string' ? m.argsJson : undefined).then(
      (report) => post({ type: 'done', report }),
      (err) => post({ type: 'crashed', message: String(err) }),
    );
  };
  scope.addEventListener('message', onRun);
}

export function sandboxWorkerSource(): string {
  const removed = { globals: REMOVED_GLOBALS, navigator: REMOVED_NAVIGATOR };
  return `(${workerMain.toString()})(${installSandboxPrelude.toString()}, ${removeGlobals.toString()}, ${JSON.stringify(removed)});\n`;
}
