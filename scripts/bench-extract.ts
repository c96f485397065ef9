/**
 * Extraction quality and speed, on two sets, scored as the reviewers of issue 16 score.
 *
 * 1. Mozilla Readability's test pages (tests/fixtures/readability): extractPage(source.html) against
 *    expected.html's text (Readability's own output, a good but not perfect reference), with the
 *    held-out set's metric (scripts/extract-metrics.ts): Unicode word runs, 4-token shingles, per-page
 *    tp/fp/fn, precision and recall averaged over pages, F1 of the two means; Markdown syntax, images
 *    and link URLs removed first, the `{…}` annotations kept ("as sent"). Also: the same with the
 *    annotations removed, without the controls section; tokens (lib/agent/token-estimate.ts's
 *    estimate) sent vs the ground truth's, the annotations' share and tokens each, where the tokens
 *    beyond the text go; ms per page (extractPage only, not the parse), median and p95.
 *    Plus one generated ~5 MB page (Wikipedia's article repeated in its page).
 * 2. trafilatura's evaluation corpus (990 pages; TRAFILATURA_EVAL, or beside the repository: see
 *    TRAFILATURA_DIR; the bench says how to get it when absent), Node only, with the corpus's own
 *    metric (segments as substrings, micro-summed): this pipeline (annotations removed, Markdown →
 *    text), Defuddle → Markdown → text and @mozilla/readability's textContent if installed, each on
 *    the same jsdom document decoded as a browser would; beside the published figures; the worst
 *    10 pages.
 * Then issue 16's targets, OK or MISS.
 *
 * Each page is read as if at its own address (its canonical URL, passed as `url`), so that its
 * links read as on the live site: same-origin links shown from their path.
 *
 *   npx vite-node scripts/bench-extract.ts [--browser [--repeat N] [--source]] [--set readability|trafilatura]
 *                                          [--limit N] [--only NAME] [--pipeline-only] [--verbose]
 *
 * --set: one set only. --limit N: N evenly spaced pages of trafilatura's corpus (a full run is
 * ~20 min on a busy 2-core machine). --only NAME: one readability folder or one corpus file.
 * --pipeline-only: on trafilatura's corpus, this pipeline alone (not Defuddle nor Readability beside it).
 *
 * --browser: the same pages in headless Chromium (puppeteer-core, /usr/bin/chromium), served from
 * 127.0.0.1 with every other request blocked; the built .output/chrome-mv3/page-reader.js is
 * injected and window.__pagewrightReadPage({}) timed inside the page (cold: first call after
 * injection, as the tool does it), then a second (warm) call. --repeat N loads each page N times and
 * keeps the fastest, for a machine shared with other work (the 5 MB page too, its stages printed).
 * --source: inject lib/extract as it is now instead (bundled in memory by Vite, the toolchain of
 * `wxt build`, minified the same way), to measure a change without rebuilding the extension; without
 * it, a built reader older than its sources is reported.
 */
import { READABILITY_DIR } from '../tests/harness/fixtures';
import { bundleReader, launchBenchBrowser, offlinePage } from './offline-browser';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { execSync, spawnSync } from 'node:child_process';
import { JSDOM, VirtualConsole } from 'jsdom';
import { ANNOTATION_RE, extractPage, stripAnnotations, type ExtractResult } from '../lib/extract';
import { CONTROLS_HEADER } from '../lib/extract/controls';
import { estimateTokens } from '../lib/agent/token-estimate';
import Defuddle from 'defuddle/full';
import * as v from 'valibot';
import { decodeHtml, markdownToText, meanScores, microScores, segmentCounts, shingleCounts, wordTokens, type Counts, type Scores, type SegmentCounts } from './extract-metrics';

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

/** The Markdown as a reader's model sees its words: syntax, images and link URLs gone, annotations kept. */
const sentText = (md: string) => markdownToText(md, ANNOTATION_RE);
/** The same with the `{…}` annotations removed: the text alone. */
const plainText = (md: string) => markdownToText(stripAnnotations(md));

const quiet = new VirtualConsole();
function expectedText(html: string): string {
  const dom = new JSDOM(html, { virtualConsole: quiet });
  const text = dom.window.document.body?.textContent ?? '';
  dom.window.close();
  // Plain text as a ground truth is (indentation of the markup is not its text).
  return text.replace(/[^\S\n]+/g, ' ').replace(/ ?\n\s*/g, '\n').trim();
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

/**
 * Where the tokens beyond the text go: link and image URLs, selectors, the controls section (each
 * priced with the token estimate on its own, so the shares are approximate).
 */
function overhead(md: string): { links: number; images: number; selectors: number; controls: number } {
  const i = md.indexOf(CONTROLS_HEADER);
  const main = i >= 0 ? md.slice(0, i) : md;
  const images = [...main.matchAll(/!\[[^\]]*\]\(((?:[^()\s]|\([^()]*\))*)\)/g)].map((m) => m[1]).join(' ');
  const links = [...main.replace(/!\[[^\]]*\]\((?:[^()\s]|\([^()]*\))*\)/g, '').matchAll(/\]\(((?:<[^>]*>|(?:[^()\s]|\([^()]*\))*))\)/g)].map((m) => m[1]).join(' ');
  const selectors = (main.match(ANNOTATION_RE) ?? []).join(' ');
  return { links: estimateTokens(links), images: estimateTokens(images), selectors: estimateTokens(selectors), controls: i >= 0 ? estimateTokens(md.slice(i)) : 0 };
}

interface Score {
  name: string;
  over: ReturnType<typeof overhead>;
  /** Shingle tp/fp/fn of the text as sent (annotations kept), with them removed, and as sent without the controls section. */
  sent: Counts;
  plain: Counts;
  noControls: Counts;
  /** Estimated model tokens: the Markdown as sent, the ground truth's text, the annotations in what was sent. */
  tokensSent: number;
  tokensTruth: number;
  annotationTokens: number;
  annotations: number;
  /** Word tokens (the shingle tokeniser) of the text as sent, and how many of them the annotations hold. */
  words: number;
  annotationWords: number;
  ms: number;
}

const pageF1 = (c: Counts) => (c.tp ? (2 * c.tp) / (2 * c.tp + c.fp + c.fn) : 0);

function score(name: string, result: Pick<ExtractResult, 'content'>, expected: string, ms: number): Score {
  const md = result.content;
  const stripped = stripAnnotations(md);
  const sent = sentText(md);
  const words = wordTokens(sent).length;
  return {
    name,
    over: overhead(md),
    sent: shingleCounts(sent, expected),
    plain: shingleCounts(plainText(md), expected),
    noControls: shingleCounts(sentText(withoutControls(md)), expected),
    tokensSent: estimateTokens(md),
    tokensTruth: estimateTokens(expected),
    annotationTokens: estimateTokens(md) - estimateTokens(stripped),
    annotations: (md.match(ANNOTATION_RE)?.length ?? 0) - (stripped.match(ANNOTATION_RE)?.length ?? 0),
    words,
    annotationWords: words - wordTokens(plainText(md)).length,
    ms,
  };
}

/** What the targets of issue 16 are checked against, filled as the sets are measured. */
const measured: {
  trafilaturaF1?: number;
  sent?: Scores;
  annotationShare?: number;
  tokensPerAnnotation?: number;
  tokenRatio?: number;
  browserMedianMs?: number;
  browserBigMs?: number;
} = {};

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const prf3 = (s: Scores) => `P ${f3(s.precision)} R ${f3(s.recall)} F1 ${f3(s.f1)}`;

function report(label: string, scores: Score[]): void {
  if (flag('--verbose')) {
    for (const s of [...scores].sort((a, b) => pageF1(a.sent) - pageF1(b.sent))) {
      console.log(`${s.name.padEnd(48)} as sent F1 ${f3(pageF1(s.sent))} (tp ${s.sent.tp} fp ${s.sent.fp} fn ${s.sent.fn}) ratio ${(s.tokensSent / (s.tokensTruth || 1)).toFixed(2)} ${s.ms.toFixed(1)} ms`);
    }
  }
  const ms = scores.map((s) => s.ms);
  const asSent = meanScores(scores.map((s) => s.sent));
  const tokensSent = sum(scores.map((s) => s.tokensSent));
  const annotationTokens = sum(scores.map((s) => s.annotationTokens));
  const annotations = sum(scores.map((s) => s.annotations));
  const tokenRatio = tokensSent / (sum(scores.map((s) => s.tokensTruth)) || 1);
  Object.assign(measured, { sent: asSent, annotationShare: annotationTokens / (tokensSent || 1), tokensPerAnnotation: annotationTokens / (annotations || 1), tokenRatio });
  console.log(`\n${label}: ${scores.length} pages (ground truth: expected.html's text; held-out metric: 4-token shingles, mean P and R over pages)`);
  console.log(`  as sent (annotations kept, Markdown → text):  ${prf3(asSent)}`);
  console.log(`  annotations removed:                          ${prf3(meanScores(scores.map((s) => s.plain)))}`);
  console.log(`  as sent, without the controls section:        ${prf3(meanScores(scores.map((s) => s.noControls)))}`);
  const f1s = scores.map((s) => pageF1(s.sent));
  console.log(`  per page, as sent: median F1 ${f3(pct(f1s, 0.5))}; pages under 0.8: ${f1s.filter((f) => f < 0.8).length}; empty: ${scores.filter((s) => s.sent.tp + s.sent.fp === 0).length}`);
  console.log(`  tokens (estimateTokens, lib/agent/token-estimate.ts): sent ${(tokensSent / scores.length).toFixed(0)} per page vs ground truth ${(sum(scores.map((s) => s.tokensTruth)) / scores.length).toFixed(0)} → ${tokenRatio.toFixed(3)}× (per-page median ${pct(scores.map((s) => s.tokensSent / (s.tokensTruth || 1)), 0.5).toFixed(3)}×)`);
  console.log(`  annotations: ${annotations} (${(annotations / scores.length).toFixed(1)} per page), ${(100 * annotationTokens / (tokensSent || 1)).toFixed(1)}% of the tokens sent, ${(annotationTokens / (annotations || 1)).toFixed(2)} tokens each; ${(100 * sum(scores.map((s) => s.annotationWords)) / (sum(scores.map((s) => s.words)) || 1)).toFixed(1)}% of the word tokens scored as sent`);
  const share = (k: keyof Score['over']) => `${((100 * scores.reduce((n, s) => n + s.over[k], 0)) / (tokensSent || 1)).toFixed(1)}%`;
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
    measured.browserMedianMs = pct(scores.map((s) => s.ms), 0.5);
    console.log(`  warm second call: median ${pct(warm, 0.5).toFixed(1)} ms, p95 ${pct(warm, 0.95).toFixed(1)} ms`);
    console.log(`  first call by stage (median ms): ${Object.entries(stageTimes).map(([s, t]) => `${s} ${pct(t, 0.5).toFixed(1)}`).join(', ')}`);

    // The big page too: the fastest of REPEAT loads, with its stages (one load varies ±50% here).
    let bigRun: Awaited<ReturnType<typeof read>> | undefined;
    const bigTimes: number[] = [];
    for (let i = 0; i < REPEAT; i++) {
      const run = await read(`${origin}/__big/page.html`, 'https://en.wikipedia.org/wiki/Big');
      bigTimes.push(run.ms);
      if (!bigRun || run.ms < bigRun.ms) bigRun = run;
    }
    const { r, ms, stages } = bigRun!;
    const each = bigTimes.length > 1 ? ` (loads: ${bigTimes.map((t) => t.toFixed(0)).join(', ')} ms)` : '';
    console.log(`  ${(big.length / 1024 / 1024).toFixed(1)} MB page: ${ms.toFixed(0)} ms${each}, ${'error' in r ? r.error.code : `${r.content.length} chars out`}`);
    console.log(`    by stage (ms): ${Object.entries(stages).map(([s, t]) => `${s} ${t.toFixed(0)}`).join(', ')}`);
    measured.browserBigMs = ms;
  } finally {
    await browser.close();
    server.close();
  }
}


// ---------- trafilatura's evaluation corpus (Node) ----------

const ROOT = path.resolve(import.meta.dirname, '..');
/**
 * The corpus is 146 MB and third-party: it stays out of the repository, beside it (the one place a
 * bench reads from outside the repository; tests never need it) or where TRAFILATURA_EVAL says.
 */
const TRAFILATURA_DIR = process.env.TRAFILATURA_EVAL ? path.resolve(process.env.TRAFILATURA_EVAL) : path.resolve(ROOT, '../shared/fixtures/trafilatura-eval');
const TRAFILATURA_COMMIT = 'e90b0ef51ab026fdb905fb6c5b3c84dd3d784fd5';
/** trafilatura's docs/evaluation.rst (2026-08-04), on this corpus with this metric. */
const PUBLISHED: [string, number, number, number][] = [
  ['trafilatura 2.2.0 (standard)', 0.906, 0.943, 0.924],
  ['trafilatura 2.2.0 (precision)', 0.925, 0.915, 0.92],
  ['magic-html 0.1.8', 0.887, 0.891, 0.889],
  ['justext 3.0.2 (custom)', 0.864, 0.859, 0.862],
  ['news-please 1.6.16', 0.932, 0.758, 0.836],
  ['readability-lxml 0.8.4.1', 0.898, 0.764, 0.826],
  ['goose3 3.1.22', 0.936, 0.714, 0.81],
  ['all text of the page (inscriptis)', 0.534, 0.991, 0.694],
];

const EvalEntry = v.object({ file: v.string(), with: v.array(v.string()), without: v.array(v.string()) });
const EvalData = v.record(v.string(), EvalEntry);

interface Extractor {
  name: string;
  /** The page's plain text, or null when there is nothing (or it threw: then `error` is set). */
  run: (doc: Document, url: string) => string;
}

interface Outcome {
  counts: SegmentCounts;
  error?: string;
  empty: boolean;
  ms: number;
}

/** Runs `fn` with the console quiet (Defuddle logs a SyntaxError per broken JSON-LD block); counts what it said. */
function hushed<T>(fn: () => T): { value: T; logged: number } {
  const saved = { error: console.error, warn: console.warn, log: console.log, info: console.info, debug: console.debug };
  let logged = 0;
  const count = () => void logged++;
  Object.assign(console, { error: count, warn: count, log: count, info: count, debug: count });
  try {
    return { value: fn(), logged };
  } finally {
    Object.assign(console, saved);
  }
}

async function extractors(talk: boolean): Promise<Extractor[]> {
  const list: Extractor[] = [
    {
      name: 'this pipeline (jsdom, annotations removed, Markdown → text)',
      run: (doc, url) => plainText(extractPage(doc, { url }).content),
    },
    {
      name: `defuddle ${defuddleVersion()} (jsdom) → Markdown → text`,
      run: (doc, url) => markdownToText(new Defuddle(doc, { url, markdown: true }).parse().content),
    },
  ];
  // --pipeline-only: a quicker loop while changing the pipeline (the others take longer than it).
  if (flag('--pipeline-only')) return list.slice(0, 1);
  // Not a dependency of the project: measured when someone has installed it, else said so.
  if (existsSync(path.join(ROOT, 'node_modules/@mozilla/readability/package.json'))) {
    const name = '@mozilla/readability';
    const { Readability } = (await import(/* @vite-ignore */ name)) as { Readability: new (doc: Document) => { parse(): { textContent?: string | null } | null } };
    list.push({
      name: '@mozilla/readability (jsdom) → textContent',
      run: (doc) => new Readability(doc.cloneNode(true) as Document).parse()?.textContent ?? '',
    });
  } else if (talk) {
    console.log('  @mozilla/readability is not installed (node_modules): skipped (its figure from SOURCE.md is shown below)');
  }
  return list;
}

function defuddleVersion(): string {
  try {
    return (JSON.parse(readFileSync(path.join(ROOT, 'node_modules/defuddle/package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return '?';
  }
}

type Entry = [url: string, entry: v.InferOutput<typeof EvalEntry>];

/** The corpus's pages this run measures (--only, --limit), or null (said why) when it is absent. */
function corpusEntries(talk: boolean): { entries: Entry[]; total: number; limit: number } | null {
  const dataFile = path.join(TRAFILATURA_DIR, 'evaldata.json');
  if (!existsSync(dataFile)) {
    if (talk) console.log([
      '  not found: skipped. To measure on it, put trafilatura\'s evaluation corpus there (or set TRAFILATURA_EVAL to its folder):',
      `  from github.com/adbar/trafilatura at commit ${TRAFILATURA_COMMIT}, copy tests/evaldata.json,`,
      '  tests/eval/ and tests/cache/ into one folder, e.g.',
      `    git clone https://github.com/adbar/trafilatura && git -C trafilatura checkout ${TRAFILATURA_COMMIT}`,
      `    mkdir -p ${JSON.stringify(TRAFILATURA_DIR)} && cp -r trafilatura/tests/evaldata.json trafilatura/tests/eval trafilatura/tests/cache ${JSON.stringify(TRAFILATURA_DIR)}/`,
      '  (146 MB, Apache-2.0; keep it out of this repository).',
    ].join('\n'));
    return null;
  }
  const parsed = v.safeParse(EvalData, JSON.parse(readFileSync(dataFile, 'utf8')));
  if (!parsed.success) {
    if (talk) console.log(`  ${dataFile} is not { url: { file, with[], without[] } }: ${v.summarize(parsed.issues).split('\n')[0]} — skipped`);
    return null;
  }
  const only = arg('--only');
  let entries = Object.entries(parsed.output).filter(([, e]) => !only || e.file === only);
  const limit = Number(arg('--limit') ?? 0);
  if (limit > 0 && limit < entries.length) {
    // Evenly spaced, so that a sample keeps the corpus's mix of sites and languages.
    const all = entries;
    entries = Array.from({ length: limit }, (_, i) => all[Math.floor((i * all.length) / limit)]!);
  }
  return { entries, total: Object.keys(parsed.output).length, limit };
}

interface ChunkResult {
  outcomes: Outcome[][];
  unreadable: number;
  logged: number;
}

/** Every extractor on each page of `entries`, all on one jsdom document per page. */
function measurePages(entries: Entry[], tools: Extractor[]): ChunkResult {
  const outcomes: Outcome[][] = tools.map(() => []);
  let unreadable = 0;
  let logged = 0;
  for (const [url, entry] of entries) {
    const fail = (error: string): Outcome => ({ counts: segmentCounts(null, entry.with, entry.without), error, empty: false, ms: 0 });
    const file = [path.join(TRAFILATURA_DIR, 'cache', entry.file), path.join(TRAFILATURA_DIR, 'eval', entry.file)].find((f) => existsSync(f));
    if (!file) {
      unreadable++;
      tools.forEach((_, i) => outcomes[i]!.push(fail('file missing')));
      continue;
    }
    let dom: JSDOM;
    try {
      dom = new JSDOM(decodeHtml(readFileSync(file)).text, { url, virtualConsole: quiet });
    } catch (e) {
      unreadable++;
      tools.forEach((_, i) => outcomes[i]!.push(fail(`jsdom: ${(e as Error).message}`)));
      continue;
    }
    tools.forEach((tool, i) => {
      const t0 = performance.now();
      let text: string | null = null;
      let error: string | undefined;
      const run = hushed(() => {
        try {
          text = tool.run(dom.window.document, url);
        } catch (e) {
          error = (e as Error).message?.split('\n')[0] ?? String(e);
        }
      });
      logged += i === 1 ? run.logged : 0;
      const ms = performance.now() - t0;
      const empty = !error && !(text ?? '').trim();
      outcomes[i]!.push({ counts: segmentCounts(error ? null : text, entry.with, entry.without), error, empty, ms });
    });
    dom.window.close();
  }
  return { outcomes, unreadable, logged };
}

const CHUNK_MARK = '@@chunk-result ';
/**
 * Pages per child process: jsdom's windows are not all given back after close() (one process ran
 * out of its 4 GB heap within 100 of these pages), so each chunk runs in a fresh process.
 */
const CHUNK_PAGES = 40;

/** Internal: `--chunk A:B` measures pages A..B of this run's selection and prints the result as JSON. */
async function runChunk(spec: string): Promise<void> {
  const [from, to] = spec.split(':').map(Number);
  const corpus = corpusEntries(false);
  const tools = await extractors(false);
  const result = corpus ? measurePages(corpus.entries.slice(from, to), tools) : { outcomes: tools.map(() => []), unreadable: 0, logged: 0 };
  process.stdout.write(`${CHUNK_MARK}${JSON.stringify(result)}\n`);
}

function measureInChildren(count: number, tools: Extractor[]): ChunkResult {
  const merged: ChunkResult = { outcomes: tools.map(() => []), unreadable: 0, logged: 0 };
  const passed = args.filter((a, i) => a !== '--chunk' && args[i - 1] !== '--chunk');
  const started = performance.now();
  for (let from = 0; from < count; from += CHUNK_PAGES) {
    const to = Math.min(count, from + CHUNK_PAGES);
    const child = spawnSync(path.join(ROOT, 'node_modules/.bin/vite-node'), [path.join(ROOT, 'scripts/bench-extract.ts'), ...passed, '--chunk', `${from}:${to}`], { cwd: ROOT, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
    const line = child.stdout?.split('\n').find((l) => l.startsWith(CHUNK_MARK));
    let result: ChunkResult | undefined;
    try {
      result = line ? (JSON.parse(line.slice(CHUNK_MARK.length)) as ChunkResult) : undefined;
    } catch {
      result = undefined;
    }
    if (!result || result.outcomes.length !== tools.length) {
      // A chunk that died: its pages count as errors for everyone, and the run goes on.
      console.log(`  pages ${from}–${to - 1}: the child process failed (${child.status ?? child.signal}): ${(child.stderr ?? '').trim().split('\n').slice(-1)[0] ?? ''}`);
      result = { outcomes: tools.map(() => Array.from({ length: to - from }, () => ({ counts: { tp: 0, fp: 0, fn: 0, tn: 0 }, error: 'child process failed', empty: false, ms: 0 }))), unreadable: 0, logged: 0 };
    }
    result.outcomes.forEach((o, i) => merged.outcomes[i]!.push(...o));
    merged.unreadable += result.unreadable;
    merged.logged += result.logged;
    process.stderr.write(`  … ${to}/${count} pages, ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
  }
  return merged;
}

async function runTrafilatura(): Promise<void> {
  console.log(`\ntrafilatura's evaluation corpus (${TRAFILATURA_DIR})`);
  const corpus = corpusEntries(true);
  if (!corpus) return;
  const { entries, total, limit } = corpus;
  const tools = await extractors(true);
  const started = performance.now();
  const { outcomes, unreadable, logged } = measureInChildren(entries.length, tools);
  const files = entries.map(([, e]) => e.file);
  // A failed chunk is scored with its pages' real segment counts (found nothing).
  outcomes.forEach((o) => o.forEach((x, i) => {
    if (x.error === 'child process failed') x.counts = segmentCounts(null, entries[i]![1].with, entries[i]![1].without);
  }));

  const segments = sum(entries.map(([, e]) => e.with.length));
  const boilerplate = sum(entries.map(([, e]) => e.without.length));
  console.log(`  ${entries.length} pages${limit > 0 && limit < total ? ` (an evenly spaced sample of ${total}: --limit ${limit})` : ''}, ${segments} segments to keep, ${boilerplate} to leave out; metric: segments as substrings of the whitespace-normalised text, micro-summed; crash/empty = nothing found; ${((performance.now() - started) / 1000).toFixed(0)} s`);
  if (unreadable) console.log(`  ${unreadable} pages could not be read (missing file or jsdom failure): they count as found nothing for everyone`);
  const row = (name: string, p: number, r: number, f1: number, rest = '') => console.log(`  ${name.padEnd(68)} P ${f3(p)}  R ${f3(r)}  F1 ${f3(f1)}${rest}`);
  console.log('  measured in this run:');
  tools.forEach((tool, i) => {
    const o = outcomes[i]!;
    const s = microScores(o.map((x) => x.counts));
    row(tool.name, s.precision, s.recall, s.f1, `  acc ${f3(s.accuracy)}; errors ${o.filter((x) => x.error).length}, empty ${o.filter((x) => x.empty).length}; median ${pct(o.map((x) => x.ms), 0.5).toFixed(0)} ms/page`);
    if (i === 0) measured.trafilaturaF1 = s.f1;
  });
  if (logged) console.log(`  (Defuddle wrote ${logged} console messages, silenced: broken JSON-LD and the like)`);
  console.log('  published (trafilatura docs/evaluation.rst) and measured before (SOURCE.md):');
  for (const [name, p, r, f1] of PUBLISHED) row(name, p, r, f1);
  row('@mozilla/readability (jsdom) → textContent [SOURCE.md, 2026-12-01]', 0.861, 0.91, 0.884);
  row('defuddle 0.19 (linkedom) → Markdown → text [SOURCE.md, 2026-12-01]', 0.832, 0.925, 0.876);

  const mine = outcomes[0]!;
  const segF1 = (c: SegmentCounts) => (c.tp ? (2 * c.tp) / (2 * c.tp + c.fp + c.fn) : 0);
  const worst = mine
    .map((o, i) => ({ o, i }))
    .filter(({ o }) => o.counts.tp + o.counts.fp + o.counts.fn > 0)
    .sort((a, b) => segF1(a.o.counts) - segF1(b.o.counts) || b.o.counts.fp + b.o.counts.fn - (a.o.counts.fp + a.o.counts.fn))
    .slice(0, 10);
  console.log(`  the pipeline's worst ${worst.length} pages by F1 (files under ${path.join(TRAFILATURA_DIR, 'cache|eval')}; --only FILE re-runs one):`);
  for (const { o, i } of worst) {
    const c = o.counts;
    const note = o.error ? ` error: ${o.error.slice(0, 80)}` : o.empty ? ' empty' : '';
    console.log(`    ${files[i]!.padEnd(44)} F1 ${f3(segF1(c))}  tp ${c.tp} fp ${c.fp} fn ${c.fn}; ${outcomes[1] ? `defuddle F1 ${f3(segF1(outcomes[1][i]!.counts))}` : ''}${note}`);
  }
}

// ---------- targets (issue 16) ----------

function printTargets(): void {
  const line = (what: string, value: number | undefined, ok: (x: number) => boolean, shown: (x: number) => string, missing: string) =>
    console.log(`  ${value === undefined ? '  -- ' : ok(value) ? '  OK ' : 'MISS '} ${what.padEnd(66)} ${value === undefined ? missing : shown(value)}`);
  const m = measured;
  console.log('\ntargets (issue 16; the held-out set is scored like the readability set here, "as sent"):');
  line('trafilatura corpus, annotations removed: F1 ≥ 0.93', m.trafilaturaF1, (x) => x >= 0.93, f3, 'not measured (corpus absent or --set readability)');
  line('readability set as sent (held-out stand-in): F1 ≥ 0.95', m.sent?.f1, (x) => x >= 0.95, f3, 'not measured');
  line('readability set as sent: precision ≥ 0.93', m.sent?.precision, (x) => x >= 0.93, f3, 'not measured');
  line('readability set as sent: moonshot F1 ≥ 0.975', m.sent?.f1, (x) => x >= 0.975, f3, 'not measured');
  line('annotations ≤ 8% of the tokens sent', m.annotationShare, (x) => x <= 0.08, (x) => `${(100 * x).toFixed(1)}%`, 'not measured');
  line('mean ≤ 6 tokens per annotation', m.tokensPerAnnotation, (x) => x <= 6, (x) => x.toFixed(2), 'not measured');
  line('tokens sent ≤ 1.1× the ground truth (readability set)', m.tokenRatio, (x) => x <= 1.1, (x) => `${x.toFixed(3)}×`, 'not measured');
  line('in-browser median ≤ 30 ms per page (Chromium)', m.browserMedianMs, (x) => x <= 30, (x) => `${x.toFixed(1)} ms`, 'run with --browser');
  line('5 MB page ≤ 1 s (Chromium)', m.browserBigMs, (x) => x <= 1000, (x) => `${x.toFixed(0)} ms`, 'run with --browser');
}

const set = arg('--set');
const chunk = arg('--chunk');
if (chunk) {
  await runChunk(chunk);
} else {
  if (set !== 'trafilatura') {
    const list = pages();
    if (!list.length) console.log(`no readability page named ${arg('--only')}`);
    else if (flag('--browser')) await runBrowser(list);
    else runNode(list);
  }
  if (set !== 'readability' && !flag('--browser')) await runTrafilatura();
  printTargets();
}
