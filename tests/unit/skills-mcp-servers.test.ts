import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { McpServerSessionsOptions } from '../../lib/skills/mcp-servers';
import type { McpServers, SkillServices } from '../../lib/skills/services';
import type { SkillRecord } from '../../lib/skills/types';
import type { ToolContext } from '../../lib/tools/registry';
import type { McpTestServer } from '../harness/mcp-servers';

/**
 * Extension pages and the MV3 service worker forbid new Function (CSP). This file runs with the
 * global Function constructor throwing EvalError as it would there — set before zod, the SDK or
 * ajv are loaded (hence the dynamic imports), since zod probes for eval once, at load — so
 * anything that compiles code fails here too. Attempts are recorded to tell which library tried.
 */
const RealFunction = globalThis.Function;
const evalAttempts: string[] = [];
const refuse = () => {
  evalAttempts.push(new Error().stack ?? '');
  throw new EvalError("Refused to evaluate a string as JavaScript because 'unsafe-eval' is not allowed (test CSP).");
};
globalThis.Function = new Proxy(RealFunction, { construct: refuse, apply: refuse });

const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
const { defaultSettings } = await import('../../lib/settings');
const { parseSkillConfig } = await import('../../lib/skills/config');
const { mcpSkillTools } = await import('../../lib/skills/mcp-call');
const { McpServerSessions, remoteToolDefinitions } = await import('../../lib/skills/mcp-servers');
const { detachedEnv } = await import('../../lib/tools/env');
const { ToolRegistry } = await import('../../lib/tools/registry');
const { TaskBoard } = await import('../../lib/tools/task-board');
const { MCP_TEST_TOOLS, startMcpServer } = await import('../harness/mcp-servers');
const { startBrokenMcpServer } = await import('../harness/broken-mcp-server');

let server: McpTestServer;
const opened: InstanceType<typeof McpServerSessions>[] = [];

beforeAll(async () => void (server = await startMcpServer()));
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.closeAll()));
});
afterAll(async () => {
  globalThis.Function = RealFunction;
  await server.close();
});

function newSessions(options: McpServerSessionsOptions = {}) {
  const s = new McpServerSessions({ fetch: globalThis.fetch, ...options });
  opened.push(s);
  return s;
}

function skill(name: string, config: Record<string, unknown>, id = `id-${name}`): SkillRecord {
  return { id, name, description: `The ${name} server.`, skill_type: 'mcp', config_json: JSON.stringify({ transport: 'streamable_http', ...config }), is_active: true, created_at: 0, updated_at: 0 };
}

function context(signal = new AbortController().signal): ToolContext {
  return { conversationId: 'c', signal, tasks: new TaskBoard(), env: { ...detachedEnv(defaultSettings()), fetch: globalThis.fetch } };
}

async function toolsOf(record: SkillRecord, mcp: McpServers) {
  const parsed = parseSkillConfig('mcp', record.config_json);
  if (!parsed.ok) throw new Error(parsed.errors.join(' '));
  const services: SkillServices = { profiles: async () => [], mcp };
  return mcpSkillTools(record, parsed.config, services);
}

async function registryOf(record: SkillRecord, mcp: McpServers) {
  return new ToolRegistry(await toolsOf(record, mcp));
}

const callsTo = (s: McpTestServer, tool: string) =>
  s.requests.filter((r) => (r.json as { method?: string; params?: { name?: string } } | undefined)?.method === 'tools/call' && (r.json as { params: { name: string } }).params.name === tool).length;

const ok = (content: string) => ({ isError: false, content });
const err = (pattern: RegExp) => ({ isError: true, content: expect.stringMatching(pattern) });

describe('standard MCP servers: the tool list', () => {
  it('each remote tool becomes a tool named <skill>__<tool>, with its description and schema', async () => {
    const registry = await registryOf(skill('srv', { url: server.url }), newSessions());
    const tools = registry.modelTools();
    expect(tools.map((t) => t.name)).toEqual(['srv__add', 'srv__echo', 'srv__fail', 'srv__slow', 'srv__picture', 'srv__mixed', 'srv__measure', 'srv__get_weather', 'srv__odd']);
    expect(tools[0]).toEqual({
      name: 'srv__add',
      description: 'Adds two numbers. (tool "add" of the MCP server "srv")',
      input_schema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
    });
  });

  it('a schema that cannot be converted costs only its own checks, not the list', async () => {
    const registry = await registryOf(skill('srv', { url: server.url }), newSessions());
    const odd = registry.modelTools().find((t) => t.name === 'srv__odd')!;
    expect(odd.input_schema).toEqual({ type: 'object' });
    expect(odd.description).toMatch(/^Has a schema with an unknown type\. \(tool "odd" of the MCP server "srv"\) Its input schema could not be used \(input_schema\.properties\.x\.type must be one of .*\); as the server gives it: \{"type":"object","properties":\{"x":\{"type":"wobbly"\}\}\}$/);
    expect(await registry.call('srv__odd', { x: 1 }, context())).toEqual(ok('odd got {"x":1}'));
    expect(await registry.call('srv__odd', 'not an object', context())).toMatchObject({ isError: true });
  });

  it('follows tools/list cursors to the last page', async () => {
    const paged = await startMcpServer({ pageSize: 2 });
    try {
      const tools = await newSessions().listTools(skill('p', { url: paged.url }));
      expect(tools.map((t) => t.name)).toEqual(MCP_TEST_TOOLS.map((t) => t.tool.name));
      expect(paged.listCount()).toBe(Math.ceil(MCP_TEST_TOOLS.length / 2));
    } finally {
      await paged.close();
    }
  });

  it('keeps the session and the list between runs; refresh lists again on the same session', async () => {
    const s = await startMcpServer();
    try {
      const mcp = newSessions();
      const record = skill('keep', { url: s.url });
      await toolsOf(record, mcp);
      await toolsOf(record, mcp);
      const registry = await registryOf(record, mcp);
      expect(await registry.call('keep__add', { a: 1, b: 2 }, context())).toEqual(ok('3'));
      expect(await registry.call('keep__add', { a: 3, b: 4 }, context())).toEqual(ok('7'));
      expect(s.initializeCount()).toBe(1);
      expect(s.listCount()).toBe(1);
      await mcp.listTools(record, { refresh: true });
      expect(s.listCount()).toBe(2);
      expect(s.initializeCount()).toBe(1);
      const sessionHeaders = new Set(s.requests.filter((r) => r.method === 'POST').map((r) => r.headers['mcp-session-id']).filter(Boolean));
      expect(sessionHeaders.size).toBe(1);
    } finally {
      await s.close();
    }
  });

  it('tools/list_changed from the server: the next run lists again, on the same session', async () => {
    const s = await startMcpServer();
    try {
      const mcp = newSessions();
      const record = skill('chg', { url: s.url });
      await toolsOf(record, mcp);
      await toolsOf(record, mcp);
      expect(s.listCount()).toBe(1);
      // The notification comes over the session's GET stream, which opens after initialize.
      await expect.poll(() => s.requests.some((r) => r.method === 'GET'), { timeout: 3000 }).toBe(true);
      await s.notifyToolsChanged();
      await expect.poll(async () => (await toolsOf(record, mcp), s.listCount()), { timeout: 3000 }).toBe(2);
      await toolsOf(record, mcp);
      expect(s.listCount()).toBe(2);
      expect(s.initializeCount()).toBe(1);
    } finally {
      await s.close();
    }
  });

  it('an edited config opens a new session (and ends the old one); forget ends it too', async () => {
    const s = await startMcpServer();
    try {
      const mcp = newSessions();
      await mcp.listTools(skill('e', { url: s.url }, 'same-id'));
      expect(s.sessionIds()).toHaveLength(1);
      await mcp.listTools(skill('e', { url: s.url, auth_type: 'api_key', auth_value: 'new-key' }, 'same-id'));
      expect(s.initializeCount()).toBe(2);
      await expect.poll(() => s.sessionIds().length).toBe(1);
      expect(s.requests.at(-1)!.headers['x-api-key']).toBe('new-key');
      await mcp.forget('same-id');
      expect(s.sessionIds()).toHaveLength(0);
      expect(s.requests.some((r) => r.method === 'DELETE')).toBe(true);
      expect(mcp.openSkillIds()).toEqual([]);
    } finally {
      await s.close();
    }
  });

  it('a server that is down: the list fails with a clear message, and the failed session is not kept', async () => {
    const s = await startMcpServer();
    const url = s.url;
    await s.close();
    const mcp = newSessions();
    await expect(toolsOf(skill('down', { url }), mcp)).rejects.toThrow(/^Could not reach the MCP server "down" \(http:\/\/127\.0\.0\.1:\d+\/mcp\): the connection was refused/);
    expect(mcp.openSkillIds()).toEqual([]);
  });

  it('a URL with no MCP endpoint says so', async () => {
    const before = server.requests.length;
    await expect(newSessions().listTools(skill('nope', { url: `${server.origin}/elsewhere` }))).rejects.toThrow(/answered HTTP 404: no MCP endpoint at that address/);
    // Not taken for a lost session: asked once.
    expect(server.requests.length - before).toBe(1);
  });
});

describe('standard MCP servers: calling tools', () => {
  it('checks the arguments against the remote schema before calling', async () => {
    const registry = await registryOf(skill('chk', { url: server.url }), newSessions());
    const before = callsTo(server, 'echo');
    expect(await registry.call('chk__echo', {}, context())).toEqual(err(/^Invalid arguments for chk__echo: "text" is required/));
    expect(await registry.call('chk__echo', { text: '' }, context())).toEqual(err(/"text": must be at least 1 characters/));
    expect(await registry.call('chk__echo', { text: 'hi', extra: 1 }, context())).toEqual(err(/unknown argument "extra"/));
    expect(callsTo(server, 'echo')).toBe(before);
    expect(await registry.call('chk__echo', { text: 'hi' }, context())).toEqual(ok('hi'));
  });

  it('calls the remote tool by its own name (not the prefixed one)', async () => {
    const registry = await registryOf(skill('w', { url: server.url }), newSessions());
    expect(await registry.call('w__get_weather', { city: 'Izmir' }, context())).toEqual(ok('sunny in Izmir'));
  });

  it('isError results are errors with the tool\'s text', async () => {
    const registry = await registryOf(skill('f', { url: server.url }), newSessions());
    expect(await registry.call('f__fail', {}, context())).toEqual(err(/^The tool "fail" of the MCP server "f" reported a failure: The fail tool failed on purpose\.$/));
  });

  it('joins text items and describes, in its place, an image that cannot be shown', async () => {
    const registry = await registryOf(skill('m', { url: server.url }), newSessions());
    // The harness's image is the PNG signature alone: no header to read a size from.
    const damaged = '[Image (image/png, 8 bytes) not shown: its size cannot be read from its header (a damaged image).]';
    expect(await registry.call('m__mixed', {}, context())).toEqual(ok(`first part\n\n${damaged}\n\nsecond part`));
    expect(await registry.call('m__picture', {}, context())).toEqual(ok(damaged));
  });

  it('images reach the tool result as image blocks, through the injected fitter', async () => {
    const tiny = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGNgAAAAAgABSK+kcQAAAABJRU5ErkJggg==';
    const s = await startMcpServer({
      extraTools: [{ tool: { name: 'snap', description: 'An image.', inputSchema: { type: 'object' } }, run: () => ({ content: [{ type: 'text', text: 'look' }, { type: 'image', data: tiny, mimeType: 'image/png' }] }) }],
    });
    try {
      const fitted: number[] = [];
      const registry = await registryOf(skill('img', { url: s.url }), newSessions({ fitImage: async (i) => (fitted.push(i.width), i) }));
      const outcome = await registry.call('img__snap', {}, context());
      expect(outcome).toMatchObject({ isError: false, content: expect.stringMatching(/^look\n\n\[Image \(image\/png, 67 bytes, 1×1 px\) is attached after this text as image 1\.\]$/) });
      expect(outcome.images).toEqual([{ mediaType: 'image/png', data: tiny, width: 1, height: 1 }]);
      expect(fitted).toEqual([1]);
    } finally {
      await s.close();
    }
  });

  it('structured results are checked against outputSchema without eval', async () => {
    const registry = await registryOf(skill('s', { url: server.url }), newSessions());
    expect(await registry.call('s__measure', { text: 'hello' }, context())).toEqual(ok('{"length":5}'));
    expect(evalAttempts.filter((stack) => /ajv/i.test(stack))).toEqual([]);
  });

  it('(control) the SDK\'s default validator, ajv, does need eval', async () => {
    const client = new Client({ name: 'control', version: '0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    // ajv logs the code it failed to compile.
    const quiet = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const before = evalAttempts.length;
      // ajv compiles the output validators when the tools are listed.
      await expect(client.listTools()).rejects.toThrow(/unsafe-eval/);
      expect(evalAttempts.slice(before).some((stack) => /ajv/i.test(stack))).toBe(true);
    } finally {
      quiet.mockRestore();
      await client.close();
    }
  });

  it('a session the server forgot is replaced once, transparently', async () => {
    const s = await startMcpServer();
    try {
      const mcp = newSessions();
      const registry = await registryOf(skill('x', { url: s.url }), mcp);
      expect(await registry.call('x__add', { a: 1, b: 1 }, context())).toEqual(ok('2'));
      await s.expireSessions();
      expect(await registry.call('x__add', { a: 2, b: 2 }, context())).toEqual(ok('4'));
      expect(s.initializeCount()).toBe(2);
      expect(s.requests.filter((r) => r.method === 'POST' && r.headers['mcp-session-id']).some((r) => r.path === '/mcp')).toBe(true);
    } finally {
      await s.close();
    }
  });

  it('a server that went down after listing: unreachable', async () => {
    const s = await startMcpServer();
    const registry = await registryOf(skill('gone', { url: s.url }), newSessions());
    await s.close();
    expect(await registry.call('gone__add', { a: 1, b: 1 }, context())).toEqual(err(/^Could not reach the MCP server "gone" .*: (the connection was refused|the server closed the connection)/));
  });

  it('a slow tool times out at the (injectable) timeout, and the session still works after', async () => {
    const registry = await registryOf(skill('t', { url: server.url }), newSessions({ timeoutMs: 300 }));
    const started = Date.now();
    expect(await registry.call('t__slow', { ms: 2000 }, context())).toEqual(err(/^The MCP server "t" \(http:\/\/127\.0\.0\.1:\d+\/mcp\) did not answer within 0\.3 s \(timed out\)/));
    expect(Date.now() - started).toBeLessThan(1500);
    expect(await registry.call('t__add', { a: 5, b: 5 }, context())).toEqual(ok('10'));
  });

  it('the user stopping the run ends the call', async () => {
    const registry = await registryOf(skill('u', { url: server.url }), newSessions());
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 150);
    expect(await registry.call('u__slow', { ms: 3000 }, context(stop.signal))).toEqual({ isError: true, content: 'Stopped by the user before this tool finished.' });
  });

  it('long text is cut at the character cap with a note', async () => {
    const registry = await registryOf(skill('c', { url: server.url }), newSessions({ maxResultChars: 10 }));
    expect(await registry.call('c__echo', { text: 'abcdefghijklmnop' }, context())).toEqual(ok('abcdefghij\n\n[Truncated: the reply has 16 characters; only the first 10 are shown.]'));
  });
});

describe('standard MCP servers: oversized replies', () => {
  const bigTool = {
    tool: { name: 'big', description: 'Returns 2 MB of text.', inputSchema: { type: 'object' as const } },
    run: () => ({ content: [{ type: 'text' as const, text: 'b'.repeat(2 * 1024 * 1024) }] }),
  };

  it('a 10 MB image passes the reply cap and is described, not sent', async () => {
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGNgAAAAAgABSK+kcQAAAABJRU5ErkJggg==', 'base64');
    const data = Buffer.concat([png, Buffer.alloc(10 * 1024 * 1024 - png.length)]).toString('base64');
    const s = await startMcpServer({
      extraTools: [{ tool: { name: 'huge', description: 'A 10 MB image.', inputSchema: { type: 'object' } }, run: () => ({ content: [{ type: 'image', data, mimeType: 'image/png' }] }) }],
    });
    try {
      const registry = await registryOf(skill('huge', { url: s.url }), newSessions());
      const outcome = await registry.call('huge__huge', {}, context());
      expect(outcome).toEqual(ok('[Image (image/png, 10 MB) not shown: it is larger than the 5 MB an image may be.]'));
      expect(outcome.images).toBeUndefined();
    } finally {
      await s.close();
    }
  });

  it('a JSON reply over the byte cap is an error saying so', async () => {
    const s = await startMcpServer({ jsonResponse: true, extraTools: [bigTool] });
    try {
      const registry = await registryOf(skill('big', { url: s.url }), newSessions({ maxReplyBytes: 1024 * 1024 }));
      expect(await registry.call('big__big', {}, context())).toEqual(err(/^The MCP server "big" .* sent a reply larger than 1 MB; it was not read further/));
    } finally {
      await s.close();
    }
  });

  it('an SSE reply over the byte cap is an error saying so', async () => {
    const s = await startMcpServer({ extraTools: [bigTool] });
    try {
      const registry = await registryOf(skill('big', { url: s.url }), newSessions({ maxReplyBytes: 1024 * 1024, timeoutMs: 3000 }));
      const started = Date.now();
      expect(await registry.call('big__big', {}, context())).toEqual(err(/^The MCP server "big" .* sent a reply larger than 1 MB; it was not read further/));
      expect(Date.now() - started).toBeLessThan(2500);
    } finally {
      await s.close();
    }
  });
});

describe('standard MCP servers: auth', () => {
  let locked: McpTestServer;
  beforeAll(async () => void (locked = await startMcpServer({ token: 'tok-1' })));
  afterAll(() => locked.close());

  it('bearer and oauth2 send Authorization: Bearer on every request', async () => {
    for (const auth_type of ['bearer', 'oauth2']) {
      const registry = await registryOf(skill('lk', { url: locked.url, auth_type, auth_value: 'tok-1' }), newSessions());
      expect(await registry.call('lk__add', { a: 1, b: 2 }, context())).toEqual(ok('3'));
    }
    expect(locked.requests.length).toBeGreaterThan(0);
    expect(locked.requests.every((r) => r.headers.authorization === 'Bearer tok-1')).toBe(true);
  });

  it('a wrong or missing token is refused with a hint at the config', async () => {
    await expect(newSessions().listTools(skill('lk', { url: locked.url, auth_type: 'bearer', auth_value: 'nope' }))).rejects.toThrow(
      /^The MCP server "lk" .* refused the credentials \(HTTP 401\): check auth_type and auth_value/,
    );
    await expect(newSessions().listTools(skill('lk', { url: locked.url }))).rejects.toThrow(/refused the credentials \(HTTP 401\)/);
  });

  it('api_key sends X-API-Key', async () => {
    await newSessions().listTools(skill('k', { url: server.url, auth_type: 'api_key', auth_value: 'key-9' }));
    const mine = server.requests.filter((r) => r.headers['x-api-key'] === 'key-9');
    expect(mine.length).toBeGreaterThanOrEqual(2);
    expect(mine.every((r) => r.headers.authorization === undefined)).toBe(true);
  });
});

describe('remoteToolDefinitions', () => {
  it('keeps names distinct when two remote names clean to the same one', () => {
    const mcp = {} as McpServers;
    const defs = remoteToolDefinitions(skill('d', { url: 'http://x' }), [
      { name: 'a.b', inputSchema: { type: 'object' } },
      { name: 'a_b', inputSchema: { type: 'object' } },
      { name: 'a b', inputSchema: {} },
    ], mcp);
    expect(defs.map((d) => d.name)).toEqual(['d__a_b', 'd__a_b_2', 'd__a_b_3']);
    expect(defs[2]!.inputSchema).toEqual({ type: 'object' });
    expect(defs[0]!.description).toBe('a.b (tool "a.b" of the MCP server "d")');
  });
});

describe('without eval', () => {
  // Last in the file: it sums up every test above.
  it('nothing tried new Function but zod\'s one probe (it then runs without) and ajv in the control', () => {
    const others = evalAttempts.filter((stack) => !/zod\/v4\/core\/util\.js/.test(stack) && !/[\\/]ajv[\\/]/.test(stack));
    expect(others).toEqual([]);
    expect(evalAttempts.filter((stack) => /zod\/v4\/core\/util\.js/.test(stack)).length).toBeLessThanOrEqual(1);
  });
});

describe('standard MCP servers: replies that break the protocol', () => {
  it('each is a clear error within the timeout, and the session goes on', async () => {
    const broken = await startBrokenMcpServer();
    try {
      const registry = await registryOf(skill('bad', { url: broken.url }), newSessions({ timeoutMs: 3000 }));
      const started = Date.now();
      const outcomes = Object.fromEntries(await Promise.all(['cut_json', 'not_jsonrpc', 'wrong_shape', 'bad_base64'].map(async (t) => [t, await registry.call(`bad__${t}`, {}, context())] as const)));
      const broke = (problems: string) => err(new RegExp(`^The MCP server "bad" \\(http://127\\.0\\.0\\.1:\\d+/mcp\\) sent a reply that does not follow the MCP protocol \\(${problems}\\); it was not used\\. The server is broken: tell the user\\.$`));
      expect(outcomes).toEqual({
        cut_json: err(/^The MCP server "bad" .* sent a reply that is not valid JSON \(Unterminated string in JSON/),
        not_jsonrpc: broke('the message: Invalid input'),
        wrong_shape: broke('content: Invalid input: expected array, received string'),
        bad_base64: broke('content\\[0\\]\\.data: Invalid Base64 string'),
      });
      expect(Date.now() - started).toBeLessThan(2500);
      expect(await registry.call('bad__fine', {}, context())).toEqual(ok('still here'));
    } finally {
      await broken.close();
    }
  });
});
