import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { sandboxWorkerSource } from '../../lib/sandbox/worker-source';

const LIMITS = { maxOutputChars: 100_000, maxLogLines: 200, maxLogChars: 20_000 };

/** The Chrome sandbox Worker's script, evaluated in a stand-in for a Worker's global. */
function startWorker() {
  const posted: any[] = [];
  const listeners: Record<string, ((e: unknown) => void)[]> = {};
  const global = vm.createContext({
    setTimeout,
    postMessage: (m: unknown) => posted.push(m),
    addEventListener: (type: string, fn: (e: unknown) => void) => (listeners[type] ??= []).push(fn),
    removeEventListener: (type: string, fn: (e: unknown) => void) => {
      listeners[type] = (listeners[type] ?? []).filter((f) => f !== fn);
    },
    fetch: () => 'the real fetch',
    XMLHttpRequest: class {},
    indexedDB: {},
    importScripts: () => {},
  });
  vm.runInContext(sandboxWorkerSource(), global);
  const dispatch = (type: string, event: unknown) => (listeners[type] ?? []).forEach((fn) => fn(event));
  const done = async () => {
    for (let i = 0; i < 100 && !posted.some((m) => m.type === 'done'); i++) await new Promise((r) => setTimeout(r, 5));
    return JSON.parse(posted.find((m) => m.type === 'done').report);
  };
  return { posted, dispatch, done };
}

describe('Chrome sandbox worker script', () => {
  it('runs one piece of code, streaming its logs, after removing the ways out', async () => {
    const w = startWorker();
    w.dispatch('message', {
      data: { type: 'run', code: 'console.log("hi"); return ["fetch", "XMLHttpRequest", "indexedDB", "importScripts", "postMessage"].map(n => typeof globalThis[n])', limits: LIMITS },
    });
    expect(await w.done()).toEqual({ ok: true, result: ['undefined', 'undefined', 'undefined', 'undefined', 'undefined'], truncated: false, logs: ['hi'] });
    expect(w.posted[0]).toEqual({ type: 'log', line: 'hi' });
  });

  it('takes only the first run', async () => {
    const w = startWorker();
    w.dispatch('message', { data: { type: 'run', code: 'return 1', limits: LIMITS } });
    w.dispatch('message', { data: { type: 'run', code: 'return 2', limits: LIMITS } });
    expect(await w.done()).toMatchObject({ result: 1 });
    await new Promise((r) => setTimeout(r, 20));
    expect(w.posted.filter((m) => m.type === 'done')).toHaveLength(1);
  });

  it('logs errors that escape the code instead of letting them kill the worker', async () => {
    const w = startWorker();
    w.dispatch('message', { data: { type: 'run', code: 'await new Promise(r => setTimeout(r, 20)); return 1', limits: LIMITS } });
    const prevented: string[] = [];
    w.dispatch('error', { error: new Error('late'), message: 'late', preventDefault: () => prevented.push('error') });
    expect((await w.done()).logs).toEqual([expect.stringMatching(/^\[error\] Uncaught Error: late/)]);
    expect(prevented).toEqual(['error']);
  });
});
