/** The builtin skill factory, web_search and code_execution. */
import { describe, expect, it } from 'vitest';
import type { SandboxHost, SandboxOutcome, SandboxRunOptions } from '../../lib/sandbox/types';
import { defaultSettings, type Settings } from '../../lib/settings';
import { builtinFunctionOf, builtinSkillTools, journalPath } from '../../lib/skills/builtin';
import { BUILTIN_FUNCTIONS, parseSkillConfig } from '../../lib/skills/config';
import type { SkillServices } from '../../lib/skills/services';
import type { SkillRecord } from '../../lib/skills/types';
import { detachedEnv } from '../../lib/tools/env';
import { ToolRegistry, type ToolContext } from '../../lib/tools/registry';
import { TaskBoard } from '../../lib/tools/task-board';

const skill = (name: string, description = '', config_json = '{}'): SkillRecord => ({
  id: `id-${name}`,
  name,
  description,
  skill_type: 'builtin',
  config_json,
  is_active: true,
  created_at: 0,
  updated_at: 0,
});
const services: SkillServices = { profiles: async () => [], mcp: {} as SkillServices['mcp'] };

describe('builtinSkillTools', () => {
  it('makes one tool per skill, named and described as the skill, for every function', async () => {
    for (const fn of BUILTIN_FUNCTIONS) {
      const record = skill(`my_${fn}`, 'The user\'s words');
      const config = parseSkillConfig('builtin', JSON.stringify({ function_name: fn }));
      if (!config.ok) throw new Error(config.errors.join());
      const tools = await builtinSkillTools(record, config.config, services);
      expect(tools).toHaveLength(1);
      expect(tools[0]!.name).toBe(`my_${fn}`);
      expect(tools[0]!.description).toMatch(/^The user's words\. \S/);
      // Every input schema becomes a JSON schema the model can read.
      const [modelTool] = new ToolRegistry(tools).modelTools();
      expect(modelTool!.input_schema).toMatchObject({ type: 'object', properties: expect.any(Object) });
    }
  });

  it('takes the function from the skill name when the config names none', async () => {
    expect(builtinFunctionOf(skill('web_search'), {})).toBe('web_search');
    expect(builtinFunctionOf(skill('web_search'), { function_name: 'journal_write' })).toBe('journal_write');
    const [tool] = await builtinSkillTools(skill('text_to_chart'), {}, services);
    expect(tool!.description).toMatch(/^Draw a chart \(bar, line or pie\)/);
  });

  it('says which functions exist when neither config nor name names one', async () => {
    expect(builtinFunctionOf(skill('my_search'), {})).toBeUndefined();
    await expect(builtinSkillTools(skill('my_search'), {}, services)).rejects.toThrow(/"my_search" names no builtin function: set config_json\.function_name to one of web_search, journal_write/);
  });

  it('exports the journal path for the UI', () => {
    expect(journalPath('abc')).toBe('/journals/abc.md');
  });
});

function context(env: Partial<ToolContext['env']>, settings: Partial<Settings> = {}, signal = new AbortController().signal): ToolContext {
  return { conversationId: 'c', signal, tasks: new TaskBoard(), env: { ...detachedEnv({ ...defaultSettings(), ...settings }), ...env } };
}

async function tool(name: string, fn: (typeof BUILTIN_FUNCTIONS)[number], ctx: ToolContext) {
  const registry = new ToolRegistry(await builtinSkillTools(skill(name), { function_name: fn }, services));
  return async (input: unknown) => {
    const out = await registry.call(name, input, ctx);
    return out.isError ? { error: out.content } : { result: JSON.parse(out.content) };
  };
}

describe('web_search skill', () => {
  const result = (i: number) =>
    `<div class="result results_links web-result"><div class="links_main result__body"><h2 class="result__title"><a class="result__a" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fexample.com%2F${i}&amp;rut=x">Result ${i}</a></h2><a class="result__snippet" href="#">Snippet ${i}</a></div></div>`;

  function fakeFetch(pages: number) {
    const requests: { url: string; init: RequestInit }[] = [];
    const fetchFn = (async (input: RequestInfo | URL, init: RequestInit = {}) => {
      requests.push({ url: String(input), init });
      const html = `<html><body>${Array.from({ length: pages }, (_, i) => result(i)).join('')}</body></html>`;
      return new Response(html, { headers: { 'content-type': 'text/html; charset=utf-8' } });
    }) as typeof fetch;
    return { fetchFn, requests };
  }

  it('searches with the engine of the settings through the search orchestrator', async () => {
    const { fetchFn, requests } = fakeFetch(3);
    const call = await tool('find', 'web_search', context({ fetch: fetchFn }));
    const out = await call({ query: 'pagewright skills' });
    expect(out.result).toEqual([0, 1, 2].map((i) => ({ title: `Result ${i}`, url: `https://example.com/${i}`, snippet: `Snippet ${i}` })));
    expect(requests[0]!.url).toMatch(/^https:\/\/html\.duckduckgo\.com\/html\/\?q=pagewright(\+|%20)skills/);
    expect(requests[0]!.init.credentials).toBe('omit');
  });

  it('takes num_results, capped at ten', async () => {
    const { fetchFn } = fakeFetch(14);
    const call = await tool('find', 'web_search', context({ fetch: fetchFn }));
    expect((await call({ query: 'x', num_results: 2 })).result).toHaveLength(2);
    expect((await call({ query: 'x', num_results: 50 })).result).toHaveLength(10);
    expect((await call({ query: 'x' })).result).toHaveLength(5);
  });

  it('uses the engine chosen in the settings, and says what it is missing', async () => {
    const { fetchFn, requests } = fakeFetch(1);
    const call = await tool('find', 'web_search', context({ fetch: fetchFn }, { searchEngine: 'google' }));
    expect((await call({ query: 'x' })).error).toMatch(/Google Custom Search cannot search without an API key/);
    expect(requests).toHaveLength(0);
  });

  it.each<[string, unknown, RegExp]>([
    ['no query', {}, /"query" is required/],
    ['a blank query', { query: '  ' }, /query.*must not be empty/],
    ['a number as query', { query: 7 }, /query.*string/],
    ['num_results 0', { query: 'x', num_results: 0 }, /num_results.*at least 1/],
    ['num_results "3"', { query: 'x', num_results: '3' }, /num_results.*must be a number/],
    ['max_results (the built-in tool\'s name)', { query: 'x', max_results: 3 }, /unknown argument "max_results"/],
  ])('refuses %s', async (_name, input, message) => {
    const { fetchFn, requests } = fakeFetch(1);
    expect((await (await tool('find', 'web_search', context({ fetch: fetchFn })))(input)).error).toMatch(message);
    expect(requests).toHaveLength(0);
  });
});

describe('code_execution skill', () => {
  function fakeSandbox(outcome: SandboxOutcome | ((code: string, o: SandboxRunOptions) => SandboxOutcome | Promise<SandboxOutcome>)) {
    const runs: { code: string; options: SandboxRunOptions }[] = [];
    const sandbox: SandboxHost = {
      run: async (code, options) => {
        runs.push({ code, options });
        return typeof outcome === 'function' ? outcome(code, options) : outcome;
      },
    };
    return { sandbox, runs };
  }

  it('runs the code in the sandbox with the user\'s script timeout and returns result and logs', async () => {
    const { sandbox, runs } = fakeSandbox({ ok: true, result: { sum: 6 }, logs: ['adding'], truncated: false, durationMs: 3 });
    const out = await (await tool('js', 'code_execution', context({ sandbox }, { scriptTimeoutSec: 30 })))({ code: 'console.log("adding"); return {sum: 1+2+3}' });
    expect(out).toEqual({ result: { result: { sum: 6 }, logs: ['adding'], truncated: false } });
    expect(runs[0]).toMatchObject({ code: 'console.log("adding"); return {sum: 1+2+3}', options: { timeoutMs: 30_000, maxOutputChars: 100_000, signal: expect.any(AbortSignal) } });
  });

  it('takes timeout_ms up to 60 s, or up to the user\'s longer script timeout', async () => {
    const { sandbox, runs } = fakeSandbox({ ok: true, result: null, logs: [], truncated: false, durationMs: 1 });
    const call = await tool('js', 'code_execution', context({ sandbox }, { scriptTimeoutSec: 30 }));
    await call({ code: 'return 1', timeout_ms: 500 });
    expect(runs[0]!.options.timeoutMs).toBe(500);
    expect((await call({ code: 'return 1', timeout_ms: 90_000 })).error).toBe('timeout_ms may be at most 60000 (60 s); got 90000.');
    const long = await tool('js', 'code_execution', context({ sandbox }, { scriptTimeoutSec: 120 }));
    await long({ code: 'return 1', timeout_ms: 90_000 });
    expect(runs.at(-1)!.options.timeoutMs).toBe(90_000);
  });

  it('reports a timeout with the limit and the logs written before it', async () => {
    const { sandbox } = fakeSandbox((_c, o) => ({ ok: false, error: { kind: 'timeout', message: 'timed out' }, logs: ['tick 1', 'tick 2'], durationMs: o.timeoutMs }));
    const out = await (await tool('js', 'code_execution', context({ sandbox })))({ code: 'while(true){}', timeout_ms: 1000 });
    expect(out.error).toBe('The code did not finish within 1 s and was stopped.\nlogs:\ntick 1\ntick 2');
  });

  it.each<[string, SandboxOutcome, RegExp]>([
    ['a syntax error', { ok: false, error: { kind: 'syntax', message: "Unexpected token ')'" }, logs: [], durationMs: 0 }, /^SyntaxError: Unexpected token '\)'$/],
    ['a thrown error', { ok: false, error: { kind: 'runtime', message: 'TypeError: x is undefined', stack: 'at run (code:1:5)' }, logs: ['before'], durationMs: 1 }, /^TypeError: x is undefined\nat run \(code:1:5\)\nlogs:\nbefore$/],
    ['a result too large', { ok: false, error: { kind: 'output_too_large', message: 'The result is 5 MB of JSON.' }, logs: [], durationMs: 1 }, /too large to return.*Return a smaller value/],
    ['a broken host', { ok: false, error: { kind: 'host', message: 'the sandbox page did not load' }, logs: [], durationMs: 1 }, /^The sandbox could not run the code: the sandbox page did not load$/],
  ])('reports %s', async (_name, outcome, message) => {
    const { sandbox } = fakeSandbox(outcome);
    expect((await (await tool('js', 'code_execution', context({ sandbox })))({ code: 'x' })).error).toMatch(message);
  });

  it('passes the result through when it was cut', async () => {
    const { sandbox } = fakeSandbox({ ok: true, result: '[1,2,', logs: [], truncated: true, durationMs: 1 });
    expect((await (await tool('js', 'code_execution', context({ sandbox })))({ code: 'x' })).result).toEqual({ result: '[1,2,', logs: [], truncated: true });
  });

  it('stops with the run', async () => {
    const stop = new AbortController();
    const { sandbox } = fakeSandbox(
      (_c, o) =>
        new Promise((resolve) => o.signal!.addEventListener('abort', () => resolve({ ok: false, error: { kind: 'aborted', message: 'aborted' }, logs: [], durationMs: 1 }))),
    );
    const pending = (await tool('js', 'code_execution', context({ sandbox }, {}, stop.signal)))({ code: 'for(;;);' });
    stop.abort();
    expect((await pending).error).toMatch(/Stopped by the user/);
  });

  it.each<[string, unknown, RegExp]>([
    ['no code', {}, /"code" is required/],
    ['empty code', { code: '' }, /code.*must not be empty/],
    ['code as a number', { code: 42 }, /code.*string/],
    ['a timeout of 10 ms', { code: 'x', timeout_ms: 10 }, /timeout_ms.*at least 100/],
    ['a fractional timeout', { code: 'x', timeout_ms: 1000.5 }, /timeout_ms.*whole number/],
    ['a timeout as text', { code: 'x', timeout_ms: '5000' }, /timeout_ms.*must be a number/],
    ['an unknown argument', { code: 'x', language: 'python' }, /unknown argument "language"/],
  ])('refuses %s without running anything', async (_name, input, message) => {
    const { sandbox, runs } = fakeSandbox({ ok: true, result: 1, logs: [], truncated: false, durationMs: 1 });
    expect((await (await tool('js', 'code_execution', context({ sandbox })))(input)).error).toMatch(message);
    expect(runs).toHaveLength(0);
  });
});
