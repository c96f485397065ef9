/**
 * Waits for a condition the test can only ask about (a tab's status, a file on disk, a process's
 * output) rather than a fixed time: resolves with the condition's first truthy value, rejects
 * with `what` and the last value seen once `timeout` ms pass. An error thrown by the condition
 * rejects at once: a broken probe must not read as "not yet".
 */
export async function until<T>(
  condition: () => T | Promise<T>,
  { timeout = 10_000, interval = 100, what = 'the condition' }: { timeout?: number; interval?: number; what?: string } = {},
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeout;
  for (;;) {
    const value = await condition();
    if (value) return value as NonNullable<T>;
    if (Date.now() >= deadline) throw new Error(`Timed out after ${timeout} ms waiting for ${what} (last seen: ${JSON.stringify(value)})`);
    await new Promise((r) => setTimeout(r, interval));
  }
}
