/**
 * A contract: the run log — the exact model requests and responses of the last runs, as the
 * recording client (lib/agent/run-log.ts) captures them, the store (lib/storage/run-log-store.ts)
 * keeps them and the management page shows and downloads them. Everything in it is already
 * redacted: no API key, token or authorization header reaches this shape.
 */

/** The log keeps this many runs; past it (or past the size cap) the oldest run goes first. */
export const RUN_LOG_MAX_RUNS = 20;
/** Total size of the kept log (its JSON, in characters): a long run re-sends the whole conversation each round. */
export const RUN_LOG_MAX_BYTES = 50 * 1024 * 1024;

/** How one model request ended. */
export type ExchangeOutcome =
  /** The stream ran to message_stop. */
  | 'ok'
  /** An HTTP error, a broken stream, or a stream left before message_stop. */
  | 'error'
  /** The user (or the run) aborted it. */
  | 'aborted';

/** One stream event as received, with when it came (ms after the request started). */
export interface RecordedEvent {
  t: number;
  event: unknown;
}

export interface RecordedResponse {
  /** The reply assembled from the events (content blocks with their full text and input, stop reason, usage). */
  message: unknown;
  /** The events as received, in order; content deltas past the per-request budget are left out (see `eventsDropped`). */
  events: RecordedEvent[];
  /** Every event received, kept or not. */
  eventCount: number;
  eventsDropped: number;
}

export interface RecordedError {
  /** The error's class name (APIError, APIConnectionError, Error…). */
  name: string;
  message: string;
  /** The HTTP status, when the server answered. */
  status?: number;
  /** The error body as the server sent it. */
  body?: unknown;
  /** The response headers (secret-looking ones redacted). */
  headers?: Record<string, string>;
  requestId?: string;
}

/** One model request of a run and what came back, in full (as the page shows and downloads it). */
export interface RunLogExchange {
  /** 0-based, in the order the requests were sent (a run's summaries and sub-agents included). */
  index: number;
  /** Epoch ms when the request was sent. */
  startedAt: number;
  /** Ms from sending to the first event; absent when none came. */
  firstEventMs?: number;
  /** Ms from sending to the end of the stream or the error. */
  durationMs: number;
  /** The Messages API request body as sent (model, max_tokens, system, tools, messages, stream). */
  request: Record<string, unknown>;
  outcome: ExchangeOutcome;
  response?: RecordedResponse;
  error?: RecordedError;
}

/** A run as the log lists it. */
export interface RunLogRun {
  id: string;
  conversationId: string;
  /** The conversation's title when the run started ('' when it had none yet). */
  title: string;
  /** The base URL the requests went to (query keys redacted). */
  endpoint: string;
  startedAt: number;
  updatedAt: number;
  /** Every model the run's requests named (the summary model too), in first-use order. */
  models: string[];
  /** Requests sent, kept or not. */
  requests: number;
  /** Requests that ended in an error. */
  failed: number;
  /** How the latest request ended. */
  status: ExchangeOutcome;
  /** The latest failed request's HTTP status. */
  httpStatus?: number;
  /** Size of what is kept of the run (JSON characters). */
  bytes: number;
  /** Requests not kept because the run alone outgrew the log's size cap. */
  dropped: number;
}

/** The downloaded file: one run or all of them, each with its requests in full. */
export interface RunLogFile {
  format: 'pagewright-run-log';
  version: 1;
  exportedAt: string;
  runs: (RunLogRun & { exchanges: RunLogExchange[] })[];
}
