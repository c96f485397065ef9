/**
 * The Python side of function skills in Node: the same runner the Worker uses (python-runner.ts)
 * on the same Pyodide build, loaded from node_modules. The Worker, its isolation and the kill
 * at 5 s are covered by tests/e2e/function-skills.e2e.test.ts.
 */
import { loadPyodide } from 'pyodide';
import { beforeAll, describe, expect, it } from 'vitest';
import { functionRunner, type RealmHost } from '../../lib/sandbox/functions';
import type { PreludeLimits } from '../../lib/sandbox/prelude';
import { pythonRealmHost } from '../../lib/sandbox/python-host';
import type { PythonWorkerReply, PythonWorkerRequest } from '../../lib/sandbox/python-protocol';
import { capWasmMemory, finishReport, LogBuffer, preparePython, pythonOutOfMemoryMessage, PYTHON_MAX_MEMORY_BYTES, type PythonRealm } from '../../lib/sandbox/python-runner';
import { REMOVED_GLOBALS, REMOVED_NAVIGATOR, removeGlobals } from '../../lib/sandbox/removed-globals';
import { toOutcome } from '../../lib/sandbox/report';
import type { SandboxOutcome } from '../../lib/sandbox/types';
import { pyProbeSkill } from '../harness/sandbox-probes';

const LIMITS: PreludeLimits = { maxOutputChars: 100_000, maxLogLines: 200, maxLogChars: 20_000 };
let realm: PythonRealm;
const streamed: string[] = [];

beforeAll(async () => {
  realm = preparePython(await loadPyodide());
}, 60_000);

const pythonRealm: RealmHost = {
  runRequest: async (request) => toOutcome(await realm.run(request, (line) => streamed.push(line)), request.limits, 0),
};
const noJs: RealmHost = { runRequest: () => Promise.reject(new Error('no JavaScript here')) };

const call = (code: string, args: Record<string, unknown> = {}, maxOutputChars?: number): Promise<SandboxOutcome> =>
  functionRunner({ javascript: noJs, python: pythonRealm })({ language: 'python', code, args, timeoutMs: 5000, maxOutputChars });

describe('a Python function call', () => {
  it('calls run(args) with the arguments as data and returns its str, with what it printed', async () => {
    const args = { name: '"""); import os; ("""', n: 3, nested: { list: [1, null, 'ü', true] } };
    streamed.length = 0;
    const out = await call('import json, sys\ndef run(args):\n    print("got", args["n"])\n    print("warn", file=sys.stderr)\n    return json.dumps(args, ensure_ascii=False)\n', args);
    expect(out).toMatchObject({ ok: true, logs: ['got 3', '[stderr] warn'], truncated: false });
    expect(JSON.parse((out as { result: string }).result)).toEqual(args);
    expect(streamed).toEqual(['got 3', '[stderr] warn']);
  });

  it('awaits an async run', async () => {
    expect(await call('import asyncio\nasync def run(args):\n    await asyncio.sleep(0.01)\n    return "later " + str(args["x"])\n', { x: 1 })).toMatchObject({ ok: true, result: 'later 1' });
  });

  it('gives each call a fresh namespace', async () => {
    await call('counter = 1\ndef run(args):\n    return "set"\n');
    expect(await call('def run(args):\n    return str(globals().get("counter"))\n')).toMatchObject({ ok: true, result: 'None' });
  });

  it('says so when run is missing', async () => {
    for (const code of ['def go(args):\n    return "x"\n', 'run = 5\n', '# nothing\n']) {
      expect(await call(code)).toMatchObject({ ok: false, error: { kind: 'runtime', message: expect.stringContaining('The code must define run(args)') } });
    }
  });

  it('names the type when run returns something other than a str', async () => {
    const cases: [string, string][] = [
      ['42', 'int (42)'],
      ['1.5', 'float (1.5)'],
      ['True', 'bool (True)'],
      ['None', 'None'],
      ['[1]', 'list'],
      ['{"a": 1}', 'dict'],
      ['b"x"', 'bytes'],
    ];
    for (const [value, type] of cases) {
      expect(await call(`def run(args):\n    return ${value}\n`)).toMatchObject({ ok: false, error: { kind: 'runtime', message: `run(args) must return a str; it returned ${type}.` } });
    }
  });

  it('reports an exception with the last lines of its traceback, in the code\'s own lines', async () => {
    const out = await call('def helper(n):\n    raise ValueError(f"bad value {n}")\n\ndef run(args):\n    print("before")\n    return helper(3)\n');
    expect(out).toMatchObject({ ok: false, error: { kind: 'runtime', message: 'ValueError: bad value 3' }, logs: ['before'] });
    const stack = (out as { error: { stack: string } }).error.stack;
    expect(stack).toMatch(/^Traceback \(most recent call last\):\n {2}File "<code>", line 6, in run\n.*\n {2}File "<code>", line 2, in helper\n[\s\S]*ValueError: bad value 3$/);
    // Only the code's frames: none of the runner's.
    expect(stack).not.toContain('<pagewright>');
    expect(await call('raise KeyError("at load")\n')).toMatchObject({ ok: false, error: { kind: 'runtime', message: "KeyError: 'at load'" } });
    expect(await call('import sys\ndef run(args):\n    sys.exit(3)\n')).toMatchObject({ ok: false, error: { kind: 'runtime', message: 'SystemExit: 3' } });
  });

  it('reports a syntax error with its line and column', async () => {
    const out = await call('def run(args):\n    x = = 1\n    return x\n');
    expect(out).toMatchObject({ ok: false, error: { kind: 'syntax', message: 'SyntaxError: invalid syntax (line 2, column 9)' } });
    expect((out as { error: { stack: string } }).error.stack).toContain('File "<code>", line 2\n    x = = 1\n        ^');
    expect(await call('def run(args):\n  return 1\n    return 2\n')).toMatchObject({ ok: false, error: { kind: 'syntax', message: expect.stringMatching(/^IndentationError: unexpected indent \(line 3/) } });
  });

  it('turns allocation past the memory cap into a MemoryError that names the cap, and the next call works', async () => {
    expect(pythonOutOfMemoryMessage(PYTHON_MAX_MEMORY_BYTES)).toBe(
      'MemoryError (out of memory): the code reached the memory limit of the Python sandbox (512 MB) and could not go on. ' +
        'Keep less in memory at once: work through the data in smaller pieces (read and process it in chunks, ' +
        'use generators instead of building whole lists) and return only what you need.',
    );
    // The Worker caps before loading; here growth is refused from now on (Node's WebAssembly,
    // this test file's realm only).
    capWasmMemory(256 * 1024 * 1024);
    const message = pythonOutOfMemoryMessage(256 * 1024 * 1024);
    const out = await call('def run(args):\n    chunks = []\n    while True:\n        chunks.append(bytearray(16 * 1024 * 1024))\n');
    expect(out).toMatchObject({ ok: false, error: { kind: 'runtime', message } });
    // The traceback still says where.
    expect((out as { error: { stack: string } }).error.stack).toMatch(/line 4, in run\n[\s\S]*MemoryError$/);
    expect(await call('def run(args):\n    return "still here"\n')).toMatchObject({ ok: true, result: 'still here' });
    // Many small objects, as the JavaScript sandbox's Map example.
    const small = await call('def run(args):\n    d = {}\n    i = 0\n    while True:\n        d[i] = {"i": i, "s": "y" * 100}\n        i += 1\n');
    expect(small).toMatchObject({ ok: false, error: { kind: 'runtime', message } });
    expect(await call('def run(args):\n    return "still here"\n')).toMatchObject({ ok: true, result: 'still here' });
    // A MemoryError the code raises with its own words stays its own.
    expect(await call('def run(args):\n    raise MemoryError("my cache is full")\n')).toMatchObject({ ok: false, error: { message: 'MemoryError: my cache is full' } });
  }, 60_000);

  it('cuts a long str at the output budget', async () => {
    const out = await call('def run(args):\n    return "x" * 5000\n', {}, 100);
    expect(out).toMatchObject({ ok: true, truncated: true, result: `${'x'.repeat(100)}…[+4900 chars]` });
  });
});

describe("what Python's js module reaches", () => {
  const found = async () => JSON.parse(((await call(pyProbeSkill())) as { result: string }).result) as string[];

  it('the probes find names that are there (Node has fetch)', async () => {
    expect(await found()).toEqual(expect.arrayContaining(['fetch', 'from js import fetch']));
  });

  it('finds none of the removed names once removeGlobals has run', async () => {
    // The Worker's lockdown, on Node's global (put back afterwards).
    const saved: [object, string, PropertyDescriptor][] = [];
    const save = (target: unknown, names: readonly string[]) => {
      for (let o = target; o && o !== Object.prototype; o = Object.getPrototypeOf(o)) {
        for (const name of names) {
          const d = Object.getOwnPropertyDescriptor(o, name);
          if (d) saved.push([o as object, name, d]);
        }
      }
    };
    save(globalThis, REMOVED_GLOBALS);
    save(globalThis.navigator, REMOVED_NAVIGATOR);
    try {
      removeGlobals(globalThis, REMOVED_GLOBALS, REMOVED_NAVIGATOR);
      expect(await found()).toEqual([]);
    } finally {
      for (const [o, name, d] of saved) Object.defineProperty(o, name, d);
    }
    expect(typeof fetch).toBe('function');
  });
});

describe('the Python log buffer and report', () => {
  it('keeps printed lines within the JavaScript sandbox\'s limits', () => {
    const seen: string[] = [];
    const logs = new LogBuffer({ maxOutputChars: 10, maxLogLines: 2, maxLogChars: 8 }, (l) => seen.push(l));
    for (const line of ['abcde', 'fghijk', 'dropped', 'dropped too']) logs.add(line);
    expect(logs.lines()).toEqual(['abcde', 'fgh…[+3 chars]', '…[+2 more log lines dropped]']);
    expect(seen).toEqual(['abcde', 'fgh…[+3 chars]', '…[log limit reached; later lines are dropped]']);
  });

  it('adds the logs to the runner\'s report and leaves failures as they are', () => {
    expect(JSON.parse(finishReport('{"ok": true, "result": "hi"}', ['l'], LIMITS))).toEqual({ ok: true, result: 'hi', truncated: false, logs: ['l'] });
    const failed = { ok: false, error: { kind: 'runtime', message: 'm' } };
    expect(JSON.parse(finishReport(JSON.stringify(failed), [], LIMITS))).toEqual({ ...failed, logs: [] });
  });

  it('names the memory cap for a bare MemoryError, or any while growth was refused', () => {
    const report = (message: string, ranOut: boolean) => JSON.parse(finishReport(JSON.stringify({ ok: false, error: { kind: 'runtime', message } }), [], LIMITS, ranOut)).error.message;
    expect(report('MemoryError', false)).toMatch(/^MemoryError \(out of memory\): the code reached the memory limit of the Python sandbox \(\d+ MB\)/);
    expect(report('MemoryError: cannot allocate', true)).toMatch(/^MemoryError \(out of memory\)/);
    expect(report('MemoryError: mine', false)).toBe('MemoryError: mine');
    expect(report('MemoryErrorish: no', true)).toBe('MemoryErrorish: no');
  });
});

describe('the Python host (a Worker per interpreter, killed at the limit)', () => {
  /** Stands in for the Pyodide Worker: loads in `loadMs`, answers a run at once, or never for "spin". */
  class FakeWorker extends EventTarget {
    static made: FakeWorker[] = [];
    terminated = false;
    loads = 0;
    constructor(private readonly loadMs = 20) {
      super();
      FakeWorker.made.push(this);
    }
    postMessage(m: PythonWorkerRequest) {
      const send = (data: PythonWorkerReply) => setTimeout(() => !this.terminated && this.dispatchEvent(new MessageEvent('message', { data })), 0);
      if (m.type === 'load') {
        this.loads++;
        setTimeout(() => send({ type: 'loaded', ms: this.loadMs }), this.loadMs);
      } else if (m.type === 'run') {
        send({ type: 'started', runId: m.runId });
        send({ type: 'log', runId: m.runId, line: `running ${m.request.code}` });
        if (m.request.code !== 'spin') {
          const report = JSON.stringify({ ok: true, result: `did ${m.request.code}`, truncated: false, logs: [`running ${m.request.code}`] });
          send({ type: 'result', runId: m.runId, result: { status: 'done', report, durationMs: 1 } });
        }
      }
    }
    terminate() {
      this.terminated = true;
    }
  }
  const assets = async () => ({ wasm: new ArrayBuffer(8), stdlib: new ArrayBuffer(8) });
  const host = () => {
    FakeWorker.made = [];
    return pythonRealmHost({ spawn: () => new FakeWorker() as unknown as Worker, assets, indexURL: 'x:/pyodide/' });
  };
  const request = (code: string, timeoutMs = 300) => ({ code, timeoutMs, limits: LIMITS, argsJson: '{}' });

  it('loads one Worker on the first call and keeps it', async () => {
    const python = host();
    expect(FakeWorker.made).toHaveLength(0);
    expect(await python.runRequest(request('a'))).toMatchObject({ ok: true, result: 'did a', logs: ['running a'] });
    expect(await python.runRequest(request('b'))).toMatchObject({ ok: true, result: 'did b' });
    expect(FakeWorker.made).toHaveLength(1);
  });

  it('terminates a Worker at the limit, with the output so far, and starts a fresh one at once', async () => {
    const python = host();
    await python.runRequest(request('warm'));
    const started = performance.now();
    const out = await python.runRequest(request('spin', 200));
    expect(out).toMatchObject({ ok: false, error: { kind: 'timeout' }, logs: ['running spin'] });
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
    expect(FakeWorker.made[0]!.terminated).toBe(true);
    expect(FakeWorker.made).toHaveLength(2);
    expect(await python.runRequest(request('next'))).toMatchObject({ ok: true, result: 'did next' });
    expect(FakeWorker.made).toHaveLength(2);
  });

  it('runs calls one at a time; waiting counts against the limit', async () => {
    const python = host();
    await python.runRequest(request('warm'));
    const [spin, queued] = await Promise.all([python.runRequest(request('spin', 200)), python.runRequest(request('after', 100))]);
    expect(spin).toMatchObject({ ok: false, error: { kind: 'timeout' } });
    expect(queued).toMatchObject({ ok: false, error: { kind: 'timeout', message: expect.stringContaining('busy with other calls') } });
  });

  it('stops a call when aborted', async () => {
    const python = host();
    await python.runRequest(request('warm'));
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    expect(await python.runRequest(request('spin', 5000), controller.signal)).toMatchObject({ ok: false, error: { kind: 'aborted' } });
    expect(FakeWorker.made[0]!.terminated).toBe(true);
  });

  it('says why when Pyodide cannot be read, and tries again on the next call', async () => {
    let fail = true;
    FakeWorker.made = [];
    const python = pythonRealmHost({
      spawn: () => new FakeWorker() as unknown as Worker,
      assets: async () => {
        if (fail) throw new Error('pyodide.asm.wasm is missing');
        return assets();
      },
      indexURL: 'x:/pyodide/',
    });
    expect(await python.runRequest(request('a'))).toMatchObject({ ok: false, error: { kind: 'host', message: "Python could not start: Pyodide's files could not be read: pyodide.asm.wasm is missing" } });
    fail = false;
    expect(await python.runRequest(request('b'))).toMatchObject({ ok: true, result: 'did b' });
  });
});
