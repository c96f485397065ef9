/**
 * Firefox: the SandboxHost of the background page. Firefox has no manifest sandbox pages (its
 * extension CSP forbids eval everywhere), so code runs in QuickJS, a JavaScript engine
 * compiled to WebAssembly, inside a dedicated Worker (quickjs-worker.ts). One run per Worker at
 * a time; one idle Worker is kept warm; a Worker is terminated when a run is aborted, when it
 * overruns its deadline (QuickJS's own interrupt should have stopped it first) or when it asks
 * to be replaced.
 */
import { browser } from 'wxt/browser';
import { QUICKJS_WORKER_PATH, type QuickJSWorkerReply, type QuickJSWorkerRequest } from './quickjs-protocol';
import { failure, normalizeRun, onAbort, timeoutMessage, toOutcome, type RealmRunRequest } from './report';
import type { RealmHost } from './functions';
import type { SandboxHost, SandboxOutcome } from './types';

/** Loading the engine in a new Worker: compiling ~500 KB of WebAssembly. */
const START_TIMEOUT_MS = 20_000;
/** Past the deadline, how long QuickJS's interrupt handler gets before the Worker is killed. */
const KILL_GRACE_MS = 1_000;
const ABORTED = 'The run was stopped before the code finished.';
/** Runs at once; more wait their turn, and the wait counts against their time limit (so every
 *  call answers within about its timeoutMs). Each Worker may hold up to 128 MB. */
const MAX_WORKERS = 4;

export function quickjsSandboxHost(workerUrl: string = browser.runtime.getURL(QUICKJS_WORKER_PATH)): SandboxHost & RealmHost {
  let idle: Worker | null = null;
  const spawn = () => new Worker(workerUrl, { name: 'pagewright-sandbox' });
  const take = (): Worker => {
    const w = idle ?? spawn();
    idle = null;
    return w;
  };
  const release = (w: Worker, reusable: boolean) => {
    if (reusable && !idle) idle = w;
    else w.terminate();
  };
  let busy = 0;
  const waiting: (() => void)[] = [];
  /** Resolves true with a slot, false if aborted while waiting for one. */
  const acquire = (signal: AbortSignal | undefined) =>
    new Promise<boolean>((resolve) => {
      if (busy < MAX_WORKERS) {
        busy++;
        return resolve(true);
      }
      const turn = () => {
        unsubscribe();
        busy++;
        resolve(true);
      };
      const unsubscribe = onAbort(signal, () => {
        waiting.splice(waiting.indexOf(turn), 1);
        resolve(false);
      });
      waiting.push(turn);
    });
  const releaseSlot = () => {
    busy--;
    waiting.shift()?.();
  };

  async function runRequest(request: RealmRunRequest, signal?: AbortSignal): Promise<SandboxOutcome> {
    const queued = performance.now();
    if (signal?.aborted || !(await acquire(signal))) return failure('aborted', ABORTED, [], 0);
    try {
      const left = Math.ceil(request.timeoutMs - (performance.now() - queued));
      if (left <= 0) return failure('timeout', 'The sandbox was busy with other runs for the whole time limit.', [], 0);
      return await execute({ ...request, timeoutMs: left }, signal);
    } finally {
      releaseSlot();
    }
  }

  return {
    async run(code, options): Promise<SandboxOutcome> {
      const checked = normalizeRun(code, options);
      if (!checked.ok) return failure('host', checked.message, [], 0);
      return runRequest(checked.request, options.signal);
    },
    runRequest,
  };

  function execute(request: RealmRunRequest, signal: AbortSignal | undefined): Promise<SandboxOutcome> {
    const started = performance.now();
    const elapsed = () => performance.now() - started;
    const runId = crypto.randomUUID();
    let worker: Worker;
    try {
      worker = take();
    } catch (e) {
      return Promise.resolve(failure('host', `The sandbox could not start: ${String(e)}`, [], elapsed()));
    }
    return new Promise<SandboxOutcome>((resolve) => {
      const logs: string[] = [];
      let runStarted = 0;
      let settled = false;
      let unsubscribe = () => {};
      let timer = setTimeout(() => kill('host', 'The JavaScript engine did not start in time.'), START_TIMEOUT_MS);
      const done = (outcome: SandboxOutcome, reusable: boolean) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        unsubscribe();
        worker.removeEventListener('message', onMessage);
        worker.removeEventListener('error', onError);
        release(worker, reusable);
        resolve(outcome);
      };
      const kill = (kind: 'timeout' | 'aborted' | 'host', message: string) =>
        done(failure(kind, message, logs, runStarted ? performance.now() - runStarted : elapsed()), false);

      const onMessage = (e: MessageEvent<QuickJSWorkerReply>) => {
        const m = e.data;
        if (m?.runId !== runId) return;
        if (m.type === 'started') {
          runStarted = performance.now();
          clearTimeout(timer);
          timer = setTimeout(() => kill('timeout', timeoutMessage(request.timeoutMs)), request.timeoutMs + KILL_GRACE_MS);
        } else if (m.type === 'log') {
          if (typeof m.line === 'string' && logs.length <= request.limits.maxLogLines) logs.push(m.line);
        } else if (m.type === 'result') {
          done(toOutcome(m.result, request.limits, elapsed()), m.reusable === true);
        }
      };
      const onError = (e: ErrorEvent) => {
        e.preventDefault();
        kill('host', `The sandbox worker failed: ${e.message || 'it could not start'}`);
      };
      worker.addEventListener('message', onMessage);
      worker.addEventListener('error', onError);
      worker.postMessage({ type: 'run', runId, request } satisfies QuickJSWorkerRequest);
      unsubscribe = onAbort(signal, () => kill('aborted', ABORTED));
    });
  }
}
