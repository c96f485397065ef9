import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readBody } from './http';

/**
 * The attacker's server for the prompt-injection e2e (tests/fixtures/injection): listens on
 * 127.0.0.1 on a random port, records every request that reaches it — method, URL, headers and
 * body — and answers each one 200 "ok", the way a willing collector would (CORS open, so a page's
 * fetch() or a form post gets through too). A test that is going well sees count() === 0.
 *
 * Tests map every *.pagewright.test name to 127.0.0.1, so the attacker is addressed as
 * `originFor('attacker.pagewright.test')`; `url` is the plain 127.0.0.1 origin.
 */

export interface RecordedHit {
  method: string;
  /** The request target as sent: path and query (e.g. "/collect?token=…"). */
  url: string;
  /** The Host header: which *.pagewright.test name the request was made to. */
  host: string;
  headers: http.IncomingHttpHeaders;
  /** The body as UTF-8 text ('' when there was none). */
  body: string;
  at: number;
}

export class RecordingServer {
  readonly requests: RecordedHit[] = [];
  private server?: http.Server;
  private waiters: { n: number; resolve: () => void }[] = [];
  /** http://127.0.0.1:PORT once started. */
  url = '';
  port = 0;

  async start(): Promise<string> {
    this.server = http.createServer((req, res) => void this.handle(req, res));
    this.server.keepAliveTimeout = 1000;
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.port = (this.server.address() as AddressInfo).port;
    this.url = `http://127.0.0.1:${this.port}`;
    return this.url;
  }

  async stop() {
    this.server?.closeAllConnections();
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
    this.server = undefined;
  }

  /** This server under another name, e.g. originFor('attacker.pagewright.test'). */
  originFor(host: string): string {
    return `http://${host}:${this.port}`;
  }

  count(): number {
    return this.requests.length;
  }

  reset() {
    this.requests.length = 0;
  }

  /** Resolves once at least n requests have arrived (a test proving the server does record). */
  waitForRequests(n: number, timeoutMs = 10_000): Promise<RecordedHit[]> {
    if (this.requests.length >= n) return Promise.resolve(this.requests);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`recording server: expected ${n} requests, got ${this.requests.length}`)), timeoutMs);
      this.waiters.push({ n, resolve: () => (clearTimeout(timer), resolve(this.requests)) });
    });
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse) {
    const body = await readBody(req).catch(() => '');
    // Every request counts, preflights (OPTIONS) too: a preflight alone already carries the URL.
    this.requests.push({ method: req.method ?? '', url: req.url ?? '', host: req.headers.host ?? '', headers: req.headers, body, at: Date.now() });
    this.waiters = this.waiters.filter((w) => (this.requests.length >= w.n ? (w.resolve(), false) : true));
    res.writeHead(200, {
      'content-type': 'text/plain; charset=utf-8',
      'access-control-allow-origin': '*',
      'access-control-allow-methods': '*',
      'access-control-allow-headers': '*',
      'access-control-allow-private-network': 'true',
    });
    res.end('ok');
  }
}

