import { describe, expect, it } from 'vitest';
import { cleanLogs, normalizeRun, SANDBOX_DEFAULTS, toOutcome } from '../../lib/sandbox/report';

const LIMITS = { maxOutputChars: 100_000, maxLogLines: 200, maxLogChars: 20_000 };
const done = (report: unknown, durationMs = 5) => ({ status: 'done', report: typeof report === 'string' ? report : JSON.stringify(report), durationMs });

describe('sandbox run options', () => {
  it('fills in the defaults', () => {
    expect(normalizeRun('return 1', { timeoutMs: 1000 })).toEqual({
      ok: true,
      request: { code: 'return 1', timeoutMs: 1000, limits: { maxOutputChars: 100_000, maxLogLines: 200, maxLogChars: 20_000 } },
    });
  });

  it('clamps what is too large and rounds', () => {
    const r = normalizeRun('', { timeoutMs: 1e12 + 0.5, maxOutputChars: 1e12 });
    expect(r.ok && r.request.timeoutMs).toBe(SANDBOX_DEFAULTS.maxTimeoutMs);
    expect(r.ok && r.request.limits.maxOutputChars).toBe(SANDBOX_DEFAULTS.maxOutputCharsCeiling);
    const s = normalizeRun('', { timeoutMs: 10.2, maxOutputChars: 500.9 });
    expect(s.ok && [s.request.timeoutMs, s.request.limits.maxOutputChars]).toEqual([11, 500]);
  });

  it('refuses what makes no sense, saying why', () => {
    for (const timeoutMs of [0, -1, NaN, Infinity, '100' as unknown as number, undefined as unknown as number]) {
      expect(normalizeRun('x', { timeoutMs })).toMatchObject({ ok: false, message: expect.stringMatching(/timeoutMs/) });
    }
    expect(normalizeRun('x', { timeoutMs: 10, maxOutputChars: 0 })).toMatchObject({ ok: false, message: expect.stringMatching(/maxOutputChars/) });
    expect(normalizeRun(42, { timeoutMs: 10 })).toMatchObject({ ok: false, message: 'The code must be a string.' });
    expect(normalizeRun('x'.repeat(SANDBOX_DEFAULTS.maxCodeChars + 1), { timeoutMs: 10 })).toMatchObject({ ok: false, message: expect.stringMatching(/limit/) });
  });
});

describe('sandbox answers', () => {
  it('passes a good report through', () => {
    expect(toOutcome(done({ ok: true, result: [1, 2], truncated: false, logs: ['a'] }), LIMITS, 9)).toEqual({
      ok: true,
      result: [1, 2],
      logs: ['a'],
      truncated: false,
      durationMs: 5,
    });
    expect(toOutcome(done({ ok: false, error: { kind: 'syntax', message: 'SyntaxError: x', stack: 's' }, logs: [] }), LIMITS, 9)).toEqual({
      ok: false,
      error: { kind: 'syntax', message: 'SyntaxError: x', stack: 's' },
      logs: [],
      durationMs: 5,
    });
  });

  it('passes host-side failures through with their logs', () => {
    expect(toOutcome({ status: 'failed', kind: 'timeout', message: 'too long', logs: ['before'], durationMs: 1000 }, LIMITS, 1)).toEqual({
      ok: false,
      error: { kind: 'timeout', message: 'too long' },
      logs: ['before'],
      durationMs: 1000,
    });
  });

  it('turns anything malformed into a host error, never a throw', () => {
    for (const raw of [null, 'x', 42, [], { status: 'done' }, { status: 'weird' }, done('{not json'), done('[1]'), done('null')]) {
      expect(toOutcome(raw, LIMITS, 3)).toMatchObject({ ok: false, error: { kind: 'host' } });
    }
    expect(toOutcome({ status: 'failed', kind: 'made-up', message: 7 }, LIMITS, 3)).toMatchObject({ ok: false, error: { kind: 'host', message: 'The sandbox failed.' } });
  });

  it('lets the realm claim only syntax or runtime errors', () => {
    expect(toOutcome(done({ ok: false, error: { kind: 'timeout', message: 'fake' }, logs: [] }), LIMITS, 3)).toMatchObject({ error: { kind: 'runtime' } });
  });

  it('refuses an answer far beyond the budget', () => {
    const huge = done({ ok: true, result: 'x'.repeat(2_000_000), logs: [] });
    expect(toOutcome(huge, LIMITS, 3)).toMatchObject({ ok: false, error: { kind: 'output_too_large' } });
  });

  it('uses the elapsed time when the answer has no usable duration', () => {
    expect(toOutcome({ status: 'done', report: JSON.stringify({ ok: true, result: 1, logs: [] }), durationMs: -1 }, LIMITS, 42)).toMatchObject({ durationMs: 42 });
  });

  it('keeps only string log lines, within the caps', () => {
    expect(cleanLogs(['a', 1, null, 'b'], LIMITS)).toEqual(['a', 'b']);
    expect(cleanLogs(Array.from({ length: 1000 }, () => 'x'), LIMITS)).toHaveLength(202);
    expect(cleanLogs(['y'.repeat(50_000)], LIMITS)[0]).toHaveLength(20_200);
    expect(cleanLogs('nope', LIMITS)).toEqual([]);
  });
});
