import Anthropic from '@anthropic-ai/sdk';
import type { RunError } from '../contracts/conversation';
import { errorMessage } from '../errors';

export interface ClassifiedError {
  retryable: boolean;
  error: RunError;
  /** From a retry-after header, when the server sent one. */
  retryAfterMs?: number;
}

const RETRYABLE_STATUS = new Set([408, 409, 429, 500, 502, 503, 504, 529]);
const RETRYABLE_TYPES = new Set(['overloaded_error', 'rate_limit_error', 'api_error']);

/**
 * Decides what a failed model call means for the user. `midReply` is true when part of the
 * reply had already streamed: a break then is shown rather than silently retried.
 */
export function classifyModelError(e: unknown, midReply: boolean): ClassifiedError {
  if (e instanceof Anthropic.APIError) {
    const status = e.status as number | undefined;
    const detail = e.apiMessage ?? stripStatus(e.message);
    if (status === 401 || status === 403) {
      return { retryable: false, error: { kind: 'auth', status, message: detail } };
    }
    if (status === 404) return { retryable: false, error: { kind: 'not_found', status, message: detail } };
    if (status === 400 || status === 413 || status === 422) {
      return { retryable: false, error: { kind: 'bad_request', status, message: detail } };
    }
    if ((status !== undefined && RETRYABLE_STATUS.has(status)) || (e.type && RETRYABLE_TYPES.has(e.type))) {
      const retryAfterMs = retryAfter(e.headers);
      return {
        retryable: true,
        error: { kind: 'other', status, message: detail },
        ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
      };
    }
    if (status === undefined && !(e instanceof Anthropic.APIConnectionError)) {
      return { retryable: false, error: { kind: 'stream', message: detail } };
    }
    if (e instanceof Anthropic.APIConnectionError) {
      return midReply
        ? { retryable: false, error: { kind: 'stream', message: detail } }
        : { retryable: true, error: { kind: 'network', message: detail } };
    }
    return { retryable: false, error: { kind: 'other', status, message: detail } };
  }
  const message = errorMessage(e);
  return midReply
    ? { retryable: false, error: { kind: 'stream', message } }
    : { retryable: true, error: { kind: 'network', message } };
}

function stripStatus(message: string): string {
  return message.replace(/^\d{3}\s+/, '');
}

function retryAfter(headers: Headers | undefined): number | undefined {
  const raw = headers?.get?.('retry-after');
  if (!raw) return undefined;
  const secs = Number(raw);
  if (Number.isFinite(secs)) return Math.max(0, secs * 1000);
  const date = Date.parse(raw);
  return Number.isFinite(date) ? Math.max(0, date - Date.now()) : undefined;
}

/** Exponential backoff with jitter; a server's retry-after wins, up to a minute. */
export function backoffMs(attempt: number, retryAfterMs?: number, random = Math.random): number {
  if (retryAfterMs !== undefined) return Math.min(retryAfterMs, 60_000);
  const base = Math.min(1000 * 2 ** attempt, 30_000);
  return Math.round(base * (0.8 + 0.4 * random()));
}

export const isAbort = (e: unknown, signal: AbortSignal) =>
  signal.aborted || e instanceof Anthropic.APIUserAbortError || (e instanceof Error && e.name === 'AbortError');
