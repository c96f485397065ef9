/**
 * Python's realm host: one Pyodide Worker, loaded on the first call and kept warm, running one
 * call at a time (more wait their turn, and the wait counts against their time limit). A call
 * that overruns its limit, or is aborted, terminates the Worker — Python cannot be interrupted
 * from outside without shared memory, and terminate() always works — and a fresh Worker starts
 * loading at once, so the next call pays less (or none) of the cold start.
 *
 * The same host runs in Firefox's background page and in Chrome's sandbox page; they differ
 * only in how a Worker is made and where the bytes come from (PythonWorkers).
 */
import type { RealmHost } from './functions';
import type { PythonAssets, PythonWorkerReply, PythonWorkerRequest } from './python-protocol';
import { failure, onAbort, timeoutMessage, toOutcome, type RealmRunRequest } from './report';
import type { SandboxOutcome } from './types';
import { errorMessage } from '../errors';

export interface PythonWorkers {
  spawn(): Worker;
  /** Fresh buffers for each Worker: they are transferred to it. */
  assets(): Promise<PythonAssets>;
  /** Where the Worker imports Pyodide's JavaScript from (ends with "/"). */
  indexURL: string;
}

/** Loading Pyodide: ~10 MB of WebAssembly and the standard library; seconds on a busy machine. */
const LOAD_TIMEOUT_MS = 60_000;
const START_GRACE_MS = 5_000;
const ABORTED = 'The run was stopped before the code finished.';

interface Loaded {
  worker: Worker;
  ready: Promise<void>;
}

export function pythonRealmHost(workers: PythonWorkers): RealmHost {
  let current: Loaded | null = null;
  let queue: Promise<unknown> = Promise.resolve();

  const start = (): Loaded => {
    const worker = workers.spawn();
    const ready = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => fail('Python did not load in time.'), LOAD_TIMEOUT_MS);
      const fail = (message: string) => {
        cleanup();
        worker.terminate();
        reject(new Error(message));
      };
      const onMessage = (e: MessageEvent<PythonWorkerReply>) => {
        if (e.data?.type === 'loaded') {
          cleanup();
          resolve();
        } else if (e.data?.type === 'load-failed') fail(String(e.data.message));
      };
      const onError = (e: ErrorEvent) => {
        e.preventDefault();
        fail(e.message || 'the Python worker could not start');
      };
      const cleanup = () => {
        clearTimeout(timer);
        worker.removeEventListener('message', onMessage);
        worker.removeEventListener('error', onError);
      };
      worker.addEventListener('message', onMessage);
      worker.addEventListener('error', onError);
      workers.assets().then(
        (assets) => worker.postMessage({ type: 'load', indexURL: workers.indexURL, assets } satisfies PythonWorkerRequest, [assets.wasm, assets.stdlib]),
        (e: unknown) => fail(`Pyodide's files could not be read: ${errorMessage(e)}`),
      );
    });
    ready.catch(() => {});
    return { worker, ready };
  };

  const discard = (loaded: Loaded, restart: boolean) => {
    loaded.worker.terminate();
    if (current === loaded) current = restart ? start() : null;
  };

  async function execute(request: RealmRunRequest, signal: AbortSignal | undefined, waitedMs: number): Promise<SandboxOutcome> {
    const loaded = (current ??= start());
    try {
      await loaded.ready;
    } catch (e) {
      if (current === loaded) current = null;
      return failure('host', `Python could not start: ${errorMessage(e)}`, [], 0);
    }
    if (signal?.aborted) return failure('aborted', ABORTED, [], 0);
    // Waiting behind other calls counts against the limit; loading does not.
    const timeoutMs = Math.ceil(request.timeoutMs - waitedMs);
    if (timeoutMs <= 0) return failure('timeout', 'Python was busy with other calls for the whole time limit.', [], 0);

    const runId = crypto.randomUUID();
    const worker = loaded.worker;
    return new Promise<SandboxOutcome>((resolve) => {
      const logs: string[] = [];
      let runStarted = performance.now();
      let timer: ReturnType<typeof setTimeout> | undefined;
      let unsubscribe = () => {};
      const done = (outcome: SandboxOutcome, kill: boolean) => {
        clearTimeout(timer);
        unsubscribe();
        worker.removeEventListener('message', onMessage);
        worker.removeEventListener('error', onError);
        if (kill) discard(loaded, true);
        resolve(outcome);
      };
      const killed = (kind: 'timeout' | 'aborted' | 'host', message: string) => done(failure(kind, message, logs, performance.now() - runStarted), true);
      const onMessage = (e: MessageEvent<PythonWorkerReply>) => {
        const m = e.data;
        if (!m || !('runId' in m) || m.runId !== runId) return;
        if (m.type === 'started') {
          runStarted = performance.now();
          clearTimeout(timer);
          timer = setTimeout(() => killed('timeout', timeoutMessage(timeoutMs)), timeoutMs);
        } else if (m.type === 'log') {
          if (typeof m.line === 'string' && logs.length <= request.limits.maxLogLines) logs.push(m.line);
        } else if (m.type === 'result') {
          // 'failed' is Pyodide itself failing (the runner reports the code's errors as done):
          // the interpreter may be broken, so the next call gets a fresh one.
          done(toOutcome(m.result, request.limits, performance.now() - runStarted), m.result?.status === 'failed');
        }
      };
      const onError = (e: ErrorEvent) => {
        e.preventDefault();
        killed('host', `The Python worker failed: ${e.message || 'unknown error'}`);
      };
      worker.addEventListener('message', onMessage);
      worker.addEventListener('error', onError);
      // A loaded Worker answers "started" at once; one that does not is stuck.
      timer = setTimeout(() => killed('host', 'The Python worker did not respond and was restarted.'), timeoutMs + START_GRACE_MS);
      unsubscribe = onAbort(signal, () => killed('aborted', ABORTED));
      worker.postMessage({ type: 'run', runId, request: { ...request, timeoutMs } } satisfies PythonWorkerRequest);
    });
  }

  return {
    runRequest(request, signal) {
      const queued = performance.now();
      const turn = queue.then(() => execute(request, signal, performance.now() - queued));
      queue = turn.catch(() => {});
      return turn;
    },
  };
}
