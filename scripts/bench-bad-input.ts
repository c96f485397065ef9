/**
 * The page reader on bad input (issue 16): each page of tests/harness/bad-pages.ts and the frameset
 * of tests/fixtures/bad-input, read in jsdom and in headless Chromium (and Firefox with --firefox),
 * with the time each read took, what came out, and what it wrote to the console.
 *
 *   npx vite-node scripts/bench-bad-input.ts [--firefox] [--no-jsdom] [--only NAME] [--verbose]
 *
 * In the browsers the reader is bundled from the current sources (entrypoints/page-reader.ts) and
 * window.__pagewrightReadPage({}) is timed inside the page, as the bench:extract --browser does.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { JSDOM, VirtualConsole } from 'jsdom';
import { extractPage, type ExtractResult } from '../lib/extract';
import { FIXTURES_DIR } from '../tests/harness/fixtures';
import { BAD_PAGES, fillFramesetInJsdom } from '../tests/harness/bad-pages';
import { bundleReader, launchBenchBrowser, offlinePage } from './offline-browser';

const args = process.argv.slice(2);
const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined;
const pages = Object.entries(BAD_PAGES).filter(([name]) => !only || name === only);

type Outcome = { ms: number; result: Pick<ExtractResult, 'content' | 'truncated' | 'usedSelector'> | { error: { code: string; message: string } }; console: number; stages?: Record<string, number> };

function describe(o: Outcome): string {
  const r = o.result;
  const what = 'error' in r ? `error ${r.error.code}: ${r.error.message.slice(0, 80)}` : `${r.content.length} chars, truncated ${r.truncated}, used ${r.usedSelector}, starts ${JSON.stringify(r.content.slice(0, 70))}`;
  const stages = o.stages ? ` (${Object.entries(o.stages).map(([k, v]) => `${k} ${v.toFixed(0)}`).join(', ')})` : '';
  return `${o.ms.toFixed(0).padStart(5)} ms${stages}  ${what}${o.console ? `  [${o.console} console lines]` : ''}`;
}

function inJsdom(name: string, html: string): Outcome {
  const doc = new JSDOM(html, { url: `http://127.0.0.1/bad-input/${name}.html`, virtualConsole: new VirtualConsole() }).window.document;
  if (name === 'frameset') fillFramesetInJsdom(doc);
  let lines = 0;
  const saved = { log: console.log, warn: console.warn, error: console.error, info: console.info, debug: console.debug };
  for (const k of Object.keys(saved) as (keyof typeof saved)[]) console[k] = () => void lines++;
  const t0 = performance.now();
  let result: Outcome['result'];
  const stages: Record<string, number> = {};
  try {
    result = extractPage(doc, {}, stages);
  } catch (e) {
    result = { error: { code: (e as { code?: string }).code ?? 'thrown', message: (e as Error).message } };
  } finally {
    Object.assign(console, saved);
  }
  return { ms: performance.now() - t0, result, console: lines, stages };
}


async function inBrowser(firefox: boolean): Promise<Map<string, Outcome>> {
  const reader = await bundleReader();
  const server = http.createServer((req, res) => {
    const name = /^\/bad-input\/([\w-]+)\.html$/.exec(req.url ?? '')?.[1];
    const page = name ? BAD_PAGES[name] : undefined;
    try {
      const html = page ? page() : readFileSync(path.join(FIXTURES_DIR, 'bad-input', path.basename(req.url ?? '')), 'utf8');
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const browser = await launchBenchBrowser({ firefox });
  const out = new Map<string, Outcome>();
  try {
    const page = await offlinePage(browser, origin);
    let lines = 0;
    page.on('console', (m) => {
      if (m.text().startsWith('Failed to load resource')) return; // the favicon, not the reader
      lines++;
      if (args.includes('--verbose')) console.log(`    console.${m.type()}: ${m.text().slice(0, 200)}`);
    });
    for (const [name] of pages) {
      await page.goto(`${origin}/bad-input/${name}.html`, { waitUntil: 'load', timeout: 20_000 });
      await new Promise((r) => setTimeout(r, 100)); // the churning page starts churning
      await page.evaluate(reader);
      lines = 0;
      const { ms, result, stages } = await page.evaluate(() => {
        const w = window as unknown as { __pagewrightReadPage: (o: object, t: Record<string, number>) => Outcome['result'] };
        const stages: Record<string, number> = {};
        const t0 = performance.now();
        const r = w.__pagewrightReadPage({}, stages);
        const keep = 'error' in r ? r : { content: r.content, truncated: r.truncated, usedSelector: r.usedSelector };
        return { ms: performance.now() - t0, result: keep, stages };
      });
      await new Promise((r) => setTimeout(r, 50)); // console events arrive asynchronously
      out.set(name, { ms, result, console: lines, stages });
    }
  } finally {
    await browser.close();
    server.close();
  }
  return out;
}

// Browsers first (they are quick); jsdom page by page as it goes (--no-jsdom leaves it out).
const chromium = await inBrowser(false);
const firefox = args.includes('--firefox') ? await inBrowser(true) : undefined;
for (const [name, make] of pages) {
  console.log(`\n${name}`);
  console.log(`  chromium  ${describe(chromium.get(name)!)}`);
  if (firefox) console.log(`  firefox   ${describe(firefox.get(name)!)}`);
  if (!args.includes('--no-jsdom')) console.log(`  jsdom     ${describe(inJsdom(name, make()))}`);
}
