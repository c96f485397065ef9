/**
 * The article's lead (standfirst, dek, subtitle, "intro", "teaser-text", chapô, bajada): the
 * paragraph between the headline and the body that says what the article is about. Sites put it in
 * the article's <header> with the headline, and both extractors leave it out: Readability drops
 * elements named "header" and the title it already reports, and the snapshot sets a <header>
 * without paragraphs aside as page chrome. On trafilatura's corpus the lead was the largest single
 * cause of missed text (about a quarter of the segments missed on half of the pages).
 *
 * Found by position and name: after the headline (the <h1> the page's title names), before the
 * content's first block, short, not mostly links, and either named as a lead or set in the
 * headline's own header.
 */
import { furnitureName, linkDensity, nameParts, ownNames, wordCount } from './boilerplate';
import { normalize } from './interactive';
import { REF_ATTR, refIndex, type DocumentSnapshot } from './snapshot';

const LEAD_PARTS = new Set([
  'lead', 'lede', 'leader', 'intro', 'introduction', 'teaser', 'subtitle', 'subheadline', 'subhead', 'subline', 'standfirst', 'dek', 'deck',
  'summary', 'excerpt', 'abstract', 'description', 'chapo', 'chapeau', 'bajada', 'entradilla', 'strapline', 'descr', 'desc', 'sapo', 'kurztext', 'vorspann', 'anriss',
]);
const MIN_LEAD_WORDS = 8;
const MAX_LEAD_WORDS = 150;
/** A lead is a paragraph or two; more than this between headline and body is something else. */
const MAX_LEADS = 2;
const HEADING = /^h[1-6]$/;
/** Elements between headline and content looked at, at most (a page's whole header and menus are). */
const MAX_LOOKED = 400;
const WRAPPERS = new Set(['div', 'section', 'article', 'main']);

const names = (el: Element) => ownNames(el).split(/\s+/).filter(Boolean);
const leadPart = (name: string) => nameParts(name).some((p) => LEAD_PARTS.has(p));

function leadName(el: Element): boolean {
  return names(el).some(leadPart);
}

/** Named like furniture (a byline, a date line, share buttons) and not like a lead. */
function furniture(el: Element): boolean {
  return names(el).some((n) => furnitureName(n) && !leadPart(n));
}

/** Elements collected after the headline in each tree, at most: the lead search stops well before. */
const MAX_AFTER = 1_000;

/**
 * The elements of the copy (the body and the chrome set aside) that come after `headline` in the
 * page, in page order. Elements with a ref are ordered by it (refs are given in document order);
 * the rest (p, li, span: the snapshot gives them none) just after the element before them. Only
 * what follows the headline is collected and sorted: a page's whole copy need not be.
 */
function afterInPageOrder(trees: Element[], headline: Element): Element[] {
  const from = refIndex(headline);
  const keyed: [number, Element][] = [];
  for (const tree of trees) {
    const own = tree.contains(headline);
    const walker = tree.ownerDocument.createTreeWalker(tree, 1 /* NodeFilter.SHOW_ELEMENT */);
    let last = own ? from : refIndex(tree);
    if (!Number.isFinite(last)) last = -1;
    if (own) walker.currentNode = headline;
    let taken = 0;
    for (let el = (own ? walker.nextNode() : walker.currentNode) as Element | null; el && taken < MAX_AFTER; el = walker.nextNode() as Element | null) {
      const n = refIndex(el);
      if (Number.isFinite(n)) last = n;
      const key = Number.isFinite(n) ? n : last + 0.5;
      if (key <= from) continue;
      keyed.push([key, el]);
      taken++;
    }
  }
  // Stable: elements sharing a key keep their order in the tree.
  return keyed.sort((a, b) => a[0] - b[0]).map(([, el]) => el);
}

/** Letters and digits only, lower-cased: titles differ in punctuation, quotes and site suffixes. */
const squash = (s: string) => s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
const TITLE_CLASS = /(?:^|[-_\s])(?:entry|post|article|story)?-?(?:title|headline)(?:$|[-_\s])/i;

/** The article's headline: the <h1> (or a heading named as the title) that the page's title contains. */
function headlineOf(trees: Element[], title: string): Element | null {
  const t = squash(title);
  const headings: Element[] = [];
  for (const tree of trees) {
    for (const h of [tree, ...Array.from(tree.querySelectorAll('h1, h2, h3, h4, h5, h6'))]) {
      if (h.localName === 'h1' || (HEADING.test(h.localName) && TITLE_CLASS.test(h.getAttribute('class') ?? ''))) headings.push(h);
    }
  }
  const named = headings.find((h) => {
    const text = squash(h.textContent ?? '');
    return text.length >= 10 && t.length >= 10 && (t.includes(text) || text.includes(t));
  });
  if (named) return named;
  const h1s = headings.filter((h) => h.localName === 'h1');
  return h1s.length === 1 ? h1s[0]! : null;
}

/** How much of a block's text identifies it. */
const PREFIX = 80;
/**
 * Longer than any lead: 150 words of German run to about 1,400 characters. (CJK text has few
 * "words" between its punctuation, so the word cap alone would let a whole Chinese article through.)
 */
const MAX_LEAD_CHARS = 2_000;

/** normalize(raw).slice(0, PREFIX), from as little of `raw` as gives it. */
export function textStart(raw: string): string {
  for (let k = 2 * PREFIX; ; k *= 4) {
    const t = normalize(raw.slice(0, k));
    // Past PREFIX characters, the end's trim and a whitespace run cut in two no longer matter.
    if (t.length > PREFIX || k >= raw.length) return t.slice(0, PREFIX);
  }
}
const TEXT_BLOCKS = 'p, li, h1, h2, h3, h4, h5, h6, td, th, dd, dt, blockquote, pre, figcaption, div, section, article';
const BOXES = new Set(['div', 'section', 'article']);

/**
 * The start of the text of each block of the content (a set: one lookup per element the search
 * passes, where a search in the content's whole text cost milliseconds on long articles).
 */
function blockStarts(root: Element): Set<string> {
  const starts = new Set<string>();
  for (const el of Array.from(root.querySelectorAll(TEXT_BLOCKS))) {
    // A box counts when it holds text of its own; its paragraphs count on their own.
    if (BOXES.has(el.localName) && !Array.from(el.childNodes).some((n) => n.nodeType === 3 && (n.nodeValue ?? '').trim())) continue;
    const text = normalize(el.textContent ?? '');
    if (text) starts.add(text.slice(0, PREFIX));
  }
  return starts;
}

/**
 * Puts the article's lead at the start of `root` (the chosen content) when the extractor left it
 * out: what stands after the headline and before the first block of the content. Returns how many
 * blocks were added.
 */
export function addLead(root: Element, snap: DocumentSnapshot, title: string): number {
  const have = blockStarts(root);
  if (!have.size) return 0;
  const trees = [snap.roots[0], ...snap.aside].filter((t): t is Element => !!t);
  const headline = headlineOf(trees, title);
  if (!headline || !Number.isFinite(refIndex(headline))) return 0;
  const leads: Element[] = [];
  let looked = 0;
  for (const el of afterInPageOrder(trees, headline)) {
    if (leads.length >= MAX_LEADS) break;
    if (headline.contains(el) || el.contains(headline) || leads.some((l) => l.contains(el))) continue;
    // A lead sits right under the headline: a long stretch between them is other things.
    if (++looked > MAX_LOOKED) break;
    const raw = el.textContent ?? '';
    // A wrapper holding the whole article is far too long to be a lead, and normalising and
    // counting its text cost most of this search: only its start is read, to see the content begin.
    if (raw.length > MAX_LEAD_CHARS) {
      if (have.has(textStart(raw))) break;
      continue;
    }
    const text = normalize(raw);
    const words = wordCount(text);
    if (words >= MIN_LEAD_WORDS && have.has(text.slice(0, PREFIX))) break; // the content begins
    if (words < MIN_LEAD_WORDS || words > MAX_LEAD_WORDS) continue;
    if (el.querySelector('h1, h2, h3, h4, h5, h6, ul, ol, table, form, nav')) continue;
    if (linkDensity(el, text) > 0.3) continue;
    // A byline, a date, share buttons inside a "subhead" are not the lead.
    if (furniture(el) || (el.parentElement && furniture(el.parentElement)) || Array.from(el.querySelectorAll('[class], [id]')).some(furniture)) continue;
    const inHeader = !!el.closest('header, hgroup, .header')?.contains(headline);
    if (!leadName(el) && !(inHeader && (el.localName === 'p' || HEADING.test(el.localName)))) continue;
    leads.push(el);
  }
  if (!leads.length) return 0;
  // At the top of the content, inside its wrappers.
  let box: Element = root;
  while (box.children.length === 1 && WRAPPERS.has(box.firstElementChild!.localName)) box = box.firstElementChild!;
  let at: ChildNode | null = box.firstChild;
  while (at && (at.nodeType !== 1 || HEADING.test((at as Element).localName) || !(at.textContent ?? '').trim())) at = at.nextSibling;
  for (const lead of leads) {
    const p = root.ownerDocument.createElement('p');
    p.append(...Array.from(lead.cloneNode(true).childNodes));
    const ref = lead.getAttribute(REF_ATTR);
    if (ref) p.setAttribute(REF_ATTR, ref);
    box.insertBefore(p, at);
  }
  return leads.length;
}
