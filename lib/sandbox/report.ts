/**
 * The extension's side of the sandbox contract: checking run options before anything starts,
 * and turning what comes back from the isolated realm (untrusted: the code ran next to the
 * prelude that wrote it) into a SandboxOutcome, without trusting its shape or size.
 */
import { errorMessage } from '../errors';
import type { PreludeLimits } from './prelude';
import type { FunctionCall, FunctionLanguage, SandboxErrorKind, SandboxOutcome, SandboxRunOptions } from './types';

export const SANDBOX_DEFAULTS = {
  maxOutputChars: 100_000,
  /** Upper bound a caller may ask for: the result travels through extension messaging. */
  maxOutputCharsCeiling: 2_000_000,
  maxLogLines: 200,
  maxLogChars: 20_000,
  maxCodeChars: 1_000_000,
  maxTimeoutMs: 10 * 60_000,
} as const;

/** A run as it is sent to the realm host. */
export interface RealmRunRequest {
  code: string;
  timeoutMs: number;
  limits: PreludeLimits;
  /** A function skill's call: `code` defines run(args), called with these arguments (JSON text). */
  argsJson?: string;
}

/** What a realm host (the sandbox page, the QuickJS worker) answers for one run. */
export type RealmResult =
  | { status: 'done'; report: string; durationMs: number }
  | { status: 'failed'; kind: SandboxErrorKind; message: string; logs: string[]; durationMs: number };

export function normalizeRun(
  code: unknown,
  options: SandboxRunOptions,
): { ok: true; request: RealmRunRequest } | { ok: false; message: string } {
  if (typeof code !== 'string') return { ok: false, message: 'The code must be a string.' };
  if (code.length > SANDBOX_DEFAULTS.maxCodeChars) {
    return { ok: false, message: `The code is ${code.length} characters; the limit is ${SANDBOX_DEFAULTS.maxCodeChars}.` };
  }
  const { timeoutMs, maxOutputChars = SANDBOX_DEFAULTS.maxOutputChars } = options ?? ({} as SandboxRunOptions);
  if (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    return { ok: false, message: `timeoutMs must be a positive number of milliseconds (got ${String(timeoutMs)}).` };
  }
  if (typeof maxOutputChars !== 'number' || !Number.isFinite(maxOutputChars) || maxOutputChars < 1) {
    return { ok: false, message: `maxOutputChars must be a positive number (got ${String(maxOutputChars)}).` };
  }
  return {
    ok: true,
    request: {
      code,
      timeoutMs: Math.min(Math.ceil(timeoutMs), SANDBOX_DEFAULTS.maxTimeoutMs),
      limits: {
        maxOutputChars: Math.min(Math.floor(maxOutputChars), SANDBOX_DEFAULTS.maxOutputCharsCeiling),
        maxLogLines: SANDBOX_DEFAULTS.maxLogLines,
        maxLogChars: SANDBOX_DEFAULTS.maxLogChars,
      },
    },
  };
}

/** Largest arguments object of a function call, as JSON text. */
export const MAX_ARGS_CHARS = 1_000_000;

/** A function skill's call, checked, as the request its language's realm gets. */
export function normalizeFunctionCall(
  call: FunctionCall,
): { ok: true; language: FunctionLanguage; request: RealmRunRequest } | { ok: false; message: string } {
  if (call?.language !== 'javascript' && call?.language !== 'python') {
    return { ok: false, message: `Unknown function language ${JSON.stringify(call?.language)}: use "javascript" or "python".` };
  }
  let argsJson: string | undefined;
  try {
    argsJson = JSON.stringify(call.args ?? {});
  } catch (e) {
    return { ok: false, message: `The arguments are not JSON data: ${errorMessage(e)}` };
  }
  if (typeof argsJson !== 'string' || !argsJson.startsWith('{')) return { ok: false, message: 'The arguments must be a JSON object.' };
  if (argsJson.length > MAX_ARGS_CHARS) return { ok: false, message: `The arguments are ${argsJson.length} characters as JSON; the limit is ${MAX_ARGS_CHARS}.` };
  const checked = normalizeRun(call.code, call);
  if (!checked.ok) return checked;
  return { ok: true, language: call.language, request: { ...checked.request, argsJson } };
}

export function failure(kind: SandboxErrorKind, message: string, logs: string[], durationMs: number): SandboxOutcome {
  return { ok: false, error: { kind, message }, logs, durationMs };
}

const HOST_KINDS: readonly SandboxErrorKind[] = ['syntax', 'runtime', 'timeout', 'aborted', 'output_too_large', 'host'];
const MAX_ERROR_TEXT = 8_000;

/** The realm's answer, checked: anything malformed becomes a 'host' error, never a throw. */
export function toOutcome(raw: unknown, limits: PreludeLimits, elapsedMs: number): SandboxOutcome {
  if (!isRecord(raw)) return failure('host', 'The sandbox sent no usable answer.', [], elapsedMs);
  const durationMs = typeof raw.durationMs === 'number' && Number.isFinite(raw.durationMs) && raw.durationMs >= 0 ? raw.durationMs : elapsedMs;
  if (raw.status === 'failed') {
    const kind = HOST_KINDS.includes(raw.kind as SandboxErrorKind) ? (raw.kind as SandboxErrorKind) : 'host';
    return failure(kind, text(raw.message, 'The sandbox failed.'), cleanLogs(raw.logs, limits), durationMs);
  }
  if (raw.status !== 'done' || typeof raw.report !== 'string') {
    return failure('host', 'The sandbox sent an answer of an unknown shape.', [], durationMs);
  }
  // JSON escaping can make the text longer than the character budget the prelude counted
  // (a control character becomes six): allow for that, refuse anything beyond.
  const hardCap = 8 * (limits.maxOutputChars + limits.maxLogChars) + 65_536;
  if (raw.report.length > hardCap) {
    return failure('output_too_large', `The sandbox answered with ${raw.report.length} characters; the limit is ${hardCap}.`, [], durationMs);
  }
  let report: unknown;
  try {
    report = JSON.parse(raw.report);
  } catch {
    return failure('host', 'The sandbox answered with malformed JSON.', [], durationMs);
  }
  if (!isRecord(report)) return failure('host', 'The sandbox answered with a report of an unknown shape.', [], durationMs);
  const logs = cleanLogs(report.logs, limits);
  if (report.ok === true) {
    return { ok: true, result: report.result ?? null, logs, truncated: report.truncated === true, durationMs };
  }
  const error = isRecord(report.error) ? report.error : {};
  const kind = error.kind === 'syntax' ? 'syntax' : 'runtime';
  const outcome: SandboxOutcome = { ok: false, error: { kind, message: text(error.message, 'The code failed.') }, logs, durationMs };
  if (typeof error.stack === 'string' && error.stack) outcome.error.stack = error.stack.slice(0, MAX_ERROR_TEXT);
  return outcome;
}

/** Log lines as the prelude caps them, capped again here (plus room for its markers). */
export function cleanLogs(raw: unknown, limits: PreludeLimits): string[] {
  if (!Array.isArray(raw)) return [];
  const out: string[] = [];
  let chars = 0;
  for (const line of raw) {
    if (out.length >= limits.maxLogLines + 2) break;
    if (typeof line !== 'string') continue;
    const room = limits.maxLogChars + 200 - chars;
    if (room <= 0) break;
    const kept = line.length > room ? line.slice(0, room) : line;
    out.push(kept);
    chars += kept.length;
  }
  return out;
}

const text = (v: unknown, fallback: string) => (typeof v === 'string' && v ? v.slice(0, MAX_ERROR_TEXT) : fallback);
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Calls `fn` once when the signal aborts (at once if it already has); returns the unsubscribe. */
export function onAbort(signal: AbortSignal | undefined, fn: () => void): () => void {
  if (!signal) return () => {};
  if (signal.aborted) {
    fn();
    return () => {};
  }
  signal.addEventListener('abort', fn, { once: true });
  return () => signal.removeEventListener('abort', fn);
}

export function timeoutMessage(timeoutMs: number): string {
  return `The code ran longer than ${timeoutMs} ms and was stopped.`;
}

/**
 * What an engine's out-of-memory becomes: the engines' own words ("Uncaught null" from
 * QuickJS, a bare "MemoryError" from Python) name neither the limit nor a way around it.
 */
export function outOfMemoryMessage(prefix: string, sandbox: string, limitBytes: number, howTo: string): string {
  const mb = Math.round(limitBytes / (1024 * 1024));
  return (
    `${prefix}: the code reached the memory limit of ${sandbox} (${mb} MB) and could not go on. ` +
    `Keep less in memory at once: work through the data in smaller pieces (${howTo}) and return only what you need.`
  );
}
