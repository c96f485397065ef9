/**
 * The page → annotated Markdown pipeline behind get_tab_content. It runs inside the page (an
 * injected script) on the live, rendered DOM, and in Node on a jsdom document (scripts/extract.ts):
 * the same code either way.
 *
 *   live DOM ──snapshot──► inert copy with refs ──content.ts──► main content ──turndown──► Markdown
 *      ▲                  (hidden dropped, shadow roots  (Readability,                (annotations read the
 *      └───────────────── and same-origin frames inlined)  Defuddle, boilerplate)      live elements by ref)
 *
 * All edits happen on copies; the one write to the live DOM is the `pw` stamp (selectors.ts, STAMP_ATTR)
 * on elements that no short selector names alone.
 */
import { formatRegion } from './annotate';
import { mainContent } from './content';
import { pageControls } from './controls';
import { ExtractError } from './errors';
import { normalize } from './interactive';
import { createRenderer, type RenderContext } from './markdown';
import { resolveSelectorAll, SelectorBuilder } from './selectors';
import { DEFAULT_MAX_LENGTH, MAX_CONTENT_LENGTH } from './limits';
import { liveOf, snapshotDocument, snapshotElements, type DocumentSnapshot } from './snapshot';
import { isRendered } from './visibility';

export { DEFAULT_MAX_LENGTH, MAX_CONTENT_LENGTH } from './limits';
export { ANNOTATION_NOTE, ANNOTATION_RE, stripAnnotations } from './annotate';
export { ExtractError, type ExtractErrorCode } from './errors';
export { LINK_NOTE, resolveSelector, resolveSelectorAll, SELECTOR_NOTE } from './selectors';

export interface ExtractOptions {
  /** Read only what this selector (">>>" allowed) matches. */
  selector?: string;
  /**
   * Cut the content at this many characters (at a line end when possible). Default
   * DEFAULT_MAX_LENGTH, at most MAX_CONTENT_LENGTH.
   */
  maxLength?: number;
  /** The page URL to report and resolve links against (default: the document's). */
  url?: string;
  /**
   * false: no {selector} annotations and no page-controls section. For a fetched copy of a page
   * (web_fetch): nothing there can be acted on, so selectors would be tokens for nothing.
   */
  annotate?: boolean;
}

export interface ExtractResult {
  title: string;
  url: string;
  content: string;
  truncated: boolean;
  /** The selector given, or one for the root the extractor chose ("main", "article#post", "body"). */
  usedSelector: string;
  /** [selector, role, accessible name] of each control annotated (at most MAX_RECORDED), for page_action. */
  controls?: [string, string, string][];
}

/** Controls recorded per read: a page's worth (page controls are capped at 40; forms rarely have hundreds). */
const MAX_RECORDED = 2000;

/**
 * The copy holds at most PRUNE_FACTOR × maxLength characters of page text (boilerplate comes
 * first, and Markdown is longer than its text, so twice the limit leaves room), between
 * MIN_PRUNE_TEXT and MAX_PRUNE_TEXT: Defuddle's time grows with the copy (a 1 MB page: ~250 ms at
 * 3×, ~110 ms at 2× in Chromium), and past ~800k characters of text it and turndown no longer fit
 * the 2 s a page read may take, whatever maxLength asks (truncated says so).
 */
const PRUNE_FACTOR = 2;
const MIN_PRUNE_TEXT = 60_000;
const MAX_PRUNE_TEXT = 800_000;
/** Most elements a selector may pick (each one becomes a section of the output). */
const MAX_MATCHES = 50;
const MATCH_SEPARATOR = '\n\n---\n\n';

/** Milliseconds per stage, filled when a bench passes an object (snapshot, defuddle, render, controls). */
export type StageTimings = Record<string, number>;

interface Read {
  content: string;
  usedSelector: string;
  /** The copy was cut short (a huge page): the content is incomplete even if it fits. */
  partial: boolean;
  /** The extractor's title, for pages without a <title>. */
  title?: string;
}

export function extractPage(doc: Document, opts: ExtractOptions = {}, timings?: StageTimings): ExtractResult {
  const url = opts.url ?? doc.URL;
  const asked = opts.maxLength !== undefined && Number.isFinite(opts.maxLength) ? Math.max(0, Math.floor(opts.maxLength)) : DEFAULT_MAX_LENGTH;
  const limit = Math.min(asked, MAX_CONTENT_LENGTH);
  const title = normalize(doc.title ?? '');
  const builder = opts.annotate === false ? new NoSelectors(doc) : new SelectorBuilder(doc);
  const controls: [string, string, string][] = [];
  const ctx: RenderContext = {
    doc, refs: [], builder, emitted: new Set(), title, ...urls(doc, url),
    ...(opts.annotate === false ? {} : { record: (sel: string, info: { name: string; label: string }) => void (controls.length < MAX_RECORDED && controls.push([sel, info.name, info.label])) }),
  };
  const selector = opts.selector?.trim();
  const read = selector ? readSelection(selector, ctx, limit) : readPage(url, ctx, limit, opts.annotate !== false, stopwatch(timings));
  const cut = truncate(read.content, limit);
  return {
    title: title || normalize(read.title ?? ''), url, content: cut.content, truncated: cut.truncated || read.partial, usedSelector: read.usedSelector,
    ...(controls.length ? { controls } : {}),
  };
}

/** What a selector names (every outermost match, in order, separated by ---). */
function readSelection(selector: string, ctx: RenderContext, limit: number): Read {
  const matches = outermost(resolveSelectorAll(ctx.doc, selector));
  if (!matches.length) throw new ExtractError('no_match', `No element matches the selector ${JSON.stringify(selector)}.`);
  const snap = snapshotElements(ctx.doc, matches.slice(0, MAX_MATCHES), ctx.builder);
  ctx.refs = snap.refs;
  const render = createRenderer(ctx);
  const parts: string[] = [];
  let size = 0;
  for (const root of snap.roots) {
    if (size > limit) break;
    const part = render(root, limit - size);
    if (part) parts.push(part);
    size += part.length + MATCH_SEPARATOR.length;
  }
  const content = parts.join(MATCH_SEPARATOR);
  if (!content) throw new ExtractError('empty', `The element(s) matching ${JSON.stringify(selector)} have no visible content.`);
  return { content, usedSelector: selector, partial: false };
}

/** The main content (content.ts), then the page controls it left out, and on a page without an article what was set aside. */
function readPage(url: string, ctx: RenderContext, limit: number, annotate: boolean, lap: (stage: string) => void): Read {
  const { doc, builder } = ctx;
  const snap = snapshotDocument(doc, builder, Math.min(Math.max(PRUNE_FACTOR * limit, MIN_PRUNE_TEXT), MAX_PRUNE_TEXT));
  ctx.refs = snap.refs;
  lap('snapshot');
  if (!snap.roots[0]) throw new ExtractError('empty', 'The page has no visible body.');
  const main = mainContent(snap, url, isRendered(doc), lap);
  lap('select');
  const render = createRenderer(ctx);
  let usedSelector = 'body';
  if (main.liveRoot && main.liveRoot !== doc.body) usedSelector = builder.selectorFor(main.liveRoot) ?? 'body';
  ctx.root = main.liveRoot; // named by used_selector: no region line of its own
  let content = render(main.root, limit);
  lap('render');
  const tail: string[] = [];
  if (annotate && main.by === 'page') {
    const note = asideNote(snap, ctx);
    if (note) tail.push(note);
  }
  const controls = annotate ? pageControls(snap.refs, ctx, { mode: main.by === 'page' ? 'page' : 'article', contentRoot: main.liveRoot }) : '';
  if (controls) tail.push(controls);
  lap('controls');
  if (tail.length) content = content ? `${content}\n\n---\n\n${tail.join('\n')}` : tail.join('\n');
  if (!content) throw new ExtractError('empty', 'The page has no visible content.');
  return { content, usedSelector, partial: snap.cut, title: main.title };
}

/** At most this many set-aside regions are named; the rest are counted. */
const MAX_ASIDE = 6;

/**
 * No article was found, so the body was read without its chrome: which regions were left out,
 * each with its selector, for the model to read one with `selector` if it needs it.
 */
function asideNote(snap: DocumentSnapshot, ctx: RenderContext): string {
  const named: string[] = [];
  let more = 0;
  for (const copy of snap.aside) {
    const live = liveOf(copy, snap.refs);
    const sel = live ? ctx.builder.selectorFor(live) : null;
    if (!live || !sel) continue;
    if (named.length >= MAX_ASIDE) {
      more++;
      continue;
    }
    named.push(formatRegion(regionName(live), '', sel));
  }
  if (!named.length) return '';
  return `${ASIDE_HEADER} ${named.join(' ')}${more ? ` +${more} more` : ''}`;
}

/** How the set-aside note starts: the regions follow on the same line. */
export const ASIDE_HEADER = '[set aside, read with selector:]';

function regionName(el: Element): string {
  const role = el.getAttribute('role')?.toLowerCase();
  if (role === 'navigation') return 'nav';
  if (role === 'banner') return 'header';
  if (role === 'complementary') return 'aside';
  return ['nav', 'header', 'footer', 'aside'].includes(el.localName) ? el.localName : 'region';
}

/** For copies nothing can act on: every selector is "none", so no annotation is written. */
class NoSelectors extends SelectorBuilder {
  override selectorFor(): string | null {
    return null;
  }
}

function stopwatch(timings: StageTimings | undefined): (stage: string) => void {
  let t = performance.now();
  return (stage) => {
    if (!timings) return;
    const now = performance.now();
    timings[stage] = (timings[stage] ?? 0) + now - t;
    t = now;
  };
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
