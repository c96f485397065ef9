/**
 * Extraction quality and speed on Mozilla Readability's test pages (tests/fixtures/readability).
 *
 * For every folder: extractPage(source.html) against expected.html (Readability's own output, a good
 * but not perfect reference).
 *   text P / R / F1   bag-of-words overlap of the extracted text (annotations stripped with
 *                     stripAnnotations, Markdown syntax and URLs removed) with expected.html's text;
 *                     tokens: lowercase runs of Unicode letters/digits, each CJK character alone.
 *   token ratio       mean tokens per page of the Markdown AS SENT (URLs, selectors, controls and
 *                     all) over the expected text's mean tokens per page, same tokeniser; the mean
 *                     and median of per-page ratios and the chars ratio alongside, and where the
 *                     tokens beyond the text go (link/image URLs, selectors, the controls section).
 *   ms / page         extractPage only (parsing the HTML is not counted), median and p95.
 * Plus one generated ~5 MB page (Wikipedia's article repeated in its page).
 *
 * Each page is read as if at its own address (its canonical URL, passed as `url`), so that its
 * links read as on the live site: same-origin links shown from their path.
 *
 *   npx vite-node scripts/bench-extract.ts [--browser [--repeat N] [--source]] [--only NAME] [--verbose]
 *
 * --browser: the same pages in headless Chromium (puppeteer-core, /usr/bin/chromium), served from
 * 127.0.0.1 with every other request blocked; the built .output/chrome-mv3/page-reader.js is
 * injected and window.__pagewrightReadPage({}) timed inside the page (cold: first call after
 * injection, as the tool does it), then a second (warm) call. --repeat N loads each page N times and
 * keeps the fastest, for a machine shared with other work. The 5 MB page is timed once.
 * --source: inject lib/extract as it is now instead (bundled in memory by Vite, the toolchain of
 * `wxt build`, minified the same way), to measure a change without rebuilding the extension; without
 * it, a built reader older than its sources is reported.
 */
import { READABILITY_DIR } from '../tests/harness/fixtures';
import { launchBenchBrowser, offlinePage } from './offline-browser';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { execSync } from 'node:child_process';
import { JSDOM, VirtualConsole } from 'jsdom';
import { build } from 'vite';
import { ANNOTATION_RE, extractPage, stripAnnotations, type ExtractResult } from '../lib/extract';
import { CONTROLS_HEADER } from '../lib/extract/controls';

const FIXTURES = READABILITY_DIR;
const READER = path.resolve('.output/chrome-mv3/page-reader.js');
const READER_ENTRY = path.resolve('entrypoints/page-reader.ts');
const EXTRACT_DIR = path.resolve('lib/extract');
const BIG_BYTES = 5 * 1024 * 1024;
const args = process.argv.slice(2);
const flag = (name: string) => args.includes(name);
const arg = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const REPEAT = Math.max(1, Number(arg('--repeat') ?? 1));

// ---------- text measures ----------

const CJK = /([\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}])/gu;
export function tokens(text: string): string[] {
  return text.toLowerCase().replace(CJK, ' $1 ').match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** Markdown → the text a reader sees: no annotations, no URLs, no syntax. */
export function markdownText(md: string): string {
  return stripAnnotations(md)
    .replace(/!\[([^\]]*)\]\((?:[^()\s]|\([^()]*\))*\)/g, ' ') // images: alt is not page text
    .replace(/\]\((?:<[^>]*>|(?:[^()\s]|\([^()]*\))*)\)/g, ']') // link destinations
    .replace(/^```.*$/gm, ' ');
}

function counts(list: string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const t of list) m.set(t, (m.get(t) ?? 0) + 1);
  return m;
}

export function prf(got: string[], want: string[]): { p: number; r: number; f1: number } {
  const a = counts(got);
  const b = counts(want);
  let common = 0;
  for (const [t, n] of a) common += Math.min(n, b.get(t) ?? 0);
  const p = got.length ? common / got.length : 0;
  const r = want.length ? common / want.length : 0;
  return { p, r, f1: p + r ? (2 * p * r) / (p + r) : 0 };
}

const quiet = new VirtualConsole();
function expectedText(html: string): string {
  const dom = new JSDOM(html, { virtualConsole: quiet });
  const text = dom.window.document.body?.textContent ?? '';
  dom.window.close();
  return text;
}

function withoutControls(md: string): string {
  const i = md.indexOf(CONTROLS_HEADER);
  return i >= 0 ? md.slice(0, i) : md;
}

const pct = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN;
};
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / (xs.length || 1);
const f3 = (x: number) => x.toFixed(3);

// ---------- pages ----------

interface Page {
  name: string;
  source: string;
  expected: string;
  /** Where the page was saved from (canonical / og:url), else a stand-in. */
  url: string;
}

/**
 * The page's own address, so that its links read as they would on the live site (same-origin links
 * shown from their path). Readability's copies keep it in <link rel=canonical> or og:url.
 */
function pageUrl(name: string, html: string): string {
  const found =
    /<link\b[^>]*\brel=["']?canonical["']?[^>]*\bhref=["']([^"']+)["']/i.exec(html)?.[1] ??
    /<link\b[^>]*\bhref=["']([^"']+)["'][^>]*\brel=["']?canonical\b/i.exec(html)?.[1] ??
    /<meta\b[^>]*\bproperty=["']og:url["'][^>]*\bcontent=["']([^"']+)["']/i.exec(html)?.[1] ??
    /<meta\b[^>]*\bcontent=["']([^"']+)["'][^>]*\bproperty=["']og:url["']/i.exec(html)?.[1];
  try {
    if (found && /^https?:/i.test(found)) return new URL(found.replace(/&amp;/g, '&')).href;
  } catch {
    // fall through
  }
  return `http://fakehost/test/${name}/page.html`;
}

function pages(): Page[] {
  const only = arg('--only');
  return readdirSync(FIXTURES)
    .filter((d) => statSync(path.join(FIXTURES, d)).isDirectory() && existsSync(path.join(FIXTURES, d, 'source.html')))
    .filter((d) => !only || d === only)
    .sort()
    .map((name) => {
      const source = readFileSync(path.join(FIXTURES, name, 'source.html'), 'utf8');
      return { name, source, url: pageUrl(name, source), expected: readFileSync(path.join(FIXTURES, name, 'expected.html'), 'utf8') };
    });
}

/**
 * One long article of ~`bytes`: Wikipedia's article body (its expected.html) repeated inside the
 * real page's layout, like an endless thread or a long documentation page.
 */
function bigPage(bytes: number): string {
  const src = readFileSync(path.join(FIXTURES, 'wikipedia', 'source.html'), 'utf8');
  const article = readFileSync(path.join(FIXTURES, 'wikipedia', 'expected.html'), 'utf8');
  const open = src.search(/<div[^>]*id="mw-content-text"[^>]*>/i);
  const head = src.slice(0, open);
  const tail = src.slice(open);
  const parts = [head, '<div id="mw-content-text">'];
  let size = head.length + tail.length;
  for (let i = 0; size < bytes; i++) {
    const copy = article.replace(/<h2/g, `<h2 data-copy="${i}"`);
    parts.push(copy);
    size += copy.length;
  }
  parts.push('</div>', tail.replace(/^<div[^>]*id="mw-content-text"[^>]*>/i, '<div>'));
  return parts.join('');
}

/** Where the tokens beyond the text go: link and image URLs, selectors, the controls section. */
function overhead(md: string): { links: number; images: number; selectors: number; controls: number } {
  const i = md.indexOf(CONTROLS_HEADER);
  const main = i >= 0 ? md.slice(0, i) : md;
  const images = [...main.matchAll(/!\[[^\]]*\]\(((?:[^()\s]|\([^()]*\))*)\)/g)].map((m) => m[1]).join(' ');
  const links = [...main.replace(/!\[[^\]]*\]\((?:[^()\s]|\([^()]*\))*\)/g, '').matchAll(/\]\(((?:<[^>]*>|(?:[^()\s]|\([^()]*\))*))\)/g)].map((m) => m[1]).join(' ');
  const selectors = (main.match(ANNOTATION_RE) ?? []).join(' ');
  return { links: tokens(links).length, images: tokens(images).length, selectors: tokens(selectors).length, controls: i >= 0 ? tokens(md.slice(i)).length : 0 };
}

interface Score {
  name: string;
  over: ReturnType<typeof overhead>;
  sent: number;
  want: number;
  p: number;
  r: number;
  f1: number;
  f1NoControls: number;
  ratio: number;
  charRatio: number;
  ms: number;
}

function score(name: string, result: Pick<ExtractResult, 'content'>, expected: string, ms: number): Score {
  const want = tokens(expected);
  const got = tokens(markdownText(result.content));
  const { p, r, f1 } = prf(got, want);
  const sent = tokens(result.content).length;
  return {
    name, p, r, f1, sent, want: want.length, over: overhead(result.content),
    f1NoControls: prf(tokens(markdownText(withoutControls(result.content))), want).f1,
    ratio: sent / (want.length || 1),
    charRatio: result.content.length / (expected.replace(/\s+/g, ' ').length || 1),
    ms,
  };
}

function report(label: string, scores: Score[]): void {
  if (flag('--verbose')) {
    for (const s of [...scores].sort((a, b) => a.f1 - b.f1)) {
      console.log(`${s.name.padEnd(48)} P ${f3(s.p)} R ${f3(s.r)} F1 ${f3(s.f1)} ratio ${s.ratio.toFixed(2)} ${s.ms.toFixed(1)} ms`);
    }
  }
  const ms = scores.map((s) => s.ms);
  console.log(`\n${label}: ${scores.length} pages`);
  console.log(`  text F1 ${f3(mean(scores.map((s) => s.f1)))} (P ${f3(mean(scores.map((s) => s.p)))}, R ${f3(mean(scores.map((s) => s.r)))}); without the controls section: F1 ${f3(mean(scores.map((s) => s.f1NoControls)))}`);
  console.log(`  median F1 ${f3(pct(scores.map((s) => s.f1), 0.5))}; pages under 0.8: ${scores.filter((s) => s.f1 < 0.8).length}`);
  const sent = mean(scores.map((s) => s.sent));
  const want = mean(scores.map((s) => s.want));
  console.log(`  tokens per page: sent ${sent.toFixed(0)} vs expected ${want.toFixed(0)} → ratio ${(sent / want).toFixed(3)}; per-page ratios: mean ${mean(scores.map((s) => s.ratio)).toFixed(3)}, median ${pct(scores.map((s) => s.ratio), 0.5).toFixed(3)}; chars ratio mean ${mean(scores.map((s) => s.charRatio)).toFixed(3)}`);
  const share = (k: keyof Score['over']) => `${((100 * scores.reduce((n, s) => n + s.over[k], 0)) / scores.reduce((n, s) => n + s.sent, 0)).toFixed(1)}%`;
  console.log(`  of the tokens sent: link URLs ${share('links')}, image URLs ${share('images')}, selectors ${share('selectors')}, controls section ${share('controls')}`);
  console.log(`  ms/page: median ${pct(ms, 0.5).toFixed(1)}, p95 ${pct(ms, 0.95).toFixed(1)}, max ${Math.max(...ms).toFixed(1)}`);
}

// ---------- Node (jsdom) ----------

function runNode(list: Page[]): void {
  // The big page first: after 130 jsdom windows the heap is crowded and it ran 10× slower.
  const big = bigPage(BIG_BYTES);
  const bigDom = new JSDOM(big, { url: 'https://en.wikipedia.org/wiki/Big', virtualConsole: quiet });
  const t0 = performance.now();
  const bigResult = extractPage(bigDom.window.document);
  const bigMs = performance.now() - t0;
  bigDom.window.close();

  const scores: Score[] = [];
  for (const page of list) {
    const dom = new JSDOM(page.source, { url: page.url, virtualConsole: quiet });
    let result: Pick<ExtractResult, 'content'>;
    const t0 = performance.now();
    try {
      result = extractPage(dom.window.document);
    } catch (e) {
      result = { content: '' };
      console.log(`${page.name}: ${(e as Error).message}`);
    }
    const ms = performance.now() - t0;
    dom.window.close();
    scores.push(score(page.name, result, expectedText(page.expected), ms));
  }
  report('Node + jsdom', scores);
  console.log(`  ${(big.length / 1024 / 1024).toFixed(1)} MB page: ${bigMs.toFixed(0)} ms, ${bigResult.content.length} chars out (jsdom's selector engine is the cost)`);
}

// ---------- Chromium ----------

/** page-reader.js as `wxt build` makes it (an IIFE that installs window.__pagewrightReadPage), from the current sources. */
async function bundleReader(): Promise<string> {
  const entry = 'virtual:pagewright-reader';
  const out = await build({
    configFile: false,
    logLevel: 'silent',
    plugins: [{
      name: 'pagewright-reader-entry',
      resolveId: (id) => (id === entry ? `\0${entry}` : null),
      load: (id) => (id === `\0${entry}` ? `import script from ${JSON.stringify(READER_ENTRY)}; script.main();` : null),
    }],
    build: { write: false, minify: true, rollupOptions: { input: entry, output: { format: 'iife' } } },
  });
  const [result] = Array.isArray(out) ? out : [out];
  if (!result || !('output' in result)) throw new Error('no bundle for page-reader');
  return result.output[0].code;
}

async function loadReader(): Promise<string> {
  if (flag('--source')) return bundleReader();
  if (!existsSync(READER)) {
    console.log('building the extension (npx wxt build) for page-reader.js…');
    execSync('npx wxt build', { stdio: 'inherit' });
  }
  const built = statSync(READER).mtimeMs;
  const sources = [READER_ENTRY, ...readdirSync(EXTRACT_DIR).map((f) => path.join(EXTRACT_DIR, f))];
  const newer = sources.filter((f) => statSync(f).mtimeMs > built);
  if (newer.length) console.log(`note: ${path.relative('.', READER)} is older than ${newer.map((f) => path.relative('.', f)).join(', ')} (rebuild, or pass --source)`);
  return readFileSync(READER, 'utf8');
}

async function runBrowser(list: Page[]): Promise<void> {
  const reader = await loadReader();
  const byName = new Map(list.map((p) => [p.name, p]));
  const big = bigPage(BIG_BYTES);
  const server = http.createServer((req, res) => {
    const [, name] = /^\/([^/]+)\/page\.html$/.exec(req.url ?? '') ?? [];
    const html = name === '__big' ? big : name ? byName.get(name)?.source : undefined;
    if (html === undefined) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const browser = await launchBenchBrowser();
  try {
    const page = await offlinePage(browser, origin);

    // `pageUrl`: where the copy came from; links resolve against it as on the live site.
    const read = async (url: string, pageUrl: string) => {
      try {
        await page.goto(url, { waitUntil: 'load', timeout: 10_000 });
      } catch {
        // A page whose blocked scripts keep it loading forever: read what is there.
      }
      // Twice, as the tool may: installing again must be harmless.
      await page.evaluate(reader);
      await page.evaluate(reader);
      return page.evaluate((u: string) => {
        const w = window as unknown as { __pagewrightReadPage: (o: object, t?: Record<string, number>) => unknown };
        const stages: Record<string, number> = {};
        const t0 = performance.now();
        const r = w.__pagewrightReadPage({ url: u }, stages);
        const ms = performance.now() - t0;
        const t1 = performance.now();
        w.__pagewrightReadPage({ url: u });
        return { r, ms, warmMs: performance.now() - t1, stages };
      }, pageUrl) as Promise<{ r: ExtractResult | { error: { code: string; message: string } }; ms: number; warmMs: number; stages: Record<string, number> }>;
    };

    const scores: Score[] = [];
    const warm: number[] = [];
    const stageTimes: Record<string, number[]> = {};
    for (const p of list) {
      try {
        // The machine may be busy: with --repeat N, the fastest of N fresh loads (each call cold).
        let best: Awaited<ReturnType<typeof read>> | undefined;
        for (let i = 0; i < REPEAT; i++) {
          const run = await read(`${origin}/${p.name}/page.html`, p.url);
          if (!best || run.ms < best.ms) best = { ...run, warmMs: Math.min(run.warmMs, best?.warmMs ?? Infinity) };
        }
        const { r, ms, warmMs } = best!;
        if ('error' in r) console.log(`${p.name}: ${r.error.code} ${r.error.message}`);
        scores.push(score(p.name, 'error' in r ? { content: '' } : r, expectedText(p.expected), ms));
        warm.push(warmMs);
        for (const [stage, t] of Object.entries(best!.stages)) (stageTimes[stage] ??= []).push(t);
      } catch (e) {
        console.log(`${p.name}: ${(e as Error).message.split('\n')[0]}`);
      }
    }
    report(`Chromium (in the page, first call${REPEAT > 1 ? `, fastest of ${REPEAT} loads` : ''})`, scores);
    console.log(`  warm second call: median ${pct(warm, 0.5).toFixed(1)} ms, p95 ${pct(warm, 0.95).toFixed(1)} ms`);
    console.log(`  first call by stage (median ms): ${Object.entries(stageTimes).map(([s, t]) => `${s} ${pct(t, 0.5).toFixed(1)}`).join(', ')}`);

    const { r, ms } = await read(`${origin}/__big/page.html`, 'https://en.wikipedia.org/wiki/Big');
    console.log(`  ${(big.length / 1024 / 1024).toFixed(1)} MB page: ${ms.toFixed(0)} ms, ${'error' in r ? r.error.code : `${r.content.length} chars out`}`);
  } finally {
    await browser.close();
    server.close();
  }
}

const list = pages();
if (flag('--browser')) await runBrowser(list);
else runNode(list);
