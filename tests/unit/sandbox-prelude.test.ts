import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { installSandboxPrelude, type PreludeLimits, type RealmReport } from '../../lib/sandbox/prelude';

const LIMITS: PreludeLimits = { maxOutputChars: 100_000, maxLogLines: 200, maxLogChars: 20_000 };

/**
 * A fresh realm per call, as the sandbox gives each run: a Node vm context with the prelude
 * installed from its source text, exactly as it is shipped. The code under test runs there,
 * not in the test's own realm.
 */
function realm(limits: Partial<PreludeLimits> = {}, onLog?: (line: string) => void) {
  const context = vm.createContext({ setTimeout, clearTimeout });
  const install = vm.runInContext(`(${installSandboxPrelude.toString()})`, context) as typeof installSandboxPrelude;
  const global = vm.runInContext('globalThis', context) as Record<string, unknown>;
  return { realm: install(global, { ...LIMITS, ...limits }, { log: onLog }), global };
}

async function run(code: string, limits: Partial<PreludeLimits> = {}): Promise<RealmReport> {
  return JSON.parse(await realm(limits).realm.run(code));
}

/** The JSON-safe value as it leaves the realm (through JSON text); values made here, so the
 *  prelude is installed in this realm. */
const safe = (value: unknown, budget = 100_000) => {
  const out = installSandboxPrelude({}, LIMITS, {}).toJsonSafe(value, budget);
  return { value: JSON.parse(JSON.stringify(out.value)), truncated: out.truncated };
};

describe('sandbox prelude: running code', () => {
  it('runs a function body and returns its value', async () => {
    expect(await run('const x = [1,2,3].map(n => n*n); return x;')).toEqual({ ok: true, result: [1, 4, 9], truncated: false, logs: [] });
  });

  it('awaits', async () => {
    expect(await run('await new Promise(r => setTimeout(r, 5)); return "later"')).toMatchObject({ ok: true, result: 'later' });
  });

  it('gives null when nothing is returned', async () => {
    expect(await run('const a = 1;')).toMatchObject({ ok: true, result: null });
  });

  it('reports a syntax error as such', async () => {
    const r = await run('return (');
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.kind).toBe('syntax');
      expect(r.error.message).toMatch(/^SyntaxError: /);
    }
  });

  it('reports a thrown error with its stack, in the code’s own line numbers', async () => {
    const r = await run('const a = 1;\nfunction boom() { throw new TypeError("bad thing") }\nboom();');
    expect(r).toMatchObject({ ok: false, error: { kind: 'runtime', message: 'TypeError: bad thing' } });
    if (!r.ok) {
      expect(r.error.stack).toMatch(/^TypeError: bad thing\n\s+at boom \(<code>:2:\d+\)/);
      expect(r.error.stack).not.toMatch(/prelude|node:|file:/);
    }
  });

  it('reports a rejected promise, a thrown string and a thrown object', async () => {
    expect(await run('await Promise.reject(new Error("nope"))')).toMatchObject({ ok: false, error: { kind: 'runtime', message: 'Error: nope' } });
    expect(await run('throw "plain"')).toMatchObject({ ok: false, error: { kind: 'runtime', message: 'plain' } });
    expect(await run('throw { code: 42 }')).toMatchObject({ ok: false, error: { kind: 'runtime', message: 'Uncaught {"code":42}' } });
  });

  it('survives a thrown Proxy that throws on every access', async () => {
    const r = await run('throw new Proxy({}, { get() { throw 1 }, has() { throw 1 }, getPrototypeOf() { throw 1 } })');
    expect(r).toMatchObject({ ok: false, error: { kind: 'runtime' } });
  });

  it('keeps its own references when the code replaces globals', async () => {
    const r = await run('JSON.stringify = () => "hijacked"; Object.keys = () => []; return { a: 1 }');
    expect(r).toMatchObject({ ok: true, result: { a: 1 } });
  });
});

describe('sandbox prelude: JSON-safe values', () => {
  it('renders primitives JSON cannot hold', () => {
    expect(safe([NaN, Infinity, -Infinity, -0, 10n, Symbol('q'), undefined, null, true]).value).toEqual([
      'NaN',
      'Infinity',
      '-Infinity',
      0,
      '10n',
      'Symbol(q)',
      null,
      null,
      true,
    ]);
    expect(safe(undefined).value).toBeNull();
  });

  it('omits undefined object keys like JSON does', () => {
    expect(safe({ a: undefined, b: 1 }).value).toEqual({ b: 1 });
  });

  it('marks cycles, not repeated references', () => {
    const a: Record<string, unknown> = { n: 1 };
    a.self = a;
    const shared = { s: 1 };
    expect(safe({ a, x: shared, y: shared }).value).toEqual({ a: { n: 1, self: '[Circular]' }, x: { s: 1 }, y: { s: 1 } });
    const list: unknown[] = [1];
    list.push(list);
    expect(safe(list).value).toEqual([1, '[Circular]']);
  });

  it('names functions and classes', () => {
    function named() {}
    class Thing {}
    expect(safe([named, () => {}, Thing, Math.max]).value).toEqual(['[Function named]', '[Function (anonymous)]', '[class Thing]', '[Function max]']);
  });

  it('renders built-in objects sensibly', () => {
    const err = new RangeError('too far', { cause: 'because' }) as Error & { code?: string };
    err.code = 'E_FAR';
    const out = safe({
      map: new Map<unknown, unknown>([['k', 1], [{ o: 1 }, [2]]]),
      set: new Set([1, 'two']),
      date: new Date(0),
      bad: new Date(NaN),
      re: /a+b/gi,
      bytes: new Uint8Array([1, 2, 3]),
      bigs: new BigInt64Array([5n]),
      buf: new ArrayBuffer(16),
      view: new DataView(new ArrayBuffer(4)),
      promise: Promise.resolve(1),
      weak: new WeakMap(),
      boxed: [new Number(3), new String('s'), new Boolean(false)],
      nullProto: Object.assign(Object.create(null), { z: 1 }),
      url: { toJSON: () => 'https://example.test/' },
      err,
    }).value;
    expect(out).toMatchObject({
      map: { '[Map]': [['k', 1], [{ o: 1 }, [2]]] },
      set: { '[Set]': [1, 'two'] },
      date: '1970-01-01T00:00:00.000Z',
      bad: 'Invalid Date',
      re: '/a+b/gi',
      bytes: { '[Uint8Array]': [1, 2, 3] },
      bigs: { '[BigInt64Array]': ['5n'] },
      buf: '[ArrayBuffer 16 bytes]',
      view: '[DataView 4 bytes]',
      promise: '[Promise]',
      weak: '[WeakMap]',
      boxed: [3, 's', false],
      nullProto: { z: 1 },
      url: 'https://example.test/',
      err: { name: 'RangeError', message: 'too far', code: 'E_FAR', cause: 'because' },
    });
    expect(out.err.stack).toMatch(/^RangeError: too far/);
  });

  it('does not crash on hostile objects', () => {
    const getter = Object.defineProperty({}, 'boom', {
      enumerable: true,
      get() {
        throw new Error('no reading');
      },
    });
    const proxy = new Proxy(
      {},
      {
        ownKeys() {
          throw new Error('no keys');
        },
      },
    );
    expect(safe({ getter, proxy }).value).toEqual({ getter: { boom: '[Thrown: no reading]' }, proxy: '[Unserializable: no keys]' });
  });

  it('stops at a depth limit', () => {
    let deep: Record<string, unknown> = {};
    const root = deep;
    for (let i = 0; i < 10_000; i++) deep = (deep.next = {}) as Record<string, unknown>;
    expect(JSON.stringify(safe(root).value)).toContain('"[Object]"');
  });

  it('cuts a 10 MB string to the budget', () => {
    const t = performance.now();
    const out = safe('x'.repeat(10 * 1024 * 1024), 100_000);
    expect(out.truncated).toBe(true);
    expect(typeof out.value).toBe('string');
    expect((out.value as string).length).toBeLessThanOrEqual(100_000);
    expect(out.value as string).toMatch(/x…\[\+\d+ chars\]$/);
    expect(performance.now() - t).toBeLessThan(1000);
  });

  it('cuts big arrays, objects, maps and reference bombs to the budget, quickly', () => {
    let bomb: unknown = 'leaf';
    for (let i = 0; i < 60; i++) bomb = [bomb, bomb]; // 2^60 leaves when expanded
    const bigObject = Object.fromEntries(Array.from({ length: 200_000 }, (_, i) => [`key${i}`, i]));
    const cases: unknown[] = [
      new Array(1e6).fill('abcdefghij'),
      new Array(1e9), // sparse: only the budget's worth is visited
      bigObject,
      new Map(Array.from({ length: 200_000 }, (_, i) => [i, i])),
      bomb,
    ];
    for (const value of cases) {
      const t = performance.now();
      const out = safe(value, 10_000);
      expect(out.truncated).toBe(true);
      expect(JSON.stringify(out.value).length).toBeLessThan(12_000);
      expect(performance.now() - t).toBeLessThan(1500);
    }
    expect(JSON.stringify(safe(new Array(1e6).fill(1), 1000).value)).toMatch(/"…\[\+\d+ more items\]"\]$/);
    expect(safe(bigObject, 1000).value['…']).toMatch(/^\[\+\d+ more keys\]$/);
  });

  it('marks nothing truncated when it fits', () => {
    expect(safe({ a: [1, 2, 3], s: 'short' }, 1000)).toEqual({ value: { a: [1, 2, 3], s: 'short' }, truncated: false });
  });
});

describe('sandbox prelude: console', () => {
  it('captures each call as one line, warn and error prefixed', async () => {
    const lines: string[] = [];
    const { realm: r } = realm({}, (l) => lines.push(l));
    const report = JSON.parse(
      await r.run(
        'console.log("a", 1, { b: 2 }, [3], null, undefined, 5n); console.info("info"); console.debug("debug");' +
          'console.warn("careful"); console.error("bad", new Error("e1")); console.log("%s is %d%% done %o", "job", 42.7, { x: 1 });' +
          'console.assert(1 === 2, "math"); console.count(); console.count(); console.table([1]); console.log(-0, "x")',
      ),
    );
    expect(report.logs).toEqual([
      'a 1 {"b":2} [3] null undefined 5n',
      'info',
      'debug',
      '[warn] careful',
      expect.stringMatching(/^\[error\] bad Error: e1\n\s+at /),
      'job is 42% done {"x":1}',
      '[error] Assertion failed: math',
      'default: 1',
      'default: 2',
      '[1]',
      '-0 x',
    ]);
    expect(lines).toEqual(report.logs);
  });

  it('caps the number of lines and their size, and says so', async () => {
    const lines: string[] = [];
    const { realm: r } = realm({ maxLogLines: 5, maxLogChars: 1000 }, (l) => lines.push(l));
    const report = JSON.parse(await r.run('for (let i = 0; i < 50; i++) console.log("line", i); return 1'));
    expect(report.logs).toHaveLength(6);
    expect(report.logs[5]).toBe('…[+45 more log lines dropped]');
    expect(lines).toHaveLength(6);
    expect(lines[5]).toMatch(/log limit reached/);

    const big = JSON.parse(await realm({ maxLogChars: 1000 }).realm.run('console.log("y".repeat(5000)); console.log("after"); return 1'));
    expect(big.logs[0].length).toBeLessThan(1100);
    expect(big.logs[0]).toMatch(/…\[\+\d+ chars\]$/);
    expect(big.logs.at(-1)).toBe('…[+1 more log lines dropped]');
  });

  it('logs values that would crash a naive formatter', () => {
    const r = installSandboxPrelude({}, LIMITS, {});
    const cyclic: Record<string, unknown> = {};
    cyclic.c = cyclic;
    expect(r.formatLogArgs([cyclic, Symbol('s'), () => 1])).toBe('{"c":"[Circular]"} Symbol(s) [Function (anonymous)]');
  });

  it('logs errors that escape the code', () => {
    const lines: string[] = [];
    const r = installSandboxPrelude({}, LIMITS, { log: (l) => lines.push(l) });
    r.uncaught(new Error('late'));
    expect(lines[0]).toMatch(/^\[error\] Uncaught Error: late/);
  });
});

describe('sandbox prelude: shipped as source text', () => {
  it('is self-contained: every test above ran it from its source text in a fresh realm', async () => {
    const lines: string[] = [];
    const { realm: r } = realm({}, (l) => lines.push(l));
    const report = JSON.parse(await r.run('console.log("inside", new Map([[1, 2]])); await null; return { n: 10n, d: new Date(0) }'));
    expect(report).toEqual({ ok: true, result: { n: '10n', d: '1970-01-01T00:00:00.000Z' }, truncated: false, logs: ['inside {"[Map]":[[1,2]]}'] });
    expect(lines).toEqual(['inside {"[Map]":[[1,2]]}']);
  });

  it('provides timers through hooks where the realm has none', async () => {
    const pending = new Map<number, () => void>();
    let seq = 0;
    const global: Record<string, unknown> = {};
    const r = installSandboxPrelude(global, LIMITS, {
      setTimer: (fn) => (pending.set(++seq, fn), seq),
      clearTimer: (id) => pending.delete(id),
    });
    const done = r.run('const order = []; setTimeout(() => order.push("t"), 5); const id = setTimeout(() => order.push("cancelled"), 1); clearTimeout(id); await new Promise(r => setTimeout(r, 10)); return order');
    for (let i = 0; i < 5 && pending.size; i++) {
      await Promise.resolve();
      for (const [id, fn] of [...pending].sort((a, b) => a[0] - b[0])) {
        pending.delete(id);
        fn();
      }
    }
    expect(JSON.parse(await done)).toMatchObject({ ok: true, result: ['t'] });
  });
});
