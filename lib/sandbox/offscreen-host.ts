/**
 * Chrome MV3: the SandboxHost of the background service worker. The service worker has no
 * DOM (and no Worker), so the sandbox lives in the offscreen document (created on demand),
 * which embeds the manifest sandbox page; see offscreen-relay.ts and sandbox-page.ts for the
 * rest of the way, engines.ts for the two engines.
 */
import { closeOffscreenDocument, ensureOffscreenDocument, sendWhenListening } from '../browser/offscreen/document';
import { functionRunner, type RealmHost } from './functions';
import { offscreenMessaging } from '../browser/offscreen/protocol';
import { startAllowanceMs, type RealmEngine, type SandboxEngine } from './engines';
import { failure, normalizeRun, onAbort, type RealmRunRequest } from './report';
import type { SandboxHost, SandboxOutcome } from './types';
import { errorMessage } from '../errors';

/** Past the run's timeout: creating the document and the frame, and a margin. */
const BACKSTOP_SLACK_MS = 15_000;
/** After an abort, how long to wait for the logs of the stopped run before answering without. */
const ABORT_GRACE_MS = 300;
const ABORTED = 'The run was stopped before the code finished.';

export function offscreenSandboxHost(engine: SandboxEngine = 'v8'): SandboxHost {
  const realm = (realmEngine: RealmEngine): RealmHost => ({ runRequest: (request, signal) => send(realmEngine, request, signal) });
  return {
    async run(code, options): Promise<SandboxOutcome> {
      const checked = normalizeRun(code, options);
      if (!checked.ok) return failure('host', checked.message, [], 0);
      return send(engine, checked.request, options.signal);
    },
    runFunction: functionRunner({ javascript: realm(engine), python: realm('python') }),
  };
}

async function send(engine: RealmEngine, request: RealmRunRequest, signal: AbortSignal | undefined): Promise<SandboxOutcome> {
  const started = performance.now();
  const elapsed = () => performance.now() - started;
  if (signal?.aborted) return failure('aborted', ABORTED, [], 0);
  const runId = crypto.randomUUID();

  const timers: ReturnType<typeof setTimeout>[] = [];
  const after = <T>(ms: number, value: () => T) => new Promise<T>((r) => timers.push(setTimeout(() => r(value()), ms)));

  const answered = (async () => {
    await ensureOffscreenDocument();
    const outcome = await sendWhenListening(() => offscreenMessaging.sendMessage('sandboxOffscreenRun', { runId, engine, request }));
    if (typeof outcome?.ok !== 'boolean') return failure('host', 'The sandbox sent no usable answer.', [], elapsed());
    return outcome;
  })().catch((e: unknown) => failure('host', `The sandbox is not available: ${errorMessage(e)}`, [], elapsed()));

  let unsubscribe = () => {};
  const aborted = new Promise<void>((r) => (unsubscribe = onAbort(signal, r))).then(() => {
    void offscreenMessaging.sendMessage('sandboxOffscreenAbort', { runId }).catch(() => {});
    return Promise.race([answered, after(ABORT_GRACE_MS, () => failure('aborted', ABORTED, [], elapsed()))]);
  });

  // The frame has its own timer and the offscreen document a watchdog; this one covers a
  // document that is gone or hung. It is closed so the next run starts a fresh one.
  const backstop = after(request.timeoutMs + BACKSTOP_SLACK_MS + startAllowanceMs(engine), () => {
    void closeOffscreenDocument();
    return failure('timeout', `The sandbox did not answer within ${request.timeoutMs} ms and was restarted.`, [], elapsed());
  });

  try {
    return await Promise.race([answered, aborted, backstop]);
  } finally {
    unsubscribe();
    timers.forEach(clearTimeout);
  }
}

