import { describe, expect, it } from 'vitest';
import * as v from 'valibot';
import { parseSkillConfig } from '../../lib/skills/config';
import { inputSchemaToValibot, SchemaProblem } from '../../lib/skills/json-schema';
import { prefixedToolName, toolNameProblem } from '../../lib/skills/names';
import { BUILTIN_TOOL_NAMES } from '../../lib/tools/catalog';

const taken = { builtin: new Set(BUILTIN_TOOL_NAMES), skills: new Set(['weather']) };

describe('skill names', () => {
  it.each([
    ['', 'empty'],
    ['my tool', 'letters a–z'],
    ['wetter-ü', 'letters a–z'],
    ['x'.repeat(65), 'limit is 64'],
    ['web_fetch', 'built-in tool'],
    ['weather', 'already called'],
  ])('refuses %j', (name, message) => {
    expect(toolNameProblem(name, taken)).toContain(message);
  });

  it('accepts the model’s alphabet', () => {
    expect(toolNameProblem('get-Weather_2', taken)).toBeUndefined();
  });

  it('prefixes MCP tools and keeps cut names distinct and within the limit', () => {
    expect(prefixedToolName('files', 'read.file')).toBe('files__read_file');
    const a = prefixedToolName('s'.repeat(40), 'a'.repeat(40));
    const b = prefixedToolName('s'.repeat(40), `${'a'.repeat(39)}b`);
    expect(a.length).toBeLessThanOrEqual(64);
    expect(a).not.toBe(b);
    expect(a).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
  });
});

describe('parseSkillConfig', () => {
  it('reads each type with its defaults', () => {
    expect(parseSkillConfig('builtin', '')).toEqual({ ok: true, config: {} });
    expect(parseSkillConfig('builtin', '{"function_name":"text_to_chart"}')).toEqual({ ok: true, config: { function_name: 'text_to_chart' } });
    expect(parseSkillConfig('mcp', '{"url":" http://127.0.0.1:9/mcp "}')).toEqual({
      ok: true,
      config: { url: 'http://127.0.0.1:9/mcp', auth_type: 'none', transport: 'call' },
    });
    expect(parseSkillConfig('http', '{"url":"https://api.example/x","method":"GET","headers":{"X-Token":"a"}}')).toEqual({
      ok: true,
      config: { url: 'https://api.example/x', method: 'GET', headers: { 'X-Token': 'a' } },
    });
  });

  const errorOf = (type: 'builtin' | 'mcp' | 'http', json: string) => {
    const r = parseSkillConfig(type, json);
    if (r.ok) throw new Error(`expected ${json} to be refused`);
    return r.errors.join(' | ');
  };

  it.each([
    ['mcp', '{"url": ', 'not valid JSON'],
    ['mcp', '[1]', 'must be a JSON object'],
    ['mcp', '"x"', 'must be a JSON object'],
    ['mcp', '{}', 'config_json.url is required'],
    ['mcp', '{"url":"ftp://x"}', 'config_json.url must be an http:// or https:// URL'],
    ['mcp', '{"url":42}', 'config_json.url must be a string'],
    ['mcp', '{"url":"http://x","auth_type":"basic"}', 'config_json.auth_type must be one of none, api_key, bearer, oauth2'],
    ['mcp', '{"url":"http://x","auth_type":"bearer"}', 'auth_value is required'],
    ['mcp', '{"url":"http://x","token":"a"}', 'unknown field "token"; accepted fields: url, auth_type, auth_value, input_schema, transport'],
    ['mcp', '{"url":"http://x","input_schema":{"type":"string"}}', '"type": "object"'],
    ['mcp', '{"url":"http://x","input_schema":{"type":"object","properties":{"n":{"type":"float"}}}}', 'input_schema.properties.n.type must be one of'],
    ['http', '{"url":"http://x","method":"PUT"}', 'must be "POST" or "GET"'],
    ['http', '{"url":"http://x","headers":{"X":1}}', 'config_json.headers.X must be a string'],
    ['http', '{"url":"http://x","headers":{"Bad Name":"1"}}', 'not a valid HTTP header name'],
    ['builtin', '{"function_name":"send_email"}', 'must be one of web_search, journal_write'],
    ['builtin', '{"function_name":"delegate_to_agent","to_agent_id":""}', 'config_json.to_agent_id must not be empty'],
  ] as const)('%s %s → %s', (type, json, message) => {
    expect(errorOf(type, json)).toContain(message);
  });

  it('reads function and database configs, and refuses an unknown type', () => {
    expect(parseSkillConfig('function', '{"language":" Py ","code":"def run(args):\\n  return str(args)"}')).toEqual({
      ok: true,
      config: { language: 'python', code: 'def run(args):\n  return str(args)' },
    });
    expect(parseSkillConfig('function', '{"language":"ruby","code":"x"}')).toEqual({ ok: false, errors: ['config_json.language must be "javascript" or "python".'] });
    expect(parseSkillConfig('function', '{"language":"js","code":""}')).toEqual({ ok: false, errors: ['config_json.code must not be empty: it defines run(args).'] });
    expect(parseSkillConfig('database', '{"db_id":"chinook"}')).toEqual({ ok: true, config: { db_id: 'chinook' } });
    expect(parseSkillConfig('database', '{"db_id":"a b"}')).toMatchObject({ ok: false });
    expect(parseSkillConfig('ftp' as never, '{}')).toEqual({ ok: false, errors: [expect.stringContaining('not supported in this version')] });
  });
});

describe('inputSchemaToValibot', () => {
  const schema = inputSchemaToValibot({
    type: 'object',
    properties: {
      city: { type: 'string', minLength: 2 },
      days: { type: 'integer', minimum: 1, maximum: 14 },
      units: { enum: ['metric', 'imperial'] },
      tags: { type: 'array', items: { type: 'string' }, maxItems: 2 },
      note: { type: ['string', 'null'] },
      extra: {},
    },
    required: ['city'],
    additionalProperties: false,
  });
  const issues = (input: unknown) => {
    const r = v.safeParse(schema, input);
    return r.success ? [] : r.issues.map((i) => `${i.path?.map((p) => p.key).join('.') ?? ''}: ${i.message}`);
  };

  it('accepts what the schema allows', () => {
    expect(issues({ city: 'Oslo', days: 3, units: 'metric', tags: ['a'], note: null, extra: { any: 1 } })).toEqual([]);
  });

  it.each([
    [{}, 'city'],
    [{ city: 'O' }, 'at least 2 characters'],
    [{ city: 'Oslo', days: 1.5 }, 'whole number'],
    [{ city: 'Oslo', days: 15 }, 'at most 14'],
    [{ city: 'Oslo', units: 'kelvin' }, 'one of "metric", "imperial"'],
    [{ city: 'Oslo', tags: ['a', 'b', 'c'] }, 'at most 2 items'],
    [{ city: 'Oslo', note: 3 }, 'string or null'],
    [{ city: 'Oslo', country: 'NO' }, 'country'],
  ])('refuses %j', (input, message) => {
    expect(issues(input).join(' ')).toContain(message);
  });

  it('keeps unknown properties when additionalProperties is not false', () => {
    const loose = inputSchemaToValibot({ type: 'object', properties: { a: { type: 'number' } } });
    expect(v.parse(loose, { a: 1, b: 2 })).toEqual({ a: 1, b: 2 });
  });

  it.each([
    [null, 'must be a JSON object'],
    [{ type: 'array' }, '"type": "object"'],
    [{ type: 'object', properties: [] }, 'properties must be an object'],
    [{ type: 'object', required: 'a' }, 'required must be an array'],
    [{ type: 'object', properties: { p: { type: 'string', pattern: '(' } } }, 'not a valid regular expression'],
    [{ type: 'object', properties: { p: { enum: [] } } }, 'enum must be a non-empty array'],
  ])('refuses the schema %j', (bad, message) => {
    expect(() => inputSchemaToValibot(bad)).toThrow(SchemaProblem);
    expect(() => inputSchemaToValibot(bad)).toThrow(message);
  });

  it('refuses a schema nested without end', () => {
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 20; i++) deep = { type: 'object', properties: { x: deep } };
    expect(() => inputSchemaToValibot(deep)).toThrow('nested deeper');
  });
});
