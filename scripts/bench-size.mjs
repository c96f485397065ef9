#!/usr/bin/env node
// Build size report: what the popup loads (JS + CSS, gzip), the background script, and the
// whole build, per browser. Builds first when .output is missing (or with --build).
import { execSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outDir = path.join(root, '.output');
const TARGETS = [
  { browser: 'chrome', dir: 'chrome-mv3' },
  { browser: 'firefox', dir: 'firefox-mv2' },
];
/** Budget for the JavaScript the popup loads, gzip. */
const POPUP_JS_BUDGET = 120 * 1024;

const missing = TARGETS.filter((t) => !existsSync(path.join(outDir, t.dir, 'manifest.json')));
if (process.argv.includes('--build') || missing.length) {
  const why = missing.length ? `missing ${missing.map((t) => `.output/${t.dir}`).join(', ')}` : '--build';
  console.log(`Building (${why}): npm run build\n`);
  execSync('npm run build', { cwd: root, stdio: 'inherit' });
}

const gzip = (buf) => gzipSync(buf, { level: 9 }).length;
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;

function walk(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? walk(p) : [p];
  });
}

/** Extension-root-relative ("/chunks/x.js") or document-relative URL → file path. */
function resolveUrl(base, fromFile, url) {
  const clean = url.split(/[?#]/)[0];
  return clean.startsWith('/') ? path.join(base, clean) : path.resolve(path.dirname(fromFile), clean);
}

/** Scripts, module preloads and stylesheets that an HTML page loads. */
function htmlAssets(base, htmlFile) {
  const html = readFileSync(htmlFile, 'utf8');
  const found = [];
  for (const [tag] of html.matchAll(/<(?:script|link)\b[^>]*>/gi)) {
    const attr = (name) => tag.match(new RegExp(`\\b${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, 'i'))?.slice(1).find((v) => v !== undefined);
    if (/^<script/i.test(tag)) {
      const src = attr('src');
      if (src) found.push(resolveUrl(base, htmlFile, src));
    } else {
      const rel = (attr('rel') ?? '').toLowerCase().split(/\s+/);
      const href = attr('href');
      if (href && (rel.includes('stylesheet') || rel.includes('modulepreload'))) found.push(resolveUrl(base, htmlFile, href));
    }
  }
  return found;
}

/**
 * Static imports of an ES module: `import … from "x"`, `import "x"`, `export … from "x"`.
 * Dynamic import("x") is not followed: it is not loaded up front.
 */
function staticImports(file) {
  const code = readFileSync(file, 'utf8');
  const specs = new Set();
  const patterns = [
    /(?:^|[^\w$.])import\s*(?:[\w$*{}\s,]+?\s*from\s*)?["']([^"']+)["']/g,
    /(?:^|[^\w$.])export\s*(?:\*(?:\s*as\s+[\w$]+)?|\{[^}]*\})\s*from\s*["']([^"']+)["']/g,
  ];
  for (const re of patterns) for (const m of code.matchAll(re)) specs.add(m[1]);
  return [...specs].filter((s) => s.startsWith('.') || s.startsWith('/'));
}

/** Every file the page loads before it runs: HTML tags, then static JS imports, recursively. */
function pageClosure(base, htmlFile) {
  const seen = new Set();
  const queue = htmlAssets(base, htmlFile);
  while (queue.length) {
    const file = queue.shift();
    if (seen.has(file)) continue;
    if (!existsSync(file)) {
      console.warn(`warning: ${path.relative(base, htmlFile)} refers to a missing file ${path.relative(base, file)}`);
      continue;
    }
    seen.add(file);
    if (/\.m?js$/.test(file)) for (const spec of staticImports(file)) queue.push(resolveUrl(base, file, spec));
  }
  return [...seen];
}

function backgroundFiles(base) {
  const manifest = JSON.parse(readFileSync(path.join(base, 'manifest.json'), 'utf8'));
  const bg = manifest.background ?? {};
  const entries = [bg.service_worker, ...(bg.scripts ?? [])].filter(Boolean).map((s) => resolveUrl(base, path.join(base, 'manifest.json'), s));
  const seen = new Set();
  const queue = [...entries];
  while (queue.length) {
    const file = queue.shift();
    if (seen.has(file) || !existsSync(file)) continue;
    seen.add(file);
    for (const spec of staticImports(file)) queue.push(resolveUrl(base, file, spec));
  }
  return { manifest, files: [...seen] };
}

const sum = (files, fn) => files.reduce((n, f) => n + fn(readFileSync(f)), 0);

const rows = [];
const details = [];
for (const t of TARGETS) {
  const base = path.join(outDir, t.dir);
  const { manifest, files: bgFiles } = backgroundFiles(base);
  const popupHtml = manifest.action?.default_popup ?? manifest.browser_action?.default_popup ?? 'popup.html';
  const popup = pageClosure(base, path.join(base, popupHtml));
  const popupJs = popup.filter((f) => /\.m?js$/.test(f));
  const popupCss = popup.filter((f) => f.endsWith('.css'));
  const all = walk(base);
  const row = {
    browser: t.dir,
    popupJsGz: sum(popupJs, gzip),
    popupCssGz: sum(popupCss, gzip),
    bgRaw: sum(bgFiles, (b) => b.length),
    bgGz: sum(bgFiles, gzip),
    totalRaw: all.reduce((n, f) => n + statSync(f).size, 0),
    files: all.length,
  };
  rows.push(row);
  details.push({ browser: t.dir, popup: popup.map((f) => `${path.relative(base, f)} (${kb(gzip(readFileSync(f)))} gz)`), background: bgFiles.map((f) => path.relative(base, f)) });
}

const header = ['build', 'popup JS gz', 'popup CSS gz', 'popup JS+CSS gz', 'background raw', 'background gz', 'total build', 'files'];
const table = rows.map((r) => [
  r.browser,
  kb(r.popupJsGz),
  kb(r.popupCssGz),
  kb(r.popupJsGz + r.popupCssGz),
  kb(r.bgRaw),
  kb(r.bgGz),
  kb(r.totalRaw),
  String(r.files),
]);
const widths = header.map((h, i) => Math.max(h.length, ...table.map((row) => row[i].length)));
const line = (cells) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');

console.log('Build size (gzip level 9)\n');
console.log(line(header));
console.log(widths.map((w) => '-'.repeat(w)).join('  '));
for (const row of table) console.log(line(row));
console.log('');
for (const d of details) {
  console.log(`${d.browser} popup loads: ${d.popup.join(', ')}`);
  console.log(`${d.browser} background: ${d.background.join(', ')}`);
}
console.log('');
let over = false;
for (const r of rows) {
  const ok = r.popupJsGz <= POPUP_JS_BUDGET;
  over ||= !ok;
  console.log(`${r.browser}: popup JS ${kb(r.popupJsGz)} gzip — target ≤ ${kb(POPUP_JS_BUDGET)} gzip: ${ok ? 'OK' : 'OVER BUDGET'}`);
}
if (over && process.argv.includes('--strict')) process.exitCode = 1;
