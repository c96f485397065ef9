import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { REMOVED_GLOBALS } from '../../lib/sandbox/removed-globals';
import { sandboxWorkerSource } from '../../lib/sandbox/worker-source';
import { jsProbeBody } from '../harness/sandbox-probes';

const LIMITS = { maxOutputChars: 100_000, maxLogLines: 200, maxLogChars: 20_000 };

/** Every removed name present, as a Worker has them; navigator's on its prototype, as in browsers. */
const workerGlobals = () => {
  const navigator = Object.create({ storage: {}, locks: {}, serviceWorker: {}, permissions: {}, userAgent: 'stand-in' });
  return { ...Object.fromEntries(REMOVED_GLOBALS.map((name) => [name, () => `the real ${name}`])), navigator };
};

/** The Chrome sandbox Worker's script, evaluated in a stand-in for a Worker's global. */
function startWorker() {
  const posted: any[] = [];
  const listeners: Record<string, ((e: unknown) => void)[]> = {};
  const global = vm.createContext({
    ...workerGlobals(),
    setTimeout,
    postMessage: (m: unknown) => posted.push(m),
    close: () => posted.push({ type: 'closed' }),
    addEventListener: (type: string, fn: (e: unknown) => void) => (listeners[type] ??= []).push(fn),
    removeEventListener: (type: string, fn: (e: unknown) => void) => {
      listeners[type] = (listeners[type] ?? []).filter((f) => f !== fn);
    },
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

  it('removes every name of the probe table, and still reports after postMessage and close are gone', async () => {
    const w = startWorker();
    w.dispatch('message', { data: { type: 'run', code: `console.log("before"); await new Promise(r => setTimeout(r, 5)); ${jsProbeBody()}`, limits: LIMITS } });
    expect(await w.done()).toEqual({ ok: true, result: [], truncated: false, logs: ['before'] });
    expect(w.posted.map((m) => m.type)).toEqual(['log', 'done']);
  });

  it('the probes find the names where nothing removed them', () => {
    const context = vm.createContext(workerGlobals());
    const found = JSON.parse(vm.runInContext(`JSON.stringify((() => {${jsProbeBody()}})())`, context)) as string[];
    expect(found).toEqual(expect.arrayContaining(['fetch', 'fetchLater', 'cookieStore', 'FontFace', 'close', 'navigator.storage', 'navigator.permissions']));
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
