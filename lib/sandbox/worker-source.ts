/**
 * Chrome: the script of the blob Worker that runs one piece of code inside the sandbox page.
 * A Worker, not the page itself, because only a Worker can be killed (terminate()) when the
 * code never ends. The page's CSP (manifest content_security_policy.sandbox) is inherited by
 * the blob Worker and forbids every network request; the names below are removed as well, so
 * code learns at once that they do not exist instead of meeting a CSP refusal.
 */
import { installSandboxPrelude } from './prelude';

const REMOVED_GLOBALS = [
  'fetch',
  'XMLHttpRequest',
  'WebSocket',
  'WebSocketStream',
  'EventSource',
  'WebTransport',
  'importScripts',
  'Worker',
  'SharedWorker',
  'indexedDB',
  'caches',
  'BroadcastChannel',
  'postMessage',
  'onmessage',
];

/** Runs inside the Worker; shipped as source text like the prelude, so it is self-contained. */
function workerMain(install: typeof installSandboxPrelude, removed: string[]): void {
  const scope = globalThis as any;
  const post = scope.postMessage.bind(scope) as (m: unknown) => void;
  const getPrototypeOf = Object.getPrototypeOf;
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
    for (const name of removed) {
      for (let o = scope; o && o !== Object.prototype; o = getPrototypeOf(o)) {
        try {
          delete o[name];
        } catch {}
      }
    }
    realm.run(m.code, typeof m.argsJson === 'string' ? m.argsJson : undefined).then(
      (report) => post({ type: 'done', report }),
      (err) => post({ type: 'crashed', message: String(err) }),
    );
  };
  scope.addEventListener('message', onRun);
}

export function sandboxWorkerSource(): string {
  return `(${workerMain.toString()})(${installSandboxPrelude.toString()}, ${JSON.stringify(REMOVED_GLOBALS)});\n`;
}
