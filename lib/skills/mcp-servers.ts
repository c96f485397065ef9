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
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { OAuthError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import * as v from 'valibot';
import { formatBytes } from '../web/content-kind';
import { ToolError, type ToolDefinition } from '../tools/registry';
import type { ResultWithImages } from '../images';
import { parseSkillConfig, type McpConfig } from './config';
import { cutText, deadline, requestFailure, SKILL_MAX_RESULT_CHARS, SKILL_TIMEOUT_MS } from './http-request';
import { protocolProblems, toolResultForModel, type ImageFitter } from './mcp-content';
import { fencedInstructions, onToolListChanged } from './mcp-notes';
import { callToolAsTask, MCP_TASK_MAX_MS, progressHooks, taskSupportOf, whyUnusable } from './mcp-tasks';
import { inputSchemaToValibot, SchemaProblem } from './json-schema';
import { mcpAuthHeaders } from './mcp-common';
import { McpSignIns, SignInNeeded, signInFailure, type McpOAuthProvider, type McpSignInsOptions, type SignInConsent } from './mcp-oauth';
import { answerElicitations, duringCall, ELICITATION_CAPABILITIES, holdableDeadline } from './mcp-elicitation';
import { prefixedToolName } from './names';
import { skillFacts } from './facts';
import type { McpCall, McpRemoteTool, McpServers, SkillToolFactory } from './services';
import type { SkillRecord } from './types';
import { errorMessage } from '../errors';

const CLIENT_INFO = { name: 'pagewright', version: '0.1.0' };
/** tools/list pages followed at most: a server handing out cursors forever must not hang a run. */
const MAX_LIST_PAGES = 100;
/**
 * The largest reply read for one request, above the other skills' 4 MB: an MCP reply may carry
 * whole images (base64, a third larger than their bytes), and one of 10 MB must reach
 * toolResultForModel to be described there rather than end the call as an oversized reply.
 */
export const MCP_MAX_REPLY_BYTES = 16 * 1024 * 1024;
/** How long forget() waits for the server to confirm the end of a session. */
const TERMINATE_WAIT_MS = 2000;

export interface McpServerSessionsOptions {
  /** The network (defaults to the global fetch). */
  fetch?: typeof fetch;
  /** Per request (initialize, tools/list, tools/call); defaults to the contract's 30 s. */
  timeoutMs?: number;
  /** The largest reply read for one request; defaults to MCP_MAX_REPLY_BYTES. */
  maxReplyBytes?: number;
  /** The most of a tool's text the model gets; defaults to SKILL_MAX_RESULT_CHARS. */
  maxResultChars?: number;
  /**
   * Scales a tool's images to the model's size. The background passes fitToolImage (an
   * OffscreenCanvas, which Node lacks); without one, images go as the server sent them.
   */
  fitImage?: ImageFitter;
  /** OAuth sign-in (oauth2 skills without a static token); absent, such a skill cannot sign in. */
  oauth?: Omit<McpSignInsOptions, 'fetch'>;
}

interface Session {
  /** The config it was opened with: an edited url or credential opens a new session. */
  key: string;
  client: Promise<Client>;
  tools?: McpRemoteTool[];
  /** Requests in flight: a reply over the size cap ends them (see cappedFetch). */
  inflight: Set<AbortController>;
  /** Counts the server's tools/list_changed notifications; `tools` is current while listedVersion matches. */
  toolsVersion: number;
  listedVersion?: number;
  /** The server's instructions from initialize, fenced for the model (lib/skills/mcp-notes.ts). */
  instructions?: { server: string; text: string | undefined };
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
  private readonly fitImage: ImageFitter | undefined;
  /** The OAuth sign-ins, when this background can open a sign-in window. */
  readonly signIns: McpSignIns | undefined;

  /** A fetch alone is the network with the default limits. */
  constructor(optionsOrFetch: McpServerSessionsOptions | typeof fetch = {}) {
    const options = typeof optionsOrFetch === 'function' ? { fetch: optionsOrFetch } : optionsOrFetch;
    const base = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.fetch = base;
    this.maxReplyBytes = options.maxReplyBytes ?? MCP_MAX_REPLY_BYTES;
    this.timeoutMs = options.timeoutMs ?? SKILL_TIMEOUT_MS;
    this.maxResultChars = options.maxResultChars ?? SKILL_MAX_RESULT_CHARS;
    this.fitImage = options.fitImage;
    this.signIns = options.oauth ? new McpSignIns({ ...options.oauth, fetch: base }) : undefined;
  }

  async listTools(skill: SkillRecord, { refresh = false, signal, askSignIn }: { refresh?: boolean; signal?: AbortSignal; askSignIn?: SignInConsent } = {}): Promise<McpRemoteTool[]> {
    const config = configOf(skill);
    const cached = this.sessions.get(skill.id);
    // A list the server has since said changed (notifications/tools/list_changed) is listed again.
    if (!refresh && cached?.key === sessionKey(config) && cached.tools && cached.listedVersion === cached.toolsVersion) return cached.tools;
    let version = 0;
    const { tools, instructions } = await this.withSession(skill, config, signal, async (client, opts) => {
      version = this.sessions.get(skill.id)?.toolsVersion ?? 0;
      return { tools: await listAllTools(client, opts), instructions: fencedInstructions(client, skill.name) };
    }, askSignIn);
    const session = this.sessions.get(skill.id);
    if (session?.key === sessionKey(config)) {
      session.tools = tools;
      session.listedVersion = version;
      // Kept from the first list, so the fence's marker (and the tool definitions) stay the same.
      if (session.instructions?.server !== skill.name) session.instructions = { server: skill.name, text: instructions };
    }
    return tools;
  }

  async callTool(skill: SkillRecord, tool: string, args: Record<string, unknown>, call: McpCall): Promise<string | ResultWithImages> {
    const config = configOf(skill);
    const remote = this.sessions.get(skill.id)?.tools?.find((t) => t.name === tool);
    // "optional" tools stay plain calls: a task only adds round trips when the run waits anyway.
    const asTask = remote?.execution?.taskSupport === 'required';
    const progress = progressHooks(call.ctx?.progress);
    const result = (await this.withSession(
      skill,
      config,
      call.signal,
      (client, { hold, ...opts }) => {
        const withProgress = progress.onprogress ? { ...opts, onprogress: progress.onprogress } : opts;
        // A server may ask the user (elicitation) during either kind of call; the deadline is
        // held while the user answers, so the SDK's own timer for a plain call is set out of reach.
        return duringCall(client, { server: skill.name, call, ...(hold ? { hold } : {}) }, () =>
          asTask
            ? callToolAsTask(client, tool, args, withProgress, progress.task)
            : client.callTool({ name: tool, arguments: args }, undefined, { ...withProgress, timeout: HELD_CALL_TIMEOUT_MS }),
        );
      },
      call.ctx ? (server, signal) => call.ctx!.env.askSignIn(server, signal) : undefined,
      asTask ? MCP_TASK_MAX_MS : undefined,
    )) as CallToolResult;
    return toolResultForModel(result, `the tool "${tool}" of the MCP server "${skill.name}"`, { maxChars: this.maxResultChars, fitImage: this.fitImage });
  }

  instructions(skill: SkillRecord): string | undefined {
    const session = this.sessions.get(skill.id);
    return session?.instructions?.server === skill.name ? session.instructions.text : undefined;
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
   * Runs `op` on the skill's session (see once). A server that wants the user signed in (OAuth)
   * gets the sign-in — the run's card, then the browser's window — and `op` is tried once more;
   * a declined or failed sign-in is a tool error the model can act on.
   */
  private async withSession<T>(
    skill: SkillRecord,
    config: McpConfig,
    userSignal: AbortSignal | undefined,
    op: (client: Client, opts: RequestOpts) => Promise<T>,
    askSignIn?: SignInConsent,
    totalMs = this.timeoutMs,
  ): Promise<T> {
    const provider = this.signIns?.provider(skill.id, config);
    if (!provider) return this.once(skill, config, userSignal, op, undefined, totalMs);
    const user = userSignal ?? new AbortController().signal;
    try {
      return await this.once(skill, config, user, op, provider, totalMs);
    } catch (e) {
      if (!(e instanceof SignInNeeded)) throw e;
      const what = `the MCP server "${skill.name}" (${displayUrl(config.url)})`;
      try {
        await this.signIns!.signIn(provider, { name: skill.name, url: config.url }, askSignIn, user);
      } catch (failure) {
        throw signInFailure(failure, what, !askSignIn, user);
      }
    }
    try {
      return await this.once(skill, config, user, op, provider, totalMs);
    } catch (e) {
      if (e instanceof SignInNeeded) throw signInFailure(e, `the MCP server "${skill.name}" (${displayUrl(config.url)})`, false, user);
      throw e;
    }
  }

  /**
   * Runs `op` on the skill's session, opening it when needed. A server that no longer knows
   * the session answers 404; the protocol then wants a new session, so one is opened and `op`
   * tried once more.
   */
  private async once<T>(skill: SkillRecord, config: McpConfig, userSignal: AbortSignal | undefined, op: (client: Client, opts: RequestOpts) => Promise<T>, provider?: McpOAuthProvider, totalMs = this.timeoutMs): Promise<T> {
    const user = userSignal ?? new AbortController().signal;
    const limit = holdableDeadline(user, totalMs);
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
      if (provider) await this.signIns!.prepare(provider, config.url);
      const session = this.open(skill.id, config, limit.signal, provider);
      try {
        return await attempt(session);
      } catch (e) {
        // A 404 to initialize is a wrong URL, not a lost session: no second try then.
        const opened = await session.client.then(() => true, () => false);
        if (!(e instanceof StreamableHTTPError && e.code === 404 && opened)) throw e;
        await this.drop(skill.id, session);
        return await attempt(this.open(skill.id, config, limit.signal, provider));
      }
    } catch (e) {
      // The SDK's transport asked the provider for the user's sign-in (a 401 or 403 it could not
      // answer with a refresh).
      if (provider && (e instanceof SignInNeeded || (e instanceof UnauthorizedError && provider.pendingAuthorization))) throw new SignInNeeded(provider);
      throw describeFailure(e, `the MCP server "${skill.name}" (${displayUrl(config.url)})`, user, limit.timedOut(), totalMs, !!provider);
    } finally {
      limit.done();
    }
  }

  private open(skillId: string, config: McpConfig, signal: AbortSignal, provider?: McpOAuthProvider): Session {
    const key = sessionKey(config);
    const existing = this.sessions.get(skillId);
    if (existing?.key === key) return existing;
    if (existing) {
      this.sessions.delete(skillId);
      void closeSession(existing, true);
    }
    const inflight = new Set<AbortController>();
    const session: Session = { key, inflight, toolsVersion: 0, client: this.connect(config, inflight, { signal, timeout: this.timeoutMs }, provider) };
    void session.client.then((client) => onToolListChanged(client, () => session.toolsVersion++), () => {});
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

  private async connect(config: McpConfig, inflight: Set<AbortController>, opts: RequestOpts, provider?: McpOAuthProvider): Promise<Client> {
    // The SDK reports a broken SSE stream to onerror only, and leaves its request waiting:
    // the cap ends the session's requests itself, so the model hears why at once.
    const onCap = (e: ReplyTooLarge) => inflight.forEach((c) => c.abort(e));
    const transport = new StreamableHTTPClientTransport(new URL(config.url), {
      fetch: cappedFetch(this.fetch, this.maxReplyBytes, onCap),
      ...(provider ? { authProvider: provider } : {}),
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

// The OAuth client is part of it: a session's transport keeps the sign-in it was opened with.
const sessionKey = (config: McpConfig) =>
  JSON.stringify([config.url, config.auth_type, config.auth_value ?? '', config.oauth_client_id ?? '', config.oauth_client_secret ?? '']);

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
      const taskSupport = taskSupportOf(t);
      const unusable = whyUnusable(t, client);
      tools.push({
        name: t.name,
        ...(t.description ? { description: t.description } : {}),
        inputSchema: t.inputSchema as Record<string, unknown>,
        ...(taskSupport ? { execution: { taskSupport } } : {}),
        ...(unusable ? { unusable } : {}),
      });
    }
    cursor = result.nextCursor;
    // A server repeating a cursor would page forever.
    if (cursor === undefined || seen.has(cursor)) break;
    seen.add(cursor);
  }
  return tools;
}

function describeFailure(e: unknown, what: string, user: AbortSignal, timedOut: boolean, timeoutMs: number, viaSignIn = false): ToolError {
  if (e instanceof ToolError) return e;
  const What = what.charAt(0).toUpperCase() + what.slice(1);
  if (user.aborted || timedOut || (e instanceof McpError && e.code === ErrorCode.RequestTimeout)) return requestFailure(e, what, user, true, timeoutMs);
  if (e instanceof ReplyTooLarge) return new ToolError(`${What} ${e.message}`);
  // The SDK checks replies with zod. With a sign-in, the authorization server's metadata and
  // tokens are checked too, and the error does not say which server sent the reply.
  const problems = protocolProblems(e);
  if (problems) {
    return new ToolError(
      viaSignIn
        ? `${What} or its authorization server sent a reply that does not fit the protocol: ${problems}. Tell the user.`
        : `${What} sent a reply that does not follow the MCP protocol (${problems}); it was not used. The server is broken: tell the user.`,
    );
  }
  if (e instanceof UnauthorizedError) return new ToolError(`${What} refused the sign-in (${e.message.slice(0, 200)}). Tell the user to sign out and in again on the Skills page.`);
  if (e instanceof OAuthError) return signInFailure(e, what, false, user);
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
export const mcpServerSkillTools: SkillToolFactory<McpConfig> = async (skill, _config, services, leftOut) => {
  const remote = await services.mcp.listTools(skill, services.askSignIn ? { askSignIn: services.askSignIn } : {});
  for (const tool of remote) if (tool.unusable) leftOut?.(`its tool "${tool.name}" was left out: ${tool.unusable}.`);
  return remoteToolDefinitions(skill, remote, services.mcp);
};

export function remoteToolDefinitions(skill: SkillRecord, remote: readonly McpRemoteTool[], mcp: McpServers): ToolDefinition<any>[] {
  const taken = new Set<string>();
  const instructions = mcp.instructions?.(skill);
  return remote.filter((tool) => !tool.unusable).map((tool, i) => {
    let name = prefixedToolName(skill.name, tool.name);
    // Two remote names can clean to one ("a.b", "a_b"): later ones get a number.
    for (let n = 2; taken.has(name); n++) name = prefixedToolName(skill.name, `${tool.name}_${n}`);
    taken.add(name);
    const schema = { ...tool.inputSchema, type: 'object' as const };
    const from = `(tool "${tool.name}" of the MCP server "${skill.name}")`;
    let input: v.GenericSchema<unknown, unknown>;
    let inputSchema: Record<string, unknown> = schema;
    let description = `${tool.description?.trim() || tool.name} ${from}`;
    // Once, on the first tool (why there: lib/skills/mcp-notes.ts).
    if (i === 0 && instructions) description += `\n\n${instructions}`;
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
