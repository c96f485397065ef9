import { describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES, readBodyCapped } from '../../lib/web/body';

/** A Response whose body arrives in the given chunks; records whether it was cancelled. */
function chunked(chunks: Uint8Array[], headers: Record<string, string> = {}) {
  const state = { pulled: 0, cancelled: false as boolean, reason: undefined as unknown };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = chunks[state.pulled++];
      if (next) controller.enqueue(next);
      else controller.close();
    },
    cancel(reason) {
      state.cancelled = true;
      state.reason = reason;
    },
  });
  return { response: new Response(stream, { headers }), state };
}

const filled = (n: number, byte = 0x61) => new Uint8Array(n).fill(byte);

describe('readBodyCapped', () => {
  it('reads a small body whole', async () => {
    const { response, state } = chunked([new TextEncoder().encode('hello '), new TextEncoder().encode('world')]);
    const body = await readBodyCapped(response);
    expect(new TextDecoder().decode(body.bytes)).toBe('hello world');
    expect(body).toMatchObject({ capped: false, size: 11 });
    expect(state.cancelled).toBe(false);
  });

  it('caps at maxBytes exactly and cancels the rest of the transfer', async () => {
    const { response, state } = chunked([filled(6), filled(6, 0x62), filled(6, 0x63), filled(6, 0x64)]);
    const body = await readBodyCapped(response, { maxBytes: 10 });
    expect(new TextDecoder().decode(body.bytes)).toBe('aaaaaabbbb');
    expect(body).toMatchObject({ capped: true, size: 10 });
    expect(state.cancelled).toBe(true);
    expect(state.pulled).toBeLessThan(4);
  });

  it('a body exactly at the cap is not capped', async () => {
    const { response, state } = chunked([filled(5), filled(5)]);
    const body = await readBodyCapped(response, { maxBytes: 10 });
    expect(body).toMatchObject({ capped: false, size: 10 });
    expect(state.cancelled).toBe(false);
  });

  it('defaults to a 10 MiB cap', async () => {
    expect(MAX_BODY_BYTES).toBe(10 * 1024 * 1024);
    const { response, state } = chunked(Array.from({ length: 12 }, () => filled(1024 * 1024)));
    const body = await readBodyCapped(response);
    expect(body.size).toBe(MAX_BODY_BYTES);
    expect(body.bytes.length).toBe(MAX_BODY_BYTES);
    expect(body.capped).toBe(true);
    expect(state.cancelled).toBe(true);
  });

  it('reports a valid Content-Length and ignores a bogus one', async () => {
    const a = await readBodyCapped(new Response('abc', { headers: { 'content-length': '3' } }));
    expect(a).toMatchObject({ size: 3, contentLength: 3, capped: false });
    const b = await readBodyCapped(chunked([filled(2)], { 'content-length': '12, 12' }).response);
    expect(b.contentLength).toBeUndefined();
  });

  it('handles a body-less response', async () => {
    const body = await readBodyCapped(new Response(null, { status: 204 }));
    expect(body).toEqual({ bytes: new Uint8Array(0), capped: false, size: 0 });
  });

  it('refuses to start when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort(new DOMException('stopped', 'AbortError'));
    await expect(readBodyCapped(new Response('abc'), { signal: controller.signal })).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('an abort while waiting for a slow server rejects at once and cancels the stream', async () => {
    let cancelled: unknown = null;
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(filled(3));
        // …and then nothing more ever arrives.
      },
      cancel(reason) {
        cancelled = reason;
      },
    });
    const controller = new AbortController();
    const reading = readBodyCapped(new Response(stream), { signal: controller.signal });
    setTimeout(() => controller.abort(new DOMException('user stopped', 'AbortError')), 20);
    await expect(reading).rejects.toMatchObject({ name: 'AbortError', message: 'user stopped' });
    expect(cancelled).toMatchObject({ name: 'AbortError' });
  });

  it('passes a stream error on', async () => {
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(filled(3));
        controller.error(new TypeError('network error'));
      },
    });
    await expect(readBodyCapped(new Response(stream))).rejects.toThrow('network error');
  });

  it('is fast on many small chunks', async () => {
    const chunks = Array.from({ length: 20_000 }, () => filled(100));
    const started = performance.now();
    const body = await readBodyCapped(chunked(chunks).response);
    expect(body.size).toBe(2_000_000);
    expect(performance.now() - started).toBeLessThan(5000);
  });
});
