/**
 * npm run test:mcp: every client scenario of the official MCP conformance suite against
 * Pagewright's MCP client (scripts/mcp-conformance-client.ts, bundled once here with esbuild so
 * each scenario starts a plain node process, not a TypeScript loader). Scenarios run a few at a
 * time (the suite's own --suite runs all at once, too many processes for a small machine);
 * results go to a temp dir, never the repo. Prints `conformance: N/M scenarios passed` and exits
 * non-zero when a scenario fails that is not listed in NOT_APPLICABLE (docs/development.md, "MCP conformance",
 * says why each listed one does not apply to a browser extension), or a listed one passes.
 * Run: npm run test:mcp [-- --verbose] [-- scenario-name ...]
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';

/** Client scenarios that do not apply to a browser extension; docs/development.md says why. */
const NOT_APPLICABLE = new Map([
  ['auth/basic-cimd', 'a URL client id needs a client metadata document hosted at an https address Pagewright owns; it has none, so it registers dynamically (the scenario\'s checks all pass; its one warning fails it)'],
  ['auth/client-credentials-jwt', 'client_credentials with a signed JWT is machine-to-machine: no user, a private key held by the client'],
  ['auth/client-credentials-basic', 'client_credentials with a client secret is machine-to-machine: an extension cannot keep a secret'],
  ['auth/cross-app-access-complete-flow', 'cross-app access trades an enterprise identity provider\'s ID token for a token (token exchange + JWT bearer grant): an enterprise IdP flow, not a user\'s sign-in'],
]);

const CLI = 'node_modules/@modelcontextprotocol/conformance/dist/index.js';
const PARALLEL = Number(process.env.CONFORMANCE_PARALLEL) || 4;

const args = process.argv.slice(2);
const verbose = args.includes('--verbose');
const only = args.filter((a) => !a.startsWith('--'));

function run(cmd, argv, opts = {}) {
  return new Promise((resolve) => {
    const child = spawn(cmd, argv, { ...opts, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('close', (code) => resolve({ code, out }));
  });
}

async function scenarios() {
  const { out } = await run(process.execPath, [CLI, 'list', '--client']);
  return [...out.matchAll(/^\s+- (\S+)/gm)].map((m) => m[1]);
}

const started = performance.now();
const dir = await mkdtemp(join(tmpdir(), 'pagewright-conformance-'));
try {
  const driver = join(dir, 'driver.mjs');
  await build({
    entryPoints: ['scripts/mcp-conformance-client.ts'],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    outfile: driver,
    logLevel: 'error',
    // Bundled CommonJS dependencies call require: give the ESM bundle one.
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  });
  const all = (await scenarios()).filter((s) => !only.length || only.includes(s));
  const results = new Map();
  let next = 0;
  async function worker() {
    while (next < all.length) {
      const scenario = all[next++];
      const out = join(dir, 'results', scenario.replace(/\W/g, '_'));
      const t0 = performance.now();
      const r = await run(process.execPath, [CLI, 'client', '--command', `${process.execPath} ${driver}`, '--scenario', scenario, '--timeout', '30000', '-o', out]);
      const failed = await failures(out);
      const passed = r.code === 0 && failed.length === 0;
      results.set(scenario, { passed, failed, ms: performance.now() - t0, out: r.out });
      if (verbose || (!passed && !NOT_APPLICABLE.has(scenario))) console.log(`--- ${scenario} (exit ${r.code})\n${r.out.trim()}\n`);
    }
  }
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  let passed = 0;
  let unexpected = 0;
  for (const scenario of all) {
    const r = results.get(scenario);
    const na = NOT_APPLICABLE.get(scenario);
    const mark = r.passed ? 'pass' : na ? 'n/a ' : 'FAIL';
    if (r.passed) passed++;
    if (r.passed === !!na) unexpected++;
    const why = !r.passed ? (na ? ` — not applicable: ${na}` : ` — ${r.failed.join('; ') || 'the client exited with an error'}`) : na ? ' — listed as not applicable but passes: update the list' : '';
    console.log(`${mark} ${scenario} (${(r.ms / 1000).toFixed(1)} s)${why}`);
  }
  console.log(`conformance: ${passed}/${all.length} scenarios passed (${NOT_APPLICABLE.size} not applicable, ${((performance.now() - started) / 1000).toFixed(1)} s, ${PARALLEL} at a time)`);
  process.exitCode = unexpected ? 1 : 0;
} finally {
  await rm(dir, { recursive: true, force: true });
}

/** The checks a scenario failed (checks.json under its output dir). */
async function failures(out) {
  const found = [];
  async function walk(d) {
    let entries;
    try {
      entries = await readdir(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else if (e.name === 'checks.json') {
        const checks = JSON.parse(await readFile(p, 'utf8'));
        for (const c of checks) if (c.status === 'FAILURE') found.push(`${c.name}: ${c.errorMessage ?? c.description}`);
      }
    }
  }
  await walk(out);
  return found;
}
