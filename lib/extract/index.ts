/**
 * The page → annotated Markdown pipeline behind get_tab_content. It runs inside the page (an
 * injected script) on the live, rendered DOM, and in Node on a jsdom document (scripts/extract.ts):
 * the same code either way.
 *
 *   live DOM ──snapshot──► inert copy with refs ──Defuddle──► main content ──turndown──► Markdown
 *      ▲                  (hidden dropped, shadow roots                     (annotations read the
 *      └───────────────── and same-origin frames inlined)                    live elements by ref)
 *
 * Nothing here writes to the live DOM: all edits happen on copies.
 */
import Defuddle, { type DefuddleOptions } from 'defuddle';
import { pageControls } from './controls';
import { ExtractError } from './errors';
import { normalize } from './interactive';
import { createRenderer, type RenderContext } from './markdown';
import { resolveSelectorAll, SelectorBuilder } from './selectors';
import { liveOf, snapshotDocument, snapshotElements } from './snapshot';
import { isRendered } from './visibility';

export { ANNOTATION_RE, stripAnnotations } from './annotate';
export { ExtractError, type ExtractErrorCode } from './errors';
export { LINK_NOTE, resolveSelector, resolveSelectorAll, SELECTOR_NOTE } from './selectors';

export interface ExtractOptions {
  /** Read only what this selector (">>>" allowed) matches. */
  selector?: string;
  /** Cut the content at this many characters (at a line end when possible). */
  maxLength?: number;
  /** The page URL to report and resolve links against (default: the document's). */
  url?: string;
}

export interface ExtractResult {
  title: string;
  url: string;
  content: string;
  truncated: boolean;
  /** The selector given, or one for the root the extractor chose ("main", "article#post", "body"). */
  usedSelector: string;
}

/**
 * Defuddle, tuned for speed on a live page (measured on the Readability pages by the bench):
 * - standardize off: its HTML clean-up is for HTML output; turndown does our normalising, and the
 *   text F1 is slightly higher without it (0.934 vs 0.928), for ~20% less time;
 * - content-pattern removal off: ~20% of Defuddle's time, no measurable F1 change;
 * - hidden-element removal off when the page is rendered: the snapshot already dropped what the
 *   browser does not show (computed styles included), which Defuddle's markup heuristics cannot see.
 */
function defuddleOptions(url: string, rendered: boolean): DefuddleOptions {
  return { url, standardize: false, removeContentPatterns: false, removeHiddenElements: !rendered, useAsync: false };
}

/** Below this many words of article, the page is an app or a form: read the whole body instead. */
export const MIN_ARTICLE_WORDS = 80;
/**
 * Without maxLength the content still stops here (~50k tokens): no model takes a 5 MB page in one
 * piece, and converting all of it took seconds. `truncated` says when it happened.
 */
export const DEFAULT_MAX_LENGTH = 200_000;
/** The copy holds at most PRUNE_FACTOR × maxLength characters of page text (boilerplate comes first). */
const PRUNE_FACTOR = 3;
const MIN_PRUNE_TEXT = 60_000;
/** Most elements a selector may pick (each one becomes a section of the output). */
const MAX_MATCHES = 50;

/** Milliseconds per stage, filled when a bench passes an object (snapshot, defuddle, render, controls). */
export type StageTimings = Record<string, number>;

export function extractPage(doc: Document, opts: ExtractOptions = {}, timings?: StageTimings): ExtractResult {
  let t = performance.now();
  const lap = (stage: string) => {
    if (!timings) return;
    const now = performance.now();
    timings[stage] = (timings[stage] ?? 0) + now - t;
    t = now;
  };
  const url = opts.url ?? doc.URL;
  const builder = new SelectorBuilder(doc);
  const ctx: RenderContext = { doc, refs: [], builder, emitted: new Set(), ...urls(doc, url) };
  let title = normalize(doc.title ?? '');
  ctx.title = title;
  let content: string;
  let usedSelector: string;
  let cutShort = false;

  const limit = opts.maxLength !== undefined && Number.isFinite(opts.maxLength) ? Math.max(0, Math.floor(opts.maxLength)) : DEFAULT_MAX_LENGTH;
  const selector = opts.selector?.trim();
  if (selector) {
    const matches = outermost(resolveSelectorAll(doc, selector));
    if (!matches.length) throw new ExtractError('no_match', `No element matches the selector ${JSON.stringify(selector)}.`);
    const snap = snapshotElements(doc, matches.slice(0, MAX_MATCHES), builder);
    ctx.refs = snap.refs;
    const render = createRenderer(ctx);
    const parts: string[] = [];
    let size = 0;
    for (const root of snap.roots) {
      if (size > limit) break;
      const part = render(root, limit - size);
      if (part) parts.push(part);
      size += part.length + 7;
    }
    content = parts.join('\n\n---\n\n');
    if (!content) throw new ExtractError('empty', `The element(s) matching ${JSON.stringify(selector)} have no visible content.`);
    usedSelector = selector;
  } else {
    const snap = snapshotDocument(doc, builder, Math.max(PRUNE_FACTOR * limit, MIN_PRUNE_TEXT));
    cutShort = snap.cut;
    ctx.refs = snap.refs;
    lap('snapshot');
    const render = createRenderer(ctx);
    const body = snap.roots[0];
    if (!body) throw new ExtractError('empty', 'The page has no body to read.');
    let article: { root: Element; words: number; title: string } | null = null;
    try {
      const parsed = new Defuddle(snap.doc, defuddleOptions(url, isRendered(doc))).parse();
      const holder = snap.doc.createElement('div');
      holder.innerHTML = parsed.content;
      article = { root: holder, words: parsed.wordCount, title: parsed.title };
    } catch {
      article = null; // Defuddle gave up: the body is still there
    }
    lap('defuddle');
    title ||= normalize(article?.title ?? '');
    if (article && article.words >= MIN_ARTICLE_WORDS) {
      const top = article.root.firstElementChild;
      const liveRoot = top && article.root.childElementCount === 1 ? liveOf(top, snap.refs) : undefined;
      usedSelector = (liveRoot && liveRoot !== doc.body && builder.selectorFor(liveRoot)) || 'body';
      content = render(article.root, limit);
      lap('render');
      const controls = pageControls(snap.refs, ctx);
      lap('controls');
      if (controls) content = content ? `${content}\n\n---\n\n${controls}` : controls;
    } else {
      content = render(body, limit);
      usedSelector = 'body';
      lap('render');
    }
    if (!content) throw new ExtractError('empty', 'The page has no visible content.');
  }

  const cut = truncate(content, limit);
  return { title, url, content: cut.content, truncated: cut.truncated || cutShort, usedSelector };
}

/**
 * The page URL and the base that relative links resolve against: the document's own base, unless
 * the caller names another URL for the page (then a <base href> is resolved against that URL).
 */
function urls(doc: Document, url: string): { pageUrl: URL | null; baseUrl: string } {
  let pageUrl: URL | null = null;
  try {
    pageUrl = new URL(url);
  } catch {
    pageUrl = null;
  }
  if (url === doc.URL || !pageUrl) return { pageUrl, baseUrl: doc.baseURI };
  const base = doc.querySelector('base[href]')?.getAttribute('href');
  try {
    return { pageUrl, baseUrl: base ? new URL(base, url).href : url };
  } catch {
    return { pageUrl, baseUrl: url };
  }
}

/** Drops matches inside an earlier match (their text is already in it). Input in document order. */
function outermost(elements: Element[]): Element[] {
  const out: Element[] = [];
  for (const el of elements) {
    const last = out[out.length - 1];
    if (!last || !last.contains(el)) out.push(el);
  }
  return out;
}

export function truncate(content: string, max: number): { content: string; truncated: boolean } {
  if (content.length <= max) return { content, truncated: false };
  let cut = content.lastIndexOf('\n', max);
  if (cut < max * 0.5) cut = content.lastIndexOf(' ', max);
  if (cut < max * 0.5) cut = max;
  let out = content.slice(0, cut).trimEnd();
  // Never end on half an annotation.
  const open = out.lastIndexOf('{');
  if (open > out.lastIndexOf('}') && out[open - 1] !== '\\') out = out.slice(0, open).trimEnd();
  return { content: out, truncated: true };
}
