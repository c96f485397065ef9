/**
 * http skills (the contract's "http"): one tool that sends its arguments to a REST address the
 * user configured — GET as query parameters, POST as a JSON body — and gives the model the reply.
 *
 * The model gets {status, content_type, body, truncated}: body is pretty-printed JSON (numbers
 * and keys exactly as sent) or text, cut at SKILL_MAX_RESULT_CHARS; truncated says it was cut
 * (or the body was longer than SKILL_MAX_REPLY_BYTES and not read further).
 *
 * No address policy: the user chose the URL, and a skill on 127.0.0.1 or the LAN is normal.
 */
import { readBodyCapped } from '../web/body';
import { decodeBody } from '../web/charset';
import { classifyContent, formatBytes } from '../web/content-kind';
import { formatJson } from '../web/json';
import { parseMimeType } from '../web/mime';
import { ToolError, type ToolDefinition } from '../tools/registry';
import type { HttpConfig } from './config';
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
import type { SkillToolFactory } from './services';
import type { SkillRecord } from './types';

export interface HttpSkillReply {
  status: number;
  /** The reply's MIME type (type/subtype), or null when the server sent none. */
  content_type: string | null;
  body: string;
  truncated: boolean;
}

const ACCEPT = 'application/json, text/plain;q=0.9, */*;q=0.8';

/** The http skill factory with its limits overridden (tests make the timeout short). */
export function createHttpSkillTools(options: SkillRequestOptions = {}): SkillToolFactory<HttpConfig> {
  return (skill, config) => [httpSkillTool(skill, config, options)];
}

export const httpSkillTools: SkillToolFactory<HttpConfig> = createHttpSkillTools();

function httpSkillTool(skill: SkillRecord, config: HttpConfig, options: SkillRequestOptions): ToolDefinition<any> {
  return {
    name: skill.name,
    ...skillFacts(skill, 'http'),
    description: skill.description,
    ...skillInput(config.input_schema),
    run: (input: Record<string, unknown>, ctx) => callHttpSkill(skill, config, input ?? {}, ctx.env.fetch, ctx.signal, options),
  };
}

export async function callHttpSkill(
  skill: SkillRecord,
  config: HttpConfig,
  args: Record<string, unknown>,
  fetchFn: typeof fetch,
  userSignal: AbortSignal,
  { timeoutMs = SKILL_TIMEOUT_MS, maxReplyBytes = SKILL_MAX_REPLY_BYTES, maxResultChars = SKILL_MAX_RESULT_CHARS }: SkillRequestOptions = {},
): Promise<HttpSkillReply> {
  const url = new URL(config.url);
  const method = config.method ?? 'POST';
  const headers = new Headers({ Accept: ACCEPT });
  let body: string | undefined;
  if (method === 'GET') {
    appendQuery(url, args);
  } else {
    headers.set('Content-Type', 'application/json');
    body = JSON.stringify(args);
  }
  // The user's headers last: they may replace Accept or Content-Type on purpose.
  for (const [name, value] of Object.entries(config.headers ?? {})) headers.set(name, value);

  // Never the query in messages: it often holds an API key, and the model needs only the place.
  const what = `the HTTP skill "${skill.name}" (${method} ${url.origin}${url.pathname})`;
  const limit = deadline(userSignal, timeoutMs);
  try {
    const response = await fetchFn(url.href, {
      method,
      headers,
      body,
      credentials: 'omit',
      cache: 'no-store',
      referrerPolicy: 'no-referrer',
      redirect: 'follow',
      signal: limit.signal,
    });
    const read = await readBodyCapped(response, { maxBytes: response.ok ? maxReplyBytes : 64 * 1024, signal: limit.signal });
    const contentType = response.headers.get('content-type');
    if (!response.ok) throw statusError(response, what, read.bytes, contentType);
    return readable(response.status, contentType, read.bytes, read.capped, maxResultChars);
  } catch (e) {
    throw requestFailure(e, what, userSignal, limit.timedOut(), timeoutMs);
  } finally {
    limit.done();
  }
}

/**
 * Arguments as query parameters, added to any the URL already has. Strings go as they are;
 * other values as JSON (5, true, null, {"a":1}); an array becomes the parameter repeated once
 * per item (?tag=a&tag=b), the form most REST APIs read; undefined is left out.
 */
export function appendQuery(url: URL, args: Record<string, unknown>): void {
  const asParam = (x: unknown) => (typeof x === 'string' ? x : JSON.stringify(x));
  for (const [name, value] of Object.entries(args)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const item of value) url.searchParams.append(name, asParam(item));
    else url.searchParams.append(name, asParam(value));
  }
}

function readable(status: number, contentType: string | null, bytes: Uint8Array, capped: boolean, maxChars: number): HttpSkillReply {
  const mime = parseMimeType(contentType)?.essence ?? null;
  const kind = classifyContent(contentType, bytes).kind;
  if (kind === 'binary') {
    const size = `${capped ? 'over ' : ''}${formatBytes(bytes.length)}`;
    return { status, content_type: mime, body: `[A binary reply (${mime ?? 'no content type'}, ${size}) — not shown: http skills return text.]`, truncated: false };
  }
  let text = decodeBody(bytes, { contentType }).text;
  if (kind === 'json' && !capped) {
    const pretty = formatJson(text.replace(/^\uFEFF/, ''));
    if (pretty.ok) text = pretty.text;
  }
  const cut = cutText(text, maxChars);
  return { status, content_type: mime, body: cut.text, truncated: capped || cut.truncated };
}

function statusError(response: Response, what: string, bytes: Uint8Array, contentType: string | null): ToolError {
  const status = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
  const began = excerpt(bytes, contentType);
  const hint =
    response.status === 401 || response.status === 403
      ? ' The server refused the request: the skill\'s headers (an API key?) may be missing or wrong; tell the user.'
      : response.status === 404 || response.status === 405
        ? ' The address or method in the skill\'s config_json may be wrong; tell the user.'
        : response.status === 400 || response.status === 422
          ? ' The server did not accept the arguments: check them against the tool\'s description.'
          : response.status === 429
            ? ' The server is rate-limiting: wait before trying again.'
            : response.status >= 500
              ? ' The server failed: try again later.'
              : '';
  return new ToolError(`${what.charAt(0).toUpperCase()}${what.slice(1)} answered ${status}.${hint}${began ? ` The reply began: "${began}"` : ''}`);
}
