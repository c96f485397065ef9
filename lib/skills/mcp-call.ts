/**
 * mcp skills with transport "call": the contract's protocol exactly (docs/spec/skill-types.md).
 * One `POST {url}/call` per tool call, with the JSON-RPC 2.0 body
 *   {"jsonrpc":"2.0","id":n,"method":"tools/call","params":{"name":"<skill.name>","arguments":{…}}}
 * and the first text content of result.content returned.
 *
 * The model gets that text (a string), cut at SKILL_MAX_RESULT_CHARS with a closing note saying
 * so. A reply over SKILL_MAX_REPLY_BYTES is an error, not a truncation: a cut JSON-RPC reply
 * cannot be parsed.
 */
import { readBodyCapped } from '../web/body';
import { formatBytes } from '../web/content-kind';
import { decodeBody } from '../web/charset';
import { parseMimeType } from '../web/mime';
import { ToolError, type ToolDefinition } from '../tools/registry';
import type { McpConfig } from './config';
import { skillFacts } from './facts';
import {
  cutText,
  deadline,
  excerpt,
  requestFailure,
  SKILL_MAX_REPLY_BYTES,
  SKILL_MAX_RESULT_CHARS,
  SKILL_TIMEOUT_MS,
  type SkillRequestOptions,
} from './http-request';
import { skillInput } from './json-schema';
import { mcpAuthHeaders, truncationNote } from './mcp-common';
import { mcpServerSkillTools } from './mcp-servers';
import type { SkillToolFactory } from './services';
import type { SkillRecord } from './types';


/** JSON-RPC ids: unique within this background's life, which is all a reply is matched in. */
let nextId = 1;

/** The /call skill factory with its limits overridden (tests make the timeout short). */
export function createMcpCallSkillTools(options: SkillRequestOptions = {}): SkillToolFactory<McpConfig> {
  return (skill, config) => [mcpCallTool(skill, config, options)];
}

export const mcpCallSkillTools: SkillToolFactory<McpConfig> = createMcpCallSkillTools();

/**
 * Every mcp skill's tools, by the transport its config names: "call" (the contract's /call,
 * here) or "streamable_http" (a standard MCP server, mcp-servers.ts).
 */
export const mcpSkillTools: SkillToolFactory<McpConfig> = (skill, config, services, leftOut) =>
  config.transport === 'streamable_http' ? mcpServerSkillTools(skill, config, services, leftOut) : mcpCallSkillTools(skill, config, services);

function mcpCallTool(skill: SkillRecord, config: McpConfig, options: SkillRequestOptions): ToolDefinition<any> {
  return {
    name: skill.name,
    ...skillFacts(skill, 'mcp'),
    description: skill.description,
    ...skillInput(config.input_schema),
    run: (input: Record<string, unknown>, ctx) => callMcpSkill(skill, config, input ?? {}, ctx.env.fetch, ctx.signal, options),
  };
}

/**
 * The endpoint: {url}/call, or url itself when its path already ends in /call. Trailing slashes
 * do not double ("…/mcp/" → "…/mcp/call"); the query string is kept, the fragment dropped.
 */
export function callEndpoint(configUrl: string): URL {
  const url = new URL(configUrl);
  url.hash = '';
  const path = url.pathname.replace(/\/+$/, '');
  url.pathname = path.endsWith('/call') ? path : `${path}/call`;
  return url;
}

export async function callMcpSkill(
  skill: SkillRecord,
  config: McpConfig,
  args: Record<string, unknown>,
  fetchFn: typeof fetch,
  userSignal: AbortSignal,
  { timeoutMs = SKILL_TIMEOUT_MS, maxReplyBytes = SKILL_MAX_REPLY_BYTES, maxResultChars = SKILL_MAX_RESULT_CHARS }: SkillRequestOptions = {},
): Promise<string> {
  const url = callEndpoint(config.url);
  const what = `the MCP skill "${skill.name}" (${url.origin}${url.pathname})`;
  const id = nextId++;
  const body = JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: skill.name, arguments: args } });
  const limit = deadline(userSignal, timeoutMs);
  let reply: { status: number; statusText: string; contentType: string | null; bytes: Uint8Array; capped: boolean };
  try {
    const response = await fetchFn(url.href, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json', ...mcpAuthHeaders(config) },
      body,
      credentials: 'omit',
      cache: 'no-store',
      referrerPolicy: 'no-referrer',
      redirect: 'follow',
      signal: limit.signal,
    });
    const read = await readBodyCapped(response, { maxBytes: maxReplyBytes, signal: limit.signal });
    reply = { status: response.status, statusText: response.statusText, contentType: response.headers.get('content-type'), bytes: read.bytes, capped: read.capped };
  } catch (e) {
    throw requestFailure(e, what, userSignal, limit.timedOut(), timeoutMs);
  } finally {
    limit.done();
  }

  const Cap = what.charAt(0).toUpperCase() + what.slice(1);
  const httpStatus = `HTTP ${reply.status}${reply.statusText ? ` ${reply.statusText}` : ''}`;
  if (reply.capped) {
    throw new ToolError(
      `${Cap} sent a reply larger than ${formatBytes(maxReplyBytes)}; it was not read further (the limit keeps a runaway server from filling memory). ` +
        'Ask for less (narrower arguments), or tell the user the server replies too much.',
    );
  }
  const text = decodeBody(reply.bytes, { contentType: reply.contentType }).text.replace(/^\uFEFF/, '');
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    message = undefined;
  }
  // Only a JSON-RPC error object counts as one; {"error": "…"} from a proxy is just a body.
  const candidate = message && typeof message === 'object' ? (message as { error?: unknown }).error : undefined;
  const rpcError = candidate && typeof candidate === 'object' && ('code' in candidate || 'message' in candidate) ? candidate : undefined;

  if (reply.status < 200 || reply.status > 299) {
    const rpc = rpcError ? ` ${describeRpcError(rpcError)}` : '';
    const began = !rpc && reply.bytes.length ? ` The reply began: "${excerpt(reply.bytes, reply.contentType)}"` : '';
    throw new ToolError(`${Cap} answered ${httpStatus}.${rpc}${began}${statusHint(reply.status)}`);
  }
  if (message === undefined) {
    const type = parseMimeType(reply.contentType)?.essence ?? 'no content type';
    const began = reply.bytes.length ? ` It began: "${excerpt(reply.bytes, reply.contentType)}"` : ' It was empty.';
    throw new ToolError(
      `${Cap} did not reply with JSON (${httpStatus}, ${type}).${began} A /call server must answer with a JSON-RPC 2.0 response; ` +
        'if this is a standard MCP server, its skill needs "transport": "streamable_http" in config_json. Tell the user.',
    );
  }
  if (!message || typeof message !== 'object' || Array.isArray(message)) {
    throw new ToolError(`${Cap} replied with JSON that is not a JSON-RPC response object: ${JSON.stringify(message).slice(0, 200)}. Tell the user.`);
  }
  if (rpcError) throw new ToolError(`${Cap} returned an error. ${describeRpcError(rpcError)}`);
  if (candidate !== undefined && candidate !== null) {
    throw new ToolError(`${Cap} returned an error that is not a JSON-RPC error object: ${JSON.stringify(candidate).slice(0, 300)}. Tell the user.`);
  }
  const result = (message as { result?: unknown }).result;
  if (!result || typeof result !== 'object') {
    throw new ToolError(`${Cap} replied with neither a result nor an error (${JSON.stringify(message).slice(0, 200)}). Tell the user.`);
  }
  return firstText(result as { content?: unknown; isError?: unknown }, Cap, maxResultChars);
}

function firstText(result: { content?: unknown; isError?: unknown }, Cap: string, maxChars: number): string {
  const content = Array.isArray(result.content) ? (result.content as unknown[]) : [];
  const item = content.find((c): c is { type: 'text'; text: string } => isTextContent(c));
  if (result.isError === true) {
    throw new ToolError(`${Cap} reported that the tool failed: ${item ? cutText(item.text, 2000).text : '(no message)'}`);
  }
  if (!item) {
    if (!content.length) return `[${Cap} returned no content.]`;
    const types = content.map((c) => (c && typeof c === 'object' && typeof (c as { type?: unknown }).type === 'string' ? (c as { type: string }).type : 'unknown'));
    return `[${Cap} returned no text content, only: ${types.join(', ')}. Only text is passed on.]`;
  }
  const cut = cutText(item.text, maxChars);
  return cut.truncated ? cut.text + truncationNote(item.text.length, maxChars) : cut.text;
}

function isTextContent(c: unknown): c is { type: 'text'; text: string } {
  return !!c && typeof c === 'object' && (c as { type?: unknown }).type === 'text' && typeof (c as { text?: unknown }).text === 'string';
}

function describeRpcError(error: unknown): string {
  if (!error || typeof error !== 'object') return `JSON-RPC error: ${JSON.stringify(error)}.`;
  const { code, message, data } = error as { code?: unknown; message?: unknown; data?: unknown };
  const detail = data === undefined ? '' : ` (data: ${JSON.stringify(data).slice(0, 300)})`;
  const hint =
    code === -32602
      ? ' The arguments were not accepted: check them against the tool\'s description.'
      : code === -32601
        ? ' The server does not know the method or the tool: the skill\'s name or url may be wrong; tell the user.'
        : '';
  return `JSON-RPC error ${typeof code === 'number' ? code : '(no code)'}: ${typeof message === 'string' ? message : '(no message)'}${detail}.${hint}`;
}

function statusHint(status: number): string {
  if (status === 401 || status === 403) return ' The server refused the credentials: check auth_type and auth_value in the skill\'s config_json; tell the user.';
  if (status === 404) return ' Nothing answers at that path: the skill\'s url may be wrong (for a standard MCP server, use "transport": "streamable_http"); tell the user.';
  if (status >= 500) return ' The server failed: try again later, or tell the user if it keeps failing.';
  return '';
}
