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

/** Extra response headers per fixture file. */
const HEADERS: Record<string, Record<string, string>> = {
  'strict-csp.html': { 'content-security-policy': "script-src 'self'; object-src 'none'" },
};

/** A long article of about `bytes` bytes: many sections of real-looking prose. */
export function bigPage(bytes: number): string {
  const para =
    '<p>Extraction has to stay fast on long pages. This paragraph repeats to build a page of several megabytes, ' +
    'with headings, links and lists in between, the way a long documentation page or an endless thread looks.</p>';
  const parts: string[] = ['<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Big page</title></head><body><main><h1>A very long page</h1>'];
  let size = parts[0]!.length;
  for (let i = 0; size < bytes; i++) {
    const section = `<section id="s${i}"><h2>Section ${i}</h2>${para.repeat(8)}<ul><li><a href="/item/${i}">Item ${i}</a></li><li>Note ${i}</li></ul></section>`;
    parts.push(section);
    size += section.length;
  }
  parts.push('</main></body></html>');
  return parts.join('');
}

const ROUTES: Record<string, (req: http.IncomingMessage, res: http.ServerResponse) => void> = {
  '/big.html': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(bigPage(5 * 1024 * 1024));
  },
  // Never finishes loading: the body trickles for a minute.
  '/slow.html': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.write('<!doctype html><title>Slow</title><p>Still loading');
    const timer = setInterval(() => res.write('.'), 1000);
    setTimeout(() => (clearInterval(timer), res.end('</p>')), 60_000);
    res.on('close', () => clearInterval(timer));
  },
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
    const route = ROUTES[url.pathname];
    if (route) return route(req, res);
    const [root, rel] = url.pathname.startsWith('/shared/')
      ? [FIXTURES_DIR, url.pathname.slice('/shared/'.length)]
      : [LOCAL_PAGES, url.pathname.slice(1) || 'index.html'];
    const file = path.resolve(root, decodeURIComponent(rel));
    if (!file.startsWith(root + path.sep)) return void res.writeHead(403).end('forbidden');
    try {
      const body = await fs.readFile(file);
      res.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream', ...HEADERS[path.basename(file)] });
      res.end(body);
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    }
  }
}
