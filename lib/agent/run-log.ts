/**
 * The recording side of the run log: a ModelClient decorator that keeps each request as sent and
 * each stream event as received, and hands the redacted exchange to a recorder once the request
 * is over. The stream is never held up for it: events pass through as they come, and the work of
 * assembling, redacting and storing runs after the last one, off the loop's path.
 */
import type { ExchangeOutcome, RecordedError, RecordedEvent, RecordedResponse, RunLogExchange } from '../contracts/run-log';
import { errorMessage } from '../errors';
import type { ModelClient, ModelRequest } from './model';
import { headerRecord, makeRedactor, redactDeltas, type Redactor } from './redact';

export interface RunRecorder {
  /** The exact values to take out wherever they appear (the user's stored keys). */
  readonly secrets: readonly string[];
  record(exchange: RunLogExchange): void | Promise<void>;
  /**
   * The next exchange's index, when several clients (a run's providers) record into one run;
   * absent: each client counts its own from 0.
   */
  nextIndex?(): number;
}

/** Kept events per request, in JSON characters: beyond it only events that are not content deltas are kept. */
export const EVENT_BUDGET_CHARS = 1024 * 1024;
/** Longer strings in a request (a large base64 screenshot) are cut to this many characters. */
export const MAX_STRING_CHARS = 1024 * 1024;

export interface RecordingOptions {
  /** Runs the deferred work (tests run it at once). */
  defer?: (work: () => void) => void;
  now?: () => number;
}

/**
 * Wraps `client` so its requests are recorded; `recorder` may be a promise (the decision to record
 * is read from settings), and when it settles to undefined the client is passed through untouched.
 * Any other member a ModelClient grows is forwarded as is.
 */
export function recordingClient(client: ModelClient, recorder: RunRecorder | Promise<RunRecorder | undefined>, options: RecordingOptions = {}): ModelClient {
  const defer = options.defer ?? ((work) => void setTimeout(work, 0));
  const now = options.now ?? (() => performance.now());
  let index = 0;
  let redact: Redactor | undefined;
  const stream: ModelClient['stream'] = async (request, signal) => {
    const rec = await recorder;
    if (!rec) return client.stream(request, signal);
    redact ??= makeRedactor(rec.secrets);
    const r = redact;
    const secrets = rec.secrets;
    // The body is serialised now: the loop may change what it points to before the deferred work runs.
    const capture = new Capture(rec.nextIndex ? rec.nextIndex() : index++, Date.now(), now(), JSON.stringify(requestBody(request)));
    const finish = (outcome: ExchangeOutcome, error?: unknown) => {
      const durationMs = now() - capture.t0;
      defer(() => {
        try {
          void Promise.resolve(rec.record(capture.exchange(outcome, durationMs, error, r, secrets))).catch(() => {});
        } catch {
          // A log that cannot keep an exchange must never fail the run it records.
        }
      });
    };
    let inner: AsyncIterable<unknown>;
    try {
      inner = await client.stream(request, signal);
    } catch (e) {
      finish(signal.aborted ? 'aborted' : 'error', e);
      throw e;
    }
    return passThrough(inner, capture, now, signal, finish) as Awaited<ReturnType<ModelClient['stream']>>;
  };
  return new Proxy(client, {
    get(target, prop, receiver) {
      if (prop === 'stream') return stream;
      const value = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

async function* passThrough(
  inner: AsyncIterable<unknown>,
  capture: Capture,
  now: () => number,
  signal: AbortSignal,
  finish: (outcome: ExchangeOutcome, error?: unknown) => void,
): AsyncGenerator<unknown> {
  let failure: unknown;
  let failed = false;
  try {
    for await (const event of inner) {
      capture.events.push({ t: now() - capture.t0, event });
      yield event;
    }
  } catch (e) {
    failed = true;
    failure = e;
    throw e;
  } finally {
    // Also reached when the consumer stops early (a stalled stream it gave up on).
    const stopped = capture.events.some((e) => (e.event as { type?: string } | null)?.type === 'message_stop');
    if (signal.aborted) finish('aborted', failed ? failure : undefined);
    else if (failed) finish('error', failure);
    else finish(stopped ? 'ok' : 'error', stopped ? undefined : new Error('The stream ended before message_stop.'));
  }
}

/** The Messages API body the Anthropic client sends for a request (lib/agent/model.ts). */
export function requestBody(req: ModelRequest): Record<string, unknown> {
  return { model: req.model, max_tokens: req.maxTokens, system: req.system, tools: req.tools, messages: req.messages, stream: true };
}

class Capture {
  readonly events: RecordedEvent[] = [];

  constructor(
    readonly index: number,
    readonly startedAt: number,
    readonly t0: number,
    readonly body: string,
  ) {}

  exchange(outcome: ExchangeOutcome, durationMs: number, error: unknown, redact: Redactor, secrets: readonly string[]): RunLogExchange {
    const request = redact(cutLongStrings(JSON.parse(this.body) as Record<string, unknown>));
    const first = this.events[0];
    return {
      index: this.index,
      startedAt: this.startedAt,
      ...(first ? { firstEventMs: Math.round(first.t) } : {}),
      durationMs: Math.round(durationMs),
      request,
      outcome,
      ...(this.events.length ? { response: redact(recordedResponse(deltasRedacted(this.events, secrets))) } : {}),
      ...(error !== undefined ? { error: redact(recordedError(error)) } : {}),
    };
  }
}

/** The events with the secrets taken out of what their deltas spell together (see redactDeltas). */
function deltasRedacted(events: readonly RecordedEvent[], secrets: readonly string[]): RecordedEvent[] {
  const clean = redactDeltas(events.map((e) => e.event), secrets);
  return events.map((e, i) => ({ t: e.t, event: clean[i] }));
}

/** The assembled reply and the events within the budget (deltas past it are counted, not kept). */
export function recordedResponse(events: readonly RecordedEvent[], budget = EVENT_BUDGET_CHARS): RecordedResponse {
  const kept: RecordedEvent[] = [];
  let used = 0;
  let dropped = 0;
  for (const e of events) {
    const size = JSON.stringify(e.event)?.length ?? 0;
    const delta = (e.event as { type?: string } | null)?.type === 'content_block_delta';
    if (delta && used + size > budget) {
      dropped++;
      continue;
    }
    used += size;
    kept.push({ t: Math.round(e.t), event: e.event });
  }
  return { message: assembleMessage(events.map((e) => e.event)), events: kept, eventCount: events.length, eventsDropped: dropped };
}

type Block = Record<string, unknown> & { type?: string };

/**
 * The reply the events add up to: message_start's message, each block as it started with its
 * deltas applied (text, tool input — parsed when it is whole JSON, else kept as the raw text —,
 * thinking, signatures, citations), message_delta's stop reason and usage.
 */
export function assembleMessage(events: readonly unknown[]): Record<string, unknown> | null {
  let message: Record<string, unknown> | null = null;
  const blocks: Block[] = [];
  const json: string[] = [];
  for (const raw of events) {
    const ev = raw as Record<string, any> | null;
    switch (ev?.type) {
      case 'message_start':
        message = { ...(ev.message ?? {}) };
        break;
      case 'content_block_start':
        blocks[ev.index] = { ...(ev.content_block ?? {}) };
        json[ev.index] = '';
        break;
      case 'content_block_delta': {
        const b = blocks[ev.index];
        const d = ev.delta ?? {};
        if (!b) break;
        if (d.type === 'text_delta') b.text = `${b.text ?? ''}${d.text}`;
        else if (d.type === 'input_json_delta') json[ev.index] += d.partial_json ?? '';
        else if (d.type === 'thinking_delta') b.thinking = `${b.thinking ?? ''}${d.thinking}`;
        else if (d.type === 'signature_delta') b.signature = `${b.signature ?? ''}${d.signature}`;
        else if (d.type === 'citations_delta') b.citations = [...((b.citations as unknown[]) ?? []), d.citation];
        break;
      }
      case 'message_delta':
        message ??= {};
        message = { ...message, ...(ev.delta ?? {}), usage: { ...((message.usage as object) ?? {}), ...(ev.usage ?? {}) } };
        break;
    }
  }
  if (!message && !blocks.length) return null;
  const content = blocks.flatMap((b, i) => {
    if (!b) return [];
    const input = json[i];
    if (!input) return [b];
    try {
      return [{ ...b, input: JSON.parse(input) }];
    } catch {
      return [{ ...b, input_json: input }];
    }
  });
  return { ...(message ?? {}), content };
}

/** What a failed request leaves to read: the status, the error body and headers the server sent. */
export function recordedError(e: unknown): RecordedError {
  const err = (e && typeof e === 'object' ? e : {}) as Record<string, unknown>;
  const status = typeof err.status === 'number' ? err.status : undefined;
  const headers = headerRecord(err.headers);
  const requestId = typeof err.requestID === 'string' ? err.requestID : undefined;
  return {
    // The SDK names its errors (APIError, APIConnectionError…); class names do not survive minifying.
    name: e instanceof Error ? e.name : typeof e,
    message: errorMessage(e),
    ...(status !== undefined ? { status } : {}),
    ...(err.error !== undefined ? { body: err.error } : {}),
    ...(headers ? { headers } : {}),
    ...(requestId ? { requestId } : {}),
  };
}

function cutLongStrings<T>(value: T): T {
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return v.length > MAX_STRING_CHARS ? `${v.slice(0, MAX_STRING_CHARS)}… [run log: ${v.length - MAX_STRING_CHARS} more characters not kept]` : v;
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(value) as T;
}
