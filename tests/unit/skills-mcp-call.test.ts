import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultSettings } from '../../lib/settings';
import { parseSkillConfig } from '../../lib/skills/config';
import type { SkillRequestOptions } from '../../lib/skills/http-request';
import { callEndpoint, createMcpCallSkillTools, mcpSkillTools } from '../../lib/skills/mcp-call';
import type { SkillServices } from '../../lib/skills/services';
import type { SkillRecord } from '../../lib/skills/types';
import { detachedEnv } from '../../lib/tools/env';
import { ToolRegistry, type ToolContext } from '../../lib/tools/registry';
import { TaskBoard } from '../../lib/tools/task-board';
import { startCallServer, startHttpSkillServer, type TestServer } from '../harness/mcp-servers';

let server: TestServer;
let keyed: TestServer;
let bearer: TestServer;
beforeAll(async () => {
  [server, keyed, bearer] = await Promise.all([startCallServer(), startCallServer({ apiKey: 'k-123' }), startCallServer({ bearer: 't-456' })]);
});
afterAll(() => Promise.all([server, keyed, bearer].map((s) => s.close())));

/** The /call transport never touches the MCP sessions. */
const services = { profiles: async () => [], mcp: {} } as unknown as SkillServices;

function skill(name: string, config: Record<string, unknown>): SkillRecord {
  return { id: `id-${name}`, name, description: `The ${name} skill.`, skill_type: 'mcp', config_json: JSON.stringify(config), is_active: true, created_at: 0, updated_at: 0 };
}

function context(signal = new AbortController().signal): ToolContext {
  return { conversationId: 'c', signal, tasks: new TaskBoard(), env: { ...detachedEnv(defaultSettings()), fetch: globalThis.fetch } };
}

async function registryFor(record: SkillRecord, options?: SkillRequestOptions) {
  const parsed = parseSkillConfig('mcp', record.config_json);
  if (!parsed.ok) throw new Error(parsed.errors.join(' '));
  const factory = options ? createMcpCallSkillTools(options) : mcpSkillTools;
  return new ToolRegistry(await factory(record, parsed.config, services));
}

async function call(name: string, config: Record<string, unknown>, args: unknown = {}, { options, signal }: { options?: SkillRequestOptions; signal?: AbortSignal } = {}) {
  const record = skill(name, config);
  const registry = await registryFor(record, options);
  return registry.call(name, args, context(signal));
}

const ok = (content: string) => ({ isError: false, content });
const err = (pattern: RegExp) => ({ isError: true, content: expect.stringMatching(pattern) });

describe('callEndpoint', () => {
  it('appends /call once, keeps the query, and never doubles slashes', () => {
    expect(callEndpoint('http://h:1').href).toBe('http://h:1/call');
    expect(callEndpoint('http://h:1/').href).toBe('http://h:1/call');
    expect(callEndpoint('http://h:1/mcp').href).toBe('http://h:1/mcp/call');
    expect(callEndpoint('http://h:1/mcp/').href).toBe('http://h:1/mcp/call');
    expect(callEndpoint('http://h:1/mcp//').href).toBe('http://h:1/mcp/call');
    expect(callEndpoint('http://h:1/mcp/call').href).toBe('http://h:1/mcp/call');
    expect(callEndpoint('http://h:1/call/').href).toBe('http://h:1/call');
    expect(callEndpoint('http://h:1/recall').href).toBe('http://h:1/recall/call');
    expect(callEndpoint('http://h:1/mcp?key=a/b#frag').href).toBe('http://h:1/mcp/call?key=a/b');
    expect(callEndpoint('http://h:1/x/call?v=2').href).toBe('http://h:1/x/call?v=2');
  });
});

describe('mcp skills over /call: the request', () => {
  it('POSTs the JSON-RPC tools/call body, naming the skill, to {url}/call', async () => {
    const out = await call('add', { url: `${server.url}/mcp/` }, { a: 2, b: 3 });
    expect(out).toEqual(ok('5'));
    const req = server.requests.at(-1)!;
    expect(req.method).toBe('POST');
    expect(req.path).toBe('/mcp/call');
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers['x-api-key']).toBeUndefined();
    expect(req.headers.authorization).toBeUndefined();
    expect(req.json).toEqual({ jsonrpc: '2.0', id: expect.any(Number), method: 'tools/call', params: { name: 'add', arguments: { a: 2, b: 3 } } });
    expect(Object.keys(req.json as object)).toEqual(['jsonrpc', 'id', 'method', 'params']);
  });

  it('sends to url unchanged when it already ends in /call, query string included', async () => {
    await call('echo', { url: `${server.url}/tools/call?tenant=7` }, { x: 1 });
    expect(server.requests.at(-1)!.path).toBe('/tools/call?tenant=7');
  });

  it('gives each call its own id', async () => {
    await call('echo', { url: server.url });
    await call('echo', { url: server.url });
    const [a, b] = server.requests.slice(-2).map((r) => (r.json as { id: number }).id);
    expect(b).not.toBe(a);
  });

  it('api_key sends X-API-Key', async () => {
    const out = await call('echo', { url: keyed.url, auth_type: 'api_key', auth_value: 'k-123' }, { q: 1 });
    expect(out).toEqual(ok('{"name":"echo","arguments":{"q":1}}'));
    const req = keyed.requests.at(-1)!;
    expect(req.headers['x-api-key']).toBe('k-123');
    expect(req.headers.authorization).toBeUndefined();
  });

  it('bearer and oauth2 send Authorization: Bearer', async () => {
    expect(await call('echo', { url: bearer.url, auth_type: 'bearer', auth_value: 't-456' })).toMatchObject({ isError: false });
    expect(bearer.requests.at(-1)!.headers.authorization).toBe('Bearer t-456');
    expect(await call('echo', { url: bearer.url, auth_type: 'oauth2', auth_value: 't-456' })).toMatchObject({ isError: false });
    expect(bearer.requests.at(-1)!.headers.authorization).toBe('Bearer t-456');
    expect(bearer.requests.at(-1)!.headers['x-api-key']).toBeUndefined();
  });

  it('a wrong credential is refused with a hint at the config', async () => {
    const out = await call('echo', { url: keyed.url, auth_type: 'api_key', auth_value: 'wrong' });
    expect(out).toEqual(err(/answered HTTP 401 Unauthorized\. The reply began: ".*bad or missing X-API-Key.*" The server refused the credentials: check auth_type and auth_value/));
  });

  it('checks the arguments against input_schema before sending, and shows the schema to the model', async () => {
    const schema = { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'], additionalProperties: false };
    const before = server.requests.length;
    expect(await call('add', { url: server.url, input_schema: schema }, { a: 1 })).toEqual(err(/^Invalid arguments for add: "b" is required/));
    expect(await call('add', { url: server.url, input_schema: schema }, { a: 1, b: 'two' })).toEqual(err(/"b": must be a number/));
    expect(await call('add', { url: server.url, input_schema: schema }, { a: 1, b: 2, c: 3 })).toEqual(err(/unknown argument "c"/));
    expect(server.requests.length).toBe(before);
    const registry = await registryFor(skill('add', { url: server.url, input_schema: schema }));
    expect(registry.modelTools()).toEqual([{ name: 'add', description: 'The add skill.', input_schema: schema }]);
    const plain = await registryFor(skill('add', { url: server.url }));
    expect(plain.modelTools()[0]!.input_schema).toEqual({ type: 'object', properties: {} });
  });
});

describe('mcp skills over /call: the reply', () => {
  it('returns the first text content, skipping other kinds', async () => {
    expect(await call('multi_text', { url: server.url })).toEqual(ok('first'));
  });

  it('says when there is no text content, naming what came back', async () => {
    expect(await call('no_text', { url: server.url })).toEqual(ok(expect.stringMatching(/returned no text content, only: image, resource\./)));
    expect(await call('empty', { url: server.url })).toEqual(ok(expect.stringMatching(/returned no content\.\]$/)));
  });

  it('a result with isError is an error carrying the tool\'s text', async () => {
    expect(await call('tool_error', { url: server.url })).toEqual(err(/^The MCP skill "tool_error" \(http:\/\/127\.0\.0\.1:\d+\/call\) reported that the tool failed: the tool broke$/));
  });

  it('a JSON-RPC error object gives its code and message', async () => {
    expect(await call('rpc_error', { url: server.url })).toEqual(err(/returned an error\. JSON-RPC error -32602: Invalid params: b is missing\. The arguments were not accepted/));
  });

  it('an HTTP 500 gives the status and what the server said', async () => {
    expect(await call('http_500', { url: server.url })).toEqual(err(/answered HTTP 500 Internal Server Error\. The reply began: "Internal Server Error: database unavailable" The server failed/));
  });

  it('a reply that is not JSON is an error with an excerpt and a hint', async () => {
    expect(await call('not_json', { url: server.url })).toEqual(err(/did not reply with JSON \(HTTP 200 OK, text\/html\)\. It began: "Maintenance\s+Back soon\." .*"transport": "streamable_http"/));
  });

  it('no server at the address: unreachable', async () => {
    const gone = await startCallServer();
    const url = gone.url;
    await gone.close();
    expect(await call('echo', { url })).toEqual(err(/^Could not reach the MCP skill "echo" \(http:\/\/127\.0\.0\.1:\d+\/call\): .*refused/));
  });

  it('a server without a /call route: a 404 with a hint', async () => {
    const rest = await startHttpSkillServer();
    try {
      expect(await call('echo', { url: rest.url })).toEqual(err(/answered HTTP 404 Not Found\. The reply began: "no route \/call" Nothing answers at that path/));
    } finally {
      await rest.close();
    }
  });

  it('a long text is cut at the character cap, with a note', async () => {
    const out = await call('long_text', { url: server.url });
    expect(out.isError).toBe(false);
    expect(out.content.startsWith('z'.repeat(100_000) + '\n\n[Truncated: the reply has 150000 characters; only the first 100000 are shown.]')).toBe(true);
  });

  it('an oversized reply is an error, not read past the byte cap', async () => {
    expect(await call('huge', { url: server.url })).toEqual(err(/sent a reply larger than 4 MB; it was not read further/));
  });

  it('a reply that floods forever ends at the byte cap', async () => {
    const started = Date.now();
    const out = await call('flood', { url: server.url }, {}, { options: { maxReplyBytes: 512 * 1024, timeoutMs: 10_000 } });
    expect(out).toEqual(err(/sent a reply larger than 512 KB/));
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('a reply that trickles forever ends at the timeout', async () => {
    const started = Date.now();
    expect(await call('trickle', { url: server.url }, {}, { options: { timeoutMs: 400 } })).toEqual(err(/did not answer within 0\.4 s \(timed out\)/));
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('a slow server times out; a fast enough one answers', async () => {
    expect(await call('slow', { url: server.url }, { ms: 2000 }, { options: { timeoutMs: 300 } })).toEqual(err(/^The MCP skill "slow" .* did not answer within 0\.3 s \(timed out\)/));
    expect(await call('slow', { url: server.url }, { ms: 50 }, { options: { timeoutMs: 2000 } })).toEqual(ok('{"name":"slow","arguments":{"ms":50}}'));
  });

  it('the user stopping the run ends the call', async () => {
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 150);
    expect(await call('slow', { url: server.url }, { ms: 3000 }, { signal: stop.signal })).toEqual({ isError: true, content: 'Stopped by the user before this tool finished.' });
  });
});
