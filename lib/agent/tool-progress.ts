/**
 * A tool's progress as the user sees it in its card (an MCP server's progress notifications, a
 * task's status messages): checked, shortened and throttled here, where the agent loop hands each
 * call its reporter, so no tool and no server can flood the UI port with updates.
 */
import type { ToolProgress } from '../contracts/run-events';

/** At most one update per this many milliseconds reaches the port; the latest one always does. */
export const PROGRESS_INTERVAL_MS = 250;
/** The longest progress message shown (a server's words, one line). */
export const PROGRESS_MESSAGE_MAX = 200;

export interface ProgressReporter {
  report(update: ToolProgress): void;
  /** The call ended: a pending update is dropped (the card now shows the result). */
  close(): void;
}

/** `update` as the card may show it, or undefined when it holds nothing showable. */
export function cleanProgress(update: ToolProgress): ToolProgress | undefined {
  const num = (n: unknown) => (typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : undefined);
  const progress = num(update.progress);
  const total = progress !== undefined ? num(update.total) : undefined;
  const raw = typeof update.message === 'string' ? update.message.replace(/\s+/g, ' ').trim() : '';
  const message = raw.length > PROGRESS_MESSAGE_MAX ? `${raw.slice(0, PROGRESS_MESSAGE_MAX - 1)}…` : raw;
  if (progress === undefined && !message) return undefined;
  return { ...(progress !== undefined ? { progress } : {}), ...(total !== undefined && total > 0 ? { total } : {}), ...(message ? { message } : {}) };
}

/** Reports through `emit` at most once per `intervalMs`: the first at once, the latest of a burst after. */
export function throttledProgress(emit: (update: ToolProgress) => void, intervalMs = PROGRESS_INTERVAL_MS): ProgressReporter {
  let last = -Infinity;
  let pending: ToolProgress | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let closed = false;
  const flush = () => {
    timer = undefined;
    if (closed || !pending) return;
    last = Date.now();
    const update = pending;
    pending = undefined;
    emit(update);
  };
  return {
    report(update) {
      const clean = closed ? undefined : cleanProgress(update);
      if (!clean) return;
      // A message-less update keeps the last message shown (a task's status, then numbers).
      pending = clean.message === undefined && pending?.message ? { ...clean, message: pending.message } : clean;
      const wait = last + intervalMs - Date.now();
      if (wait <= 0) flush();
      else timer ??= setTimeout(flush, wait);
    },
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      pending = undefined;
    },
  };
}
