import http from 'node:http';
import { exactTokens as countTokens } from './tokens';
import { Arrivals, closeServer, json, listenLocal, readJsonBody, sleep, split, watchAbort } from './http';

/**
 * A local fake of the Anthropic Messages API: real SSE streams (message_start,
 * content_block_start/delta/stop, message_delta, message_stop), tool_use blocks, HTTP errors,
 * broken and stalled streams. Tests script it reply by reply; it records every request.
 */

export type ScriptBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; name: string; input: unknown; id?: string; rawJson?: string };

export interface Gate {
  promise: Promise<void>;
  open(): void;
}

export interface ScriptedReply {
  content?: ScriptBlock[];
  stopReason?: 'end_turn' | 'tool_use' | 'max_tokens';
  usage?: Partial<{ input_tokens: number; output_tokens: number; cache_read_input_tokens: number; cache_creation_input_tokens: number }>;
  /** Milliseconds between SSE events. */
  delayMs?: number;
  /** Characters per text/JSON delta. */
  chunk?: number;
  /** Close the connection after this many events (a stream that breaks mid-reply). */
  breakAfter?: number;
  /** Send an SSE `error` event of this type after this many events. */
  sseErrorAfter?: { events: number; type: string; message: string };
  /** Stop after this many events until the gate opens. */
  pause?: { afterEvents: number; gate: Gate };
  /** Answer with an HTTP error instead of a stream. */
  error?: { status: number; type: string; message: string; headers?: Record<string, string> };
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: any;
  aborted: boolean;
  at: number;
  /** When the reply's last content delta was written (epoch ms), once one was. */
  lastDeltaAt?: number;
  /** With rejectForeignOrigins: the request's Origin was refused (403). */
  refusedOrigin?: true;
}

export const text = (t: string, extra: Partial<ScriptedReply> = {}): ScriptedReply => ({ content: [{ type: 'text', text: t }], ...extra });
export const toolCall = (name: string, input: unknown, extra: Partial<ScriptedReply> = {}): ScriptedReply => ({
  content: [{ type: 'tool_use', name, input }],
  ...extra,
});

export function gate(): Gate {
  let open!: () => void;
  const promise = new Promise<void>((r) => (open = r));
  return { promise, open };
}

/** A reply computed from the request, e.g. to use a tab id an earlier tool result gave. */
export type ReplyFn = (body: any) => ScriptedReply | Promise<ScriptedReply>;

/**
 * Replies by who asks: a sub-agent whose task (its first message) contains a key of `subs`, or
 * else the parent. Sub-agents run in parallel, so their requests interleave in any order; script
 * the returned function once per request expected.
 */
export function routed(parent: (ScriptedReply | ReplyFn)[], subs: Record<string, (ScriptedReply | ReplyFn)[]>): ReplyFn {
  return (body) => {
    const first = JSON.stringify(body.messages[0]?.content ?? '');
    const key = Object.keys(subs).find((k) => first.includes(k));
    const next = (key ? subs[key]! : parent).shift();
    if (!next) throw new Error(`no reply left for ${key ?? 'the parent'}`);
    return typeof next === 'function' ? next(body) : next;
  };
}

const FENCED = /^<untrusted-content id="([0-9a-f]{24})"(?: source="[^"]*")?>\n([\s\S]*)\n<\/untrusted-content id="\1">$/;

/**
 * `value` with the policy's untrusted-content fences taken off every string that is one fence:
 * the tools' e2e suites check what a tool returns, the injection suite and the pages suite that
 * it arrives fenced (rawToolResult).
 */
export function unfence<T>(value: T): T {
  if (typeof value === 'string') return (FENCED.exec(value)?.[2] ?? value) as T;
  if (Array.isArray(value)) return value.map(unfence) as T;
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, unfence(v)])) as T;
  return value;
}

/** The latest tool_result in a request body, parsed as JSON when it is JSON, its fences taken off. */
export function lastToolResult(body: any): { content: any; isError: boolean } {
  const r = rawToolResult(body);
  // A skill's whole answer is one fence around its JSON: take it off, then parse.
  if (typeof r.content === 'string') {
    const inner = unfence(r.content);
    try {
      return { content: unfence(JSON.parse(inner)), isError: r.isError };
    } catch {
      return { content: inner, isError: r.isError };
    }
  }
  return { content: unfence(r.content), isError: r.isError };
}

/** The latest tool_result as the model received it (fences included), parsed as JSON when it is JSON. */
export function rawToolResult(body: any): { content: any; isError: boolean } {
  const last = body?.messages?.at(-1);
  const block = (last?.content ?? []).filter((b: any) => b.type === 'tool_result').at(-1);
  if (!block) throw new Error('fake model: the request has no tool_result');
  const raw = typeof block.content === 'string' ? block.content : block.content?.map((c: any) => c.text).join('');
  let content: any = raw;
  try {
    content = JSON.parse(raw);
  } catch {
    // plain text result
  }
  return { content, isError: !!block.is_error };
}

/**
 * A request's input tokens as this fake counts them: every text the model would read (system,
 * tool definitions, message texts, tool inputs and results) through a real BPE tokenizer (the
 * one Anthropic published for its earlier models), plus a few tokens of framing per block. It
 * stands in for the API's exact count, which the extension can only estimate.
 */
export function countRequestTokens(body: any): number {
  const texts: string[] = [];
  let framing = 0;
  for (const s of [body?.system ?? []].flat()) texts.push(typeof s === 'string' ? s : (s.text ?? ''));
  if (body?.tools?.length) texts.push(JSON.stringify(body.tools.map(({ cache_control: _c, ...t }: any) => t)));
  for (const m of body?.messages ?? []) {
    framing += 4;
    for (const b of typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content) {
      framing += 3;
      if (b.type === 'text') texts.push(b.text);
      else if (b.type === 'tool_use') texts.push(b.name, JSON.stringify(b.input));
      else if (b.type === 'tool_result') {
        if (typeof b.content === 'string') texts.push(b.content);
        else for (const c of b.content ?? []) texts.push(c.type === 'text' ? c.text : '');
      }
    }
  }
  return texts.reduce((n, t) => n + (t ? countTokens(t) : 0), framing);
}

/**
 * Origins a default Ollama allows (envconfig.AllowedOrigins without OLLAMA_ORIGINS): localhost,
 * 127.0.0.1 and 0.0.0.0 over http and https, bare or with any port, and a few app schemes. Exact
 * entries, and patterns whose `*` matches the rest (gin-contrib/cors's wildcard rules).
 */
export const OLLAMA_DEFAULT_ORIGINS: readonly string[] = [
  ...['localhost', '127.0.0.1', '0.0.0.0'].flatMap((h) => [`http://${h}`, `https://${h}`, `http://${h}:*`, `https://${h}:*`]),
  'app://*',
  'file://*',
  'tauri://*',
  'vscode-webview://*',
  'vscode-file://*',
];

/**
 * Whether Ollama's CORS middleware (gin-contrib/cors) lets a request with this Origin through:
 * no Origin, or the server's own (http(s):// + the Host header), or one of the allowed origins.
 */
export function ollamaAllowsOrigin(origin: string | undefined, host: string | undefined, allowed: readonly string[] = OLLAMA_DEFAULT_ORIGINS): boolean {
  if (!origin) return true;
  if (host && (origin === `http://${host}` || origin === `https://${host}`)) return true;
  return allowed.some((a) => a === '*' || a === origin || (a.endsWith('*') && origin.startsWith(a.slice(0, -1))));
}

export interface FakeOptions {
  /**
   * Refuse requests whose Origin a default Ollama refuses (an extension's, a web site's) exactly
   * as Ollama does: 403 with no body and no CORS headers, before any route or preflight. Allowed
   * requests get Ollama's CORS answer (the Origin echoed) instead of the fake's usual `*`.
   */
  rejectForeignOrigins?: boolean;
}

export class FakeAnthropic {
  readonly requests: RecordedRequest[] = [];
  /** See FakeOptions; a server setting, so reset() keeps it. */
  rejectForeignOrigins: boolean;
  /**
   * When set, the fake plays a model with this context window: requests are counted exactly
   * (usage reports the count) and one past the window is refused with the API's 400
   * "prompt is too long". It also answers count_tokens.
   */
  contextWindow?: number;
  /** What GET /v1/models lists (the Models API's shape, one page); reset() empties it. */
  models: string[] = [];
  /** GET /v1/models requests, kept apart so `requests` stays the Messages API calls tests count. */
  readonly modelListRequests: RecordedRequest[] = [];
  private readonly queue: (ScriptedReply | ReplyFn)[] = [];
  private server?: http.Server;
  private readonly arrivals = new Arrivals(this.requests, 'fake model');
  private idCounter = 0;
  url = '';

  constructor({ rejectForeignOrigins = false }: FakeOptions = {}) {
    this.rejectForeignOrigins = rejectForeignOrigins;
  }

  script(...replies: (ScriptedReply | ReplyFn)[]) {
    this.queue.push(...replies);
    return this;
  }

  reset() {
    this.queue.length = 0;
    this.requests.length = 0;
    this.contextWindow = undefined;
    this.models = [];
    this.modelListRequests.length = 0;
  }

  get pending() {
    return this.queue.length;
  }

  async start(port = 0): Promise<string> {
    const s = await listenLocal((req, res) => void this.handle(req, res), port);
    this.server = s.server;
    this.url = `http://127.0.0.1:${s.port}`;
    return this.url;
  }

  stop() {
    return closeServer(this.server);
  }

  /** Resolves once at least n requests have arrived. */
  waitForRequests(n: number, timeoutMs = 15_000): Promise<RecordedRequest[]> {
    return this.arrivals.waitFor(n, timeoutMs);
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse) {
    if (this.rejectForeignOrigins) {
      const origin = req.headers.origin;
      if (!ollamaAllowsOrigin(origin, req.headers.host)) {
        // Recorded like any request, so a test can see which Origin was refused.
        this.arrivals.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: undefined, aborted: false, at: Date.now(), refusedOrigin: true });
        req.resume();
        // gin's AbortWithStatus(403): a status line, Content-Length: 0, nothing else.
        return void res.writeHead(403, { 'content-length': '0' }).end();
      }
      if (origin) res.setHeader('access-control-allow-origin', origin);
    } else {
      res.setHeader('access-control-allow-origin', '*');
    }
    res.setHeader('access-control-allow-headers', '*');
    res.setHeader('access-control-allow-methods', 'POST, GET, OPTIONS');
    if (req.method === 'OPTIONS') return void res.writeHead(204).end();
    const body = await readJsonBody(req);
    if (req.method === 'GET' && req.url?.split('?')[0] === '/v1/models') {
      this.modelListRequests.push({ method: 'GET', path: req.url, headers: req.headers, body: undefined, aborted: false, at: Date.now() });
      if (apiKeyOf(req.headers) === 'bad-key') {
        return json(res, 401, { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } });
      }
      const data = this.models.map((id) => ({ type: 'model', id, display_name: id, created_at: '2026-01-01T00:00:00Z' }));
      return json(res, 200, { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null });
    }
    const record: RecordedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, aborted: false, at: Date.now() };
    watchAbort(res, record);
    this.arrivals.push(record);

    if (req.method === 'POST' && req.url?.startsWith('/v1/messages/count_tokens')) {
      if (!this.contextWindow) return json(res, 404, { type: 'error', error: { type: 'not_found_error', message: 'fake: count_tokens is off' } });
      return json(res, 200, { input_tokens: countRequestTokens(body) });
    }
    if (req.method !== 'POST' || !req.url?.startsWith('/v1/messages')) {
      return json(res, 404, { type: 'error', error: { type: 'not_found_error', message: `fake: no route ${req.method} ${req.url}` } });
    }
    if (apiKeyOf(req.headers) === 'bad-key') {
      return json(res, 401, { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } });
    }
    if (this.contextWindow) {
      const n = countRequestTokens(body);
      if (n > this.contextWindow) {
        return json(res, 400, { type: 'error', error: { type: 'invalid_request_error', message: `prompt is too long: ${n} tokens > ${this.contextWindow} maximum` } });
      }
    }
    const next = this.queue.shift();
    let reply: ScriptedReply | undefined;
    try {
      reply = typeof next === 'function' ? await next(body) : next;
    } catch (e) {
      return json(res, 400, { type: 'error', error: { type: 'invalid_request_error', message: `fake: scripted reply failed: ${(e as Error).message}` } });
    }
    if (!reply) {
      return json(res, 400, { type: 'error', error: { type: 'invalid_request_error', message: 'fake: no scripted reply left' } });
    }
    if (reply.error) {
      res.writeHead(reply.error.status, { 'content-type': 'application/json', ...reply.error.headers });
      return void res.end(JSON.stringify({ type: 'error', error: { type: reply.error.type, message: reply.error.message } }));
    }
    await this.stream(res, reply, body, record);
  }

  private async stream(res: http.ServerResponse, reply: ScriptedReply, body: any, record: RecordedRequest) {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const events = this.events(reply, body);
    const delay = reply.delayMs ?? 0;
    for (let i = 0; i < events.length; i++) {
      if (record.aborted || res.destroyed) return;
      if (reply.breakAfter !== undefined && i === reply.breakAfter) return void res.destroy();
      if (reply.sseErrorAfter && i === reply.sseErrorAfter.events) {
        const { type, message } = reply.sseErrorAfter;
        res.write(`event: error\ndata: ${JSON.stringify({ type: 'error', error: { type, message } })}\n\n`);
        return void res.end();
      }
      if (reply.pause && i === reply.pause.afterEvents) await reply.pause.gate.promise;
      if (record.aborted || res.destroyed) return;
      const [name, data] = events[i]!;
      res.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
      if (name === 'content_block_delta') record.lastDeltaAt = Date.now();
      if (delay) await sleep(delay);
    }
    res.end();
  }

  private events(reply: ScriptedReply, body: any): [string, unknown][] {
    const content = reply.content ?? [];
    const chunk = reply.chunk ?? 8;
    const hasTools = content.some((b) => b.type === 'tool_use');
    const cached = this.requests.length > 1;
    const usage = {
      input_tokens: 20 + JSON.stringify(body?.messages ?? []).length / 4,
      output_tokens: 1,
      cache_creation_input_tokens: cached ? 0 : 300,
      cache_read_input_tokens: cached ? 300 : 0,
      ...reply.usage,
    };
    if (this.contextWindow && !reply.usage?.input_tokens) {
      // Exact counts: what was cached is reported as read, as the API does.
      usage.input_tokens = countRequestTokens(body) - usage.cache_read_input_tokens - usage.cache_creation_input_tokens;
    }
    usage.input_tokens = Math.max(0, Math.round(usage.input_tokens));
    const out: [string, unknown][] = [
      ['message_start', { type: 'message_start', message: { id: `msg_${++this.idCounter}`, type: 'message', role: 'assistant', model: body?.model ?? 'fake', content: [], stop_reason: null, stop_sequence: null, usage } }],
    ];
    let outputTokens = 0;
    content.forEach((b, index) => {
      if (b.type === 'text') {
        out.push(['content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } }]);
        for (const part of split(b.text, chunk)) {
          out.push(['content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: part } }]);
        }
        outputTokens += Math.ceil(b.text.length / 4);
      } else {
        const id = b.id ?? `toolu_${this.idCounter}_${index}`;
        out.push(['content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id, name: b.name, input: {} } }]);
        const jsonText = b.rawJson ?? JSON.stringify(b.input);
        for (const part of split(jsonText, chunk * 4)) {
          out.push(['content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: part } }]);
        }
        outputTokens += Math.ceil(jsonText.length / 4);
      }
      out.push(['content_block_stop', { type: 'content_block_stop', index }]);
    });
    out.push(['message_delta', { type: 'message_delta', delta: { stop_reason: reply.stopReason ?? (hasTools ? 'tool_use' : 'end_turn'), stop_sequence: null }, usage: { output_tokens: reply.usage?.output_tokens ?? Math.max(1, outputTokens) } }]);
    out.push(['message_stop', { type: 'message_stop' }]);
    return out;
  }
}

/** The SDK sends the key as x-api-key or as a bearer token, depending on its version. */
export function apiKeyOf(headers: http.IncomingHttpHeaders): string | undefined {
  const x = headers['x-api-key'];
  if (typeof x === 'string') return x;
  return headers.authorization?.replace(/^Bearer\s+/i, '');
}

