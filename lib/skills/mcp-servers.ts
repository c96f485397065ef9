/**
 * mcp skills with transport "streamable_http": a standard MCP server, spoken to with the
 * official SDK's Client over Streamable HTTP. One session per skill, opened on first use
 * (initialize) and kept across runs; each of the server's tools becomes a tool of its own,
 * named `<skill>__<tool>`.
 *
 * Extension pages and Chrome's MV3 service worker forbid eval and new Function. The SDK's
 * default JSON Schema validator (ajv, used for tools' outputSchema) compiles schemas to code
 * with new Function, so every Client here gets the SDK's @cfworker/json-schema validator,
 * which interprets schemas instead (it was written for Cloudflare Workers, which forbid eval too).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/cfworker';
import * as v from 'valibot';
import { formatBytes } from '../web/content-kind';
import { ToolError, type ToolDefinition } from '../tools/registry';
import { parseSkillConfig, type McpConfig } from './config';
import { cutText, requestFailure, SKILL_MAX_REPLY_BYTES, SKILL_MAX_RESULT_CHARS, SKILL_TIMEOUT_MS } from './http-request';
import { inputSchemaToValibot, SchemaProblem } from './json-schema';
import { mcpAuthHeaders, truncationNote } from './mcp-common';
import { answerElicitations, duringCall, ELICITATION_CAPABILITIES, holdableDeadline } from './mcp-elicitation';
import { prefixedToolName } from './names';
import { skillFacts } from './facts';
import type { McpCall, McpRemoteTool, McpServers, SkillToolFactory } from './services';
import type { SkillRecord } from './types';
import { errorMessage } from '../errors';

const CLIENT_INFO = { name: 'pagewright', version: '0.1.0' };
/** tools/list pages followed at most: a server handing out cursors forever must not hang a run. */
const MAX_LIST_PAGES = 100;
/** How long forget() waits for the server to confirm the end of a session. */
const TERMINATE_WAIT_MS = 2000;

export interface McpServerSessionsOptions {
  /** The network (defaults to the global fetch). */
  fetch?: typeof fetch;
  /** Per request (initialize, tools/list, tools/call); defaults to the contract's 30 s. */
  timeoutMs?: number;
  /** The largest reply read for one request; defaults to SKILL_MAX_REPLY_BYTES. */
  maxReplyBytes?: number;
  /** The most of a tool's text the model gets; defaults to SKILL_MAX_RESULT_CHARS. */
  maxResultChars?: number;
}

interface Session {
  /** The config it was opened with: an edited url or credential opens a new session. */
  key: string;
  client: Promise<Client>;
  tools?: McpRemoteTool[];
  /** Requests in flight: a reply over the size cap ends them (see cappedFetch). */
  inflight: Set<AbortController>;
}

/** `hold` stops the request's clock while the user answers the server (elicitation). */
type RequestOpts = { signal: AbortSignal; timeout: number; hold?: () => () => void };
/** The SDK's own timer for tools/call: the deadline, which can be held, is the one that counts. */
const HELD_CALL_TIMEOUT_MS = 2 ** 31 - 1;

class ReplyTooLarge extends Error {
  override name = 'ReplyTooLarge';
}

export class McpServerSessions implements McpServers {
  private readonly sessions = new Map<string, Session>();
  private readonly fetch: typeof fetch;
  private readonly maxReplyBytes: number;
  private readonly timeoutMs: number;
  private readonly maxResultChars: number;

  /** A fetch alone is the network with the default limits. */
  constructor(optionsOrFetch: McpServerSessionsOptions | typeof fetch = {}) {
    const options = typeof optionsOrFetch === 'function' ? { fetch: optionsOrFetch } : optionsOrFetch;
    const base = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.fetch = base;
    this.maxReplyBytes = options.maxReplyBytes ?? SKILL_MAX_REPLY_BYTES;
    this.timeoutMs = options.timeoutMs ?? SKILL_TIMEOUT_MS;
    this.maxResultChars = options.maxResultChars ?? SKILL_MAX_RESULT_CHARS;
  }

  async listTools(skill: SkillRecord, { refresh = false, signal }: { refresh?: boolean; signal?: AbortSignal } = {}): Promise<McpRemoteTool[]> {
    const config = configOf(skill);
    const cached = this.sessions.get(skill.id);
    if (!refresh && cached?.key === sessionKey(config) && cached.tools) return cached.tools;
    const tools = await this.withSession(skill, config, signal, (client, opts) => listAllTools(client, opts));
    const session = this.sessions.get(skill.id);
    if (session?.key === sessionKey(config)) session.tools = tools;
    return tools;
  }

  async callTool(skill: SkillRecord, tool: string, args: Record<string, unknown>, call: McpCall): Promise<string> {
    const config = configOf(skill);
    const result = (await this.withSession(skill, config, call.signal, (client, { hold, ...opts }) =>
      duringCall(client, { server: skill.name, call, ...(hold ? { hold } : {}) }, () => client.callTool({ name: tool, arguments: args }, undefined, { ...opts, timeout: HELD_CALL_TIMEOUT_MS })),
    )) as CallToolResult;
    return resultText(result, `the tool "${tool}" of the MCP server "${skill.name}"`, this.maxResultChars);
  }

  async forget(skillId: string): Promise<void> {
    const session = this.sessions.get(skillId);
    if (!session) return;
    this.sessions.delete(skillId);
    await closeSession(session, true);
  }

  /** Ends every session (the background shutting down, tests). */
  async closeAll(): Promise<void> {
    const all = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(all.map((s) => closeSession(s, true)));
  }

  /** Skill ids with a session open or opening. */
  openSkillIds(): string[] {
    return [...this.sessions.keys()];
  }

  /**
   * Runs `op` on the skill's session, opening it when needed. A server that no longer knows
   * the session answers 404; the protocol then wants a new session, so one is opened and `op`
   * tried once more.
   */
  private async withSession<T>(skill: SkillRecord, config: McpConfig, userSignal: AbortSignal | undefined, op: (client: Client, opts: RequestOpts) => Promise<T>): Promise<T> {
    const user = userSignal ?? new AbortController().signal;
    const limit = holdableDeadline(user, this.timeoutMs);
    const attempt = async (session: Session) => {
      const capped = new AbortController();
      session.inflight.add(capped);
      const opts = { signal: AbortSignal.any([limit.signal, capped.signal]), timeout: this.timeoutMs, hold: limit.hold };
      try {
        return await op(await untilAborted(session.client, opts.signal), opts);
      } catch (e) {
        // The SDK turns every abort into a RequestTimeout McpError: the cap's reason says more.
        throw capped.signal.aborted ? capped.signal.reason : e;
      } finally {
        session.inflight.delete(capped);
      }
    };
    try {
      const session = this.open(skill.id, config, limit.signal);
      try {
        return await attempt(session);
      } catch (e) {
        // A 404 to initialize is a wrong URL, not a lost session: no second try then.
        const opened = await session.client.then(() => true, () => false);
        if (!(e instanceof StreamableHTTPError && e.code === 404 && opened)) throw e;
        await this.drop(skill.id, session);
        return await attempt(this.open(skill.id, config, limit.signal));
      }
    } catch (e) {
      throw describeFailure(e, `the MCP server "${skill.name}" (${displayUrl(config.url)})`, user, limit.timedOut(), this.timeoutMs);
    } finally {
      limit.done();
    }
  }

  private open(skillId: string, config: McpConfig, signal: AbortSignal): Session {
    const key = sessionKey(config);
    const existing = this.sessions.get(skillId);
    if (existing?.key === key) return existing;
    if (existing) {
      this.sessions.delete(skillId);
      void closeSession(existing, true);
    }
    const inflight = new Set<AbortController>();
    const session: Session = { key, inflight, client: this.connect(config, inflight, { signal, timeout: this.timeoutMs }) };
    this.sessions.set(skillId, session);
    // A session that failed to open is not kept: the next call tries again.
    session.client.catch(() => {
      if (this.sessions.get(skillId) === session) this.sessions.delete(skillId);
    });
    return session;
  }

  private async drop(skillId: string, session: Session): Promise<void> {
    if (this.sessions.get(skillId) === session) this.sessions.delete(skillId);
    await closeSession(session, false);
  }

  private async connect(config: McpConfig, inflight: Set<AbortController>, opts: RequestOpts): Promise<Client> {
    // The SDK reports a broken SSE stream to onerror only, and leaves its request waiting:
    // the cap ends the session's requests itself, so the model hears why at once.
    const onCap = (e: ReplyTooLarge) => inflight.forEach((c) => c.abort(e));
    const transport = new StreamableHTTPClientTransport(new URL(config.url), {
      fetch: cappedFetch(this.fetch, this.maxReplyBytes, onCap),
      requestInit: {
        headers: mcpAuthHeaders(config),
        credentials: 'omit',
        cache: 'no-store',
        referrerPolicy: 'no-referrer',
      },
    });
    const client = new Client(CLIENT_INFO, { capabilities: ELICITATION_CAPABILITIES, jsonSchemaValidator: new CfWorkerJsonSchemaValidator() });
    answerElicitations(client);
    // Errors of the background SSE stream (a server that closes it) reach requests anyway.
    client.onerror = () => {};
    await client.connect(transport, opts);
    return client;
  }
}

function configOf(skill: SkillRecord): McpConfig {
  const parsed = parseSkillConfig('mcp', skill.config_json);
  if (!parsed.ok) throw new ToolError(`The skill "${skill.name}" has an invalid config_json: ${parsed.errors.join(' ')} Tell the user to fix it on the Skills page.`);
  return parsed.config;
}

const sessionKey = (config: McpConfig) => JSON.stringify([config.url, config.auth_type, config.auth_value ?? '']);

/** Where the server is, without the query (it may hold a key). */
function displayUrl(url: string): string {
  const u = new URL(url);
  return u.origin + u.pathname;
}

async function closeSession(session: Session, terminate: boolean): Promise<void> {
  let client: Client;
  try {
    client = await session.client;
  } catch {
    return;
  }
  const transport = client.transport as StreamableHTTPClientTransport | undefined;
  if (terminate && transport?.sessionId) {
    // A courtesy DELETE so the server frees the session; a server that does not answer soon
    // is not waited for.
    await Promise.race([transport.terminateSession().catch(() => {}), new Promise((r) => setTimeout(r, TERMINATE_WAIT_MS))]);
  }
  await client.close().catch(() => {});
}

async function listAllTools(client: Client, opts: RequestOpts): Promise<McpRemoteTool[]> {
  const tools: McpRemoteTool[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_LIST_PAGES; page++) {
    const result = await client.listTools(cursor === undefined ? undefined : { cursor }, opts);
    for (const t of result.tools) {
      tools.push({ name: t.name, ...(t.description ? { description: t.description } : {}), inputSchema: t.inputSchema as Record<string, unknown> });
    }
    cursor = result.nextCursor;
    // A server repeating a cursor would page forever.
    if (cursor === undefined || seen.has(cursor)) break;
    seen.add(cursor);
  }
  return tools;
}

/** A tool's result as the model's text: its text items joined; other items named, not shown. */
export function resultText(result: CallToolResult | { toolResult: unknown }, what: string, maxChars = SKILL_MAX_RESULT_CHARS): string {
  const What = what.charAt(0).toUpperCase() + what.slice(1);
  if ('toolResult' in result) return clip(JSON.stringify(result.toolResult, null, 2) ?? '', maxChars);
  const content = Array.isArray(result.content) ? result.content : [];
  const texts: string[] = [];
  const others: string[] = [];
  for (const item of content) {
    if (item.type === 'text') texts.push(item.text);
    else if (item.type === 'image' || item.type === 'audio') others.push(`${item.type} (${item.mimeType})`);
    else if (item.type === 'resource') others.push(`resource ${item.resource.uri}`);
    else if (item.type === 'resource_link') others.push(`resource link ${item.uri}`);
    else others.push(String((item as { type?: unknown }).type ?? 'unknown'));
  }
  if (result.isError) {
    throw new ToolError(`${What} reported a failure: ${cutText(texts.join('\n'), 2000).text || '(no message)'}`);
  }
  let text = texts.join('\n\n');
  if (!texts.length && result.structuredContent !== undefined) text = JSON.stringify(result.structuredContent, null, 2);
  if (!text) {
    return others.length ? `[${What} returned no text, only: ${others.join(', ')}. Only text is passed on.]` : `[${What} returned no content.]`;
  }
  const body = clip(text, maxChars);
  return others.length ? `${body}\n\n[Also returned, not shown (only text is passed on): ${others.join(', ')}.]` : body;
}

function clip(text: string, max: number): string {
  const cut = cutText(text, max);
  return cut.truncated ? cut.text + truncationNote(text.length, max) : cut.text;
}

function describeFailure(e: unknown, what: string, user: AbortSignal, timedOut: boolean, timeoutMs: number): ToolError {
  if (e instanceof ToolError) return e;
  const What = what.charAt(0).toUpperCase() + what.slice(1);
  if (user.aborted || timedOut || (e instanceof McpError && e.code === ErrorCode.RequestTimeout)) return requestFailure(e, what, user, true, timeoutMs);
  if (e instanceof ReplyTooLarge) return new ToolError(`${What} ${e.message}`);
  if (e instanceof StreamableHTTPError) {
    const said = (e.message ?? '').replace(/^Streamable HTTP error: /, '').replace(/\s+/g, ' ').slice(0, 300);
    if (e.code === 401 || e.code === 403) {
      return new ToolError(`${What} refused the credentials (HTTP ${e.code}): check auth_type and auth_value in the skill's config_json; tell the user.`);
    }
    if (e.code === 404) {
      return new ToolError(`${What} answered HTTP 404: no MCP endpoint at that address. The skill's url must be the server's MCP endpoint (often ending in /mcp); tell the user.`);
    }
    if (e.code === -1) {
      return new ToolError(`${What} did not answer like an MCP server (${said}). If it speaks the contract's /call protocol, its skill needs "transport": "call"; tell the user.`);
    }
    return new ToolError(`${What} answered HTTP ${e.code}: ${said}${e.code !== undefined && e.code >= 500 ? ' The server failed: try again later.' : ''}`);
  }
  if (e instanceof McpError) {
    const hint = e.code === ErrorCode.InvalidParams ? ' Check the arguments against the tool\'s description.' : '';
    return new ToolError(`${What} returned an error: ${e.message.replace(/\.$/, '')}.${hint}`);
  }
  if (e instanceof TypeError || (e instanceof Error && 'cause' in e)) return requestFailure(e, what, user, false, timeoutMs);
  if (e instanceof SyntaxError) return new ToolError(`${What} sent a reply that is not valid JSON (${e.message}). Tell the user.`);
  return new ToolError(`${What} failed: ${errorMessage(e)}`);
}

/** Waits for `promise`, or rejects when `signal` aborts first (a shared connect has one owner). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/**
 * fetch whose successful replies to POSTs (the answers to requests) error once they pass
 * `maxBytes`, so a runaway server cannot fill memory. The long-lived GET stream of server
 * notifications is left alone: it is many small messages over a long time.
 */
function cappedFetch(base: typeof fetch, maxBytes: number, onCap: (e: ReplyTooLarge) => void): typeof fetch {
  return async (input, init) => {
    const response = await base(input, init);
    if ((init?.method ?? 'GET').toUpperCase() !== 'POST' || !response.ok || !response.body || response.type === 'opaqueredirect') return response;
    let seen = 0;
    const limited = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          seen += chunk.byteLength;
          if (seen <= maxBytes) return controller.enqueue(chunk);
          const e = new ReplyTooLarge(`sent a reply larger than ${formatBytes(maxBytes)}; it was not read further. Ask for less, or tell the user the server replies too much.`);
          controller.error(e);
          onCap(e);
        },
      }),
    );
    return new Response(limited, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

// ---------------------------------------------------------------------------------------------
// The tools
// ---------------------------------------------------------------------------------------------

/** One tool per tool of the skill's server (tools/list, cached by the sessions). */
export const mcpServerSkillTools: SkillToolFactory<McpConfig> = async (skill, _config, services) => {
  const remote = await services.mcp.listTools(skill);
  return remoteToolDefinitions(skill, remote, services.mcp);
};

export function remoteToolDefinitions(skill: SkillRecord, remote: readonly McpRemoteTool[], mcp: McpServers): ToolDefinition<any>[] {
  const taken = new Set<string>();
  return remote.map((tool) => {
    let name = prefixedToolName(skill.name, tool.name);
    // Two remote names can clean to one ("a.b", "a_b"): later ones get a number.
    for (let n = 2; taken.has(name); n++) name = prefixedToolName(skill.name, `${tool.name}_${n}`);
    taken.add(name);
    const schema = { ...tool.inputSchema, type: 'object' as const };
    const from = `(tool "${tool.name}" of the MCP server "${skill.name}")`;
    let input: v.GenericSchema<unknown, unknown>;
    let inputSchema: Record<string, unknown> = schema;
    let description = `${tool.description?.trim() || tool.name} ${from}`;
    try {
      input = inputSchemaToValibot(schema);
    } catch (e) {
      // One odd schema must not cost the server's other tools. The model is not sent a schema
      // that may not be valid JSON Schema (the API would refuse the whole request): it gets
      // the schema's text in the description, and the server checks the arguments itself.
      const problem = e instanceof SchemaProblem ? e.message : String(e);
      input = v.record(v.string(), v.unknown(), 'must be an object of arguments');
      inputSchema = { type: 'object' };
      description += ` Its input schema could not be used (${problem}); as the server gives it: ${cutText(JSON.stringify(tool.inputSchema), 1500).text}`;
    }
    return {
      name,
      ...skillFacts(skill, 'mcp'),
      description,
      input,
      inputSchema: inputSchema as ToolDefinition['inputSchema'],
      run: (args: Record<string, unknown>, ctx) => mcp.callTool(skill, tool.name, args ?? {}, { signal: ctx.signal, ctx }),
    } satisfies ToolDefinition<any>;
  });
}
