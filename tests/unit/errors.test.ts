import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { backoffMs, classifyModelError, isAbort } from '../../lib/agent/errors';

const body = (type: string, message: string) => ({ type: 'error', error: { type, message } });
/** What the SDK throws for an HTTP error response. */
const httpError = (status: number, type: string, message: string, headers: Record<string, string> = {}) =>
  Anthropic.APIError.generate(status, body(type, message), undefined, new Headers(headers));
/** What the SDK throws for an SSE `error` event inside a 200 stream: no status, a type. */
const sseError = (type: string, message: string) => new Anthropic.APIError(undefined, body(type, message), undefined, new Headers(), type as never);

afterEach(() => vi.restoreAllMocks());

describe('classifyModelError', () => {
  it.each([
    [401, 'authentication_error', 'auth'],
    [403, 'permission_error', 'auth'],
    [404, 'not_found_error', 'not_found'],
    [400, 'invalid_request_error', 'bad_request'],
    [413, 'request_too_large', 'bad_request'],
    [422, 'invalid_request_error', 'bad_request'],
  ] as const)('HTTP %i is final: %s → %s', (status, type, kind) => {
    for (const midReply of [false, true]) {
      expect(classifyModelError(httpError(status, type, 'the detail'), midReply)).toEqual({
        retryable: false,
        error: { kind, status, message: 'the detail' },
      });
    }
  });

  it.each([408, 409, 429, 500, 502, 503, 504, 529])('HTTP %i is retried', (status) => {
    const c = classifyModelError(httpError(status, 'api_error', 'try later'), false);
    expect(c).toEqual({ retryable: true, error: { kind: 'other', status, message: 'try later' } });
  });

  it('another HTTP status is final', () => {
    expect(classifyModelError(httpError(402, 'billing_error', 'pay up'), false)).toEqual({
      retryable: false,
      error: { kind: 'other', status: 402, message: 'pay up' },
    });
  });

  it('uses the status-less SDK message when the body has no message', () => {
    const e = Anthropic.APIError.generate(500, undefined, undefined, new Headers());
    expect(classifyModelError(e, false).error.message).toBe('status code (no body)');
  });

  it('reads retry-after in seconds', () => {
    const c = classifyModelError(httpError(429, 'rate_limit_error', 'slow down', { 'retry-after': '7' }), false);
    expect(c.retryAfterMs).toBe(7000);
    expect(classifyModelError(httpError(529, 'overloaded_error', 'x', { 'retry-after': '0.5' }), false).retryAfterMs).toBe(500);
    expect(classifyModelError(httpError(529, 'overloaded_error', 'x', { 'retry-after': '-3' }), false).retryAfterMs).toBe(0);
  });

  it('reads retry-after as an HTTP date', () => {
    const now = Date.UTC(2025, 0, 2, 3, 4, 5);
    vi.spyOn(Date, 'now').mockReturnValue(now);
    const at = new Date(now + 12_000).toUTCString();
    expect(classifyModelError(httpError(503, 'api_error', 'x', { 'retry-after': at }), false).retryAfterMs).toBe(12_000);
    const past = new Date(now - 60_000).toUTCString();
    expect(classifyModelError(httpError(503, 'api_error', 'x', { 'retry-after': past }), false).retryAfterMs).toBe(0);
  });

  it('has no retryAfterMs without a usable header', () => {
    expect(classifyModelError(httpError(529, 'overloaded_error', 'x'), false)).not.toHaveProperty('retryAfterMs');
    expect(classifyModelError(httpError(529, 'overloaded_error', 'x', { 'retry-after': 'soon' }), false)).not.toHaveProperty('retryAfterMs');
  });

  it('retries an overloaded or rate-limit error sent inside the stream, even mid-reply', () => {
    for (const type of ['overloaded_error', 'rate_limit_error', 'api_error']) {
      expect(classifyModelError(sseError(type, 'Overloaded'), true)).toEqual({
        retryable: true,
        error: { kind: 'other', status: undefined, message: 'Overloaded' },
      });
    }
  });

  it('shows any other in-stream error as a stream error', () => {
    expect(classifyModelError(sseError('invalid_request_error', 'bad tool schema'), false)).toEqual({
      retryable: false,
      error: { kind: 'stream', message: 'bad tool schema' },
    });
  });

  it('retries a connection failure before the reply started, but not in the middle of it', () => {
    const e = new Anthropic.APIConnectionError({ message: 'Connection error.' });
    expect(classifyModelError(e, false)).toEqual({ retryable: true, error: { kind: 'network', message: 'Connection error.' } });
    expect(classifyModelError(e, true)).toEqual({ retryable: false, error: { kind: 'stream', message: 'Connection error.' } });
    expect(classifyModelError(new Anthropic.APIConnectionTimeoutError(), false)).toEqual({
      retryable: true,
      error: { kind: 'network', message: 'Request timed out.' },
    });
  });

  it('treats other errors (fetch failures, a cut stream) the same way', () => {
    const cut = new Error('The reply stream ended before message_stop.');
    expect(classifyModelError(cut, false)).toEqual({ retryable: true, error: { kind: 'network', message: cut.message } });
    expect(classifyModelError(cut, true)).toEqual({ retryable: false, error: { kind: 'stream', message: cut.message } });
    expect(classifyModelError('weird', true)).toEqual({ retryable: false, error: { kind: 'stream', message: 'weird' } });
  });
});

describe('classifyModelError for the OpenAI SDK: the same rules as for Anthropic', () => {
  /** What the SDK throws for an HTTP error: OpenAI's body is `{error: {message, type, param, code}}`. */
  const openAIError = (status: number, message: string, headers: Record<string, string> = {}, extra: Record<string, unknown> = {}) =>
    OpenAI.APIError.generate(status, { error: { message, type: 'invalid_request_error', param: null, code: null, ...extra } }, undefined, new Headers(headers));

  it.each([401, 403, 404, 400, 413, 422, 408, 409, 429, 500, 502, 503, 504, 529, 402])('HTTP %i is classified as the Anthropic SDK error would be', (status) => {
    for (const midReply of [false, true]) {
      const headers = { 'retry-after': '4' };
      expect(classifyModelError(openAIError(status, 'the detail', headers), midReply)).toEqual(classifyModelError(httpError(status, 'x', 'the detail', headers), midReply));
    }
  });

  it("shows the API's own message, not the SDK's status-prefixed one, and a non-string message as JSON", () => {
    expect(classifyModelError(openAIError(400, 'Unsupported parameter'), false).error.message).toBe('Unsupported parameter');
    const mistral = OpenAI.APIError.generate(422, { error: { message: { detail: [{ type: 'extra_forbidden' }] } } }, undefined, new Headers());
    expect(classifyModelError(mistral, false).error.message).toBe('{"detail":[{"type":"extra_forbidden"}]}');
  });

  it("reads a compatible server's words from the body shapes the SDKs do not: `{error: \"…\"}`, `{message}`, `{detail}`", () => {
    // The openai client hands generate() `{error: body}` when the body has no `error` of its own.
    const lmStudio = OpenAI.APIError.generate(400, { error: 'Invalid tool_choice type' }, undefined, new Headers());
    expect(classifyModelError(lmStudio, false).error).toEqual({ kind: 'bad_request', status: 400, message: 'Invalid tool_choice type' });
    const fastApi = OpenAI.APIError.generate(422, { error: { detail: 'Field required' } }, undefined, new Headers());
    expect(classifyModelError(fastApi, false).error.message).toBe('Field required');
    // The Anthropic SDK keeps the whole body.
    const ollama = Anthropic.APIError.generate(400, { error: 'model "x" not found, try pulling it first' }, undefined, new Headers());
    expect(classifyModelError(ollama, false).error.message).toBe('model "x" not found, try pulling it first');
    const topLevel = Anthropic.APIError.generate(400, { message: 'Invalid model: x' }, undefined, new Headers());
    expect(classifyModelError(topLevel, false).error.message).toBe('Invalid model: x');
  });

  it('names context_length_exceeded in the message when the words do not', () => {
    const e = openAIError(400, 'Input too long.', {}, { code: 'context_length_exceeded' });
    expect(classifyModelError(e, false).error).toEqual({ kind: 'bad_request', status: 400, message: 'Input too long. (context_length_exceeded)' });
  });

  it('retries a connection failure before the reply started, not in its middle; an in-stream error without status is a stream error', () => {
    const e = new OpenAI.APIConnectionError({ message: 'Connection error.' });
    expect(classifyModelError(e, false)).toEqual({ retryable: true, error: { kind: 'network', message: 'Connection error.' } });
    expect(classifyModelError(e, true)).toEqual({ retryable: false, error: { kind: 'stream', message: 'Connection error.' } });
    const inStream = new OpenAI.APIError(undefined, { message: 'bad tool schema', type: 'invalid_request_error' }, undefined, new Headers());
    expect(classifyModelError(inStream, true)).toEqual({ retryable: false, error: { kind: 'stream', message: 'bad tool schema' } });
  });

  it("counts the OpenAI SDK's user abort as an abort", () => {
    expect(isAbort(new OpenAI.APIUserAbortError(), new AbortController().signal)).toBe(true);
    expect(isAbort(new OpenAI.APIConnectionError({}), new AbortController().signal)).toBe(false);
  });
});

describe('backoffMs', () => {
  it('uses the server\'s retry-after, capped at 60 s', () => {
    expect(backoffMs(0, 2000)).toBe(2000);
    expect(backoffMs(4, 0)).toBe(0);
    expect(backoffMs(0, 59_999)).toBe(59_999);
    expect(backoffMs(0, 60_000)).toBe(60_000);
    expect(backoffMs(0, 3_600_000)).toBe(60_000);
  });

  it('grows exponentially from 1 s with ±20 % jitter', () => {
    const bases = [1000, 2000, 4000, 8000, 16_000];
    bases.forEach((base, attempt) => {
      expect(backoffMs(attempt, undefined, () => 0)).toBe(base * 0.8);
      expect(backoffMs(attempt, undefined, () => 0.5)).toBe(base);
      expect(backoffMs(attempt, undefined, () => 0.999_999)).toBeLessThanOrEqual(base * 1.2);
      expect(backoffMs(attempt, undefined, () => 0.999_999)).toBeGreaterThan(base * 1.19);
    });
  });

  it('caps the exponential base at 30 s', () => {
    for (const attempt of [5, 6, 10, 50]) {
      expect(backoffMs(attempt, undefined, () => 0.5)).toBe(30_000);
      expect(backoffMs(attempt, undefined, () => 0)).toBe(24_000);
      expect(backoffMs(attempt, undefined, () => 0.999_999)).toBeLessThanOrEqual(36_000);
    }
  });

  it('stays inside the jitter bounds with the real random source', () => {
    for (let attempt = 0; attempt < 8; attempt++) {
      const base = Math.min(1000 * 2 ** attempt, 30_000);
      for (let i = 0; i < 200; i++) {
        const ms = backoffMs(attempt);
        expect(ms).toBeGreaterThanOrEqual(base * 0.8);
        expect(ms).toBeLessThanOrEqual(base * 1.2);
        expect(Number.isInteger(ms)).toBe(true);
      }
    }
  });
});
