import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultSettings } from '../../lib/settings';
import { parseSkillConfig } from '../../lib/skills/config';
import { createHttpSkillTools, httpSkillTools } from '../../lib/skills/http';
import type { SkillRequestOptions } from '../../lib/skills/http-request';
import type { SkillServices } from '../../lib/skills/services';
import type { SkillRecord } from '../../lib/skills/types';
import { detachedEnv } from '../../lib/tools/env';
import { ToolRegistry, type ToolContext } from '../../lib/tools/registry';
import { TaskBoard } from '../../lib/tools/task-board';
import { startHttpSkillServer, type TestServer } from '../harness/mcp-servers';

let server: TestServer;
beforeAll(async () => void (server = await startHttpSkillServer()));
afterAll(() => server.close());

const services = { profiles: async () => [], mcp: {} } as unknown as SkillServices;

function skill(name: string, config: Record<string, unknown>, description = 'A test skill.'): SkillRecord {
  return { id: `id-${name}`, name, description, skill_type: 'http', config_json: JSON.stringify(config), is_active: true, created_at: 0, updated_at: 0 };
}

function context(signal = new AbortController().signal): ToolContext {
  return { conversationId: 'c', signal, tasks: new TaskBoard(), env: { ...detachedEnv(defaultSettings()), fetch: globalThis.fetch } };
}

async function registryFor(record: SkillRecord, options?: SkillRequestOptions) {
  const parsed = parseSkillConfig('http', record.config_json);
  if (!parsed.ok) throw new Error(parsed.errors.join(' '));
  const factory = options ? createHttpSkillTools(options) : httpSkillTools;
  return new ToolRegistry(await factory(record, parsed.config, services));
}

async function call(config: Record<string, unknown>, args: unknown, { options, signal }: { options?: SkillRequestOptions; signal?: AbortSignal } = {}) {
  const record = skill('weather', config);
  const registry = await registryFor(record, options);
  const out = await registry.call(record.name, args, context(signal));
  return out.isError ? { isError: true as const, error: out.content } : { isError: false as const, reply: JSON.parse(out.content) };
}

const last = () => server.requests.at(-1)!;

describe('http skills: the request', () => {
  it('POSTs the arguments as a JSON body with the configured headers, and pretty-prints a JSON reply', async () => {
    const before = server.requests.length;
    const out = await call({ url: `${server.url}/echo`, headers: { 'X-Token': 's3cret' } }, { city: 'Ankara', days: 3 });
    expect(server.requests.length).toBe(before + 1);
    const req = last();
    expect(req.method).toBe('POST');
    expect(req.path).toBe('/echo');
    expect(req.body).toBe('{"city":"Ankara","days":3}');
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers['x-token']).toBe('s3cret');
    expect(req.headers.cookie).toBeUndefined();
    expect(out.isError).toBe(false);
    if (out.isError) return;
    expect(out.reply).toMatchObject({ status: 200, content_type: 'application/json', truncated: false });
    expect(out.reply.body).toMatch(/^\{\n {2}"method": "POST",\n/);
    expect(JSON.parse(out.reply.body).json).toEqual({ city: 'Ankara', days: 3 });
  });

  it('GETs with the arguments as query parameters: strings as is, other values as JSON, arrays repeated, the URL\'s own query kept', async () => {
    const out = await call(
      { url: `${server.url}/echo?units=metric`, method: 'GET' },
      { q: 'a b&c', n: 5, yes: true, none: null, filter: { min: 1 }, tag: ['x', 2] },
    );
    const req = last();
    expect(req.method).toBe('GET');
    expect(req.body).toBe('');
    expect(req.headers['content-type']).toBeUndefined();
    const query = new URL(req.path, 'http://x').searchParams;
    expect([...query]).toEqual([
      ['units', 'metric'],
      ['q', 'a b&c'],
      ['n', '5'],
      ['yes', 'true'],
      ['none', 'null'],
      ['filter', '{"min":1}'],
      ['tag', 'x'],
      ['tag', '2'],
    ]);
    expect(out.isError).toBe(false);
  });

  it('uses POST when the config names no method', async () => {
    await call({ url: `${server.url}/echo` }, {});
    expect(last()).toMatchObject({ method: 'POST', body: '{}' });
  });

  it('lets the configured headers replace the defaults', async () => {
    await call({ url: `${server.url}/echo`, headers: { Accept: 'text/csv' } }, {});
    expect(last().headers.accept).toBe('text/csv');
  });

  it('checks the arguments against input_schema before sending anything', async () => {
    const before = server.requests.length;
    const schema = { type: 'object', properties: { city: { type: 'string', minLength: 2 }, days: { type: 'integer', maximum: 7 } }, required: ['city'] };
    const missing = await call({ url: `${server.url}/echo`, input_schema: schema }, { days: 3 });
    expect(missing).toEqual({ isError: true, error: expect.stringMatching(/^Invalid arguments for weather: "city" is required/) });
    const wrong = await call({ url: `${server.url}/echo`, input_schema: schema }, { city: 'Rize', days: 9 });
    expect(wrong).toEqual({ isError: true, error: 'Invalid arguments for weather: "days": must be at most 7.' });
    const notObject = await call({ url: `${server.url}/echo`, input_schema: schema }, 'Ankara');
    expect(notObject.isError).toBe(true);
    expect(server.requests.length).toBe(before);
  });

  it('shows the model its name, description and input_schema (or an empty object schema)', async () => {
    const schema = { type: 'object', properties: { city: { type: 'string', description: 'A city' } }, required: ['city'] };
    const withSchema = await registryFor(skill('forecast', { url: `${server.url}/echo`, input_schema: schema }, 'Weather forecast.'));
    expect(withSchema.modelTools()).toEqual([{ name: 'forecast', description: 'Weather forecast.', input_schema: schema }]);
    const without = await registryFor(skill('ping', { url: `${server.url}/echo` }));
    expect(without.modelTools()[0]!.input_schema).toEqual({ type: 'object', properties: {} });
  });
});

describe('http skills: the reply', () => {
  it('keeps JSON numbers exactly as sent', async () => {
    const out = await call({ url: `${server.url}/json`, method: 'GET' }, {});
    expect(out).toEqual({
      isError: false,
      reply: { status: 200, content_type: 'application/json', body: '{\n  "ok": true,\n  "items": [\n    1,\n    2,\n    3\n  ],\n  "big": 12345678901234567890\n}', truncated: false },
    });
  });

  it('returns text as text, decoded by its charset', async () => {
    expect(await call({ url: `${server.url}/text`, method: 'GET' }, {})).toEqual({
      isError: false,
      reply: { status: 200, content_type: 'text/plain', body: 'plain reply', truncated: false },
    });
    const latin = await call({ url: `${server.url}/latin1`, method: 'GET' }, {});
    expect(latin.isError === false && latin.reply.body).toBe('café');
  });

  it('names a binary reply instead of showing it', async () => {
    const out = await call({ url: `${server.url}/binary`, method: 'GET' }, {});
    expect(out.isError === false && out.reply).toMatchObject({ content_type: 'image/png', body: expect.stringMatching(/^\[A binary reply \(image\/png, 16 bytes\)/), truncated: false });
  });

  it('cuts a long reply at the character cap and flags it', async () => {
    const out = await call({ url: `${server.url}/long-json`, method: 'GET' }, {});
    expect(out.isError).toBe(false);
    if (out.isError) return;
    expect(out.reply.truncated).toBe(true);
    expect(out.reply.body.length).toBe(100_000);
    expect(out.reply.body.startsWith('[\n  {\n    "i": 0\n  },')).toBe(true);
  });

  it('reads an oversized reply only up to the byte cap, and flags it', async () => {
    const started = Date.now();
    const out = await call({ url: `${server.url}/huge`, method: 'GET' }, {});
    expect(out.isError === false && out.reply).toMatchObject({ status: 200, truncated: true });
    expect(out.isError === false && out.reply.body).toBe('h'.repeat(100_000));
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('stops a reply that streams forever at the byte cap', async () => {
    const out = await call({ url: `${server.url}/flood`, method: 'GET' }, {}, { options: { maxReplyBytes: 256 * 1024, timeoutMs: 10_000 } });
    expect(out.isError === false && out.reply).toMatchObject({ truncated: true });
    expect(out.isError === false && out.reply.body.length).toBe(100_000);
  });

  it('stops a reply that trickles forever at the timeout', async () => {
    const started = Date.now();
    const out = await call({ url: `${server.url}/trickle`, method: 'GET' }, {}, { options: { timeoutMs: 400 } });
    expect(out).toEqual({ isError: true, error: expect.stringMatching(/did not answer within 0\.4 s \(timed out\)/) });
    expect(Date.now() - started).toBeLessThan(3000);
  });
});

describe('http skills: failures the model is told about', () => {
  it('a 404 gives the status, a hint and a short excerpt of the body', async () => {
    const out = await call({ url: `${server.url}/status/404?key=SECRET`, method: 'GET' }, {});
    expect(out.isError).toBe(true);
    if (!out.isError) return;
    expect(out.error).toMatch(/^The HTTP skill "weather" \(GET http:\/\/127\.0\.0\.1:\d+\/status\/404\) answered HTTP 404 Not Found\. The address or method/);
    expect(out.error).toContain('The reply began: "status 404 body: the thing you asked for is not here;');
    expect(out.error).not.toContain('SECRET');
    const excerpt = /The reply began: "(.*)"$/.exec(out.error)![1]!;
    expect(excerpt.length).toBeLessThanOrEqual(501);
    expect(excerpt.endsWith('…')).toBe(true);
  });

  it('a 500 says the server failed; an HTML error page is shown as its text', async () => {
    const s500 = await call({ url: `${server.url}/status/500` }, { a: 1 });
    expect(s500.isError && s500.error).toMatch(/answered HTTP 500 Internal Server Error\. The server failed: try again later\./);
    const html = await call({ url: `${server.url}/html-error`, method: 'GET' }, {});
    expect(html.isError && html.error).toMatch(/answered HTTP 503 Service Unavailable\..* The reply began: "Service Unavailable Try later\."$/);
  });

  it('an unreachable server is named as such', async () => {
    const closed = await startHttpSkillServer();
    const url = `${closed.url}/echo`;
    await closed.close();
    const out = await call({ url }, {});
    expect(out).toEqual({ isError: true, error: expect.stringMatching(/^Could not reach the HTTP skill "weather" \(POST http:\/\/127\.0\.0\.1:\d+\/echo\): .*refused/) });
  });

  it('a slow server times out at the (injectable) timeout', async () => {
    const started = Date.now();
    const out = await call({ url: `${server.url}/slow?ms=3000`, method: 'GET' }, {}, { options: { timeoutMs: 300 } });
    expect(out).toEqual({
      isError: true,
      error: expect.stringMatching(/^The HTTP skill "weather" \(GET http:\/\/127\.0\.0\.1:\d+\/slow\) did not answer within 0\.3 s \(timed out\)\./),
    });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('a caller\'s own deadline on the signal reads as a timeout, not as the user stopping', async () => {
    const record = skill('weather', { url: `${server.url}/slow?ms=3000`, method: 'GET' });
    const parsed = parseSkillConfig('http', record.config_json);
    if (!parsed.ok) throw new Error(parsed.errors.join(' '));
    const [tool] = await httpSkillTools(record, parsed.config, services);
    await expect(tool!.run({}, context(AbortSignal.timeout(200)))).rejects.toThrow(/did not answer within 30 s \(timed out\)/);
  });

  it('the user stopping the run ends the request at once', async () => {
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 200);
    const started = Date.now();
    const out = await call({ url: `${server.url}/slow?ms=3000`, method: 'GET' }, {}, { signal: stop.signal });
    expect(out).toEqual({ isError: true, error: 'Stopped by the user before this tool finished.' });
    expect(Date.now() - started).toBeLessThan(2000);
  });
});
