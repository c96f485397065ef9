import { afterEach, describe, expect, it, vi } from 'vitest';
import { DraftInputBatch } from '../../lib/agent/draft-input-batch';

describe('DraftInputBatch', () => {
  afterEach(() => vi.useRealTimers());

  it('hands on many small deltas as one, after the interval', () => {
    vi.useFakeTimers();
    const out: [number, string][] = [];
    const batch = new DraftInputBatch((i, json) => out.push([i, json]), 50);
    for (const part of ['{"sql":', ' "SELECT', ' 1"', '}']) batch.add(2, part);
    expect(out).toEqual([]);
    vi.advanceTimersByTime(50);
    expect(out).toEqual([[2, '{"sql": "SELECT 1"}']]);
    vi.advanceTimersByTime(500);
    expect(out).toHaveLength(1);
  });

  it('keeps blocks apart and in order, and flushes on demand (before any other event)', () => {
    vi.useFakeTimers();
    const out: [number, string][] = [];
    const batch = new DraftInputBatch((i, json) => out.push([i, json]), 50);
    batch.add(0, '{"a"');
    batch.add(0, ':1}');
    batch.add(1, '{"b":');
    batch.flush();
    batch.add(1, '2}');
    batch.flush();
    batch.flush();
    expect(out).toEqual([
      [0, '{"a":1}'],
      [1, '{"b":'],
      [1, '2}'],
    ]);
    vi.advanceTimersByTime(100);
    expect(out).toHaveLength(3);
  });

  it('turns a 1 MB argument in 32-character deltas into a few hand-ons, text intact', () => {
    vi.useFakeTimers();
    const json = JSON.stringify({ sql: `SELECT 1 /* ${'x'.repeat(1024 * 1024)} */` });
    let received = '';
    let calls = 0;
    const batch = new DraftInputBatch((_i, part) => ((received += part), calls++), 50);
    for (let i = 0; i < json.length; i += 32) batch.add(0, json.slice(i, i + 32));
    batch.flush();
    expect(received).toBe(json);
    expect(calls).toBe(1);
  });
});
