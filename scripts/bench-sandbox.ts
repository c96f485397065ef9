/**
 * Sandbox round trip in the built extension: Chromium with each engine (v8, quickjs) and
 * Firefox ESR (quickjs).
 *
 * From an extension page (popup.html in a tab) to the background, into the sandbox and back
 * (lib/sandbox/protocol.ts `sandboxRun`), timed in the page with performance.now():
 *   cold   the first call after the browser starts (Chrome: creating the offscreen document,
 *          the sandbox frame and a Worker; Firefox: a Worker and compiling QuickJS)
 *   warm   median and p95 of 200 sequential calls of `return 1+1`, after 10 unmeasured ones
 *   inside the host's own durationMs for the same calls (code start to result)
 *   after kill  the call right after a run killed at its timeout (a Worker is replaced)
 * Needs `npm run build` first. Run: npx vite-node scripts/bench-sandbox.ts [--calls N] [--browser chromium|firefox]
 */
import type { Page } from 'puppeteer-core';
import type { SandboxEngine } from '../lib/sandbox';
import type { SandboxOutcome } from '../lib/sandbox/types';
import { launch, type BrowserName } from '../tests/harness/browsers';

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const CALLS = Number(arg('--calls') ?? 200);
const WARMUP = 10;
const CONFIGS: { browser: BrowserName; engine: SandboxEngine }[] = [
  { browser: 'chromium', engine: 'v8' },
  { browser: 'chromium', engine: 'quickjs' },
  { browser: 'firefox', engine: 'quickjs' },
].filter((c) => !arg('--browser') || c.browser === arg('--browser')) as { browser: BrowserName; engine: SandboxEngine }[];

/** Timed calls, all in the page so the figures exclude the puppeteer round trip. */
function timedRuns(page: Page, engine: SandboxEngine, code: string, count: number, timeoutMs = 5000) {
  return page.evaluate(
    async (engine, code, count, timeoutMs) => {
      const api = (globalThis as any).browser ?? (globalThis as any).chrome;
      const out: { ms: number; outcome: SandboxOutcome }[] = [];
      for (let i = 0; i < count; i++) {
        const data = { runId: `bench-${Math.random()}`, code, timeoutMs, engine };
        const t = performance.now();
        const reply = await api.runtime.sendMessage({ id: i, type: 'sandboxRun', data, timestamp: Date.now() });
        out.push({ ms: performance.now() - t, outcome: reply?.res ?? { ok: false, error: { kind: 'host', message: JSON.stringify(reply) } } });
      }
      return out;
    },
    engine,
    code,
    count,
    timeoutMs,
  );
}

const CPU_CODE =
  'const N = 2_000_000; const sieve = new Uint8Array(N); let c = 0;' +
  'for (let i = 2; i < N; i++) { if (!sieve[i]) { c++; for (let j = i * 2; j < N; j += i) sieve[j] = 1; } }' +
  'const o = []; for (let i = 0; i < 100000; i++) o.push({ i, s: "x" + i }); return [c, JSON.stringify(o).length];';
const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
const ms = (n: number) => `${n.toFixed(1)} ms`;

async function bench(name: BrowserName, engine: SandboxEngine) {
  const ext = await launch(name);
  try {
    const page = await ext.open('popup.html');
    const [cold] = await timedRuns(page, engine, 'return 1+1', 1);
    if (!cold!.outcome.ok) throw new Error(`${name}: the sandbox failed: ${JSON.stringify(cold!.outcome)}`);
    await timedRuns(page, engine, 'return 1+1', WARMUP);
    const warm = await timedRuns(page, engine, 'return 1+1', CALLS);
    const failed = warm.filter((r) => !r.outcome.ok || r.outcome.result !== 2);
    if (failed.length) throw new Error(`${name}: ${failed.length} calls failed, e.g. ${JSON.stringify(failed[0])}`);
    const trip = warm.map((r) => r.ms).sort((a, b) => a - b);
    const inside = warm.map((r) => r.outcome.durationMs).sort((a, b) => a - b);
    await timedRuns(page, engine, 'while (true) {}', 1, 200);
    const [afterKill] = await timedRuns(page, engine, 'return 1+1', 1);
    const [cpu] = await timedRuns(page, engine, CPU_CODE, 1, 60_000);
    console.log(
      `[bench] ${name} sandbox (${engine}): cold first call ${ms(cold!.ms)}; warm round trip median ${ms(quantile(trip, 0.5))}, ` +
        `p95 ${ms(quantile(trip, 0.95))} (${CALLS} calls of \`return 1+1\`; in-sandbox median ${ms(quantile(inside, 0.5))}, ` +
        `p95 ${ms(quantile(inside, 0.95))}); first call after a killed run ${ms(afterKill!.ms)}; ` +
        `CPU-bound sample (sieve of 2M + 100k objects to JSON) ${ms(cpu!.outcome.durationMs)}`,
    );
  } finally {
    await ext.close();
  }
}

for (const { browser, engine } of CONFIGS) await bench(browser, engine);
