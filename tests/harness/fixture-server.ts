import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const FIXTURES_DIR = path.resolve(here, '../../../shared/fixtures');
const LOCAL_PAGES = path.resolve(here, '../fixtures');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  '.xml': 'application/xml',
  '.css': 'text/css',
  '.js': 'text/javascript',
};

/**
 * Serves test pages on 127.0.0.1: /shared/... from ../shared/fixtures, everything else from
 * tests/fixtures. Later issues add routes (redirects, slow bodies, charsets) here.
 */
export class FixtureServer {
  private server?: http.Server;
  url = '';

  async start(): Promise<string> {
    this.server = http.createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.url;
  }

  async stop() {
    this.server?.closeAllConnections();
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://x');
    const [root, rel] = url.pathname.startsWith('/shared/')
      ? [FIXTURES_DIR, url.pathname.slice('/shared/'.length)]
      : [LOCAL_PAGES, url.pathname.slice(1) || 'index.html'];
    const file = path.resolve(root, decodeURIComponent(rel));
    if (!file.startsWith(root + path.sep)) return void res.writeHead(403).end('forbidden');
    try {
      const body = await fs.readFile(file);
      res.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream' });
      res.end(body);
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    }
  }
}
