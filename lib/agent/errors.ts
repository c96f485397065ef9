import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import type { RunError } from '../contracts/conversation';
import { errorMessage } from '../errors';

export interface ClassifiedError {
  retryable: boolean;
  error: RunError;
  /** From a retry-after header, when the server sent one. */
  retryAfterMs?: number;
}

const RETRYABLE_STATUS = new Set([408, 409, 429, 500, 502, 503, 504, 529]);
/** Error types that mean "try again" when sent inside a stream (no status): Anthropic's, then OpenAI's. */
const RETRYABLE_TYPES = new Set(['overloaded_error', 'rate_limit_error', 'api_error', 'server_error', 'rate_limit_exceeded']);

/**
 * Decides what a failed model call means for the user. `midReply` is true when part of the
 * reply had already streamed: a break then is shown rather than silently retried.
 */
export function classifyModelError(e: unknown, midReply: boolean): ClassifiedError {
  if (e instanceof Anthropic.APIError) {
    return classifyApiError(
      e.status as number | undefined,
      e.apiMessage ?? bodyText(e.error) ?? stripStatus(e.message),
      e.type ?? undefined,
      e.headers,
      e instanceof Anthropic.APIConnectionError,
      midReply,
    );
  }
  if (e instanceof OpenAI.APIError) {
    return openAIFinal(e) ?? classifyApiError(e.status, openAIMessage(e), e.type ?? e.code ?? undefined, e.headers, e instanceof OpenAI.APIConnectionError, midReply);
  }
  const message = errorMessage(e);
  return midReply
    ? { retryable: false, error: { kind: 'stream', message } }
    : { retryable: true, error: { kind: 'network', message } };
}

/** The same rules for both SDKs' errors, so banners and retries do not depend on the provider. */
function classifyApiError(
  status: number | undefined,
  detail: string,
  type: string | undefined,
  headers: Headers | undefined,
  connection: boolean,
  midReply: boolean,
): ClassifiedError {
  if (status === 401 || status === 403) {
    return { retryable: false, error: { kind: 'auth', status, message: detail } };
  }
  if (status === 404) return { retryable: false, error: { kind: 'not_found', status, message: detail } };
  if (status === 400 || status === 413 || status === 422) {
    return { retryable: false, error: { kind: 'bad_request', status, message: detail } };
  }
  if ((status !== undefined && RETRYABLE_STATUS.has(status)) || (type && RETRYABLE_TYPES.has(type))) {
    const retryAfterMs = retryAfter(headers);
    return {
      retryable: true,
      error: { kind: 'other', status, message: detail },
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    };
  }
  if (status === undefined && !connection) {
    return { retryable: false, error: { kind: 'stream', message: detail } };
  }
  if (connection) {
    return midReply
      ? { retryable: false, error: { kind: 'stream', message: detail } }
      : { retryable: true, error: { kind: 'network', message: detail } };
  }
  return { retryable: false, error: { kind: 'other', status, message: detail } };
}

/**
 * The API's own words (the body's `error.message`). A context overflow keeps a form the context
 * manager recognises: OpenAI's code when the words lack it, and llama.cpp's counts (in its body,
 * not its message) in the Messages API's "N tokens > M maximum" form.
 */
function openAIMessage(e: InstanceType<typeof OpenAI.APIError>): string {
  const body = e.error as { message?: unknown; n_prompt_tokens?: unknown; n_ctx?: unknown } | undefined;
  const raw = body?.message;
  let message = typeof raw === 'string' ? raw : raw !== undefined ? JSON.stringify(raw) : (bodyText(e.error) ?? stripStatus(e.message));
  if (e.code === 'context_length_exceeded' && !message.includes('context_length_exceeded')) message += ' (context_length_exceeded)';
  if (typeof body?.n_prompt_tokens === 'number' && typeof body.n_ctx === 'number') message += ` (${body.n_prompt_tokens} tokens > ${body.n_ctx} maximum)`;
  return message;
}

/**
 * What the status alone would misjudge: llama.cpp has sent its context overflow as a 500 (a
 * retry cannot help; shortening can), and OpenAI's 429 `insufficient_quota` is an empty
 * balance, not a rate limit.
 */
function openAIFinal(e: InstanceType<typeof OpenAI.APIError>): ClassifiedError | undefined {
  const status = e.status;
  if (e.type === 'exceed_context_size_error') return { retryable: false, error: { kind: 'bad_request', status: 400, message: openAIMessage(e) } };
  if (e.code === 'insufficient_quota' || e.type === 'insufficient_quota') {
    return { retryable: false, error: { kind: 'other', ...(status !== undefined ? { status } : {}), message: openAIMessage(e) } };
  }
  return undefined;
}

/**
 * The words of an error body in a shape the SDK does not read: compatible servers send
 * `{error: "…"}` (LM Studio, Ollama's native API), `{message}` or FastAPI's `{detail}`, or a bare
 * string; the SDKs would show those JSON-encoded, quotes and all.
 */
function bodyText(body: unknown): string | undefined {
  if (typeof body === 'string') return body || undefined;
  const b = body as { error?: unknown; message?: unknown; detail?: unknown } | null | undefined;
  const text = [b?.error, b?.message, b?.detail].find((t) => typeof t === 'string' && t);
  return text as string | undefined;
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
  signal.aborted ||
  e instanceof Anthropic.APIUserAbortError ||
  e instanceof OpenAI.APIUserAbortError ||
  (e instanceof Error && e.name === 'AbortError');
