/**
 * What http and mcp skills share about one request to a user's server: the contract's 30 s
 * timeout over the response and its body, capped reading, and failures told to the model in
 * terms of what it (or the user) can do about them.
 */
import { decodeBody } from '../web/charset';
import { htmlToText, looksLikeHtml } from '../web/html-text';
import { parseMimeType } from '../web/mime';
import { ToolError } from '../tools/registry';

/** The contract's timeout for http and mcp skills. */
export const SKILL_TIMEOUT_MS = 30_000;
/** The most of a reply the model gets, in characters. */
export const SKILL_MAX_RESULT_CHARS = 100_000;
/** The most of a reply body read, in bytes: a server streaming forever stops here. */
export const SKILL_MAX_REPLY_BYTES = 4 * 1024 * 1024;
/** How much of an error reply the model is shown. */
const EXCERPT_CHARS = 500;

export interface SkillRequestOptions {
  /** Defaults to SKILL_TIMEOUT_MS; tests make it short. */
  timeoutMs?: number;
  /** Defaults to SKILL_MAX_REPLY_BYTES. */
  maxReplyBytes?: number;
  /** Defaults to SKILL_MAX_RESULT_CHARS. */
  maxResultChars?: number;
}

export const seconds = (ms: number) => `${Number((ms / 1000).toFixed(ms < 1000 ? 2 : 1))} s`;

/**
 * The run's signal joined with the timeout. A controller rather than AbortSignal.timeout,
 * so the timer can be cleared when the request ends (no stray timers per call).
 */
export function deadline(userSignal: AbortSignal, ms: number): { signal: AbortSignal; timedOut: () => boolean; done: () => void } {
  const timer = new AbortController();
  const id = setTimeout(() => timer.abort(new DOMException(`timed out after ${seconds(ms)}`, 'TimeoutError')), ms);
  return {
    signal: AbortSignal.any([userSignal, timer.signal]),
    timedOut: () => timer.signal.aborted,
    done: () => clearTimeout(id),
  };
}

/**
 * A failed fetch or body read, for the model. `what` names the server ("the HTTP skill
 * \"weather\" at https://…").
 */
export function requestFailure(e: unknown, what: string, userSignal: AbortSignal, timedOut: boolean, timeoutMs: number): ToolError {
  if (e instanceof ToolError) return e;
  // A caller's own deadline (AbortSignal.timeout) is a timeout, not the user stopping.
  const callerTimedOut = userSignal.aborted && (userSignal.reason as { name?: unknown } | undefined)?.name === 'TimeoutError';
  if (userSignal.aborted && !callerTimedOut) return new ToolError('Stopped by the user.');
  if (timedOut || callerTimedOut) {
    return new ToolError(`${capitalize(what)} did not answer within ${seconds(timeoutMs)} (timed out). The server may be slow or stuck: try again later, or tell the user.`);
  }
  return new ToolError(`Could not reach ${what}: ${failureReason(e)}. The server may be down, or the URL in the skill's config_json wrong; tell the user if it keeps failing.`);
}

/** fetch() says "fetch failed" (Node) or "Failed to fetch" (browsers); the cause says more. */
function failureReason(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const cause = (e as { cause?: unknown }).cause;
  if (cause && typeof cause === 'object') {
    const code = (cause as { code?: unknown }).code;
    const message = (cause as { message?: unknown }).message;
    if (code === 'ECONNREFUSED') return 'the connection was refused (nothing listens there)';
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'the host name does not resolve';
    if (code === 'UND_ERR_SOCKET' || code === 'ECONNRESET') return 'the server closed the connection';
    if (typeof message === 'string' && message) return `${e.message} (${message})`;
  }
  return e.message || e.name;
}

const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** A reply body as text, whitespace-collapsed and cut, for error messages. */
export function excerpt(bytes: Uint8Array, contentType: string | null, max = EXCERPT_CHARS): string {
  const head = bytes.subarray(0, 64 * 1024);
  const decoded = decodeBody(head, { contentType }).text;
  const essence = parseMimeType(contentType)?.essence ?? '';
  const readable = /html|xml/.test(essence) || (/^\s*</.test(decoded) && looksLikeHtml(decoded)) ? htmlToText(decoded) : decoded;
  const flat = readable.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

/** `text` cut to `max` characters, not splitting a surrogate pair. */
export function cutText(text: string, max: number): { text: string; truncated: boolean } {
  if (text.length <= max) return { text, truncated: false };
  let end = max;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return { text: text.slice(0, end), truncated: true };
}
