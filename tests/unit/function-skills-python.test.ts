/**
 * The Python side of function skills in Node: the same runner the Worker uses (python-runner.ts)
 * on the same Pyodide build, loaded from node_modules. The Worker, its isolation and the kill
 * at 5 s are covered by tests/e2e/function-skills.e2e.test.ts.
 */
import { loadPyodide } from 'pyodide';
import { beforeAll, describe, expect, it } from 'vitest';
import { functionRunner, type RealmHost } from '../../lib/sandbox/functions';
import type { PreludeLimits } from '../../lib/sandbox/prelude';
import { capWasmMemory, finishReport, LogBuffer, preparePython, type PythonRealm } from '../../lib/sandbox/python-runner';
import { toOutcome } from '../../lib/sandbox/report';
import type { SandboxOutcome } from '../../lib/sandbox/types';

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

  it('turns allocation past the memory cap into a MemoryError, and the next call works', async () => {
    // The Worker caps before loading; here growth is refused from now on (Node's WebAssembly,
    // this test file's realm only).
    capWasmMemory(256 * 1024 * 1024);
    const out = await call('def run(args):\n    chunks = []\n    while True:\n        chunks.append(bytearray(16 * 1024 * 1024))\n');
    expect(out).toMatchObject({ ok: false, error: { kind: 'runtime', message: 'MemoryError' } });
    expect(await call('def run(args):\n    return "still here"\n')).toMatchObject({ ok: true, result: 'still here' });
  });

  it('cuts a long str at the output budget', async () => {
    const out = await call('def run(args):\n    return "x" * 5000\n', {}, 100);
    expect(out).toMatchObject({ ok: true, truncated: true, result: `${'x'.repeat(100)}…[+4900 chars]` });
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
});
