/**
 * The Firefox sandbox engine, QuickJS, in Node: the same runner the Worker uses, on the same
 * WebAssembly build. The browser-facing parts (Worker, kill, CSP) are covered by
 * tests/e2e/sandbox.e2e.test.ts.
 */
import variant from '@jitl/quickjs-wasmfile-release-sync';
import { newQuickJSWASMModuleFromVariant, newVariant, type QuickJSWASMModule } from 'quickjs-emscripten-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { runInQuickJS, sandboxWasmMemory } from '../../lib/sandbox/quickjs-runner';
import { toOutcome, type RealmRunRequest } from '../../lib/sandbox/report';
import type { SandboxOutcome } from '../../lib/sandbox/types';

const LIMITS = { maxOutputChars: 100_000, maxLogLines: 200, maxLogChars: 20_000 };
let quickjs: QuickJSWASMModule;

beforeAll(async () => {
  quickjs = await newQuickJSWASMModuleFromVariant(newVariant(variant, { wasmMemory: sandboxWasmMemory() }));
});

async function run(code: string, timeoutMs = 2000, onLog?: (line: string) => void): Promise<SandboxOutcome & { reusable: boolean }> {
  const request: RealmRunRequest = { code, timeoutMs, limits: LIMITS };
  const { result, reusable } = await runInQuickJS(quickjs, request, onLog);
  return { ...toOutcome(result, LIMITS, 0), reusable };
}

describe('QuickJS sandbox runner', () => {
  it('runs a function body', async () => {
    expect(await run('const x = [1,2,3].map(n => n*n); return x;')).toMatchObject({ ok: true, result: [1, 4, 9], truncated: false, reusable: true });
  });

  it('runs async code with timers', async () => {
    const r = await run(
      // b is due 145 ms after a even if the machine stalls between the two calls (a loaded CI
      // host once took more than 15 ms there, and b then rightly fired first).
      'const order = []; setTimeout(() => order.push("b"), 150); setTimeout(() => order.push("a"), 5);' +
        'let n = 0; const id = setInterval(() => n++, 5); await new Promise(r => setTimeout(r, 300)); clearInterval(id);' +
        'await Promise.resolve(); return { order, ticked: n >= 2 }',
    );
    expect(r).toMatchObject({ ok: true, result: { order: ['a', 'b'], ticked: true } });
  });

  it('captures logs and streams them as they happen', async () => {
    const streamed: string[] = [];
    const r = await run('console.log("one", {a: 1}); console.warn("two"); setTimeout(() => { throw new Error("late") }, 1); await new Promise(r => setTimeout(r, 10)); return 3', 2000, (l) => streamed.push(l));
    expect(r.logs).toEqual(['one {"a":1}', '[warn] two', expect.stringMatching(/^\[error\] Uncaught Error: late/)]);
    expect(streamed).toEqual(r.logs);
  });

  it('stops an endless loop at the deadline, even one inside try/catch, and runs the next code', async () => {
    for (const code of ['while (true) {}', 'for (;;) { try { while (true) {} } catch (e) {} }', 'await null; while (true) {}']) {
      const streamed: string[] = [];
      const t = performance.now();
      const r = await run(`console.log("start"); ${code}`, 300, (l) => streamed.push(l));
      expect(r).toMatchObject({ ok: false, error: { kind: 'timeout' }, logs: ['start'], reusable: true });
      expect(performance.now() - t).toBeLessThan(1500);
    }
    expect(await run('return 1 + 1')).toMatchObject({ ok: true, result: 2 });
  });

  it('times out a timer chain that never ends', async () => {
    expect(await run('await new Promise(() => setInterval(() => {}, 1))', 200)).toMatchObject({ ok: false, error: { kind: 'timeout' } });
  });

  it('says at once when the code awaits something that can never settle', async () => {
    const t = performance.now();
    expect(await run('await new Promise(() => {})', 5000)).toMatchObject({ ok: false, error: { kind: 'runtime', message: expect.stringMatching(/never settle/) } });
    expect(performance.now() - t).toBeLessThan(1000);
  });

  it('reports errors as the Chrome sandbox does', async () => {
    expect(await run('return (')).toMatchObject({ ok: false, error: { kind: 'syntax', message: expect.stringMatching(/^SyntaxError/) } });
    const r = await run('function boom() { throw new TypeError("bad thing") }\nboom()');
    expect(r).toMatchObject({ ok: false, error: { kind: 'runtime', message: 'TypeError: bad thing' } });
    expect(r.ok || r.error.stack).toMatch(/^TypeError: bad thing\n\s+at boom \(<code>:1:\d+\)/);
  });

  it('turns deep recursion into a catchable error, and stays usable', async () => {
    expect(await run('function f() { return f() } f()')).toMatchObject({ ok: false, error: { kind: 'runtime', message: expect.stringMatching(/stack overflow/i) }, reusable: true });
    expect(await run('return 2')).toMatchObject({ ok: true, result: 2 });
  });

  it('enforces a memory limit (and asks for a fresh Worker after such a run)', async () => {
    const r = await run('const a = []; while (true) a.push(new Array(1 << 17).fill(a.length))', 10_000);
    expect(r).toMatchObject({ ok: false, error: { kind: 'runtime', message: expect.stringMatching(/out of memory/i) }, reusable: false });
    expect(await run('return "still works"')).toMatchObject({ ok: true, result: 'still works' });
  });

  it('truncates a 10 MB result quickly', async () => {
    const t = performance.now();
    const r = await run('return "x".repeat(10 * 1024 * 1024)');
    expect(r).toMatchObject({ ok: true, truncated: true });
    expect((r as { result: string }).result.length).toBeLessThanOrEqual(100_000);
    expect(performance.now() - t).toBeLessThan(2000);
  });

  it('renders the values JSON cannot hold', async () => {
    const r = await run('const a = { n: 1 }; a.self = a; return { a, big: 10n, f: function named() {}, u: undefined, arr: [undefined, NaN, -Infinity], m: new Map([["k", 1]]), s: new Set([1]), d: new Date(0), t: new Uint8Array([1, 2]) }');
    expect(r).toMatchObject({
      ok: true,
      result: {
        a: { n: 1, self: '[Circular]' },
        big: '10n',
        f: '[Function named]',
        arr: [null, 'NaN', '-Infinity'],
        m: { '[Map]': [['k', 1]] },
        s: { '[Set]': [1] },
        d: '1970-01-01T00:00:00.000Z',
        t: { '[Uint8Array]': [1, 2] },
      },
    });
  });

  it('has nothing to reach the outside with', async () => {
    const r = await run(
      'return ["fetch", "XMLHttpRequest", "WebSocket", "EventSource", "importScripts", "indexedDB", "caches", "localStorage", "document", "window", "chrome", "browser", "postMessage", "navigator", "Worker"].filter(n => typeof globalThis[n] !== "undefined")',
    );
    expect(r).toMatchObject({ ok: true, result: [] });
    const imported = await run('await import("http://127.0.0.1:9/x.js"); return "imported"');
    expect(imported).toMatchObject({ ok: false, error: { kind: 'runtime' } });
  });

  it('starts every run from a fresh global', async () => {
    await run('globalThis.leaked = 1; Array.prototype.evil = 1; return 0');
    expect(await run('return [typeof leaked, typeof [].evil]')).toMatchObject({ ok: true, result: ['undefined', 'undefined'] });
  });
});
