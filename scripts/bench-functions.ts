/**
 * Function skills in the built extension (issue 7's targets): Chromium and Firefox ESR.
 *
 * From an extension page (popup.html in a tab) to the background, into the sandbox and back
 * (lib/sandbox/protocol.ts `sandboxFunction`, the call the agent's tool makes), timed in the
 * page with performance.now():
 *   JS warm      median and p95 of N calls of a run(args) that returns a string (target ≤ 20 ms)
 *   Python cold  the first Python call after the browser starts: loading Pyodide in a new
 *                Worker, then the call (target ≤ 5 s)
 *   Python warm  median and p95 of N calls (target ≤ 50 ms)
 *   after kill   the Python call right after one killed at its limit (a new Worker loads)
 * Needs `npm run build` first. Run: npm run bench:functions -- [--calls N] [--browser chromium|firefox]
 */
import type { Page } from 'puppeteer-core';
import type { FunctionLanguage, SandboxOutcome } from '../lib/sandbox/types';
import { launch, type BrowserName } from '../tests/harness/browsers';

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const CALLS = Number(arg('--calls') ?? 100);
const WARMUP = 5;
const BROWSERS = (['chromium', 'firefox'] as BrowserName[]).filter((b) => !arg('--browser') || b === arg('--browser'));

const JS = 'function run(args) { return "sum " + args.values.reduce((a, b) => a + b, 0); }';
const PY = 'def run(args):\n    return "sum " + str(sum(args["values"]))\n';
const ARGS = { values: [1, 2, 3, 4] };

function timedCalls(page: Page, language: FunctionLanguage, code: string, count: number, timeoutMs = 5000) {
  return page.evaluate(
    async (language, code, args, count, timeoutMs) => {
      const api = (globalThis as any).browser ?? (globalThis as any).chrome;
      const out: { ms: number; outcome: SandboxOutcome }[] = [];
      for (let i = 0; i < count; i++) {
        const data = { runId: `bench-${Math.random()}`, language, code, args, timeoutMs };
        const t = performance.now();
        const reply = await api.runtime.sendMessage({ id: i, type: 'sandboxFunction', data, timestamp: Date.now() });
        out.push({ ms: performance.now() - t, outcome: reply?.res ?? { ok: false, error: { kind: 'host', message: JSON.stringify(reply) } } });
      }
      return out;
    },
    language,
    code,
    ARGS,
    count,
    timeoutMs,
  );
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
const ms = (n: number) => `${n.toFixed(1)} ms`;

function checked(name: string, runs: { ms: number; outcome: SandboxOutcome }[]) {
  const failed = runs.filter((r) => !r.outcome.ok || r.outcome.result !== 'sum 10');
  if (failed.length) throw new Error(`${name}: ${failed.length} calls failed, e.g. ${JSON.stringify(failed[0])}`);
  return runs.map((r) => r.ms).sort((a, b) => a - b);
}

async function bench(name: BrowserName) {
  const ext = await launch(name);
  try {
    const page = await ext.open('popup.html');
    await timedCalls(page, 'javascript', JS, WARMUP);
    const js = checked(`${name} JS`, await timedCalls(page, 'javascript', JS, CALLS));
    const [cold] = checked(`${name} Python cold`, await timedCalls(page, 'python', PY, 1));
    await timedCalls(page, 'python', PY, WARMUP);
    const py = checked(`${name} Python warm`, await timedCalls(page, 'python', PY, CALLS));
    await timedCalls(page, 'python', 'def run(args):\n    while True:\n        pass\n', 1, 200);
    const [afterKill] = checked(`${name} Python after kill`, await timedCalls(page, 'python', PY, 1));
    console.log(
      `[bench] ${name} function skills: JS warm round trip median ${ms(quantile(js, 0.5))}, p95 ${ms(quantile(js, 0.95))} (target ≤ 20 ms); ` +
        `Python cold first call ${ms(cold!)} (target ≤ 5000 ms); Python warm median ${ms(quantile(py, 0.5))}, p95 ${ms(quantile(py, 0.95))} ` +
        `(target ≤ 50 ms; ${CALLS} calls each); Python call right after a killed one ${ms(afterKill!)}`,
    );
  } finally {
    await ext.close();
  }
}

for (const browser of BROWSERS) await bench(browser);
