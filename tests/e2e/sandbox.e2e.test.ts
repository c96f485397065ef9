/**
 * The sandbox in the built extension: real Chromium with each of its engines (the manifest
 * sandbox page in the offscreen document, one blob Worker per run; QuickJS in a Worker of the
 * offscreen document) and Firefox ESR (QuickJS in a Worker of the background page). An
 * extension page asks the background to run code (lib/sandbox/protocol.ts); the escapes are
 * tried from inside the sandbox against a server on 127.0.0.1 that records everything that
 * reaches it.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'puppeteer-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { SandboxEngine } from '../../lib/sandbox';
import type { SandboxOutcome } from '../../lib/sandbox/types';
import { launch, type BrowserName, type ExtensionBrowser } from '../harness/browsers';
import { sharedBrowser } from '../harness/shared-browser';
import { jsProbeBody } from '../harness/sandbox-probes';
import { QUICKJS_OUT_OF_MEMORY } from '../../lib/sandbox/quickjs-runner';

const configs: { label: string; browser: BrowserName; engine?: SandboxEngine }[] = [
  { label: 'chromium, v8 sandbox page', browser: 'chromium', engine: 'v8' },
  { label: 'chromium, quickjs (the default)', browser: 'chromium' },
  { label: 'firefox, quickjs', browser: 'firefox' },
];
const SECRET = 'pagewright-secret-7f3a9c';

/** Records every request and WebSocket upgrade; answers generously (CORS, JS) so that only
 *  the sandbox can be what stops a request. */
class RecordingServer {
  readonly hits: string[] = [];
  private server = http.createServer((req, res) => {
    this.hits.push(`${req.method} ${req.url}`);
    res.setHeader('access-control-allow-origin', '*');
    if (req.url?.startsWith('/sse')) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: hi\n\n');
      return;
    }
    res.setHeader('content-type', req.url?.endsWith('.js') ? 'text/javascript' : 'text/plain');
    res.end(req.url?.endsWith('.js') ? 'globalThis.reached = true; export {};' : 'reached');
  });
  url = '';

  async start() {
    this.server.on('upgrade', (req, socket) => {
      this.hits.push(`UPGRADE ${req.url}`);
      socket.destroy();
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop() {
    this.server.closeAllConnections();
    await new Promise((r) => this.server.close(r));
  }
}

/** Sends one of lib/sandbox/protocol.ts's messages as @webext-core/messaging frames it. */
function send<T>(page: Page, type: string, data: unknown): Promise<T> {
  return page.evaluate(
    async (type, data) => {
      const api = (globalThis as any).browser ?? (globalThis as any).chrome;
      const reply = await api.runtime.sendMessage({ id: Date.now(), type, data, timestamp: Date.now() });
      if (reply?.err) throw new Error(reply.err.message);
      return reply?.res;
    },
    type,
    data as never,
  ) as Promise<T>;
}

let runSeq = 0;
const runIn = (page: Page, engine: SandboxEngine | undefined, code: string, timeoutMs = 5000, maxOutputChars?: number) =>
  send<SandboxOutcome>(page, 'sandboxRun', { runId: `run-${++runSeq}`, code, timeoutMs, maxOutputChars, engine });

const resultOf = (o: SandboxOutcome) => {
  if (!o.ok) throw new Error(`Expected a result, got ${o.error.kind}: ${o.error.message}`);
  return o.result;
};

describe.each(configs)('sandbox in $label', ({ browser: name, engine }) => {
  const server = new RecordingServer();
  let ext: ExtensionBrowser;
  let page: Page;
  const run = (code: string, timeoutMs?: number, maxOutputChars?: number) => runIn(page, engine, code, timeoutMs, maxOutputChars);
  const quickjs = engine !== 'v8';

  beforeAll(async () => {
    await server.start();
  });
  afterAll(async () => {
    await server.stop();
  });
  sharedBrowser(name, {
    async onLaunch(e) {
      ext = e;
      page = await ext.open('popup.html');
    },
  });

  beforeEach(() => {
    server.hits.length = 0;
  });

  it('starts on demand, once, for concurrent first calls', async () => {
    const outcomes = await Promise.all([1, 2, 3].map((n) => run(`return ${n} * 10`)));
    expect(outcomes.map(resultOf)).toEqual([10, 20, 30]);
    if (name === 'chromium') {
      const documents = ext.browser.targets().filter((t) => t.url().endsWith('/offscreen.html'));
      expect(documents).toHaveLength(1);
    }
  });

  it('runs a function body and returns its value', async () => {
    const outcome = await run('const x = [1,2,3].map(n => n*n); return x;');
    expect(outcome).toMatchObject({ ok: true, result: [1, 4, 9], logs: [], truncated: false });
    expect(outcome.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('runs async code', async () => {
    const outcome = await run('const wait = (ms, v) => new Promise(r => setTimeout(() => r(v), ms)); const [a, b] = await Promise.all([wait(30, "a"), wait(10, "b")]); return a + b;');
    expect(resultOf(outcome)).toBe('ab');
  });

  it('captures console output beside the result', async () => {
    const outcome = await run('console.log("count", 3, { ok: true }); console.info("info"); console.warn("careful"); console.error("broken", [1]); return "done"');
    expect(outcome).toMatchObject({ ok: true, result: 'done', logs: ['count 3 {"ok":true}', 'info', '[warn] careful', '[error] broken [1]'] });
  });

  it('reports a thrown error with its stack', async () => {
    const outcome = await run('console.log("before");\nfunction boom() { throw new TypeError("bad thing") }\nboom();');
    expect(outcome).toMatchObject({ ok: false, error: { kind: 'runtime', message: 'TypeError: bad thing' }, logs: ['before'] });
    expect(!outcome.ok && outcome.error.stack).toMatch(/^TypeError: bad thing\n\s+at boom \(<code>:2:\d+\)/);
    expect(await run('await Promise.reject(new Error("rejected"))')).toMatchObject({ ok: false, error: { kind: 'runtime', message: 'Error: rejected' } });
  });

  it('reports a syntax error', async () => {
    const outcome = await run('return (1 +');
    expect(outcome).toMatchObject({ ok: false, error: { kind: 'syntax', message: expect.stringMatching(/^SyntaxError: /) } });
  });

  it('stops while(true) at the timeout, and the next call works', async () => {
    const started = Date.now();
    const outcome = await run('console.log("spinning"); while (true) {}', 1000);
    const took = Date.now() - started;
    expect(outcome).toMatchObject({ ok: false, error: { kind: 'timeout' }, logs: ['spinning'] });
    expect(took).toBeGreaterThanOrEqual(950);
    expect(took).toBeLessThan(4000);
    const next = Date.now();
    expect(resultOf(await run('return 1 + 1'))).toBe(2);
    expect(Date.now() - next).toBeLessThan(2000);
  });

  it('stops code at once when aborted', async () => {
    const { outcome, afterAbortMs } = await page.evaluate(async (engine) => {
      const api = (globalThis as any).browser ?? (globalThis as any).chrome;
      const send = (type: string, data: unknown) => api.runtime.sendMessage({ id: Date.now(), type, data, timestamp: Date.now() });
      const runId = `abort-${Math.random()}`;
      const running = send('sandboxRun', { runId, code: 'console.log("looping"); while (true) {}', timeoutMs: 30_000, engine });
      // A fixed time on purpose: the sandbox has no channel out until it answers, so "the loop
      // is running" cannot be observed. 800 ms is far past a run's start; were it too short, the
      // run would end "stopped before the code started" without the 'looping' log, and fail below.
      await new Promise((r) => setTimeout(r, 800));
      const t = performance.now();
      await send('sandboxAbort', { runId });
      const reply = await running;
      return { outcome: reply.res, afterAbortMs: performance.now() - t };
    }, engine ?? null);
    expect(outcome).toMatchObject({ ok: false, error: { kind: 'aborted' }, logs: ['looping'] });
    expect(afterAbortMs).toBeLessThan(1000);
    expect(resultOf(await run('return "next"'))).toBe('next');
  });

  it('truncates a 10 MB return value without trouble', async () => {
    const started = Date.now();
    const outcome = await run('return "x".repeat(10 * 1024 * 1024)');
    expect(outcome).toMatchObject({ ok: true, truncated: true });
    const text = resultOf(outcome) as string;
    expect(text.length).toBeGreaterThan(90_000);
    expect(text.length).toBeLessThanOrEqual(100_000);
    expect(text).toMatch(/x…\[\+\d+ chars\]$/);
    const rows = await run('return Array.from({ length: 200000 }, (_, i) => ({ i, text: "row " + i }))', 10_000, 5000);
    expect(rows).toMatchObject({ ok: true, truncated: true });
    expect(JSON.stringify(resultOf(rows)).length).toBeLessThan(6000);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('returns the values JSON cannot hold, alike in both browsers', async () => {
    const outcome = await run(
      'const a = { n: 1 }; a.self = a; return { a, big: 12345678901234567890n, f: function named() {}, arrow: () => 1, u: undefined,' +
        ' list: [undefined, NaN, Infinity, -Infinity, -0], m: new Map([["k", { v: 1 }]]), s: new Set([1, "two"]), d: new Date(0),' +
        ' bytes: new Uint8Array([1, 2, 3]), e: new RangeError("far"), sym: Symbol("q"), re: /x+/g }',
    );
    const result = resultOf(outcome) as Record<string, unknown>;
    expect(result).toMatchObject({
      a: { n: 1, self: '[Circular]' },
      big: '12345678901234567890n',
      f: '[Function named]',
      arrow: '[Function arrow]',
      list: [null, 'NaN', 'Infinity', '-Infinity', 0],
      m: { '[Map]': [['k', { v: 1 }]] },
      s: { '[Set]': [1, 'two'] },
      d: '1970-01-01T00:00:00.000Z',
      bytes: { '[Uint8Array]': [1, 2, 3] },
      e: { name: 'RangeError', message: 'far' },
      sym: 'Symbol(q)',
      re: '/x+/g',
    });
    expect(result).not.toHaveProperty('u');
    expect(await run('return undefined')).toMatchObject({ ok: true, result: null });
  });

  // Chrome's V8 sandbox cannot pass this: the allocation grows the extension's one renderer
  // process to V8's limit and Chrome kills it with the service worker and every extension page
  // (see SandboxEngine in lib/sandbox/engines.ts).
  it.runIf(quickjs)('survives code that allocates without end, and says which limit it reached', async () => {
    const outcome = await run('const a = []; while (true) a.push(new Array(1e6).fill(Math.random()))', 30_000);
    expect(outcome).toMatchObject({ ok: false, error: { kind: 'runtime', message: QUICKJS_OUT_OF_MEMORY } });
    expect(resultOf(await run('return "alive"'))).toBe('alive');
  });

  // QuickJS throws null here: it runs out while making its own error.
  it.runIf(quickjs && name === 'firefox')('says the same for many small objects', async () => {
    const outcome = await run('const m = new Map(); let i = 0; while (true) m.set(i++, { i, s: "y".repeat(100) })', 30_000);
    expect(outcome).toMatchObject({ ok: false, error: { kind: 'runtime', message: QUICKJS_OUT_OF_MEMORY } });
    expect(resultOf(await run('return "alive"'))).toBe('alive');
  });

  it('recovers from deep recursion', async () => {
    const recursions = [
      'function f() { return f() } f()',
      'function g() { return [1].map(g) } g()',
      'const o = { get x() { return o.x } }; o.x',
      'function h() { return JSON.stringify({ toJSON: h }) } h()',
      '[2, 1].sort(function c() { [2, 1].sort(c); return 0 })',
      'function p() { return new Proxy({}, { get: () => p().x }) } p().x',
    ];
    for (const code of recursions) {
      expect(await run(code), code).toMatchObject({ ok: false, error: { kind: 'runtime', message: expect.stringMatching(/stack|recursion/i) } });
      expect(resultOf(await run('return "fine"'))).toBe('fine');
    }
  });

  it('runs calls in parallel, each in a fresh global', async () => {
    const outcomes = await Promise.all([
      run('globalThis.shared = "one"; await new Promise(r => setTimeout(r, 200)); return typeof globalThis.other'),
      run('globalThis.other = "two"; await new Promise(r => setTimeout(r, 100)); return typeof globalThis.shared'),
      run('return 3'),
    ]);
    expect(outcomes.map(resultOf)).toEqual(['undefined', 'undefined', 3]);
    expect(resultOf(await run('return [typeof shared, typeof other]'))).toEqual(['undefined', 'undefined']);
    // More than the QuickJS host runs at once (4): the rest wait their turn.
    const many = await Promise.all([1, 2, 3, 4, 5, 6, 7].map((n) => run(`await new Promise(r => setTimeout(r, 150)); return ${n}`)));
    expect(many.map(resultOf)).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it('cannot reach the network', async () => {
    const outcome = await run(
      `const url = ${JSON.stringify(server.url)};
      const out = {};
      const attempt = async (name, fn) => {
        try { out[name] = String(await fn()); } catch (e) { out[name] = 'blocked: ' + (e && e.name) + ': ' + (e && e.message); }
      };
      const timeout = (ms) => new Promise((_, rej) => setTimeout(() => rej(new Error('no answer')), ms));
      await attempt('fetch', async () => 'reached ' + (await fetch(url + '/fetch')).status);
      await attempt('xhr', () => new Promise((res, rej) => { const x = new XMLHttpRequest(); x.open('GET', url + '/xhr'); x.onload = () => res('reached ' + x.status); x.onerror = () => rej(new Error('xhr error')); x.send(); }));
      await attempt('syncXhr', () => { const x = new XMLHttpRequest(); x.open('GET', url + '/sync-xhr', false); x.send(); return 'reached ' + x.status; });
      await attempt('webSocket', () => Promise.race([timeout(1500), new Promise((res, rej) => { const w = new WebSocket(url.replace('http', 'ws') + '/ws'); w.onopen = () => res('reached'); w.onerror = () => rej(new Error('ws error')); })]));
      await attempt('eventSource', () => Promise.race([timeout(1500), new Promise((res, rej) => { const s = new EventSource(url + '/sse'); s.onmessage = () => res('reached'); s.onerror = () => { s.close(); rej(new Error('sse error')); }; })]));
      await attempt('import', async () => { await import(url + '/module.js'); return 'reached'; });
      await attempt('importScripts', () => { importScripts(url + '/script.js'); return 'reached'; });
      await attempt('sendBeacon', () => navigator.sendBeacon(url + '/beacon', 'x') ? 'reached' : 'refused');
      await attempt('worker', () => Promise.race([timeout(1500), new Promise((res, rej) => { const w = new Worker(url + '/worker.js'); w.onerror = () => rej(new Error('worker error')); w.onmessage = () => res('reached'); })]));
      return out;`,
      15_000,
    );
    const result = resultOf(outcome) as Record<string, string>;
    expect(Object.keys(result)).toHaveLength(9);
    for (const [api, what] of Object.entries(result)) expect(`${api}: ${what}`).toMatch(/^\w+: (blocked|refused)/);
    // A fixed time is the point: a request that got out shows only by arriving (a beacon does not
    // wait for it), so give anything on its way over loopback time to before saying nothing did.
    await new Promise((r) => setTimeout(r, 500));
    expect(server.hits).toEqual([]);
  });

  it('has none of the removed globals (the probe table)', async () => {
    expect(resultOf(await run(jsProbeBody()))).toEqual([]);
  });

  it('has no extension APIs', async () => {
    const result = resultOf(await run('return [typeof chrome, typeof browser, Object.getOwnPropertyNames(globalThis).filter(n => /^(chrome|browser|runtime)$/i.test(n))]'));
    expect(result).toEqual(['undefined', 'undefined', []]);
  });

  it('has no DOM', async () => {
    const result = resultOf(
      await run('return ["document", "window", "DOMParser", "parent", "top", "opener", "frames", "HTMLElement", "alert", "open"].filter(n => typeof globalThis[n] !== "undefined")'),
    );
    expect(result).toEqual([]);
  });

  it("cannot read the extension's storage", async () => {
    const stored = await page.evaluate(async (secret) => {
      const done: string[] = [];
      const api = (globalThis as any).browser ?? (globalThis as any).chrome;
      const tryTo = async (name: string, fn: () => Promise<unknown> | unknown) => {
        try {
          await fn();
          done.push(name);
        } catch {}
      };
      await tryTo('localStorage', () => localStorage.setItem('pagewright-secret', secret));
      await tryTo('storage.local', () => api.storage.local.set({ pagewrightSecret: secret }));
      await tryTo(
        'indexedDB',
        () =>
          new Promise<void>((resolve, reject) => {
            const open = indexedDB.open('pagewright-secret-db', 1);
            open.onupgradeneeded = () => open.result.createObjectStore('kv');
            open.onerror = () => reject(open.error);
            open.onsuccess = () => {
              const tx = open.result.transaction('kv', 'readwrite');
              tx.objectStore('kv').put(secret, 'secret');
              tx.oncomplete = () => resolve();
              tx.onerror = () => reject(tx.error);
            };
          }),
      );
      await tryTo('caches', async () => (await caches.open('pagewright-secret-cache')).put('/secret', new Response(secret)));
      await tryTo('opfs', async () => {
        const dir = await navigator.storage.getDirectory();
        const writable = await (await dir.getFileHandle('pagewright-secret.txt', { create: true })).createWritable();
        await writable.write(secret);
        await writable.close();
      });
      await tryTo('cookie', () => {
        document.cookie = `pagewright=${secret}`;
        if (!document.cookie.includes(secret)) throw new Error('no cookies here');
      });
      return done;
    }, SECRET);
    // Whatever the browser allows an extension page, at least these hold the secret now.
    expect(stored).toEqual(expect.arrayContaining(['localStorage', 'storage.local', 'indexedDB']));

    const outcome = await run(
      `const out = {};
      const attempt = async (name, fn) => {
        try { const v = await fn(); out[name] = 'read: ' + (typeof v === 'string' ? v : JSON.stringify(v)); } catch (e) { out[name] = 'blocked: ' + (e && e.name) + ': ' + (e && e.message); }
      };
      await attempt('localStorage', () => localStorage.getItem('pagewright-secret'));
      await attempt('sessionStorage', () => sessionStorage.length);
      await attempt('indexedDB', () => new Promise((res, rej) => { const r = indexedDB.open('pagewright-secret-db'); r.onerror = () => rej(r.error); r.onsuccess = () => { const g = r.result.transaction('kv').objectStore('kv').get('secret'); g.onsuccess = () => res(g.result); g.onerror = () => rej(g.error); }; }));
      await attempt('caches', async () => { const hit = await (await caches.open('pagewright-secret-cache')).match('/secret'); return hit ? await hit.text() : null; });
      await attempt('opfs', async () => (await (await (await navigator.storage.getDirectory()).getFileHandle('pagewright-secret.txt')).getFile()).text());
      await attempt('cookie', () => document.cookie);
      await attempt('storage.local', () => (globalThis.browser ?? globalThis.chrome).storage.local.get(null));
      return out;`,
    );
    const result = resultOf(outcome) as Record<string, string>;
    expect(JSON.stringify(result)).not.toContain(SECRET);
    for (const [api, what] of Object.entries(result)) expect(`${api}: ${what}`).toMatch(/^[\w.]+: blocked/);
  });

  it.runIf(name === 'chromium')('finds the offscreen document again after the service worker restarts', async () => {
    expect(resultOf(await run('return "before"'))).toBe('before');
    await ext.stopBackground();
    expect(resultOf(await run('return "after"'))).toBe('after');
    expect(ext.browser.targets().filter((t) => t.url().endsWith('/offscreen.html'))).toHaveLength(1);
  });

  it.runIf(engine === 'v8')('holds by its CSP alone: the sandbox page and its blob Workers reach no network', async () => {
    // Straight into sandbox.html, past the prelude that removes fetch & co.: what stops the
    // requests here is the manifest's content_security_policy.sandbox, inherited by the Worker.
    const target = await ext.browser.waitForTarget((t) => t.url().endsWith('/offscreen.html'), { timeout: 10_000 });
    const offscreen = await target.asPage();
    const frame = offscreen.frames().find((f) => f.url().endsWith('/sandbox.html'));
    expect(frame).toBeDefined();
    const result = await frame!.evaluate(async (url) => {
      const out: Record<string, string> = { origin: String(self.origin), extensionApi: typeof (globalThis as any).chrome?.runtime?.sendMessage };
      try {
        await fetch(`${url}/page-fetch`);
        out.pageFetch = 'reached';
      } catch (e) {
        out.pageFetch = `blocked: ${e}`;
      }
      try {
        localStorage.getItem('x');
        out.pageStorage = 'readable';
      } catch (e) {
        out.pageStorage = `blocked: ${e}`;
      }
      const source = `onmessage = async () => {
        const r = {};
        const attempt = async (name, fn) => { try { await fn(); r[name] = 'reached'; } catch (e) { r[name] = 'blocked: ' + e; } };
        await attempt('fetch', () => fetch(${JSON.stringify(url)} + '/worker-fetch'));
        await attempt('xhr', () => { const x = new XMLHttpRequest(); x.open('GET', ${JSON.stringify(url)} + '/worker-xhr', false); x.send(); });
        await attempt('importScripts', () => importScripts(${JSON.stringify(url)} + '/worker-script.js'));
        await attempt('import', () => import(${JSON.stringify(url)} + '/worker-module.js'));
        await attempt('webSocket', () => new Promise((res, rej) => { const w = new WebSocket(${JSON.stringify(url.replace('http', 'ws'))} + '/ws'); w.onopen = res; w.onerror = () => rej(new Error('ws error')); }));
        await attempt('indexedDB', () => new Promise((res, rej) => { const o = indexedDB.open('x'); o.onsuccess = res; o.onerror = () => rej(o.error); }));
        postMessage(r);
      };`;
      const worker = new Worker(URL.createObjectURL(new Blob([source], { type: 'text/javascript' })));
      const fromWorker = await new Promise<Record<string, string>>((resolve) => {
        worker.onmessage = (e) => resolve(e.data);
        worker.onerror = (e) => resolve({ worker: `failed: ${e.message}` });
        worker.postMessage('go');
      });
      worker.terminate();
      return { ...out, ...Object.fromEntries(Object.entries(fromWorker).map(([k, v]) => [`worker.${k}`, v])) };
    }, server.url);
    expect(result).toMatchObject({ origin: 'null', extensionApi: 'undefined' });
    for (const [what, how] of Object.entries(result)) {
      if (what === 'origin' || what === 'extensionApi') continue;
      expect(`${what}: ${how}`).toMatch(/^[\w.]+: blocked/);
    }
    // A fixed time is the point, as above: an escaped request shows only by arriving.
    await new Promise((r) => setTimeout(r, 500));
    expect(server.hits).toEqual([]);
  });
});

/**
 * Evidence for SandboxEngine's warning, not a requirement: in Chrome's 'v8' engine, code that
 * allocates without end takes the whole extension down (its renderer process holds the service
 * worker, the offscreen document and every extension page). Slow (~15 s) and destructive, so it
 * runs only on request: SANDBOX_OOM_DEMO=1 npx vitest run --project e2e tests/e2e/sandbox.e2e.test.ts
 */
describe.runIf(process.env.SANDBOX_OOM_DEMO === '1')("Chrome's v8 engine and a memory bomb", () => {
  it('crashes the extension, where the quickjs engine answers "out of memory"', async () => {
    const ext = await launch('chromium');
    try {
      const page = await ext.open('popup.html');
      const BOMB = 'const a = []; while (true) a.push(new Array(1e6).fill(Math.random()))';
      expect(await runIn(page, 'quickjs', BOMB, 30_000)).toMatchObject({ ok: false, error: { message: expect.stringMatching(/out of memory/i) } });
      const bomb = runIn(page, 'v8', BOMB, 60_000).then(
        (o) => `answered ${JSON.stringify(o)}`,
        (e: Error) => `page gone: ${e.message}`,
      );
      const answer = await Promise.race([bomb, new Promise<string>((r) => setTimeout(() => r('no answer in 45 s'), 45_000))]);
      expect(answer).not.toMatch(/^answered/);
      const reopened = await Promise.race([
        ext.open('popup.html').then(
          () => 'reopened',
          (e: Error) => `cannot reopen: ${e.message}`,
        ),
        new Promise<string>((r) => setTimeout(() => r('cannot reopen: no answer'), 15_000)),
      ]);
      console.log(`[sandbox] v8 memory bomb: ${answer.slice(0, 120)}; popup: ${reopened}`);
      expect(reopened).toMatch(/^cannot reopen/);
    } finally {
      await ext.close();
    }
  }, 120_000);
});
