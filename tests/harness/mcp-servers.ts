/**
 * Local servers for skill tests (unit and e2e), each on 127.0.0.1 with an ephemeral port:
 *
 * - startMcpServer(): a standard MCP server over Streamable HTTP, built with the official SDK
 *   (stateful sessions), at `${url}` = http://127.0.0.1:PORT/mcp.
 * - startCallServer(): the contract's `POST {url}/call` JSON-RPC protocol
 *   (docs/spec/skill-types.md, "mcp"), with a behaviour per tool name for the bad cases.
 * - startHttpSkillServer(): REST endpoints for http skills (echo, JSON, text, errors, slow,
 *   endless and huge replies).
 *
 * Every server records the requests it received (`requests`), so tests can assert the exact
 * request a skill sent, and `close()` drops open connections too (endless streams included).
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ElicitResultSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';

export interface RecordedRequest {
  method: string;
  /** Path and query, as sent. */
  path: string;
  /** Header names in lower case. */
  headers: http.IncomingHttpHeaders;
  /** The raw body text ('' when none). */
  body: string;
  /** The body parsed as JSON, when it is JSON. */
  json?: unknown;
}

export interface TestServer {
  /** The address to configure: for the MCP server its endpoint (…/mcp), otherwise the origin. */
  url: string;
  /** http://127.0.0.1:PORT */
  origin: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

type Handler = (req: http.IncomingMessage, res: http.ServerResponse, recorded: RecordedRequest) => void | Promise<void>;

const MAX_RECORDED_BODY = 1024 * 1024;

async function listen(handler: Handler, urlPath = ''): Promise<TestServer> {
  const requests: RecordedRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_RECORDED_BODY) chunks.push(c);
    });
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const recorded: RecordedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body };
      try {
        if (body) recorded.json = JSON.parse(body);
      } catch {
        // Not JSON: `body` holds it.
      }
      requests.push(recorded);
      Promise.resolve(handler(req, res, recorded)).catch((e) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(`test server failed: ${String(e)}`);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: origin + urlPath,
    origin,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function sendJson(res: http.ServerResponse, status: number, value: unknown, headers: http.OutgoingHttpHeaders = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(value));
}

/** Writes `chunk` every `everyMs` until the client goes away (or the server closes). */
function streamForever(res: http.ServerResponse, contentType: string, chunk: string, everyMs: number, first = '') {
  res.writeHead(200, { 'content-type': contentType });
  if (first) res.write(first);
  let open = true;
  res.on('close', () => void (open = false));
  const tick = () => {
    if (!open) return;
    // Writing as fast as the socket drains, when everyMs is 0: a flood, not a busy loop.
    const ok = res.write(chunk);
    if (everyMs > 0) setTimeout(tick, everyMs);
    else if (ok) setImmediate(tick);
    else res.once('drain', tick);
  };
  tick();
}

// ---------------------------------------------------------------------------------------------
// A standard MCP server (official SDK, Streamable HTTP, stateful sessions)
// ---------------------------------------------------------------------------------------------

/** What a tool can do beside answering: ask the client (elicitation) on the call's own stream. */
export interface McpToolExtra {
  sendRequest(request: { method: string; params?: Record<string, unknown> }): Promise<unknown>;
}

export interface McpToolSpec {
  tool: Tool;
  run(args: Record<string, unknown>, extra: McpToolExtra): Promise<CallToolResult> | CallToolResult;
}

const text = (t: string): CallToolResult => ({ content: [{ type: 'text', text: t }] });

/** The tools every test MCP server has (`extraTools` adds more). */
export const MCP_TEST_TOOLS: McpToolSpec[] = [
  {
    tool: {
      name: 'add',
      description: 'Adds two numbers.',
      inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
    },
    run: ({ a, b }) => text(String(Number(a) + Number(b))),
  },
  {
    tool: {
      name: 'echo',
      description: 'Returns its text.',
      inputSchema: { type: 'object', properties: { text: { type: 'string', minLength: 1 } }, required: ['text'], additionalProperties: false },
    },
    run: ({ text: t }) => text(String(t)),
  },
  {
    tool: { name: 'fail', description: 'Always fails.', inputSchema: { type: 'object', properties: {} } },
    run: () => ({ isError: true, content: [{ type: 'text', text: 'The fail tool failed on purpose.' }] }),
  },
  {
    tool: {
      name: 'slow',
      description: 'Answers after ms milliseconds.',
      inputSchema: { type: 'object', properties: { ms: { type: 'integer', minimum: 0 } }, required: ['ms'] },
    },
    run: async ({ ms }) => {
      await sleep(Number(ms));
      return text(`waited ${ms} ms`);
    },
  },
  {
    tool: { name: 'picture', description: 'Returns an image and no text.', inputSchema: { type: 'object' } },
    run: () => ({ content: [{ type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' }] }),
  },
  {
    tool: { name: 'mixed', description: 'Returns two texts around an image.', inputSchema: { type: 'object' } },
    run: () => ({
      content: [
        { type: 'text', text: 'first part' },
        { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
        { type: 'text', text: 'second part' },
      ],
    }),
  },
  {
    // Its structuredContent is checked by the client against outputSchema: the JSON Schema
    // validator the client was given is exercised.
    tool: {
      name: 'measure',
      description: 'Returns the length of its text as structured content.',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      outputSchema: { type: 'object', properties: { length: { type: 'integer' } }, required: ['length'] },
    },
    run: ({ text: t }) => {
      const length = String(t).length;
      return { content: [{ type: 'text', text: JSON.stringify({ length }) }], structuredContent: { length } };
    },
  },
  {
    tool: {
      name: 'get.weather',
      description: 'A name with a dot, which tool names for the model may not hold.',
      inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
    },
    run: ({ city }) => text(`sunny in ${city ?? 'nowhere'}`),
  },
  {
    // A property type no JSON Schema knows: the client must still offer the tool.
    tool: { name: 'odd', description: 'Has a schema with an unknown type.', inputSchema: { type: 'object', properties: { x: { type: 'wobbly' } } } },
    run: (args) => text(`odd got ${JSON.stringify(args)}`),
  },
];

/**
 * A tool that asks the user with the requestedSchema it is given (`schema`, else a small form)
 * and returns the client's answer as JSON text, or the client's error: for elicitation tests,
 * including the schemas a client must refuse (the server SDK sends whatever it is handed).
 */
export const ELICITING_TOOL: McpToolSpec = {
  tool: {
    name: 'ask_form',
    description: 'Asks the user to fill a form and returns the answer.',
    inputSchema: { type: 'object', properties: { schema: { type: 'object' }, message: { type: 'string' } } },
  },
  run: async ({ schema, message }, extra) => {
    const requestedSchema = schema ?? {
      type: 'object',
      properties: {
        name: { type: 'string', title: 'Name', minLength: 2 },
        seats: { type: 'integer', title: 'Seats', minimum: 1, maximum: 9, default: 2 },
        window: { type: 'boolean', title: 'Window seat' },
      },
      required: ['name'],
    };
    try {
      const answer = await extra.sendRequest({ method: 'elicitation/create', params: { message: message ?? 'Who is travelling?', requestedSchema } });
      return text(JSON.stringify(answer));
    } catch (e) {
      return { isError: true, content: [{ type: 'text', text: `The client refused the form: ${(e as Error).message}` }] };
    }
  },
};

export interface McpServerOptions {
  /** When set, every request needs `Authorization: Bearer <token>` (else 401). */
  token?: string;
  /** When set, tools/list answers pages of this many tools, with nextCursor. */
  pageSize?: number;
  /** Tools beside MCP_TEST_TOOLS. */
  extraTools?: McpToolSpec[];
  /** Answer with JSON instead of an SSE stream (both are standard). */
  jsonResponse?: boolean;
}

export interface McpTestServer extends TestServer {
  /** Session ids the server holds now. */
  sessionIds(): string[];
  /** Forgets every session, as a restarted server would: the next request with an old id gets 404. */
  expireSessions(): Promise<void>;
  /** How many initialize requests arrived. */
  initializeCount(): number;
  /** How many tools/list requests arrived (pages count one each). */
  listCount(): number;
  /** Sends notifications/tools/list_changed to every open session. */
  notifyToolsChanged(): Promise<void>;
}

export async function startMcpServer(options: McpServerOptions = {}): Promise<McpTestServer> {
  const tools = [...MCP_TEST_TOOLS, ...(options.extraTools ?? [])];
  const byName = new Map(tools.map((t) => [t.tool.name, t]));
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const servers = new Set<Server>();
  let initializes = 0;
  let lists = 0;

  const newSession = async () => {
    const server = new Server({ name: 'pagewright-test-mcp', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });
    servers.add(server);
    server.setRequestHandler(ListToolsRequestSchema, (request) => {
      lists++;
      const size = options.pageSize ?? tools.length;
      const start = Number(request.params?.cursor ?? 0);
      const page = tools.slice(start, start + size).map((t) => t.tool);
      const next = start + size < tools.length ? String(start + size) : undefined;
      return next ? { tools: page, nextCursor: next } : { tools: page };
    });
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const spec = byName.get(request.params.name);
      if (!spec) return { isError: true, content: [{ type: 'text', text: `Unknown tool ${request.params.name}` }] };
      return spec.run(request.params.arguments ?? {}, {
        // Long enough for a person at a form; the client's own deadline is what the tests meet.
        sendRequest: (req) => extra.sendRequest(req as never, ElicitResultSchema, { timeout: 10 * 60_000 }),
      });
    });
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: options.jsonResponse ?? false,
      onsessioninitialized: (id) => void transports.set(id, transport),
    });
    transport.onclose = () => {
      if (transport.sessionId) transports.delete(transport.sessionId);
      servers.delete(server);
    };
    await server.connect(transport);
    return transport;
  };

  const base = await listen(async (req, res, recorded) => {
    if (!recorded.path.startsWith('/mcp')) return sendJson(res, 404, { error: 'not found; the MCP endpoint is /mcp' });
    if (options.token && req.headers.authorization !== `Bearer ${options.token}`) {
      return sendJson(res, 401, { jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Unauthorized' } }, { 'www-authenticate': 'Bearer' });
    }
    const sessionId = req.headers['mcp-session-id'];
    const body = recorded.json;
    let transport: StreamableHTTPServerTransport | undefined;
    if (typeof sessionId === 'string') {
      transport = transports.get(sessionId);
      if (!transport) return sendJson(res, 404, { jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } });
    } else if (req.method === 'POST' && isInitialize(body)) {
      initializes++;
      transport = await newSession();
    } else {
      return sendJson(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Bad Request: no valid session id' } });
    }
    await transport.handleRequest(req, res, body);
  }, '/mcp');

  return {
    ...base,
    sessionIds: () => [...transports.keys()],
    initializeCount: () => initializes,
    listCount: () => lists,
    async notifyToolsChanged() {
      await Promise.all([...servers].map((s) => s.sendToolListChanged().catch(() => {})));
    },
    async expireSessions() {
      const all = [...transports.values()];
      transports.clear();
      await Promise.all(all.map((t) => t.close().catch(() => {})));
    },
    async close() {
      await Promise.all([...transports.values()].map((t) => t.close().catch(() => {})));
      await base.close();
    },
  };
}

function isInitialize(body: unknown): boolean {
  const one = (m: unknown) => !!m && typeof m === 'object' && (m as { method?: unknown }).method === 'initialize';
  return Array.isArray(body) ? body.some(one) : one(body);
}

// ---------------------------------------------------------------------------------------------
// The contract's /call protocol
// ---------------------------------------------------------------------------------------------

export interface CallServerOptions {
  /** When set, requests need `X-API-Key: <apiKey>` (else 401). */
  apiKey?: string;
  /** When set, requests need `Authorization: Bearer <bearer>` (else 401). */
  bearer?: string;
}

/**
 * What the /call server does, by the tool name in params.name (the skill's name):
 *
 * | name           | reply |
 * |----------------|-------|
 * | add            | text: arguments.a + arguments.b |
 * | rpc_error      | a JSON-RPC error object: code -32602, "Invalid params: b is missing" |
 * | tool_error     | result.isError true, text "the tool broke" |
 * | no_text        | result.content with an image and a resource, no text |
 * | empty          | result.content [] |
 * | multi_text     | texts "first" and "second" (only the first counts) |
 * | http_500       | HTTP 500, text/plain "Internal Server Error: database unavailable" |
 * | not_json       | HTTP 200, text/html "<html>…Maintenance…</html>" |
 * | trickle        | HTTP 200 application/json, a chunk every 100 ms, forever (ends at the client's timeout) |
 * | flood          | HTTP 200 application/json, as fast as possible, forever (ends at the client's size cap) |
 * | huge           | one valid JSON-RPC reply of about 5 MB |
 * | long_text      | a valid reply whose text has 150 000 characters |
 * | slow           | the echo reply after arguments.ms (default 5000) milliseconds |
 * | anything else  | echo: text = JSON of {"name", "arguments"} received |
 */
export async function startCallServer(options: CallServerOptions = {}): Promise<TestServer> {
  return listen(async (req, res, recorded) => {
    const path = recorded.path.split('?')[0]!;
    if (req.method !== 'POST' || !path.endsWith('/call')) {
      return sendJson(res, 404, { error: `not found: this server answers POST …/call (got ${req.method} ${path})` });
    }
    if (options.apiKey !== undefined && req.headers['x-api-key'] !== options.apiKey) return sendJson(res, 401, { error: 'bad or missing X-API-Key' });
    if (options.bearer !== undefined && req.headers.authorization !== `Bearer ${options.bearer}`) {
      return sendJson(res, 401, { error: 'bad or missing bearer token' });
    }
    const msg = recorded.json as { id?: unknown; params?: { name?: string; arguments?: Record<string, unknown> } } | undefined;
    const id = msg?.id ?? null;
    const name = msg?.params?.name ?? '';
    const args = msg?.params?.arguments ?? {};
    const result = (value: unknown) => sendJson(res, 200, { jsonrpc: '2.0', id, result: value });
    const echo = () => result({ content: [{ type: 'text', text: JSON.stringify({ name, arguments: args }) }] });
    switch (name) {
      case 'add':
        return result({ content: [{ type: 'text', text: String(Number(args.a) + Number(args.b)) }] });
      case 'rpc_error':
        return sendJson(res, 200, { jsonrpc: '2.0', id, error: { code: -32602, message: 'Invalid params: b is missing' } });
      case 'tool_error':
        return result({ isError: true, content: [{ type: 'text', text: 'the tool broke' }] });
      case 'no_text':
        return result({
          content: [
            { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
            { type: 'resource', resource: { uri: 'file:///x', text: 'x' } },
          ],
        });
      case 'empty':
        return result({ content: [] });
      case 'multi_text':
        return result({ content: [{ type: 'image', data: '', mimeType: 'image/png' }, { type: 'text', text: 'first' }, { type: 'text', text: 'second' }] });
      case 'http_500':
        res.writeHead(500, { 'content-type': 'text/plain' });
        return void res.end('Internal Server Error: database unavailable');
      case 'not_json':
        res.writeHead(200, { 'content-type': 'text/html' });
        return void res.end('<html><body><h1>Maintenance</h1><p>Back soon.</p></body></html>');
      case 'trickle':
        return streamForever(res, 'application/json', ' ', 100, `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":"`);
      case 'flood':
        return streamForever(res, 'application/json', 'x'.repeat(64 * 1024), 0, `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":"`);
      case 'huge':
        return result({ content: [{ type: 'text', text: 'y'.repeat(5 * 1024 * 1024) }] });
      case 'long_text':
        return result({ content: [{ type: 'text', text: 'z'.repeat(150_000) }] });
      case 'slow':
        await sleep(typeof args.ms === 'number' ? args.ms : 5000);
        if (res.destroyed) return;
        return echo();
      default:
        return echo();
    }
  });
}

// ---------------------------------------------------------------------------------------------
// REST endpoints for http skills
// ---------------------------------------------------------------------------------------------

/**
 * Paths (any method):
 *
 * | path              | reply |
 * |-------------------|-------|
 * | /echo             | JSON {method, path, query (name → value, or values when repeated), headers, body, json} |
 * | /text             | text/plain "plain reply" |
 * | /json             | application/json {"ok":true,"items":[1,2,3],"big":12345678901234567890} (a big integer) |
 * | /latin1           | text/plain; charset=iso-8859-1 "café" in Latin-1 bytes |
 * | /binary           | image/png bytes |
 * | /long-json        | a JSON array whose pretty form is far over 100 000 characters |
 * | /status/NNN       | HTTP NNN with a text body "status NNN body: <explanation>" |
 * | /html-error       | HTTP 503 with an HTML page |
 * | /slow?ms=N        | /echo's reply after N milliseconds (default 5000) |
 * | /trickle          | text/plain, a chunk every 100 ms forever |
 * | /flood            | text/plain, as fast as possible forever |
 * | /huge             | text/plain, 8 MB with a Content-Length |
 */
export async function startHttpSkillServer(): Promise<TestServer> {
  return listen(async (req, res, recorded) => {
    const url = new URL(recorded.path, 'http://x');
    const echo = () => {
      const query: Record<string, string | string[]> = {};
      for (const key of new Set(url.searchParams.keys())) {
        const all = url.searchParams.getAll(key);
        query[key] = all.length > 1 ? all : all[0]!;
      }
      sendJson(res, 200, { method: req.method, path: url.pathname, query, headers: req.headers, body: recorded.body, json: recorded.json ?? null });
    };
    const status = /^\/status\/(\d{3})$/.exec(url.pathname);
    if (status) {
      const code = Number(status[1]);
      res.writeHead(code, { 'content-type': 'text/plain' });
      return void res.end(`status ${code} body: ${'the thing you asked for is not here; '.repeat(40)}`);
    }
    switch (url.pathname) {
      case '/echo':
        return echo();
      case '/text':
        res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
        return void res.end('plain reply');
      case '/json':
        res.writeHead(200, { 'content-type': 'application/json' });
        return void res.end('{"ok":true,"items":[1,2,3],"big":12345678901234567890}');
      case '/latin1':
        res.writeHead(200, { 'content-type': 'text/plain; charset=iso-8859-1' });
        return void res.end(Buffer.from('café', 'latin1'));
      case '/binary':
        res.writeHead(200, { 'content-type': 'image/png' });
        return void res.end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52]));
      case '/long-json':
        return sendJson(res, 200, Array.from({ length: 20_000 }, (_, i) => ({ i })));
      case '/html-error':
        res.writeHead(503, { 'content-type': 'text/html' });
        return void res.end('<html><head><title>Down</title><style>p{}</style></head><body><h1>Service Unavailable</h1><p>Try   later.</p></body></html>');
      case '/slow': {
        await sleep(Number(url.searchParams.get('ms') ?? 5000));
        if (res.destroyed) return;
        return echo();
      }
      case '/trickle':
        return streamForever(res, 'text/plain', 'tick\n', 100);
      case '/flood':
        return streamForever(res, 'text/plain', 'x'.repeat(64 * 1024), 0);
      case '/huge': {
        const size = 8 * 1024 * 1024;
        res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(size) });
        return void res.end(Buffer.alloc(size, 'h'));
      }
      default:
        res.writeHead(404, { 'content-type': 'text/plain' });
        return void res.end(`no route ${url.pathname}`);
    }
  });
}
