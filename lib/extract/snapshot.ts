/**
 * An inert copy of the page as the user sees it, to extract from without touching the live DOM.
 *
 * The copy (a cloned Document, which has no browsing context: no scripts run, nothing loads,
 * custom elements are not upgraded) keeps a link back to the live elements: every element that
 * can matter carries REF_ATTR = "pw<n>", and refs[n] is the live element. Hidden subtrees are
 * dropped, open shadow roots are flattened into their hosts (slots filled with the light DOM), and
 * same-origin iframes are inlined, so the extractor reads one tree.
 */
import type { SelectorBuilder } from './selectors';
import { HIDDEN, hiddenTest, TEXT_HIDDEN, type HiddenTest } from './visibility';

/**
 * Defuddle strips every attribute not on its allow-list from the content it returns, data-* included.
 * `voffset` is on that list (a MathML attribute that no HTML element uses), so a ref survives
 * Defuddle's cleanup, and its heading and paragraph rewrites, which copy allowed attributes.
 * Values are "pw<n>", which a real MathML voffset (a length) never is.
 */
export const REF_ATTR = 'voffset';
const REF_PREFIX = 'pw';
const HTML_NS = 'http://www.w3.org/1999/xhtml';

/** Left to Defuddle as they are (JSON-LD lives in scripts); never hidden-checked or referenced. */
const PASSIVE = new Set(['script', 'style', 'template', 'link', 'meta', 'title', 'base']);
/** Their descendants are not addressed one by one. */
const OPAQUE = new Set(['select', 'datalist', 'picture', 'video', 'audio', 'object', 'canvas', 'noscript', 'iframe', 'frame']);
/** Inline text-level tags: no annotation ever points at them, so no ref (keeps the copy light). */
const NO_REF = new Set([
  'span', 'b', 'i', 'em', 'strong', 'small', 'sup', 'sub', 'br', 'wbr', 'img', 'source', 'code', 'font', 'abbr',
  'cite', 'mark', 's', 'u', 'q', 'time', 'tr', 'tbody', 'thead', 'tfoot', 'col', 'colgroup', 'li', 'p', 'dt', 'dd',
  'del', 'ins', 'kbd', 'var', 'samp', 'bdi', 'bdo', 'ruby', 'rt', 'rp', 'data', 'track', 'area', 'map', 'param',
  'hr', 'option', 'optgroup', 'figcaption', 'caption', 'legend',
]);
/**
 * Text-level tags: most of a page's elements. The browser is asked about one only when it holds
 * text of its own (see HiddenTest); otherwise its markup is checked.
 */
const INLINE = new Set(['span', 'a', 'b', 'i', 'em', 'strong', 'small', 'sup', 'sub', 'br', 'wbr', 'img', 'code', 'font', 'abbr', 'cite', 'mark', 's', 'u', 'q', 'time', 'del', 'ins', 'kbd', 'var', 'samp', 'bdi', 'bdo', 'source', 'path']);
const MAX_NESTING = 8;

export interface Snapshot {
  /** The inert copy (with the page's <head>: Defuddle reads metadata there). */
  doc: Document;
  /** The copies of the roots asked for (the body, or each element a selector matched). */
  roots: Element[];
  refs: Element[];
}

/** A document snapshot whose page chrome may be set aside (see setAsideChrome). */
export interface DocumentSnapshot extends Snapshot {
  /** The copy holds only the first part of the page (a huge page). */
  cut: boolean;
  /** The page chrome setAsideChrome took out of the copy (navigation, banners, footers, asides), in order. */
  aside: Element[];
}

interface Walk {
  out: Document;
  refs: Element[];
  builder: SelectorBuilder;
  depth: number;
}

/** The index in refs of the live element a node of the copy stands for (refs are given in document order), or NaN. */
export function refIndex(node: Element): number {
  const ref = node.getAttribute(REF_ATTR);
  return ref && ref.startsWith(REF_PREFIX) ? Number(ref.slice(REF_PREFIX.length)) : NaN;
}

/** The live element a node of the copy stands for. */
export function liveOf(node: Element, refs: Element[]): Element | undefined {
  const i = refIndex(node);
  return Number.isNaN(i) ? undefined : refs[i];
}

/**
 * The whole page, or on a huge page its first `maxText` characters of text (in document order, with
 * everything before them): the output stops at maxLength anyway, and Defuddle's cost grows with the
 * page (on a 5 MB page it alone took longer than the tool may). `cut` says the copy is partial.
 */
export function snapshotDocument(doc: Document, builder: SelectorBuilder, maxText = Infinity, maxElements = MAX_ELEMENTS): DocumentSnapshot {
  const stop = doc.body ? cutPoint(doc.body, maxText, maxElements) : null;
  const out = stop ? prefixCopy(doc, stop) : (doc.cloneNode(true) as Document);
  const refs: Element[] = [];
  const roots: Element[] = [];
  if (doc.body && out.body) {
    copyTree(doc.body, out.body, hiddenTest(doc), { out, refs, builder, depth: 0 }, true);
    if (out.body) roots.push(out.body); // gone if the body itself is hidden
  }
  // First, so that the passes below (and Defuddle) never see the blank boxes.
  if (out.body) pruneEmpty(out.body);
  // Code and styles are not content, and Defuddle clones the document again (up to four times)
  // and walks every stylesheet rule: without them it runs about a third faster.
  for (const el of Array.from(out.querySelectorAll(STRIP))) el.remove();
  dropBrokenJsonLd(out);
  // Icon paths and long option lists: never text for the reader, and the controls are read live.
  for (const el of Array.from(out.querySelectorAll(EMPTY))) el.replaceChildren();
  const aside = out.body ? setAsideChrome(out.body) : [];
  if (out.body) collapseWhitespace(out.body);
  return { doc: out, roots, refs, cut: !!stop, aside };
}

/** Where whitespace is content (turndown keeps <pre> as it is; JSON-LD is parsed; a field's text is its value). */
const KEEPS_WHITESPACE = 'pre, textarea, script, xmp, listing, plaintext';

/**
 * Collapses each run of HTML whitespace in the copy's text to one space, as turndown does to the
 * Markdown it writes anyway (outside <pre>), so the output reads the same. Much of a page's text
 * is source indentation (two thirds of it or more on most Readability pages), and Defuddle
 * reads the text of the whole body several times over (word counts, pattern searches, link
 * density), serializes what it keeps, and we parse that again: all of it gets shorter.
 */
function collapseWhitespace(body: Element): void {
  const guarded = !!body.querySelector(KEEPS_WHITESPACE);
  const walker = body.ownerDocument.createTreeWalker(body, 4 /* NodeFilter.SHOW_TEXT */);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const text = n.nodeValue!;
    if (!WHITESPACE_TO_COLLAPSE.test(text)) continue;
    if (guarded && n.parentElement?.closest(KEEPS_WHITESPACE)) continue;
    n.nodeValue = text.replace(WHITESPACE_RUN, ' ');
  }
}
/** turndown's whitespace (not \f, nor no-break spaces): a run of it, and a text that has one worth collapsing. */
const WHITESPACE_RUN = /[ \r\n\t]+/g;
const WHITESPACE_TO_COLLAPSE = /[\r\n\t]|  /;

/**
 * Navigation, banners, footers and asides, set aside before the extractors read the copy: they are
 * never the main content, the extractors pay for every element in them (Defuddle matches 166
 * selectors against each and scores the text), and they are often a third to half of a page's
 * elements. Their live elements keep their refs, so the controls they hold still reach the
 * page-controls section, and a page without an article names them as set aside (content.ts).
 * Kept where Defuddle would keep them: being or holding something that may be the main content (its
 * entry points), or holding footnotes (which it protects).
 */
const BANNER = '[role="banner" i], #header, .header:not(.banner)';
const CHROME = `nav, [role="navigation" i], footer, aside:not([class*="callout"]), [role*="complementary" i], header, ${BANNER}`;
/** A <header> with paragraphs or pictures (an article's own) is kept: Defuddle keeps those. */
const HEADER_CONTENT = 'p + p, img';
const KEEP_CHROME = [
  // Defuddle's content entry points (ENTRY_POINT_ELEMENTS, but body)
  '#post', '.post-content', '.post-body', '.article-content', '#article-content', '.js-article-content', '.article_post',
  '.article-wrapper', '.entry-content', '.content-article', '.instapaper_body', '.post', '.markdown-body', 'article',
  '[role="article"]', 'main', '[role="main"]', '.article-body', '#content',
  // footnote lists, which it never removes
  '[class*="footnote"]', '[id*="footnote"]', '[role^="doc-"]', 'ol.references', 'ol[class*="references"]',
].join(', ');

/** Takes the page chrome out of `body` (see CHROME); returns what it took. */
function setAsideChrome(body: Element): Element[] {
  const taken: Element[] = [];
  // In document order (jsdom lists a selector list's matches group by group), outer before inner.
  const found = Array.from(body.querySelectorAll(CHROME)).sort((a, b) => (a.compareDocumentPosition(b) & 4 /* FOLLOWING */ ? -1 : 1));
  for (const el of found) {
    if (!body.contains(el)) continue; // inside chrome already taken
    if (el.matches(KEEP_CHROME) || el.querySelector(KEEP_CHROME)) continue;
    if (el.localName === 'header' && !el.matches(BANNER) && el.querySelector(HEADER_CONTENT)) continue;
    taken.push(el);
    el.remove();
  }
  return taken;
}

/**
 * Most elements with content (see cutPoint) the copy holds. Defuddle's time grows with the elements
 * as much as with the text: it matches its selectors against each one and scores each block (a body
 * of 50,000 one-word divs took 1.6 s in Chromium and 2.4 s in Firefox, past the time a read may
 * take). Real pages stay far below: the largest of trafilatura's 990 pages has about 10,000 tags,
 * scripts and head included.
 */
export const MAX_ELEMENTS = 20_000;

/**
 * The node where the body passes `maxText` characters of visible-ish text, or `maxElements`
 * elements that hold something (an empty leaf, a spacer or a placeholder, is left out of the copy
 * anyway: see pruneEmpty); or null when the whole body fits.
 */
function cutPoint(body: Element, maxText: number, maxElements: number): Node | null {
  // Native and fast: most pages are far below both budgets, scripts and all.
  const textFits = !Number.isFinite(maxText) || (body.textContent?.length ?? 0) <= maxText;
  if (textFits && body.getElementsByTagName('*').length <= maxElements) return null;
  const walker = body.ownerDocument.createTreeWalker(body, 1 | 4 /* NodeFilter.SHOW_ELEMENT | SHOW_TEXT */);
  let text = 0;
  let elements = 0;
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (n.nodeType === 1) {
      if (n.firstChild && ++elements > maxElements) return n;
      continue;
    }
    const parent = n.parentNode?.nodeName;
    if (parent === 'SCRIPT' || parent === 'STYLE' || parent === 'NOSCRIPT' || parent === 'TEMPLATE') continue;
    text += n.nodeValue?.length ?? 0;
    if (text > maxText) return n;
  }
  return null;
}

/**
 * Structured data that does not parse (a trailing comma, a template placeholder, cut short: common
 * on real pages) goes from the copy: Defuddle would log a SyntaxError for each into the console of
 * the user's page, and it cannot use them anyway.
 */
function dropBrokenJsonLd(out: Document): void {
  for (const script of Array.from(out.querySelectorAll('script[type="application/ld+json" i]'))) {
    try {
      JSON.parse(jsonLdText(script.textContent ?? ''));
    } catch {
      script.remove();
    }
  }
}

/** The JSON in a JSON-LD script as Defuddle reads it: comments and CDATA wrappers taken off. */
function jsonLdText(raw: string): string {
  return raw
    .replace(/\/\*[\s\S]*?\*\/|^\s*\/\/.*$/gm, '')
    .replace(/^\s*<!\[CDATA\[([\s\S]*?)\]\]>\s*$/, '$1')
    .replace(/^\s*(\*\/|\/\*)\s*|\s*(\*\/|\/\*)\s*$/g, '')
    .trim();
}

/**
 * Generic boxes that hold nothing at all (no text, no child) and that nobody can act on.
 * A page of 50,000 empty divs (a virtualised list's placeholders, an ad grid, a broken template)
 * otherwise costs Defuddle and turndown as much as 50,000 paragraphs: 95 s in jsdom, 1.3 s in
 * Chromium. The line break an empty block stands for a space keeps.
 */
const PRUNABLE = new Set(['div', 'span', 'p', 'section', 'font', 'center', 'i', 'b', 'em', 'strong', 'small', 'u', 's']);
const BLOCK_BOXES = new Set(['div', 'p', 'section', 'center']);
const ACTIONABLE_ATTRS = ['role', 'tabindex', 'contenteditable', 'onclick', 'aria-label', 'aria-labelledby'];

/** A prunable box with no element inside and no text but whitespace. */
function isBlank(el: Element): boolean {
  return PRUNABLE.has(el.localName) && !el.firstElementChild && !NOT_BLANK.test(el.textContent ?? '');
}
const NOT_BLANK = /[^ \t\r\n\f]/;

function pruneEmpty(body: Element): void {
  // Children before parents: a wrapper of blank boxes is blank once they are gone. Each parent's
  // children are rebuilt in one go: removing 50,000 siblings where they are is quadratic in jsdom.
  const visit = (el: Element): boolean => {
    let blanks = 0;
    for (let c = el.firstElementChild; c; c = c.nextElementSibling) if (visit(c)) blanks++;
    if (blanks) {
      const kept: Node[] = [];
      // (Never el.childNodes: jsdom then recomputes that live list on every removal below.)
      for (let n = el.firstChild; n; n = n.nextSibling) {
        if (n.nodeType === 1 && (n as Element).hasAttribute(BLANK)) {
          // An empty block still breaks the line it sits in: a space keeps the words on either side
          // apart (one per run of boxes). An empty inline box shows nothing ("alpha<span></span>beta").
          const last = kept[kept.length - 1];
          const block = BLOCK_BOXES.has((n as Element).localName);
          if (block && last && !(last.nodeType === 3 && /\s$/.test(last.nodeValue ?? ''))) kept.push(body.ownerDocument.createTextNode(' '));
        } else kept.push(n);
      }
      // From the front: each removal is then cheap in jsdom too (it indexes the removed child).
      while (el.firstChild) el.firstChild.remove();
      el.append(...kept);
    }
    const blank = isBlank(el) && el !== body && !ACTIONABLE_ATTRS.some((a) => el.hasAttribute(a));
    if (blank) el.setAttribute(BLANK, '');
    return blank;
  };
  visit(body);
}
/** Marks a blank box until its parent drops it. */
const BLANK = 'data-pw-blank';

/**
 * A copy of `doc` holding everything up to `stop` in document order: the head, then the body cut
 * there. Its elements are exactly the first ones of the page's, in the same order, so the copy and
 * the page still pair up element by element.
 */
function prefixCopy(doc: Document, stop: Node): Document {
  const out = doc.cloneNode(false) as Document;
  const html = out.importNode(doc.documentElement, false);
  out.append(html);
  if (doc.head) html.append(out.importNode(doc.head, true));
  html.append(prefix(out, doc.body!, stop));
  return out;
}

function prefix(out: Document, src: Element, stop: Node): Element {
  const copy = out.importNode(src, false);
  for (let child = src.firstChild; child; child = child.nextSibling) {
    if (child === stop || child.contains(stop)) {
      // An element where the budget ran out goes in without its content.
      if (child === stop) copy.append(out.importNode(child, child.nodeType !== 1));
      else copy.append(child.nodeType !== 1 ? out.importNode(child, true) : prefix(out, child as Element, stop));
      break;
    }
    copy.append(out.importNode(child, true));
  }
  return copy;
}

/** (<noframes> is what browsers without frames show: raw text in a frameset page.) */
const STRIP = 'script:not([type="application/ld+json"]), style, link, template, noframes';
const EMPTY = 'svg, select, datalist';

/** A copy of each element (in any tree, shadow or frame) under the body of a fresh inert document. */
export function snapshotElements(doc: Document, elements: Element[], builder: SelectorBuilder): Snapshot {
  const out = doc.implementation.createHTMLDocument(doc.title);
  const base = out.createElement('base');
  base.href = doc.baseURI; // relative URLs in the copy resolve as in the page
  out.head.append(base);
  const refs: Element[] = [];
  const roots: Element[] = [];
  for (const el of elements) {
    const holder = out.createElement('div');
    const copy = out.importNode(el, true);
    holder.append(copy);
    out.body.append(holder);
    copyTree(el, copy, hiddenTest(el.ownerDocument), { out, refs, builder, depth: 0 }, true);
    roots.push(holder);
  }
  return { doc: out, roots, refs };
}

/**
 * Walks a live subtree and its structural copy in step (querySelectorAll lists both in the same
 * document order), referencing, pruning hidden subtrees, then flattening shadow roots and frames.
 */
function copyTree(live: Element | ShadowRoot, copy: Element | DocumentFragment, hidden: HiddenTest, w: Walk, includeRoot: boolean): void {
  const liveAll = live.querySelectorAll('*');
  const copyAll = copy.querySelectorAll('*');
  const drop: Element[] = [];
  const mute: Element[] = [];
  const hosts: [Element, Element][] = [];
  const frames: [Element, Element][] = [];
  let skipUnder: Element | null = null;

  const visit = (l: Element, c: Element): void => {
    if (skipUnder) {
      if (skipUnder.contains(l)) return;
      skipUnder = null; // document order: once out of the subtree, never back in
    }
    const tag = l.localName;
    // A blank box (see pruneEmpty) has nothing to hide and nothing to point at: most of a page
    // of 50,000 empty divs.
    if (!l.firstChild && PRUNABLE.has(tag) && !ACTIONABLE_ATTRS.some((a) => l.hasAttribute(a))) return;
    if (PASSIVE.has(tag)) {
      skipUnder = l;
      return;
    }
    const verdict = hidden(l, INLINE.has(tag));
    if (verdict === HIDDEN) {
      drop.push(c);
      skipUnder = l;
      return;
    }
    if (verdict === TEXT_HIDDEN) mute.push(c);
    if (l.namespaceURI !== HTML_NS) {
      skipUnder = l; // svg, math: one piece
      return;
    }
    if (!NO_REF.has(tag)) {
      c.setAttribute(REF_ATTR, REF_PREFIX + w.refs.length);
      w.refs.push(l);
    }
    if (l.shadowRoot) hosts.push([l, c]);
    if (tag === 'iframe' || tag === 'frame') frames.push([l, c]);
    if (OPAQUE.has(tag)) skipUnder = l;
  };

  if (includeRoot && live.nodeType === 1) visit(live as Element, copy as Element);
  // The copy is the same tree, or (prefixCopy) its first elements: pair them by position.
  if (copyAll.length <= liveAll.length) {
    for (let i = 0; i < copyAll.length; i++) visit(liveAll[i]!, copyAll[i]!);
  }
  for (const c of drop) c.remove();
  // A space keeps the words on either side apart.
  for (const c of mute) for (const n of Array.from(c.childNodes)) if (n.nodeType === 3) n.nodeValue = ' ';
  if (w.depth >= MAX_NESTING) return;
  for (const [l, c] of hosts) flattenShadow(l, c, hidden, w);
  for (const [l, c] of frames) inlineFrame(l, c, w);
}

function flattenShadow(host: Element, copy: Element, hidden: HiddenTest, w: Walk): void {
  const root = host.shadowRoot!;
  const content = w.out.createDocumentFragment();
  for (const child of Array.from(root.childNodes)) content.append(w.out.importNode(child, true));
  copyTree(root, content, hidden, { ...w, depth: w.depth + 1 }, false);

  // Fill slots the way the browser renders them: named slots take the light children with that
  // slot="…", the default slot takes the rest, an unfilled slot shows its fallback content.
  const named = new Map<string, Node[]>();
  const rest: Node[] = [];
  for (const child of Array.from(copy.childNodes)) {
    const slot = child.nodeType === 1 ? (child as Element).getAttribute('slot') : null;
    if (slot) named.set(slot, [...(named.get(slot) ?? []), child]);
    else rest.push(child);
  }
  let defaultUsed = false;
  for (const slot of Array.from(content.querySelectorAll('slot'))) {
    const name = slot.getAttribute('name');
    let assigned: Node[] | undefined;
    if (name) {
      assigned = named.get(name);
      named.delete(name);
    } else if (!defaultUsed) {
      assigned = rest;
      defaultUsed = true;
    }
    if (assigned && assigned.length) slot.replaceWith(...assigned);
    else slot.replaceWith(...Array.from(slot.childNodes));
  }
  copy.replaceChildren(content);
}

function inlineFrame(frame: Element, copy: Element, w: Walk): void {
  let frameDoc: Document | null = null;
  try {
    frameDoc = (frame as HTMLIFrameElement).contentDocument;
  } catch {
    return; // cross-origin: stays an <iframe> in the copy
  }
  if (!frameDoc?.body) return;
  w.builder.registerFrame(frameDoc, frame);
  const body = w.out.importNode(frameDoc.body, true);
  copyTree(frameDoc.body, body, hiddenTest(frameDoc), { ...w, depth: w.depth + 1 }, false);
  // A div standing for the frame: its ref is the live <iframe>, so the renderer can name it.
  const holder = w.out.createElement('div');
  holder.setAttribute(REF_ATTR, copy.getAttribute(REF_ATTR) ?? '');
  holder.append(...Array.from(body.childNodes));
  copy.replaceWith(holder);
}

