/**
 * The Firefox sandbox engine, QuickJS, in Node: the same runner the Worker uses, on the same
 * WebAssembly build. The browser-facing parts (Worker, kill, CSP) are covered by
 * tests/e2e/sandbox.e2e.test.ts.
 */
import variant from '@jitl/quickjs-wasmfile-release-sync';
import { newQuickJSWASMModuleFromVariant, newVariant, type QuickJSWASMModule } from 'quickjs-emscripten-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUICKJS_OUT_OF_MEMORY, runInQuickJS, sandboxWasmMemory } from '../../lib/sandbox/quickjs-runner';
import { toOutcome, type RealmRunRequest } from '../../lib/sandbox/report';
import type { SandboxOutcome } from '../../lib/sandbox/types';
import { jsProbeBody } from '../harness/sandbox-probes';

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

  describe('out of memory', () => {
    // Each test gets the module fresh: a full memory stays full (the Worker would be replaced).
    let full: QuickJSWASMModule;
    beforeAll(async () => {
      full = quickjs;
    });
    const fresh = async () => {
      quickjs = await newQuickJSWASMModuleFromVariant(newVariant(variant, { wasmMemory: sandboxWasmMemory() }));
    };
    afterAll(() => {
      quickjs = full;
    });

    it('names the limit and what to do, and asks for a fresh Worker after such a run', async () => {
      expect(QUICKJS_OUT_OF_MEMORY).toBe(
        'Out of memory: the code reached the memory limit of the JavaScript sandbox (128 MB) and could not go on. ' +
          'Keep less in memory at once: work through the data in smaller pieces (aggregate as you go instead of collecting everything, ' +
          'or split the work across several runs) and return only what you need.',
      );
      await fresh();
      const r = await run('const a = []; while (true) a.push(new Array(1 << 17).fill(a.length))', 10_000);
      expect(r).toMatchObject({ ok: false, error: { kind: 'runtime', message: QUICKJS_OUT_OF_MEMORY }, reusable: false });
      // Where it ran out, in the code's own lines.
      expect(!r.ok && r.error.stack).toMatch(/^InternalError: out of memory\n\s+at .*<code>:1:\d+/);
      expect(await run('return "still works"')).toMatchObject({ ok: true, result: 'still works' });
    }, 30_000);

    it('turns the null QuickJS throws when even its error cannot be allocated into the same message', async () => {
      // Many small objects: QuickJS runs out while making its own error and throws null.
      await fresh();
      const r = await run('const m = new Map(); let i = 0; while (true) m.set(i++, { i, s: "y".repeat(100) })', 20_000);
      expect(r).toMatchObject({ ok: false, error: { kind: 'runtime', message: QUICKJS_OUT_OF_MEMORY }, reusable: false });
    }, 30_000);

    it('says so for one allocation larger than the limit, and for an error escaping a timer', async () => {
      await fresh();
      expect(await run('return new ArrayBuffer(200 * 1024 * 1024).byteLength')).toMatchObject({ ok: false, error: { message: QUICKJS_OUT_OF_MEMORY } });
      await fresh();
      const timer = await run('const a = []; setTimeout(() => { while (true) a.push({}) }, 1); await new Promise(r => setTimeout(r, 100)); return "finished"', 20_000);
      expect(timer).toMatchObject({ ok: true, result: 'finished', logs: [`[error] Uncaught ${QUICKJS_OUT_OF_MEMORY}`] });
    }, 60_000);

    it('leaves a thrown null, a caught out-of-memory and other limits as they are', async () => {
      await fresh();
      expect(await run('throw null')).toMatchObject({ ok: false, error: { message: 'Uncaught null' } });
      expect(await run('try { new ArrayBuffer(200 * 1024 * 1024) } catch (e) { return String(e) }')).toMatchObject({ ok: true, result: 'InternalError: out of memory' });
      expect(await run('let s = "x"; while (true) s += s')).toMatchObject({ ok: false, error: { message: 'InternalError: string too long' } });
    }, 30_000);
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

  it('has none of the names the other Workers remove', async () => {
    expect(await run(jsProbeBody())).toMatchObject({ ok: true, result: [] });
  });

  it("has ECMAScript's globals and the prelude's, nothing of the host", async () => {
    const r = await run('return Object.getOwnPropertyNames(globalThis).sort()');
    const ecmascript = [
      'AggregateError', 'Array', 'ArrayBuffer', 'BigInt', 'BigInt64Array', 'BigUint64Array', 'Boolean', 'DataView', 'Date', 'Error', 'EvalError',
      'FinalizationRegistry', 'Float16Array', 'Float32Array', 'Float64Array', 'Function', 'Infinity', 'Int16Array', 'Int32Array', 'Int8Array',
      'InternalError', 'Iterator', 'JSON', 'Map', 'Math', 'NaN', 'Number', 'Object', 'Promise', 'Proxy', 'RangeError', 'ReferenceError', 'Reflect',
      'RegExp', 'Set', 'SharedArrayBuffer', 'String', 'Symbol', 'SyntaxError', 'TypeError', 'URIError', 'Uint16Array', 'Uint32Array', 'Uint8Array',
      'Uint8ClampedArray', 'WeakMap', 'WeakRef', 'WeakSet', 'decodeURI', 'decodeURIComponent', 'encodeURI', 'encodeURIComponent', 'escape', 'eval',
      'globalThis', 'isFinite', 'isNaN', 'parseFloat', 'parseInt', 'undefined', 'unescape',
    ];
    const prelude = ['clearInterval', 'clearTimeout', 'console', 'queueMicrotask', 'setInterval', 'setTimeout'];
    expect(r).toMatchObject({ ok: true, result: [...ecmascript, ...prelude].sort() });
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
