import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { BAD_PAGES } from './bad-pages';
import { FIXTURES_DIR } from './fixtures';

export { FIXTURES_DIR };

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
  // The charset pages say their encoding where their names say: in the header, or only inside.
  'tr-windows-1254-header.html': { 'content-type': 'text/html; charset=windows-1254' },
  'ko-euc-kr-meta.html': { 'content-type': 'text/html' },
  'ja-shift_jis-http-equiv.html': { 'content-type': 'text/html' },
  'zh-gbk-meta.html': { 'content-type': 'text/html' },
  'podcast.rss': { 'content-type': 'application/rss+xml' },
  'blog.atom': { 'content-type': 'application/atom+xml' },
  'three-pages.pdf': { 'content-type': 'application/pdf' },
};

/** Captured search pages (tests/fixtures/search), served where the engines' endpoints point in tests. */
const SEARCH_PAGES: Record<string, [file: string, type: string]> = {
  '/engines/duckduckgo/html/': ['search/duckduckgo/desimoose_celina/ddg_html.html', 'text/html; charset=utf-8'],
  '/engines/duckduckgo-challenge/html/': ['search/duckduckgo/desimoose_celina/ddg_lite.html', 'text/html; charset=utf-8'],
  '/engines/bing/search': ['search/bing/desimoose_celina/bing.html', 'text/html; charset=utf-8'],
  '/engines/baidu/s': ['search/baidu/webis-de_archive-query-log/baidu-lian-yun-gang-qi-yang-yue-zi-hui-suo-zhong-xin-jing-zhun-ke-hu-ying-xiao-key668-cn-1537259978.html', 'text/html; charset=utf-8'],
  '/engines/baidu-empty/s': ['search/baidu/webis-de_archive-query-log/baidu-lian-xi-qu-dian-nao-pei-xun-1643390077.html', 'text/html; charset=utf-8'],
  '/engines/google/customsearch/v1': ['search/google-cse/microsoft_semantic-kernel/google_what_is_the_semantic_kernel.json', 'application/json; charset=utf-8'],
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

/** The last request each search endpoint saw (tests check what the engine was asked). */
export const searchRequests = new Map<string, { url: string; headers: http.IncomingHttpHeaders }>();

const ROUTES: Record<string, (req: http.IncomingMessage, res: http.ServerResponse) => void> = {
  ...Object.fromEntries(
    Object.entries(SEARCH_PAGES).map(([route, [file, type]]) => [
      route,
      (req: http.IncomingMessage, res: http.ServerResponse) => {
        searchRequests.set(route, { url: req.url ?? '', headers: req.headers });
        void fs.readFile(path.join(FIXTURES_DIR, file)).then((body) => res.writeHead(200, { 'content-type': type }).end(body));
      },
    ]),
  ),
  // Baidu's redirect links, asked from the endpoint's origin: a 200 page that refreshes to the target.
  '/link': (req, res) => {
    const id = new URL(req.url ?? '/', 'http://x').searchParams.get('url') ?? '';
    const target = `https://resolved.example/${encodeURIComponent(id.slice(0, 12))}`;
    res.writeHead(200, { 'content-type': 'text/html' }).end(`<meta http-equiv="refresh" content="0;URL='${target}'">`);
  },
  '/web/redirect': (req, res) => {
    const n = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('n') ?? '0');
    res.writeHead(302, { location: n > 1 ? `/web/redirect?n=${n - 1}` : '/web/article.html' }).end();
  },
  // A redirect to any address (?to=URL): from one test site into another.
  '/web/redirect-to': (req, res) => {
    res.writeHead(302, { location: new URL(req.url ?? '/', 'http://x').searchParams.get('to') ?? '/' }).end();
  },
  '/web/set-cookie': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html', 'set-cookie': 'session=users-secret; Path=/; SameSite=Lax' }).end('<title>Cookie set</title><p>Signed in.</p>');
  },
  '/web/echo-headers': (req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ cookie: req.headers.cookie ?? null, authorization: req.headers.authorization ?? null }));
  },
  '/web/missing': (_req, res) => {
    res.writeHead(404, { 'content-type': 'text/html' }).end('<title>Not found</title><h1>Nothing here</h1><p>The page you asked for was moved.</p>');
  },
  // Answers nothing at all (no headers) for longer than web_fetch waits.
  '/web/slow': (req, res) => {
    const timer = setTimeout(() => res.end(), 45_000);
    res.on('close', () => clearTimeout(timer));
  },
  // 12 MB of text, streamed: more than web_fetch reads.
  '/web/huge.txt': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
    const line = 'A line of a very large log file, repeated until the body is far past the cap.\n';
    const chunk = line.repeat(Math.ceil(65536 / line.length));
    let sent = 0;
    const pump = () => {
      while (sent < 12 * 1024 * 1024) {
        sent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      res.end();
    };
    res.on('error', () => {});
    pump();
  },
  '/web/big-1mb.html': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(bigPage(1024 * 1024));
  },
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
 * Serves test pages on 127.0.0.1 from tests/fixtures, beside the routes above.
 */
export class FixtureServer {
  private server?: http.Server;
  url = '';
  /** Every request this server was sent, with the Host it named (the test sites share the server). */
  readonly requests: { host: string; path: string }[] = [];
  /** Bodies a test made at run time (a bundle it built), by path. */
  private readonly served = new Map<string, { type: string; body: string | Buffer }>();

  /** Serves `body` at `path` from now on (before the files in tests/fixtures). */
  serve(path: string, type: string, body: string | Buffer): void {
    this.served.set(path, { type, body });
  }

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
    this.requests.push({ host: req.headers.host ?? '', path: req.url ?? '/' });
    const url = new URL(req.url ?? '/', 'http://x');
    const route = ROUTES[url.pathname];
    if (route) return route(req, res);
    const made = this.served.get(url.pathname);
    if (made) return void res.writeHead(200, { 'content-type': made.type }).end(made.body);
    // The generated bad-input pages (tests/harness/bad-pages.ts); the frameset's frames are files.
    const bad = /^\/bad-input\/([\w-]+)\.html$/.exec(url.pathname)?.[1];
    if (bad && BAD_PAGES[bad]) return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(BAD_PAGES[bad]());
    const file = path.resolve(FIXTURES_DIR, decodeURIComponent(url.pathname.slice(1) || 'index.html'));
    if (!file.startsWith(FIXTURES_DIR + path.sep)) return void res.writeHead(403).end('forbidden');
    try {
      const body = await fs.readFile(file);
      res.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream', ...HEADERS[path.basename(file)] });
      res.end(body);
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    }
  }
}
