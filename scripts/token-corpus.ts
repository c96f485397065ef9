/**
 * The texts bench-tokens.ts measures the token estimate on: tool results exactly as the model
 * receives them (the registry sends JSON.stringify(result), third-party text fenced).
 *
 * Two disjoint sets, so the estimate is never judged on what it was tuned on:
 *   calibration  the even-numbered Readability pages (sorted by name), tests/fixtures/web
 *                (article, the charset pages, the feeds), the search engines' captured JSON,
 *                and lib/web's sources as execute_script inputs;
 *   measured     the odd-numbered Readability pages, and lib/extract's sources as inputs.
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
import { FIXTURES_DIR, READABILITY_DIR, SEARCH_DIR } from '../tests/harness/fixtures';

export type SetName = 'calibration' | 'measured';

export interface Sample {
  set: SetName;
  /** get_tab_content, web_fetch, web_fetch-json, web_fetch-feed, markdown, code */
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

export function corpus(): Sample[] {
  const samples: Sample[] = [];
  const add = (set: SetName, kind: string, name: string, text: string | null) => {
    if (text) samples.push({ set, kind, name, text });
  };

  readabilityPages().forEach(({ name, html }, i) => {
    const set: SetName = i % 2 === 0 ? 'calibration' : 'measured';
    const url = pageUrl(name, html);
    const tab = tabResult(html, url, 1000 + i);
    add(set, 'get_tab_content', name, tab?.result ?? null);
    // The same Markdown as plain text (real line breaks, no JSON escapes), as replies and notes are.
    add(set, 'markdown', name, tab?.markdown ?? null);
    add(set, 'web_fetch', name, fetchedHtml(html, url));
  });

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
  for (const file of filesUnder(SEARCH_DIR, (f) => f.endsWith('.json'))) {
    const json = jsonToReadable(readFileSync(file, 'utf8'));
    add('calibration', 'web_fetch-json', path.relative(SEARCH_DIR, file), fetchResult('https://api.example.com/search', 'application/json', json.content));
  }

  const lib = path.resolve(path.dirname(READABILITY_DIR), '../../lib');
  for (const file of filesUnder(path.join(lib, 'web'), (f) => f.endsWith('.ts'))) add('calibration', 'code', path.relative(lib, file), codeInput(file));
  for (const file of filesUnder(path.join(lib, 'extract'), (f) => f.endsWith('.ts'))) add('measured', 'code', path.relative(lib, file), codeInput(file));
  return samples;
}
