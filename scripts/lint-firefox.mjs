#!/usr/bin/env node
/**
 * Mozilla's addons-linter (the checks AMO runs on every upload) over the Firefox build.
 * Its own report lists every warning with its full description, which buries an error among
 * the dozens of known warnings from bundled libraries (docs/development.md: "Store readiness"). This prints
 * each error in full, the warnings one line per code, and exits 1 on any error.
 *
 *   node scripts/lint-firefox.mjs [dir]     (default .output/firefox-mv2; build it first)
 *   VERBOSE=1 ...                           every warning with its file and line
 */
import fs from 'node:fs';
import path from 'node:path';
import linter from 'addons-linter';

const dir = path.resolve(process.argv[2] ?? '.output/firefox-mv2');
const shown = path.relative(process.cwd(), dir).startsWith('..') ? dir : path.relative(process.cwd(), dir) || '.';
if (!fs.existsSync(path.join(dir, 'manifest.json'))) {
  console.error(`lint:firefox: no manifest.json in ${shown}; run \`npm run build:firefox\` first.`);
  process.exit(1);
}

const instance = linter.createInstance({
  config: { _: [dir], logLevel: 'fatal', output: 'none', boring: true },
  // Otherwise the linter calls process.exit itself, before the summary below.
  runAsBinary: false,
});

let report;
try {
  report = await instance.run();
} catch (e) {
  console.error('lint:firefox: addons-linter failed:', e);
  process.exit(1);
}

const where = (m) => [m.file, m.line, m.column].filter((x) => x !== undefined && x !== null && x !== '').join(':') || 'the package';
const oneLine = (s) => String(s ?? '').replace(/\s+/g, ' ').trim();

const version = JSON.parse(fs.readFileSync(new URL(import.meta.resolve('addons-linter/package.json')), 'utf8')).version;
console.log(`addons-linter ${version} on ${shown}`);

for (const m of report.errors) {
  console.log(`\nERROR ${m.code} at ${where(m)}\n  ${oneLine(m.message)}\n  ${oneLine(m.description)}`);
}

// Grouped by code, then by message: one code (UNSAFE_VAR_ASSIGNMENT) covers both innerHTML and
// import(), which have different reasons to stay.
for (const kind of ['warnings', 'notices']) {
  const byCode = new Map();
  for (const m of report[kind]) {
    const messages = byCode.get(m.code) ?? new Map();
    const places = messages.get(oneLine(m.message)) ?? [];
    places.push(where(m));
    messages.set(oneLine(m.message), places);
    byCode.set(m.code, messages);
  }
  if (!byCode.size) continue;
  console.log(`\n${kind} by code:`);
  const count = (messages) => [...messages.values()].reduce((n, places) => n + places.length, 0);
  for (const [code, messages] of [...byCode].sort((a, b) => count(b[1]) - count(a[1]))) {
    console.log(`  ${String(count(messages)).padStart(3)}  ${code}`);
    for (const [message, places] of [...messages].sort((a, b) => b[1].length - a[1].length)) {
      const files = [...new Set(places.map((p) => p.split(':')[0]))];
      console.log(`       ${String(places.length).padStart(3)}  ${message}  (${files.join(', ')})`);
      if (process.env.VERBOSE) for (const p of places) console.log(`              ${p}`);
    }
  }
}

const { errors, warnings, notices } = report.summary;
console.log(`\nlint:firefox: ${errors} errors, ${warnings} warnings, ${notices} notices${warnings ? ' (docs/development.md, "Store readiness", says which are expected)' : ''}`);
process.exit(errors > 0 ? 1 : 0);
