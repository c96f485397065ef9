import { describe, expect, it } from 'vitest';
import { pageRunner } from '../../lib/browser/page-runner';

const run = (code: string, max = 100_000) => pageRunner(code, max, 'eval');
const value = async (code: string) => {
  const r = await run(code);
  expect(r.ok).toBe(true);
  return JSON.parse(r.json!);
};

describe('pageRunner (the code injected into pages)', () => {
  it('is self-contained, so its source can be injected on its own', async () => {
    const rebuilt = new Function(`return (${pageRunner.toString()})`)() as typeof pageRunner;
    const r = await rebuilt('return 6 * 7', 1000, 'eval');
    expect(r).toEqual({ ok: true, json: '42', truncated: false });
  });

  it('awaits async code', async () => {
    expect(await value('await new Promise((r) => setTimeout(r, 10)); return { done: true };')).toEqual({ done: true });
  });

  it('turns values JSON cannot hold into readable stand-ins', async () => {
    expect(
      await value(`
        const o = { n: 1n, f: function named() {}, u: undefined, s: Symbol('x'), inf: Infinity, nan: NaN,
          d: new Date(0), re: /a+/g, m: new Map([['k', 1]]), set: new Set([1, 2]), e: new TypeError('bad'), ta: new Uint8Array(4) };
        o.self = o;
        return o;`),
    ).toEqual({
      n: '1n',
      f: '[Function named]',
      u: null,
      s: 'Symbol(x)',
      inf: 'Infinity',
      nan: 'NaN',
      d: '1970-01-01T00:00:00.000Z',
      re: '/a+/g',
      m: { '[Map]': [['k', 1]] },
      set: { '[Set]': [1, 2] },
      e: { name: 'TypeError', message: 'bad' },
      ta: '[Uint8Array length 4]',
      self: '[Circular]',
    });
    expect(await value('return undefined')).toBeNull();
  });

  it('survives getters that throw', async () => {
    expect(await value("return { get boom() { throw new Error('no'); }, ok: 1 }")).toEqual({ boom: '[Getter threw: no]', ok: 1 });
  });

  it('caps a 10 MB return value and says so', async () => {
    const r = await run("return 'x'.repeat(10 * 1024 * 1024)", 100_000);
    expect(r.ok).toBe(true);
    expect(r.truncated).toBe(true);
    expect(r.json!.length).toBe(100_000);
  });

  it('reports a syntax error as such', async () => {
    const r = await run('return (1 + ;');
    expect(r).toMatchObject({ ok: false, error: { kind: 'syntax', name: 'SyntaxError' } });
  });

  it('reports a thrown error and a rejected promise with message and stack', async () => {
    const thrown = await run("throw new RangeError('out of range')");
    expect(thrown).toMatchObject({ ok: false, error: { kind: 'runtime', name: 'RangeError', message: 'out of range', stack: expect.stringContaining('RangeError') } });
    const rejected = await run("await Promise.reject(new Error('nope'))");
    expect(rejected).toMatchObject({ ok: false, error: { kind: 'runtime', message: 'nope' } });
    const weird = await run("throw 'a string'");
    expect(weird).toMatchObject({ ok: false, error: { kind: 'runtime', name: 'Error', message: 'a string' } });
  });

  it('runs inlined code (the userScripts path) through the thunk', async () => {
    const r = await pageRunner(null, 1000, 'inline', async () => ({ inline: true }));
    expect(r).toEqual({ ok: true, json: '{"inline":true}', truncated: false });
  });
});
