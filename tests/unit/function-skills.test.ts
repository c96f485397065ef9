/**
 * Function skills without a browser: the tool (schema, limit, arguments), the JavaScript call
 * in both realms the sandbox uses (QuickJS as in the extension, the prelude in a V8 context as in
 * Chrome's 'v8' engine), the checks on a call, and how outcomes read to the model. The Worker,
 * the isolation and the kill at 5 s are covered by tests/e2e/function-skills.e2e.test.ts.
 */
import vm from 'node:vm';
import variant from '@jitl/quickjs-wasmfile-release-sync';
import { newQuickJSWASMModuleFromVariant, newVariant, type QuickJSWASMModule } from 'quickjs-emscripten-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { functionRunner, FUNCTION_TIMEOUT_MS, type RealmHost } from '../../lib/sandbox/functions';
import { installSandboxPrelude, type PreludeLimits } from '../../lib/sandbox/prelude';
import { runInQuickJS, sandboxWasmMemory } from '../../lib/sandbox/quickjs-runner';
import { MAX_ARGS_CHARS, normalizeFunctionCall, toOutcome } from '../../lib/sandbox/report';
import type { FunctionCall, SandboxHost, SandboxOutcome } from '../../lib/sandbox/types';
import { defaultSettings } from '../../lib/settings';
import { functionSkillResult } from '../../lib/skills/function';
import type { SkillServices } from '../../lib/skills/services';
import { buildSkillTools } from '../../lib/skills/tools';
import type { SkillRecord } from '../../lib/skills/types';
import { detachedEnv } from '../../lib/tools/env';
import { ToolRegistry, type ToolContext } from '../../lib/tools/registry';
import { TaskBoard } from '../../lib/tools/task-board';

const LIMITS: PreludeLimits = { maxOutputChars: 100_000, maxLogLines: 200, maxLogChars: 20_000 };
let quickjs: QuickJSWASMModule;
beforeAll(async () => {
  quickjs = await newQuickJSWASMModuleFromVariant(newVariant(variant, { wasmMemory: sandboxWasmMemory() }));
});

const quickjsRealm: RealmHost = {
  runRequest: async (request) => toOutcome((await runInQuickJS(quickjs, request)).result, request.limits, 0),
};
/** Chrome's 'v8' engine runs the same prelude in a blob Worker; a Node vm context stands in. */
const v8Realm: RealmHost = {
  runRequest: async (request) => {
    const context = vm.createContext({ setTimeout, clearTimeout });
    const install = vm.runInContext(`(${installSandboxPrelude.toString()})`, context) as typeof installSandboxPrelude;
    const realm = install(vm.runInContext('globalThis', context), request.limits, {});
    return toOutcome({ status: 'done', report: await realm.run(request.code, request.argsJson), durationMs: 1 }, request.limits, 0);
  },
};
const noPython: RealmHost = { runRequest: () => Promise.reject(new Error('no Python here')) };

const call = (code: string, args: Record<string, unknown> = {}, realm = quickjsRealm) =>
  functionRunner({ javascript: realm, python: noPython })({ language: 'javascript', code, args, timeoutMs: 2000 });

describe.each([
  ['QuickJS', () => quickjsRealm],
  ['V8', () => v8Realm],
] as const)('a JavaScript function call in %s', (_engine, realmOf) => {
  const run = (code: string, args: Record<string, unknown> = {}) => call(code, args, realmOf());

  it('calls run(args) with the arguments as data and returns its string, with the console output', async () => {
    const args = { name: '"); throw new Error("injected"); ("', n: 3, nested: { list: [1, null, 'ü'] } };
    const out = await run('function run(args) {\n  console.log("got", args.n);\n  return JSON.stringify(args);\n}', args);
    expect(out).toMatchObject({ ok: true, result: JSON.stringify(args), logs: ['got 3'], truncated: false });
  });

  it('awaits an async run, and accepts run defined as const or var', async () => {
    expect(await run('async function run(a) { await null; return "later " + a.x }', { x: 1 })).toMatchObject({ ok: true, result: 'later 1' });
    expect(await run('const run = (a) => "arrow " + a.x;', { x: 2 })).toMatchObject({ ok: true, result: 'arrow 2' });
    expect(await run('var run = function (a) { return "var " + a.x }', { x: 3 })).toMatchObject({ ok: true, result: 'var 3' });
  });

  it('uses the JSON.parse taken before the code ran', async () => {
    const out = await run('JSON.parse = () => ({ forged: true });\nfunction run(args) { return String(args.real) }', { real: 'yes' });
    expect(out).toMatchObject({ ok: true, result: 'yes' });
  });

  it('says so when run is missing', async () => {
    for (const code of ['function go(args) { return "x" }', 'const run = 5;', '// nothing']) {
      expect(await run(code)).toMatchObject({ ok: false, error: { kind: 'runtime', message: expect.stringContaining('The code must define run(args)') } });
    }
  });

  it('names the type when run returns something other than a string', async () => {
    const cases: [string, string][] = [
      ['return 42', 'a number (42)'],
      ['return true', 'a boolean (true)'],
      ['return null', 'null'],
      ['return [1]', 'an array'],
      ['return { a: 1 }', 'an object'],
      ['', 'undefined (did run(args) forget to return?)'],
      ['return Symbol("s")', 'a symbol'],
    ];
    for (const [body, type] of cases) {
      expect(await run(`function run(args) { ${body} }`)).toMatchObject({ ok: false, error: { kind: 'runtime', message: `run(args) must return a string; it returned ${type}.` } });
    }
  });

  it('reports an exception with the code\'s own line numbers', async () => {
    const out = await run('function helper() {\n  throw new RangeError("too far");\n}\nfunction run(args) { return helper() }');
    expect(out).toMatchObject({ ok: false, error: { kind: 'runtime', message: 'RangeError: too far' } });
    expect(!out.ok && out.error.stack).toMatch(/at helper \(<code>:2:\d+\)/);
    expect(await run('throw new Error("at load")')).toMatchObject({ ok: false, error: { kind: 'runtime', message: 'Error: at load' } });
  });

  it('reports a syntax error', async () => {
    const out = await run('function run(args) {\n  return (1 +;\n}');
    expect(out).toMatchObject({ ok: false, error: { kind: 'syntax', message: expect.stringMatching(/^SyntaxError: /) } });
  });
});

describe('a JavaScript function call: QuickJS specifics', () => {
  it('gives the line and column of a syntax error', async () => {
    const out = await call('function run(args) {\n  return (1 +;\n}');
    expect(out).toMatchObject({ ok: false, error: { kind: 'syntax', message: expect.stringMatching(/^SyntaxError: .+ \(line 2, column 14\)$/) } });
  });

  it('cuts a long string at the output budget', async () => {
    const out = await functionRunner({ javascript: quickjsRealm, python: noPython })({ language: 'javascript', code: 'function run() { return "x".repeat(5000) }', args: {}, timeoutMs: 2000, maxOutputChars: 100 });
    expect(out).toMatchObject({ ok: true, truncated: true });
    expect((out as { result: string }).result.length).toBeLessThan(200);
  });
});

describe('normalizeFunctionCall', () => {
  const base: FunctionCall = { language: 'javascript', code: 'function run() { return "" }', args: {}, timeoutMs: 5000 };

  it('carries the arguments as JSON text beside the code, never in it', () => {
    const r = normalizeFunctionCall({ ...base, args: { a: 'x`${y}`' } });
    expect(r).toMatchObject({ ok: true, language: 'javascript', request: { code: base.code, argsJson: '{"a":"x`${y}`"}', timeoutMs: 5000 } });
  });

  it('refuses an unknown language, arguments that are not JSON data, and oversized arguments', () => {
    expect(normalizeFunctionCall({ ...base, language: 'ruby' as never })).toEqual({ ok: false, message: 'Unknown function language "ruby": use "javascript" or "python".' });
    expect(normalizeFunctionCall({ ...base, args: { n: 1n } as never })).toMatchObject({ ok: false, message: expect.stringContaining('not JSON data') });
    expect(normalizeFunctionCall({ ...base, args: { s: 'x'.repeat(MAX_ARGS_CHARS) } })).toMatchObject({ ok: false, message: expect.stringContaining('the limit is') });
    expect(normalizeFunctionCall({ ...base, timeoutMs: 0 })).toMatchObject({ ok: false, message: expect.stringContaining('timeoutMs') });
  });
});

describe('functionSkillResult', () => {
  const failed = (kind: 'syntax' | 'runtime' | 'timeout' | 'host' | 'aborted', message: string, stack?: string, logs: string[] = []): SandboxOutcome => ({
    ok: false,
    error: stack ? { kind, message, stack } : { kind, message },
    logs,
    durationMs: 1,
  });

  it('gives the string itself, or the string with the output beside it', () => {
    expect(functionSkillResult({ ok: true, result: 'hi', logs: [], truncated: false, durationMs: 1 }, 'f', 'python')).toBe('hi');
    expect(functionSkillResult({ ok: true, result: 'hi', logs: ['printed'], truncated: false, durationMs: 1 }, 'f', 'python')).toEqual({ result: 'hi', logs: ['printed'], truncated: false });
  });

  it('words each failure for the model, with the output before it', () => {
    expect(() => functionSkillResult(failed('timeout', 'x', undefined, ['tick']), 'spin', 'python')).toThrow(
      'The function skill "spin" did not finish within 5 s (the limit for function skills) and was stopped.\noutput:\ntick\nIts code is the user\'s',
    );
    expect(() => functionSkillResult(failed('syntax', 'SyntaxError: invalid syntax (line 2, column 5)', '  File "<code>", line 2\n    x = = 1\n        ^\nSyntaxError: invalid syntax'), 'f', 'python')).toThrow(
      /^The Python code of the function skill "f" does not compile: SyntaxError: invalid syntax \(line 2, column 5\)\n  File "<code>", line 2\n/,
    );
    // A traceback that ends with the message is shown once.
    const traceback = 'Traceback (most recent call last):\n  File "<code>", line 2, in run\nValueError: bad';
    expect(() => functionSkillResult(failed('runtime', 'ValueError: bad', traceback), 'f', 'python')).toThrow(`The function skill "f" failed: ${traceback}\nIts code`);
    expect(() => functionSkillResult(failed('runtime', 'run(args) must return a string; it returned a number (4).'), 'f', 'javascript')).toThrow(
      'The function skill "f" failed: run(args) must return a string; it returned a number (4).',
    );
    expect(() => functionSkillResult(failed('host', 'Python could not start: boom'), 'f', 'python')).toThrow('The function skill "f" could not run: Python could not start: boom');
    expect(() => functionSkillResult(failed('aborted', 'stopped'), 'f', 'python')).toThrow('The function skill "f" was stopped.');
  });
});

describe('function skills as tools', () => {
  const services = { profiles: async () => [], mcp: {} } as unknown as SkillServices;
  const record = (name: string, config: unknown, approved = true): SkillRecord => {
    const config_json = JSON.stringify(config);
    return { id: `id-${name}`, name, description: `The ${name} skill.`, skill_type: 'function', config_json, ...(approved ? { approved_config_json: config_json } : {}), is_active: true, created_at: 0, updated_at: 0 };
  };
  const context = (sandbox: SandboxHost): ToolContext => ({
    conversationId: 'c',
    signal: new AbortController().signal,
    tasks: new TaskBoard(),
    env: { ...detachedEnv(defaultSettings()), sandbox },
  });

  it('makes approved code a tool that calls the sandbox with the 5 s limit and the arguments', async () => {
    const calls: FunctionCall[] = [];
    const sandbox: SandboxHost = {
      run: async () => ({ ok: true, result: null, logs: [], truncated: false, durationMs: 0 }),
      runFunction: async (c) => (calls.push(c), { ok: true, result: `hi ${String(c.args.who)}`, logs: [], truncated: false, durationMs: 1 }),
    };
    const schema = { type: 'object', properties: { who: { type: 'string' } }, required: ['who'] };
    const { tools, problems } = await buildSkillTools(
      [record('greet', { language: 'py', code: 'def run(args):\n  return "hi"', input_schema: schema }), record('free', { language: 'javascript', code: 'function run() { return "" }' })],
      services,
      new Set(),
    );
    expect(problems).toEqual([]);
    const registry = new ToolRegistry(tools);
    expect(registry.modelTools()).toEqual([
      expect.objectContaining({ name: 'greet', description: 'The greet skill.', input_schema: schema }),
      expect.objectContaining({ name: 'free', input_schema: { type: 'object' } }),
    ]);
    expect(await registry.call('greet', { who: 'Ada' }, context(sandbox))).toEqual({ content: 'hi Ada', isError: false });
    expect(calls[0]).toMatchObject({ language: 'python', code: 'def run(args):\n  return "hi"', args: { who: 'Ada' }, timeoutMs: FUNCTION_TIMEOUT_MS });
    // The schema is checked before any code runs.
    expect(await registry.call('greet', { who: 5 }, context(sandbox))).toMatchObject({ isError: true });
    expect(calls).toHaveLength(1);
  });

  it('leaves out code waiting for review and configs that do not check out, saying why', async () => {
    const { tools, problems } = await buildSkillTools(
      [
        record('waiting', { language: 'javascript', code: 'function run() { return "" }' }, false),
        record('ruby', { language: 'ruby', code: 'def run(args) = "x"' }),
        record('empty', { language: 'python', code: '' }),
        record('extra', { language: 'python', code: 'x', timeout: 60 }),
      ],
      services,
      new Set(),
    );
    expect(tools).toEqual([]);
    expect(problems).toEqual([
      { skill: 'waiting', message: expect.stringContaining('waits for review') },
      { skill: 'ruby', message: 'config_json.language must be "javascript" or "python".' },
      { skill: 'empty', message: expect.stringContaining('config_json.code must not be empty') },
      { skill: 'extra', message: expect.stringContaining('unknown field "timeout"') },
    ]);
  });

  it('says so when the sandbox has no function runner', async () => {
    const { tools } = await buildSkillTools([record('f', { language: 'javascript', code: 'function run() { return "" }' })], services, new Set());
    const out = await new ToolRegistry(tools).call('f', {}, context({ run: async () => ({ ok: true, result: null, logs: [], truncated: false, durationMs: 0 }) }));
    expect(out).toMatchObject({ isError: true, content: expect.stringContaining('no function runner') });
  });
});
