/**
 * Reading a fetch Response body with a size cap. `response.arrayBuffer()` would hold a
 * multi-gigabyte download in memory before anyone could look at it; streaming lets web_fetch
 * stop at the cap and cancel the rest of the transfer.
 */

/** The most web_fetch reads of one body: 10 MiB. */
export const MAX_BODY_BYTES = 10 * 1024 * 1024;

export interface CappedBody {
  /** The body, or its first `maxBytes` bytes when capped. */
  bytes: Uint8Array;
  /** True when the body was longer than the cap and the rest was not read. */
  capped: boolean;
  /** Bytes kept (`bytes.length`). */
  size: number;
  /**
   * The Content-Length header, when the server sent a valid one. With Content-Encoding
   * (gzip, br) it is the compressed size, while `bytes` are decoded: do not compare the two.
   */
  contentLength?: number;
}

export interface ReadBodyOptions {
  maxBytes?: number;
  signal?: AbortSignal;
}

/**
 * Reads a Response body up to `maxBytes` (default MAX_BODY_BYTES) and cancels the rest.
 * Rejects with the signal's reason when it aborts, and cancels the stream then too.
 */
export async function readBodyCapped(response: Response, { maxBytes = MAX_BODY_BYTES, signal }: ReadBodyOptions = {}): Promise<CappedBody> {
  const contentLength = parseContentLength(response.headers.get('content-length'));
  const extra = contentLength === undefined ? {} : { contentLength };
  signal?.throwIfAborted();
  if (!response.body) return { bytes: new Uint8Array(0), capped: false, size: 0, ...extra };

  const reader = response.body.getReader();
  // Cancelling settles a pending read() at once (with done), so an abort never waits for the
  // next chunk of a slow server.
  const onAbort = () => void reader.cancel(signal?.reason).catch(() => {});
  signal?.addEventListener('abort', onAbort, { once: true });
  const chunks: Uint8Array[] = [];
  let size = 0;
  let capped = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      signal?.throwIfAborted();
      if (done) break;
      const chunk = toBytes(value);
      if (size + chunk.length > maxBytes) {
        chunks.push(chunk.subarray(0, maxBytes - size));
        size = maxBytes;
        capped = true;
        await reader.cancel('web_fetch size cap reached').catch(() => {});
        break;
      }
      chunks.push(chunk);
      size += chunk.length;
    }
  } catch (e) {
    await reader.cancel(e).catch(() => {});
    throw e;
  } finally {
    signal?.removeEventListener('abort', onAbort);
    reader.releaseLock();
  }
  return { bytes: concat(chunks, size), capped, size, ...extra };
}

function toBytes(value: unknown): Uint8Array {
  if (value instanceof Uint8Array) return value;
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  throw new TypeError('The response body stream gave a chunk that is not bytes.');
}

function concat(chunks: Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1 && chunks[0]!.length === size) return chunks[0]!;
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

function parseContentLength(raw: string | null): number | undefined {
  if (!raw || !/^\s*\d+\s*$/.test(raw)) return undefined;
  const n = Number(raw);
  return Number.isSafeInteger(n) ? n : undefined;
}
