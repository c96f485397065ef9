import http from 'node:http';
import { gate, type Gate } from './fake-anthropic';
import { Arrivals, closeServer, json, listenLocal, readJsonBody, sleep, split, watchAbort } from './http';

/**
 * A local fake of OpenAI Chat Completions (`POST /v1/chat/completions` with `stream: true`, and
 * `GET /v1/models`): real SSE `data: {chat.completion.chunk}` lines, the first delta
 * `{role: 'assistant', content: ''}`, text split across chunks, tool calls as
 * `delta.tool_calls[{index, id, type, function: {name, arguments: ''}}]` then argument pieces
 * carrying only index + arguments, several calls interleaved by index across chunks,
 * finish_reason on the last choice chunk, the usage chunk (`choices: []`) when the request asked
 * `stream_options.include_usage`, then `data: [DONE]`. HTTP errors carry OpenAI's body
 * `{error: {message, type, param, code}}`. Tests script it reply by reply, like FakeAnthropic;
 * it records every request.
 */

export { gate, type Gate };

export type ScriptBlock =
  | { type: 'text'; text: string }
  /** `rawArguments` is sent as the call's arguments verbatim (malformed JSON, say). */
  | { type: 'tool_use'; name: string; input?: unknown; id?: string; rawArguments?: string };

export interface ScriptedReply {
  content?: ScriptBlock[];
  /** Default: `tool_calls` when the reply has calls, else `stop`. */
  finishReason?: 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'function_call';
  /** End the stream (with [DONE]) without any finish_reason: a server that broke off politely. */
  noFinish?: boolean;
  usage?: Partial<{ prompt_tokens: number; completion_tokens: number; cached_tokens: number }>;
  /** Milliseconds between SSE chunks. */
  delayMs?: number;
  /** Characters per text delta (argument pieces are 4× this). */
  chunk?: number;
  /** Tool call argument pieces: round-robin across calls (default), or one call after another. */
  order?: 'interleaved' | 'sequential';
  /** Close the connection after this many chunks (a stream that breaks mid-reply). */
  breakAfter?: number;
  /** Send `data: {"error": …}` after this many chunks, as OpenAI-compatible servers do mid-stream. */
  sseErrorAfter?: { chunks: number; message: string; type?: string; code?: string | null };
  /** Stop after this many chunks until the gate opens. */
  pause?: { afterChunks: number; gate: Gate };
  /**
   * Answer with an HTTP error instead of a stream. `body` replaces OpenAI's error body verbatim
   * (a string is sent as is, anything else as JSON): compatible servers word theirs differently,
   * vLLM and Mistral at the top level (`{object: 'error', message, type, code}`), LM Studio as
   * `{error: "…"}`, and some send nothing at all.
   */
  error?: {
    status: number;
    message: string;
    type?: string;
    code?: string | null;
    param?: string | null;
    headers?: Record<string, string>;
    extra?: Record<string, unknown>;
    body?: unknown;
  };
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: any;
  aborted: boolean;
  at: number;
}

export type ReplyFn = (body: any) => ScriptedReply | Promise<ScriptedReply>;

export const text = (t: string, extra: Partial<ScriptedReply> = {}): ScriptedReply => ({ content: [{ type: 'text', text: t }], ...extra });
export const toolCall = (name: string, input: unknown, extra: Partial<ScriptedReply> = {}): ScriptedReply => ({
  content: [{ type: 'tool_use', name, input }],
  ...extra,
});
/** Several calls in one reply (parallel tool calls), their argument pieces interleaved. */
export const toolCalls = (calls: { name: string; input?: unknown; rawArguments?: string }[], extra: Partial<ScriptedReply> = {}): ScriptedReply => ({
  content: calls.map((c) => ({ type: 'tool_use' as const, ...c })),
  ...extra,
});

/** The tool messages that end a request body (the latest tool round), contents parsed when JSON. */
export function lastToolResults(body: any): { toolCallId: string; content: any }[] {
  const messages: any[] = body?.messages ?? [];
  let i = messages.length;
  while (i > 0 && messages[i - 1].role !== 'assistant') i--;
  const results = messages.slice(i).filter((m) => m.role === 'tool');
  if (!results.length) throw new Error('fake OpenAI: the request has no tool messages after its last assistant message');
  return results.map((m) => {
    const raw = typeof m.content === 'string' ? m.content : m.content.map((p: any) => p.text ?? '').join('');
    try {
      return { toolCallId: m.tool_call_id, content: JSON.parse(raw) };
    } catch {
      return { toolCallId: m.tool_call_id, content: raw };
    }
  });
}

/** The key a request carried: `Authorization: Bearer …`, else an `x-api-key` header. */
export function bearerOf(headers: http.IncomingHttpHeaders): string | undefined {
  const auth = headers.authorization;
  if (auth) return auth.replace(/^Bearer\s+/i, '');
  const x = headers['x-api-key'];
  return typeof x === 'string' ? x : undefined;
}

export class FakeOpenAI {
  readonly requests: RecordedRequest[] = [];
  /** What `GET /v1/models` lists. */
  models = ['fake-model', 'fake-model-mini'];
  /**
   * Plays a model without tool support: a request with tools gets Ollama's 400 (its OpenAI
   * endpoint says "<model> does not support tools").
   */
  noTools = false;
  private readonly queue: (ScriptedReply | ReplyFn)[] = [];
  private server?: http.Server;
  private readonly arrivals = new Arrivals(this.requests, 'fake OpenAI');
  private idCounter = 0;
  url = '';

  script(...replies: (ScriptedReply | ReplyFn)[]) {
    this.queue.push(...replies);
    return this;
  }

  reset() {
    this.queue.length = 0;
    this.requests.length = 0;
    this.noTools = false;
  }

  get pending() {
    return this.queue.length;
  }

  /** Listens on 127.0.0.1; `url` is the base URL a client is given, ending in `/v1`. */
  async start(port = 0): Promise<string> {
    const s = await listenLocal((req, res) => void this.handle(req, res), port);
    this.server = s.server;
    this.url = `http://127.0.0.1:${s.port}/v1`;
    return this.url;
  }

  stop() {
    return closeServer(this.server);
  }

  close() {
    return this.stop();
  }

  waitForRequests(n: number, timeoutMs = 15_000): Promise<RecordedRequest[]> {
    return this.arrivals.waitFor(n, timeoutMs);
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse) {
    res.setHeader('access-control-allow-origin', '*');
    res.setHeader('access-control-allow-headers', '*');
    res.setHeader('access-control-allow-methods', 'POST, GET, OPTIONS');
    if (req.method === 'OPTIONS') return void res.writeHead(204).end();
    const body = await readJsonBody(req);
    const record: RecordedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, aborted: false, at: Date.now() };
    watchAbort(res, record);
    this.arrivals.push(record);

    const path = (req.url ?? '').split('?')[0];
    if (bearerOf(req.headers) === 'bad-key') {
      return error(res, 401, {
        message: 'Incorrect API key provided: bad-key. You can find your API key at https://platform.openai.com/account/api-keys.',
        type: 'invalid_request_error',
        code: 'invalid_api_key',
      });
    }
    if (req.method === 'GET' && path === '/v1/models') {
      return json(res, 200, { object: 'list', data: this.models.map((id) => ({ id, object: 'model', created: 1_700_000_000, owned_by: 'fake' })) });
    }
    if (req.method !== 'POST' || path !== '/v1/chat/completions') {
      return error(res, 404, { message: `Invalid URL (${req.method} ${path})`, type: 'invalid_request_error' });
    }
    if (this.noTools && body?.tools?.length) {
      return error(res, 400, { message: `registry.ollama.ai/library/${body.model} does not support tools`, type: 'invalid_request_error' });
    }
    const next = this.queue.shift();
    let reply: ScriptedReply | undefined;
    try {
      reply = typeof next === 'function' ? await next(body) : next;
    } catch (e) {
      return error(res, 400, { message: `fake: scripted reply failed: ${(e as Error).message}`, type: 'invalid_request_error' });
    }
    if (!reply) return error(res, 400, { message: 'fake: no scripted reply left', type: 'invalid_request_error' });
    if (reply.error) {
      const { status, headers, extra, body: raw, ...e } = reply.error;
      if (raw !== undefined) {
        const text = typeof raw === 'string' ? raw : JSON.stringify(raw);
        res.writeHead(status, { 'content-type': typeof raw === 'string' ? 'text/plain' : 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
        return void res.end(text);
      }
      return error(res, status, { type: 'invalid_request_error', ...e, ...extra }, headers);
    }
    await this.stream(res, reply, body, record);
  }

  private async stream(res: http.ServerResponse, reply: ScriptedReply, body: any, record: RecordedRequest) {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const chunks = this.chunks(reply, body);
    const delay = reply.delayMs ?? 0;
    for (let i = 0; i < chunks.length; i++) {
      if (record.aborted || res.destroyed) return;
      if (reply.breakAfter !== undefined && i === reply.breakAfter) return void res.destroy();
      if (reply.sseErrorAfter && i === reply.sseErrorAfter.chunks) {
        const { message, type = 'server_error', code = null } = reply.sseErrorAfter;
        res.write(`data: ${JSON.stringify({ error: { message, type, param: null, code } })}\n\n`);
        return void res.end();
      }
      if (reply.pause && i === reply.pause.afterChunks) await reply.pause.gate.promise;
      if (record.aborted || res.destroyed) return;
      res.write(`data: ${chunks[i] === DONE ? DONE : JSON.stringify(chunks[i])}\n\n`);
      if (delay) await sleep(delay);
    }
    res.end();
  }

  private chunks(reply: ScriptedReply, body: any): unknown[] {
    const id = `chatcmpl-fake${++this.idCounter}`;
    const includeUsage = body?.stream_options?.include_usage === true;
    const base = { id, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: body?.model ?? 'fake-model', system_fingerprint: 'fp_fake' };
    const chunk = (delta: unknown, finish: string | null = null) => ({
      ...base,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      ...(includeUsage ? { usage: null } : {}),
    });
    const size = reply.chunk ?? 8;
    const content = reply.content ?? [];
    const out: unknown[] = [chunk({ role: 'assistant', content: '' })];
    let completion = 0;
    const text = content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
    for (const part of split(text, size)) out.push(chunk({ content: part }));
    completion += Math.ceil(text.length / 4);

    const calls = content.flatMap((b) => (b.type === 'tool_use' ? [b] : []));
    const pieces = calls.map((c, index) => {
      const args = c.rawArguments ?? JSON.stringify(c.input ?? {});
      completion += Math.ceil(args.length / 4);
      const callId = c.id ?? `call_fake${this.idCounter}_${index}`;
      return [
        { index, id: callId, type: 'function', function: { name: c.name, arguments: '' } },
        ...split(args, size * 4).map((a) => ({ index, function: { arguments: a } })),
      ];
    });
    if (reply.order === 'sequential') {
      for (const list of pieces) for (const p of list) out.push(chunk({ tool_calls: [p] }));
    } else {
      for (let step = 0; pieces.some((l) => step < l.length); step++) {
        for (const list of pieces) if (step < list.length) out.push(chunk({ tool_calls: [list[step]] }));
      }
    }
    if (!reply.noFinish) out.push(chunk({}, reply.finishReason ?? (calls.length ? 'tool_calls' : 'stop')));
    if (includeUsage) {
      const prompt = reply.usage?.prompt_tokens ?? Math.round(20 + JSON.stringify(body?.messages ?? []).length / 4);
      const completionTokens = reply.usage?.completion_tokens ?? Math.max(1, completion);
      out.push({
        ...base,
        choices: [],
        usage: {
          prompt_tokens: prompt,
          completion_tokens: completionTokens,
          total_tokens: prompt + completionTokens,
          prompt_tokens_details: { cached_tokens: reply.usage?.cached_tokens ?? 0, audio_tokens: 0 },
          completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
        },
      });
    }
    out.push(DONE);
    return out;
  }
}

const DONE = '[DONE]';

/** OpenAI's error body: `{error: {message, type, param, code}}`. */
function error(res: http.ServerResponse, status: number, e: { message: string; type?: string; param?: string | null; code?: string | null; [k: string]: unknown }, headers?: Record<string, string>) {
  json(res, status, { error: { param: null, code: null, ...e } }, headers);
}

