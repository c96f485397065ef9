/**
 * Function skills in the built extension, driven through the popup and the fake model, in both
 * browsers: JavaScript (QuickJS in a Worker: Chrome's sandbox page, Firefox's background page)
 * and Python (Pyodide in a Worker: the same places). Every escape is tried from inside the code
 * against a server on 127.0.0.1 that records whatever reaches it.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserName } from '../harness/browsers';
import { setSkills, type SeedSkill } from '../harness/popup';
import { pythonOutOfMemoryMessage } from '../../lib/sandbox/python-runner';
import { jsProbeSkill, pyProbeSkill } from '../harness/sandbox-probes';
import { agentSession } from '../harness/session';

const browsers: BrowserName[] = ['chromium', 'firefox'];

/** Answers everything generously (CORS, JS, event streams), so only the sandbox can stop a request. */
class RecordingServer {
  readonly hits: string[] = [];
  url = '';
  private server = http.createServer((req, res) => {
    this.hits.push(`${req.method} ${req.url}`);
    res.setHeader('access-control-allow-origin', '*');
    res.setHeader('content-type', req.url?.endsWith('.js') ? 'text/javascript' : 'text/plain');
    res.end(req.url?.endsWith('.js') ? 'globalThis.reached = true; export {};' : 'reached');
  });

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

const fn = (name: string, language: 'javascript' | 'python', code: string, extra: Record<string, unknown> = {}): SeedSkill => ({
  name,
  skill_type: 'function',
  config: { language, code, ...extra },
  approved: true,
});

/** Each probe answers "blocked: …" when the escape fails, "REACHED …" when it works. */
const JS_ESCAPES = (url: string) => `
async function run(args) {
  const url = ${JSON.stringify(url)};
  const probes = {
    fetch: () => fetch(url + '/fetch'),
    xhr: () => { const x = new XMLHttpRequest(); x.open('GET', url + '/xhr', false); x.send(); return x.status; },
    websocket: () => new Promise((ok, no) => { const w = new WebSocket(url.replace('http', 'ws') + '/ws'); w.onopen = ok; w.onerror = () => no(new Error('ws error')); }),
    dynamic_import: () => import(url + '/module.js'),
    import_scripts: () => importScripts(url + '/script.js'),
    nested_worker: () => new Worker(url + '/worker.js'),
    broadcast_channel: () => new BroadcastChannel('pagewright'),
    extension_api: () => (globalThis.chrome ?? globalThis.browser).runtime.id,
    indexed_db: () => indexedDB.open('x'),
    caches: () => caches.keys(),
    local_storage: () => localStorage.getItem('x'),
    cookie: () => document.cookie,
    page_dom: () => document.title,
  };
  const out = {};
  for (const [name, probe] of Object.entries(probes)) {
    try {
      const value = await probe();
      out[name] = 'REACHED ' + String(value);
    } catch (e) {
      out[name] = 'blocked: ' + String(e && e.message || e);
    }
  }
  return JSON.stringify(out);
}`;

const PY_ESCAPES = (url: string) => `
import json
URL = ${JSON.stringify(url)}

async def attempt(probe):
    try:
        value = probe()
        if hasattr(value, "then") or hasattr(value, "__await__"):
            value = await value
        return "REACHED " + str(value)
    except BaseException as e:
        return "blocked: " + type(e).__name__ + ": " + str(e)[:200]

def js_fetch():
    import js
    return js.fetch(URL + "/fetch")

def pyfetch():
    from pyodide.http import pyfetch
    return pyfetch(URL + "/pyfetch")

def open_url():
    from pyodide.http import open_url
    return open_url(URL + "/open_url").read()

def urllib_get():
    import urllib.request
    return urllib.request.urlopen(URL + "/urllib").read()

def raw_socket():
    import socket
    return socket.create_connection(("127.0.0.1", int(URL.rsplit(":", 1)[1])), timeout=2)

def xhr():
    import js
    x = js.XMLHttpRequest.new()
    x.open("GET", URL + "/xhr", False)
    x.send()
    return x.status

def websocket():
    import js
    return js.WebSocket.new(URL.replace("http", "ws") + "/ws")

def dynamic_import():
    from pyodide.code import run_js
    return run_js("import('" + URL + "/module.js')")

def import_scripts():
    import js
    return js.importScripts(URL + "/script.js")

def load_package():
    import pyodide_js
    return pyodide_js.loadPackage("numpy")

async def load_package_url():
    # loadPackage reports a failed download on stderr instead of raising: the import tells.
    import pyodide_js
    await pyodide_js.loadPackage(URL + "/six-1.16.0-py2.py3-none-any.whl")
    import six
    return six.__version__

def nested_worker():
    import js
    return js.Worker.new(URL + "/worker.js")

def broadcast_channel():
    import js
    return js.BroadcastChannel.new("pagewright")

async def font_face():
    # FontFace loads fonts from URLs, in Workers too.
    import js
    face = js.FontFace.new("probe", "url(" + URL + "/font.woff2)")
    await face.load()
    return face.status

def micropip():
    import micropip
    return micropip.install("six")

def extension_api():
    import js
    api = getattr(js, "chrome", None) or getattr(js, "browser")
    return api.runtime.id

def indexed_db():
    import js
    return js.indexedDB.open("x")

def caches():
    import js
    return js.caches.keys()

def local_storage():
    import js
    return js.localStorage.getItem("x")

def opfs():
    import js
    return js.navigator.storage.getDirectory()

def cookie():
    import js
    return js.document.cookie

def page_dom():
    import js
    return js.document.title

async def run(args):
    probes = [js_fetch, pyfetch, open_url, urllib_get, raw_socket, xhr, websocket, dynamic_import, import_scripts,
              load_package, load_package_url, nested_worker, broadcast_channel, font_face, micropip, extension_api, indexed_db, caches, local_storage, opfs, cookie, page_dom]
    out = {}
    for probe in probes:
        out[probe.__name__] = await attempt(probe)
    return json.dumps(out)
`;

describe.each(browsers)('function skills in %s', (name) => {
  const session = agentSession(name);
  const server = new RecordingServer();

  beforeAll(() => server.start());
  afterAll(() => server.stop());

  it('the 5 s limit, timed from an extension page: the loop stops at 5 s in both languages', async () => {
    const { page } = session.popup;
    const timed = (language: string, code: string) =>
      page.evaluate(
        async (language, code) => {
          const api = (globalThis as any).browser ?? (globalThis as any).chrome;
          const data = { runId: `limit-${Math.random()}`, language, code, args: {}, timeoutMs: 5000 };
          const t = performance.now();
          const reply = await api.runtime.sendMessage({ id: Date.now(), type: 'sandboxFunction', data, timestamp: Date.now() });
          return { ms: performance.now() - t, outcome: reply?.res ?? reply };
        },
        language,
        code,
      );
    const loops = { javascript: 'function run(args) { while (true) {} }', python: 'def run(args):\n    while True:\n        pass\n' };
    const quick = { javascript: 'function run(args) { return "ok" }', python: 'def run(args):\n    return "ok"\n' };
    for (const language of ['javascript', 'python'] as const) {
      expect((await timed(language, quick[language])).outcome).toMatchObject({ ok: true, result: 'ok' });
      const spin = await timed(language, loops[language]);
      expect(spin.outcome).toMatchObject({ ok: false, error: { kind: 'timeout' } });
      expect(spin.ms).toBeGreaterThanOrEqual(4900);
      expect(spin.ms).toBeLessThan(7000);
      expect((await timed(language, quick[language])).outcome).toMatchObject({ ok: true, result: 'ok' });
    }
  });

  it('none of the removed globals is reachable, from JavaScript or from Python (the probe table)', async () => {
    const found = await session.popup.page.evaluate(
      async (codes) => {
        const api = (globalThis as any).browser ?? (globalThis as any).chrome;
        const out: Record<string, unknown> = {};
        for (const [language, code] of Object.entries(codes)) {
          const data = { runId: `probe-${Math.random()}`, language, code, args: {}, timeoutMs: 30_000 };
          const reply = await api.runtime.sendMessage({ id: Date.now(), type: 'sandboxFunction', data, timestamp: Date.now() });
          const outcome = reply?.res ?? reply;
          out[language] = outcome?.ok ? JSON.parse(outcome.result) : outcome;
        }
        return out;
      },
      { javascript: jsProbeSkill(), python: pyProbeSkill() },
    );
    expect(found).toEqual({ javascript: [], python: [] });
  });

  // Chromium: where the cap matters most (the Worker shares its process with the extension).
  it.runIf(name === 'chromium')('python: allocating past the 512 MB cap says so, and the next call works', async () => {
    const results = await session.popup.page.evaluate(async () => {
      const api = (globalThis as any).browser ?? (globalThis as any).chrome;
      const call = async (code: string) => {
        const data = { runId: `oom-${Math.random()}`, language: 'python', code, args: {}, timeoutMs: 30_000 };
        const reply = await api.runtime.sendMessage({ id: Date.now(), type: 'sandboxFunction', data, timestamp: Date.now() });
        return reply?.res ?? reply;
      };
      return [
        await call('def run(args):\n    chunks = []\n    while True:\n        chunks.append(bytearray(16 * 1024 * 1024))\n'),
        await call('def run(args):\n    return "alive"\n'),
      ];
    });
    expect(results[0]).toMatchObject({ ok: false, error: { kind: 'runtime', message: pythonOutOfMemoryMessage() } });
    expect(results[1]).toMatchObject({ ok: true, result: 'alive' });
  });

  for (const language of ['javascript', 'python'] as const) {
    const py = language === 'python';

    it(`${language}: a call with its output, and each kind of broken code told apart`, async () => {
      const skills = py
        ? [
            fn('greet', language, 'import json\ndef run(args):\n    print("greeting", args["name"])\n    return "Hello, " + args["name"] + "! " + json.dumps(args["tags"])', {
              input_schema: { type: 'object', properties: { name: { type: 'string' }, tags: { type: 'array' } }, required: ['name'] },
            }),
            fn('syntax', language, 'def run(args):\n    return (1 +\n'),
            fn('missing', language, 'def go(args):\n    return "x"\n'),
            fn('number', language, 'def run(args):\n    return 42\n'),
            fn('raises', language, 'def helper(n):\n    raise ValueError(f"bad value {n}")\n\ndef run(args):\n    print("about to fail")\n    return helper(3)\n'),
          ]
        : [
            fn('greet', language, 'function run(args) {\n  console.log("greeting", args.name);\n  return "Hello, " + args.name + "! " + JSON.stringify(args.tags);\n}', {
              input_schema: { type: 'object', properties: { name: { type: 'string' }, tags: { type: 'array' } }, required: ['name'] },
            }),
            fn('syntax', language, 'function run(args) {\n  return (1 +;\n}'),
            fn('missing', language, 'function go(args) { return "x"; }'),
            fn('number', language, 'function run(args) { return 42; }'),
            fn('raises', language, 'function helper(n) {\n  throw new RangeError("bad value " + n);\n}\nfunction run(args) {\n  console.log("about to fail");\n  return helper(3);\n}'),
          ];
      await setSkills(session.popup.page, skills);
      // Quotes and code-like text in the arguments stay data.
      const name = `O'Brien"); throw 1; //`;
      const results = await session.agentRuns([
        () => ({ name: 'greet', input: { name, tags: ['a', 'ü'] } }),
        () => ({ name: 'greet', input: { tags: [] } }),
        () => ({ name: 'syntax', input: {} }),
        () => ({ name: 'missing', input: {} }),
        () => ({ name: 'number', input: {} }),
        () => ({ name: 'raises', input: {} }),
      ]);
      const tags = py ? '["a", "\\u00fc"]' : '["a","ü"]';
      expect(results[0]).toEqual({ isError: false, content: { result: `Hello, ${name}! ${tags}`, logs: [`greeting ${name}`], truncated: false } });
      expect(results[1]).toMatchObject({ isError: true, content: expect.stringContaining('"name"') });
      expect(results[2]).toMatchObject({ isError: true, content: expect.stringMatching(py ? /does not compile: SyntaxError: .*\(line 2, column \d+\)/ : /does not compile: SyntaxError: .*\(line 2, column \d+\)/) });
      expect(results[3]).toMatchObject({ isError: true, content: expect.stringContaining('must define run(args)') });
      expect(results[4]).toMatchObject({ isError: true, content: expect.stringContaining(py ? 'must return a str; it returned int (42)' : 'must return a string; it returned a number (42)') });
      const raised = results[5]!.content as string;
      expect(results[5]!.isError).toBe(true);
      expect(raised).toContain(py ? 'ValueError: bad value 3' : 'RangeError: bad value 3');
      expect(raised).toMatch(py ? /File "<code>", line 2, in helper/ : /at helper \(<code>:2:\d+\)/);
      expect(raised).toContain('output:\nabout to fail');
    });

    it(`${language}: every way out of the sandbox fails`, async () => {
      await setSkills(session.popup.page, [fn('escape', language, (py ? PY_ESCAPES : JS_ESCAPES)(server.url))]);
      const before = server.hits.length;
      const [result] = await session.agentRuns([() => ({ name: 'escape', input: {} })]);
      expect(result!.isError).toBe(false);
      // The skill returns JSON text (beside its output, if it printed any); the harness parses it.
      const content = result!.content as { result?: string; logs?: string[] } & Record<string, string>;
      const probes = (typeof content.result === 'string' ? JSON.parse(content.result) : content) as Record<string, string>;
      if (process.env.SHOW_PROBES) console.log(name, language, JSON.stringify(content, null, 1));
      expect(Object.keys(probes).length).toBeGreaterThanOrEqual(py ? 22 : 13);
      for (const [probe, outcome] of Object.entries(probes)) expect(`${probe}: ${outcome}`).toMatch(new RegExp(`^${probe}: blocked: `));
      // A fixed time is the point: a request that got out shows only by arriving, so give anything
      // still on its way over loopback time to (it is ms) before saying nothing did.
      await new Promise((r) => setTimeout(r, 500));
      expect(server.hits.slice(before)).toEqual([]);
    });

    it(`${language}: an endless loop is stopped at 5 s and the next call works`, async () => {
      await setSkills(session.popup.page, [
        fn('spin', language, py ? 'def run(args):\n    print("spinning")\n    while True:\n        pass\n' : 'function run(args) {\n  console.log("spinning");\n  while (true) {}\n}'),
        fn('echo', language, py ? 'def run(args):\n    return "echo " + args["x"]\n' : 'function run(args) { return "echo " + args.x; }'),
      ]);
      // Warm first, so the timing below is the loop's, not the engine's cold start.
      await session.agentRuns([() => ({ name: 'echo', input: { x: 'warm' } })]);
      const started = Date.now();
      const results = await session.agentRuns([() => ({ name: 'spin', input: {} }), () => ({ name: 'echo', input: { x: 'after' } })]);
      expect(results[0]).toMatchObject({ isError: true, content: expect.stringContaining('did not finish within 5 s') });
      expect(results[0]!.content).toContain('output:\nspinning');
      expect(results[1]).toEqual({ isError: false, content: 'echo after' });
      expect(Date.now() - started).toBeGreaterThan(5000);
    });
  }
});
