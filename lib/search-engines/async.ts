/** Small async helpers: bounded parallelism, linked abort signals, time limits. */

/** `fn` over `items` with at most `limit` calls in flight; results in input order. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return out;
}

export interface LinkedAbort {
  signal: AbortSignal;
  /** Why it aborted: the parent's abort, or the time limit. */
  reason(): 'parent' | 'timeout' | null;
  /** Clears the timer and the listener on the parent. */
  dispose(): void;
}

/**
 * A signal that aborts when `parent` does or after `timeoutMs`. Written out rather than with
 * AbortSignal.any/timeout, which older Firefox ESR background pages lack.
 */
export function linkedAbort(parent: AbortSignal | undefined, timeoutMs: number): LinkedAbort {
  const controller = new AbortController();
  let why: 'parent' | 'timeout' | null = null;
  const onParent = (): void => {
    why ??= 'parent';
    controller.abort();
  };
  const timer = setTimeout(() => {
    why ??= 'timeout';
    controller.abort();
  }, timeoutMs);
  if (parent?.aborted) onParent();
  else parent?.addEventListener('abort', onParent, { once: true });
  return {
    signal: controller.signal,
    reason: () => why,
    dispose: () => {
      clearTimeout(timer);
      parent?.removeEventListener('abort', onParent);
    },
  };
}

/**
 * Settles with `promise`, or rejects when `signal` aborts — for fetchers that ignore their
 * signal, so a time limit holds whatever the fetcher does.
 */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new Error('aborted'));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(new Error('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
