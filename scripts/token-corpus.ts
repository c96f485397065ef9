/**
 * The texts bench-tokens.ts measures the token estimate on: tool results exactly as the model
 * receives them (the registry sends JSON.stringify(result), third-party text fenced).
 *
 * Two disjoint sets, so the estimate is never judged on what it was tuned on:
 *   calibration  the even-numbered Readability pages (sorted by name), tests/fixtures/web
 *                (article, the charset pages, the feeds), Bing's API answers (as web_fetch gives
 *                them and as compact JSON), every other captured search page as web_search's
 *                results, list_tabs answers over those pages, prose in other scripts written for
 *                the bench (tests/fixtures/tokens), and lib/web's sources as execute_script inputs;
 *   measured     the odd-numbered Readability pages (and list_tabs answers over them), Google's
 *                API answers, the other search pages' results, and lib/extract's sources as inputs.
 * Every Readability page gives two results: get_tab_content's (annotated Markdown) and web_fetch's
 * (the same pipeline without selectors), and its Markdown once more as plain text ("markdown": how
 * replies, user messages and compaction notes look, with real line breaks and no JSON escapes).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { JSDOM, VirtualConsole } from 'jsdom';
import { extractPage } from '../lib/extract';
import { fenceText } from '../lib/policy/fence';
import { decodeBody } from '../lib/web/charset';
import { xmlToReadable } from '../lib/web/feed';
import { jsonToReadable } from '../lib/web/json';
import { ENGINES, type EngineId, type SearchResult } from '../lib/search-engines';
import { FIXTURES_DIR, READABILITY_DIR, SEARCH_DIR } from '../tests/harness/fixtures';

export type SetName = 'calibration' | 'measured';

export interface Sample {
  set: SetName;
  /** get_tab_content, web_fetch, web_fetch-json, web_fetch-feed, web_search, json, list_tabs, markdown, prose, code */
  kind: string;
  name: string;
  text: string;
}

// A fixed marker: the fence's id is random per run in the extension, and its tokens should not
// make two runs of the bench differ.
const MARKER = '5f0c9e2ab417d3c86e21f90a';
const quiet = new VirtualConsole();

function parse(html: string, url: string): JSDOM {
  return new JSDOM(html, { url, virtualConsole: quiet });
}

function pageUrl(name: string, html: string): string {
  const found =
    /<link\b[^>]*\brel=["']?canonical["']?[^>]*\bhref=["']([^"']+)["']/i.exec(html)?.[1] ??
    /<meta\b[^>]*\bproperty=["']og:url["'][^>]*\bcontent=["']([^"']+)["']/i.exec(html)?.[1];
  try {
    if (found && /^https?:/i.test(found)) return new URL(found.replace(/&amp;/g, '&')).href;
  } catch {
    // fall through
  }
  return `https://fakehost.example/test/${name}/page.html`;
}

/** get_tab_content's result for a page, as the model receives it, and its Markdown alone. */
function tabResult(html: string, url: string, tabId: number): { result: string; markdown: string } | null {
  const dom = parse(html, url);
  try {
    const r = extractPage(dom.window.document, { url });
    const result = JSON.stringify({ tab_id: tabId, url, title: r.title, content: fenceText(MARKER, r.content, url), truncated: r.truncated, used_selector: r.usedSelector });
    return { result, markdown: r.content };
  } catch {
    return null;
  } finally {
    dom.window.close();
  }
}

/** web_fetch's result for a page (or for a non-HTML body already made readable). */
function fetchResult(url: string, contentType: string, content: string, truncated = false): string {
  return JSON.stringify({ url, content_type: contentType, content: fenceText(MARKER, content, url), truncated, final_url: url });
}

function fetchedHtml(html: string, url: string): string | null {
  const dom = parse(html, url);
  try {
    const r = extractPage(dom.window.document, { url, annotate: false });
    return fetchResult(url, 'text/html; charset=utf-8', r.content, r.truncated);
  } catch {
    return null;
  } finally {
    dom.window.close();
  }
}

function readabilityPages(): { name: string; html: string }[] {
  return readdirSync(READABILITY_DIR)
    .filter((d) => statSync(path.join(READABILITY_DIR, d)).isDirectory() && existsSync(path.join(READABILITY_DIR, d, 'source.html')))
    .sort()
    .map((name) => ({ name, html: readFileSync(path.join(READABILITY_DIR, name, 'source.html'), 'utf8') }));
}

function filesUnder(dir: string, test: (f: string) => boolean): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir).sort()) {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) out.push(...filesUnder(full, test));
    else if (test(entry)) out.push(full);
  }
  return out;
}

/** A source file as a tool_use input would carry it (execute_script's code, JSON-encoded). */
function codeInput(file: string): string {
  return JSON.stringify({ code: readFileSync(file, 'utf8'), target: 'sandbox' });
}

type Add = (set: SetName, kind: string, name: string, text: string | null) => void;
const collector = (): { samples: Sample[]; add: Add } => {
  const samples: Sample[] = [];
  return { samples, add: (set, kind, name, text) => void (text && samples.push({ set, kind, name, text })) };
};

/** Part of the cache key of pageSamples' output (with lib/extract and the pages): bump it when pageSamples changes. */
export const PAGES_VERSION = 1;

/** The Readability pages through extractPage in jsdom: slow (minutes), so the bench caches it. */
export function pageSamples(): Sample[] {
  const { samples, add } = collector();
  readabilityPages().forEach(({ name, html }, i) => {
    const set: SetName = i % 2 === 0 ? 'calibration' : 'measured';
    const url = pageUrl(name, html);
    const tab = tabResult(html, url, 1000 + i);
    add(set, 'get_tab_content', name, tab?.result ?? null);
    // The same Markdown as plain text (real line breaks, no JSON escapes), as replies and notes are.
    add(set, 'markdown', name, tab?.markdown ?? null);
    add(set, 'web_fetch', name, fetchedHtml(html, url));
  });
  return samples;
}

/** web_search's result: the contract's [{title, url, snippet}], title and snippet fenced as the tool does. */
function searchResult(results: SearchResult[]): string {
  return JSON.stringify(results.map((r) => ({ ...r, title: fenceText(MARKER, r.title, r.url), snippet: fenceText(MARKER, r.snippet, r.url) })));
}

const engineOf = (rel: string): EngineId | null =>
  /duckduckgo|ddg/.test(rel) ? 'duckduckgo' : /bing/.test(rel) ? 'bing' : /baidu/.test(rel) ? 'baidu' : /google/.test(rel) ? 'google' : null;

/** Everything else: quick to make, so made on every run. */
export function otherSamples(): Sample[] {
  const { samples, add } = collector();

  const web = path.join(FIXTURES_DIR, 'web');
  add('calibration', 'get_tab_content', 'web/article.html', tabResult(readFileSync(path.join(web, 'article.html'), 'utf8'), 'https://example.com/article', 1)?.result ?? null);
  for (const file of filesUnder(path.join(web, 'charset'), (f) => f.endsWith('.html'))) {
    const { text } = decodeBody(new Uint8Array(readFileSync(file)), { contentType: null, kind: 'html' });
    const url = `https://example.com/${path.basename(file)}`;
    const tab = tabResult(text, url, 2);
    add('calibration', 'get_tab_content', `web/charset/${path.basename(file)}`, tab?.result ?? null);
    add('calibration', 'markdown', `web/charset/${path.basename(file)}`, tab?.markdown ?? null);
  }
  for (const file of filesUnder(path.join(web, 'feeds'), (f) => /\.(rss|atom|rdf|xml)$/.test(f))) {
    const url = `https://example.com/${path.basename(file)}`;
    const feed = xmlToReadable(readFileSync(file, 'utf8'), { baseUrl: url });
    add('calibration', 'web_fetch-feed', `web/feeds/${path.basename(file)}`, fetchResult(url, 'application/rss+xml', feed.content));
  }
  // An API's JSON: as web_fetch gives it (pretty-printed, inside the result) and compact, as an
  // http skill or a tool returns it. Bing's answers calibrate, Google's are measured.
  for (const file of filesUnder(SEARCH_DIR, (f) => f.endsWith('.json'))) {
    const rel = path.relative(SEARCH_DIR, file);
    const set: SetName = rel.startsWith('bing') ? 'calibration' : 'measured';
    const body = readFileSync(file, 'utf8');
    add(set, 'web_fetch-json', rel, fetchResult('https://api.example.com/search', 'application/json', jsonToReadable(body).content));
    add(set, 'json', rel, JSON.stringify(JSON.parse(body.replace(/^\uFEFF/, ''))));
  }
  // Captured result pages through their engine's parser, alternately into each set.
  let searches = 0;
  for (const file of filesUnder(SEARCH_DIR, (f) => /\.(html|json)$/.test(f))) {
    const rel = path.relative(SEARCH_DIR, file);
    const id = engineOf(rel);
    if (!id) continue;
    const body = readFileSync(file, 'utf8');
    try {
      const results = ENGINES[id].parse(body, { status: 200, url: 'https://search.example/', contentType: file.endsWith('.json') ? 'application/json' : 'text/html; charset=utf-8', query: 'q' });
      if (results.length) add(searches++ % 2 === 0 ? 'calibration' : 'measured', 'web_search', rel, searchResult(results));
    } catch {
      // a challenge page or the like: no results to price
    }
  }

  // list_tabs' answer over the pages' own titles and addresses, ten tabs at a time: the compact
  // JSON of arrays of objects most tools answer with.
  const tabs = readabilityPages().map(({ name, html }, i) => ({
    set: (i % 2 === 0 ? 'calibration' : 'measured') as SetName,
    tab: {
      id: 1_000 + i, window_id: 1 + (i % 3), url: pageUrl(name, html),
      title: /<title[^>]*>([^<]*)</i.exec(html)?.[1]?.trim().replace(/\s+/g, ' ') ?? '', active: i % 10 === 0, audible: false, status: 'complete',
    },
  }));
  for (const set of ['calibration', 'measured'] as const) {
    const mine = tabs.filter((t) => t.set === set).map((t) => t.tab);
    for (let i = 0; i < mine.length; i += 10) add(set, 'list_tabs', `tabs ${i + 1}-${Math.min(mine.length, i + 10)}`, JSON.stringify(mine.slice(i, i + 10)));
  }

  // Prose in other scripts, written for this bench (tests/fixtures/tokens/SOURCE.md): plain, and as
  // a web_fetch result.
  for (const file of filesUnder(path.join(FIXTURES_DIR, 'tokens'), (f) => f.endsWith('.txt'))) {
    const text = readFileSync(file, 'utf8');
    const name = `tokens/${path.basename(file)}`;
    add('calibration', 'prose', name, text);
    add('calibration', 'web_fetch', name, fetchResult(`https://example.com/${path.basename(file)}`, 'text/plain; charset=utf-8', text));
  }

  const lib = path.resolve(path.dirname(READABILITY_DIR), '../../lib');
  for (const file of filesUnder(path.join(lib, 'web'), (f) => f.endsWith('.ts'))) add('calibration', 'code', path.relative(lib, file), codeInput(file));
  for (const file of filesUnder(path.join(lib, 'extract'), (f) => f.endsWith('.ts'))) add('measured', 'code', path.relative(lib, file), codeInput(file));
  return samples;
}
