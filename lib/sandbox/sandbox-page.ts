/**
 * Chrome: the script of sandbox.html (a manifest sandbox page: opaque origin, no extension
 * APIs, eval allowed, network forbidden by its CSP). It accepts one MessagePort from the
 * offscreen document that embeds it, and runs each piece of code in a Worker:
 * - 'v8': a fresh blob Worker per run, terminated when the code ends, times out or is
 *   aborted, so nothing one run leaves behind (globals, timers, pending promises) reaches the
 *   next. A spare Worker is started ahead of time so a run does not wait for one.
 * - 'quickjs': the QuickJS host Firefox uses, on blob Workers that import the extension's
 *   QuickJS worker script (this page's CSP lets them compile its WebAssembly).
 * - 'python' (function skills): the Pyodide host Firefox uses, on a blob Worker as well.
 */
import { SANDBOX_CONNECT, type PageReply, type PageRequest, type WorkerReply, type WorkerRequest } from './frame-protocol';
import type { RealmHost } from './functions';
import { pythonRealmHost } from './python-host';
import { PYODIDE_DIR, PYTHON_WORKER_PATH, type PythonAssets } from './python-protocol';
import { quickjsSandboxHost } from './quickjs-host';
import { QUICKJS_WORKER_PATH } from './quickjs-protocol';
import { timeoutMessage, type RealmResult, type RealmRunRequest } from './report';
import type { SandboxErrorKind } from './types';
import { sandboxWorkerSource } from './worker-source';

export function startSandboxPage(): void {
  const extensionOrigin = new URL(location.href).origin;
  const workerUrl = URL.createObjectURL(new Blob([sandboxWorkerSource()], { type: 'text/javascript' }));
  const spawn = () => new Worker(workerUrl, { name: 'pagewright-sandbox' });
  let spare: Worker | null = null;
  const takeWorker = (): Worker => {
    const worker = spare ?? spawn();
    spare = null;
    try {
      spare = spawn();
    } catch {}
    return worker;
  };

  const quickjsUrl = URL.createObjectURL(
    new Blob([`importScripts(${JSON.stringify(extensionOrigin + QUICKJS_WORKER_PATH)});\n`], { type: 'text/javascript' }),
  );
  let quickjs: RealmHost | null = null;

  // Python: a blob Worker (so it has this page's opaque origin and CSP) that imports the
  // extension's Pyodide worker script; the bytes it loads come from the offscreen document.
  const pythonUrl = URL.createObjectURL(
    new Blob([`importScripts(${JSON.stringify(extensionOrigin + PYTHON_WORKER_PATH)});\n`], { type: 'text/javascript' }),
  );
  const assetRequests = new Map<string, { resolve(a: PythonAssets): void; reject(e: Error): void }>();
  let python: RealmHost | null = null;
  let assetSeq = 0;

  const aborts = new Map<string, () => void>();
  let port: MessagePort | null = null;
  const reply = (m: PageReply) => port?.postMessage(m);

  window.addEventListener('message', (e: MessageEvent) => {
    // Only the offscreen document that embeds this page, and only once.
    if (port || e.source !== window.parent || e.origin !== extensionOrigin) return;
    if (e.data?.type !== SANDBOX_CONNECT || !e.ports[0]) return;
    port = e.ports[0];
    port.onmessage = (m: MessageEvent<PageRequest>) => {
      const msg = m.data;
      if (msg?.type === 'abort') aborts.get(msg.runId)?.();
      else if (msg?.type === 'python-assets') {
        const pending = assetRequests.get(msg.requestId);
        assetRequests.delete(msg.requestId);
        if (msg.assets) pending?.resolve(msg.assets);
        else pending?.reject(new Error(msg.error ?? 'no answer'));
      } else if (msg?.type === 'run' && msg.engine === 'python') void startRealm(msg.runId, msg.request, (python ??= startPython()));
      else if (msg?.type === 'run' && msg.engine === 'quickjs') void startRealm(msg.runId, msg.request, (quickjs ??= quickjsSandboxHost(quickjsUrl)));
      else if (msg?.type === 'run') start(msg.runId, msg.request);
    };
    reply({ type: 'ready' });
  });

  function startPython(): RealmHost {
    return pythonRealmHost({
      spawn: () => new Worker(pythonUrl, { name: 'pagewright-python' }),
      indexURL: extensionOrigin + PYODIDE_DIR,
      assets: () =>
        new Promise<PythonAssets>((resolve, reject) => {
          const requestId = String(++assetSeq);
          assetRequests.set(requestId, { resolve, reject });
          reply({ type: 'python-assets', requestId });
        }),
    });
  }

  async function startRealm(runId: string, request: RealmRunRequest, realm: RealmHost): Promise<void> {
    const controller = new AbortController();
    aborts.set(runId, () => controller.abort());
    try {
      reply({ type: 'outcome', runId, outcome: await realm.runRequest(request, controller.signal) });
    } finally {
      aborts.delete(runId);
    }
  }

  function start(runId: string, request: RealmRunRequest): void {
    const started = performance.now();
    const logs: string[] = [];
    let settled = false;
    let worker: Worker | null = null;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const finish = (result: RealmResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      worker?.terminate();
      aborts.delete(runId);
      reply({ type: 'result', runId, result });
    };
    const fail = (kind: SandboxErrorKind, message: string) =>
      finish({ status: 'failed', kind, message, logs, durationMs: performance.now() - started });

    try {
      worker = takeWorker();
    } catch (e) {
      return fail('host', `The sandbox could not start a worker: ${String(e)}`);
    }
    aborts.set(runId, () => fail('aborted', 'The run was stopped before the code finished.'));
    timer = setTimeout(() => fail('timeout', timeoutMessage(request.timeoutMs)), request.timeoutMs);
    worker.onmessage = (e: MessageEvent<WorkerReply>) => {
      const m = e.data;
      if (m?.type === 'log') {
        if (typeof m.line === 'string' && logs.length <= request.limits.maxLogLines) logs.push(m.line);
      } else if (m?.type === 'done' && typeof m.report === 'string') {
        finish({ status: 'done', report: m.report, durationMs: performance.now() - started });
      } else if (m?.type === 'crashed') {
        fail('host', `The sandbox failed: ${String(m.message)}`);
      }
    };
    // Only errors that escape the worker's own handlers: a script that failed to start.
    worker.onerror = (e: ErrorEvent) => {
      e.preventDefault();
      fail('host', `The sandbox worker failed: ${e.message || 'it could not start'}`);
    };
    const run: WorkerRequest = { type: 'run', code: request.code, limits: request.limits, argsJson: request.argsJson };
    worker.postMessage(run);
  }
}
