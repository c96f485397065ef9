/** The small pieces every local fake server here shares: read a body, answer JSON, split a stream. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export function json(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** `s` in pieces of `n` characters: the deltas a streamed reply arrives in. */
export function split(s: string, n: number): string[] {
  if (!s) return [];
  const parts: string[] = [];
  for (let i = 0; i < s.length; i += n) parts.push(s.slice(i, i + n));
  return parts;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A server on 127.0.0.1 (an ephemeral port unless one is given), with short keep-alive so it stops fast. */
export async function listenLocal(handler: http.RequestListener, port = 0): Promise<{ server: http.Server; port: number }> {
  const server = http.createServer(handler);
  server.keepAliveTimeout = 1000;
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  return { server, port: (server.address() as AddressInfo).port };
}

export async function closeServer(server: http.Server | undefined): Promise<void> {
  server?.closeAllConnections();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
}

/** A request body as JSON when it is JSON, else the raw text (undefined when empty). */
export async function readJsonBody(req: http.IncomingMessage): Promise<any> {
  const raw = await readBody(req);
  try {
    return raw ? JSON.parse(raw) : undefined;
  } catch {
    return raw;
  }
}

/** Marks a recorded request aborted when the client goes away before the answer is finished. */
export function watchAbort(res: http.ServerResponse, record: { aborted: boolean }) {
  res.on('close', () => {
    if (!res.writableFinished) record.aborted = true;
  });
}

/** What a fake has received, and a way to wait until enough of it has. */
export class Arrivals<T> {
  private waiters: { n: number; resolve: () => void }[] = [];
  constructor(
    readonly list: T[],
    private readonly label: string,
  ) {}

  push(item: T) {
    this.list.push(item);
    this.waiters = this.waiters.filter((w) => (this.list.length >= w.n ? (w.resolve(), false) : true));
  }

  waitFor(n: number, timeoutMs: number): Promise<T[]> {
    if (this.list.length >= n) return Promise.resolve(this.list);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${this.label}: expected ${n} requests, got ${this.list.length}`)), timeoutMs);
      this.waiters.push({ n, resolve: () => (clearTimeout(timer), resolve(this.list)) });
    });
  }
}
