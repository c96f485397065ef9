/** What the builtin skill functions share: their descriptions and their network calls. */
import type { SkillRecord } from '../types';
import { ToolError } from '../../tools/registry';
import { readBodyCapped } from '../../web/body';
import { errorMessage } from '../../errors';

/** The user's description, or `fallback` when there is none, followed by `more` (the arguments, the limits). */
export function skillDescription(skill: SkillRecord, fallback: string, more = ''): string {
  const own = skill.description.trim() || fallback;
  if (!more) return own;
  return `${own}${/[.!?]$/.test(own) ? '' : '.'} ${more}`;
}

export interface JsonAnswer {
  status: number;
  ok: boolean;
  /** The parsed body; undefined when it was not JSON. */
  json: unknown;
  /** The body as text (cut at the cap), for error excerpts. */
  text: string;
}

export interface PostOptions {
  /** Who answers, as the model should read it, with where: 'the remote agent "x" (http://host)'. */
  who: string;
  timeoutMs: number;
  /** The user's stop; a timeout of our own is told apart from it. */
  signal: AbortSignal;
  maxBytes?: number;
}

/**
 * A POST to a service the user configured, without the user's cookies; the body is read with a
 * cap and parsed as JSON when it is JSON. Network failures and timeouts become ToolErrors.
 */
export async function postForJson(fetchFn: typeof fetch, url: string, init: RequestInit, o: PostOptions): Promise<JsonAnswer> {
  const signal = AbortSignal.any([o.signal, AbortSignal.timeout(o.timeoutMs)]);
  const fail = (e: unknown): never => {
    if (o.signal.aborted) throw new ToolError('Stopped by the user.');
    if (signal.aborted) throw new ToolError(`${o.who} did not answer within ${formatDuration(o.timeoutMs)} (timed out).`);
    const reason = errorMessage(e);
    throw new ToolError(`Could not reach ${o.who}: the request failed (${reason}). Check the address and the network, then try again.`);
  };
  let response: Response;
  try {
    response = await fetchFn(url, { ...init, method: 'POST', credentials: 'omit', cache: 'no-store', referrerPolicy: 'no-referrer', redirect: 'follow', signal });
  } catch (e) {
    return fail(e);
  }
  let text: string;
  try {
    const body = await readBodyCapped(response, { signal, maxBytes: o.maxBytes ?? 4 * 1024 * 1024 });
    text = new TextDecoder().decode(body.bytes);
  } catch (e) {
    return fail(e);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, ok: response.ok, json, text };
}

/** The start of a body, on one line, for an error message. */
export function excerpt(text: string, max = 300): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (!flat) return '(an empty body)';
  return `"${flat.length > max ? `${flat.slice(0, max)}…` : flat}"`;
}

/** scheme://host:port only: paths of user-configured services may carry ids the model need not echo. */
export function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

function formatDuration(ms: number): string {
  return ms >= 60_000 && ms % 60_000 === 0 ? `${ms / 60_000} minute${ms === 60_000 ? '' : 's'}` : `${ms / 1000} s`;
}

export const isRecord = (x: unknown): x is Record<string, unknown> => !!x && typeof x === 'object' && !Array.isArray(x);

/** Resolves after `ms`, or rejects at once when `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
