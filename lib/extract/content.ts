/**
 * Which part of the page is its main content.
 *
 * Mozilla Readability (Firefox's Reader View) chooses first: measured the same way on pages
 * nobody here tuned for, it beat Defuddle both on trafilatura's 990-page corpus (F1 0.884 vs
 * 0.876 as text, 0.863 through this pipeline) and on the held-out news set the reviewers use
 * (0.951 vs 0.929), and it is several times faster (63 vs 863 ms median per page in jsdom).
 * Defuddle stays as the second opinion for what Readability finds too little in (index pages,
 * short posts: it has site extractors and an index-page mode). Then block-level boilerplate
 * removal (boilerplate.ts) inside whatever was chosen.
 *
 * When neither finds an article (an app, a form, a dashboard), the page is NOT read whole: its
 * body is, with the page chrome (navigation, banners, footers, asides) set aside, and the result
 * says what was set aside and that `selector` reads it.
 */
import { Readability } from '@mozilla/readability';
import Defuddle, { type DefuddleOptions } from 'defuddle';
import { pruneBoilerplate } from './boilerplate';
import { addLead } from './lead';
import { summaryCover, summaryWords } from './summary';
import { liveOf, REF_ATTR, type DocumentSnapshot } from './snapshot';

export interface MainContent {
  /** A holder (in the copy's document) whose children are the content. */
  root: Element;
  /** Which extractor chose it; 'page': none did, this is the body without its chrome. */
  by: 'readability' | 'defuddle' | 'page';
  /** The extractors' title, for pages without a <title>. */
  title: string;
  /** The live element that holds all of the content (used_selector), when there is one. */
  liveRoot: Element | undefined;
}

/** Below this much text (Readability's own threshold, in characters), an extractor found no article. */
export const MIN_ARTICLE_CHARS = 500;
/**
 * Readability finding less than this asks Defuddle too, whose choice wins when it holds more than
 * SECOND_OPINION_FACTOR times the text: Readability sometimes settles on one box of a page (an
 * author bio, a teaser) beside a long article. On a 99-page sample of trafilatura's corpus:
 * F1 0.888 → 0.899, for a Defuddle run on about a third of the pages.
 */
const SECOND_OPINION_CHARS = 3_000;
const SECOND_OPINION_FACTOR = 2;
/**
 * A long box that holds less than this share of the page's description is likely not the article
 * (Readability chose an embedded table of MPs, or the next story on the page): Defuddle is asked,
 * and wins when its box holds at least ARTICLE_COVER of the description and clearly more than
 * Readability's. On trafilatura's 990 pages the question is asked on 10 (1%).
 */
const OFF_ARTICLE_COVER = 0.4;
const ARTICLE_COVER = 0.8;
const COVER_MARGIN = 0.3;
/** CJK text says as much in a third of the characters. */
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu;

/**
 * Defuddle, tuned for speed on a live page (measured on the Readability pages by the bench):
 * - standardize off: its HTML clean-up is for HTML output; turndown does our normalising;
 * - content-pattern removal off: ~20% of Defuddle's time, no measurable F1 change;
 * - hidden-element removal off when the page is rendered: the snapshot already dropped what the
 *   browser does not show (computed styles included), which Defuddle's markup heuristics cannot see.
 */
function defuddleOptions(url: string, rendered: boolean): DefuddleOptions {
  return { url, standardize: false, removeContentPatterns: false, removeHiddenElements: !rendered, useAsync: false };
}

/** `lap`: the bench's stopwatch, told when each extractor and pass ends. */
export function mainContent(snap: DocumentSnapshot, url: string, rendered: boolean, lap: (stage: string) => void = () => {}): MainContent {
  const body = snap.roots[0]!;
  let best: { root: Element; by: MainContent['by']; title: string } | null = null;
  let size = 0;

  let defuddle: ReturnType<typeof byDefuddle> | undefined;
  const askDefuddle = () => {
    if (defuddle !== undefined) return defuddle;
    defuddle = byDefuddle(snap.doc, url, rendered);
    lap('defuddle');
    return defuddle;
  };

  const readability = byReadability(snap.doc);
  lap('readability');
  if (readability) {
    best = { ...readability, by: 'readability' };
    size = textSize(readability.root);
  }
  if (size < SECOND_OPINION_CHARS) {
    const other = askDefuddle() ? textSize(defuddle!.root) : 0;
    if (defuddle && (size < MIN_ARTICLE_CHARS ? other > size : other > SECOND_OPINION_FACTOR * size)) {
      best = { ...defuddle, by: 'defuddle' };
      size = other;
    }
  } else if (readability) {
    const summary = summaryWords(snap.doc);
    const cover = summary ? summaryCover(summary, readability.root) : 1;
    if (summary && cover < OFF_ARTICLE_COVER && askDefuddle() && textSize(defuddle!.root) >= MIN_ARTICLE_CHARS) {
      const other = summaryCover(summary, defuddle!.root);
      if (other >= ARTICLE_COVER && other >= cover + COVER_MARGIN) {
        best = { ...defuddle!, by: 'defuddle' };
        size = textSize(defuddle!.root);
      }
    }
  }
  const chosen = best && size >= MIN_ARTICLE_CHARS ? prunedArticle(best) : null;
  lap('prune');
  if (chosen) return withLead(chosen, snap, lap);
  // Readability's box was mostly furniture (a comment thread, an author box): the article may
  // still be elsewhere, and Defuddle scores the page differently. Only then the body.
  if (best?.by === 'readability' && askDefuddle() && textSize(defuddle!.root) >= MIN_ARTICLE_CHARS) {
    const second = prunedArticle({ ...defuddle!, by: 'defuddle' });
    lap('prune');
    if (second) return withLead(second, snap, lap);
  }
  // No article: the body, chrome set aside (snapshotDocument did that), controls in place.
  const holder = snap.doc.createElement('div');
  holder.append(...Array.from(body.childNodes));
  pruneBoilerplate(holder, { linkLists: false });
  dropSoftHyphens(holder);
  return { root: holder, by: 'page', title: best?.title ?? '', liveRoot: liveOf(body, snap.refs) };
}

/**
 * The article with its lead put back (lead.ts). used_selector names the element that holds the
 * body as the extractor chose it: the lead may sit in a header far up the page.
 */
function withLead(found: Omit<MainContent, 'liveRoot'>, snap: DocumentSnapshot, lap: (stage: string) => void): MainContent {
  const liveRoot = commonLive(found.root, snap.refs);
  addLead(found.root, snap, found.title || snap.doc.title);
  lap('lead');
  return { ...found, liveRoot };
}

/** The extractor's choice with its furniture pruned, or null when little is left of it. */
function prunedArticle<T extends { root: Element; by: MainContent['by'] }>(found: T): T | null {
  pruneBoilerplate(found.root);
  if (textSize(found.root) < MIN_ARTICLE_CHARS / 2) return null;
  dropSoftHyphens(found.root);
  return found;
}

/** Readability on its own copy (it rewrites the tree it reads), or null. */
function byReadability(doc: Document): { root: Element; title: string } | null {
  try {
    const copy = doc.cloneNode(true) as Document;
    // keepClasses: boilerplate.ts judges blocks by their names. No JSON-LD: only the title would
    // come of it, and pages' broken JSON-LD is common.
    const parsed = new Readability(copy, { keepClasses: true, disableJSONLD: true, serializer: (n: Node) => n as Element }).parse();
    const content = parsed?.content as Element | null | undefined;
    if (!content) return null;
    const holder = doc.createElement('div');
    holder.append(doc.importNode(content, true));
    return { root: holder, title: parsed?.title ?? '' };
  } catch {
    return null; // it gave up: Defuddle or the body still serve
  }
}

function byDefuddle(doc: Document, url: string, rendered: boolean): { root: Element; title: string } | null {
  try {
    const parsed = new Defuddle(doc, defuddleOptions(url, rendered)).parse();
    const holder = doc.createElement('div');
    holder.innerHTML = parsed.content; // an inert document: nothing runs or loads
    return { root: holder, title: parsed.title };
  } catch {
    return null;
  }
}

const SOFT_HYPHEN = '\u00ad';

/**
 * Soft hyphens (&shy;, German and Dutch CMSs put one in every long word) are invisible unless a
 * line breaks there; left in, they split each such word in two for a reader and for a search.
 */
function dropSoftHyphens(root: Element): void {
  if (!root.textContent?.includes(SOFT_HYPHEN)) return;
  const walker = root.ownerDocument.createTreeWalker(root, 4 /* NodeFilter.SHOW_TEXT */);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node.nodeValue?.includes(SOFT_HYPHEN)) node.nodeValue = node.nodeValue.replaceAll(SOFT_HYPHEN, '');
  }
}

/** Characters of text, CJK counted thrice (a CJK character carries about as much as three Latin ones). */
function textSize(root: Element): number {
  const text = (root.textContent ?? '').replace(/\s+/g, ' ').trim();
  return text.length + 2 * (text.match(CJK)?.length ?? 0);
}

/**
 * The innermost live element holding the content: the common ancestor of the live elements behind
 * the innermost refs of the copy (an extractor's wrappers, and the parent Readability keeps for
 * siblings that it then leaves out, are not content of their own).
 */
function commonLive(root: Element, refs: Element[]): Element | undefined {
  const nodes = Array.from(root.querySelectorAll(`[${REF_ATTR}]`));
  const outer = new Set<Element>();
  for (const node of nodes) {
    for (let p = node.parentElement; p && p !== root; p = p.parentElement) {
      if (!p.hasAttribute(REF_ATTR)) continue;
      if (outer.has(p)) break;
      outer.add(p);
    }
  }
  let common: Element | undefined;
  for (const node of nodes) {
    if (outer.has(node)) continue;
    const live = liveOf(node, refs);
    if (!live) continue;
    if (!common) common = live;
    else while (common && !common.contains(live)) common = common.parentElement ?? undefined;
    if (!common) return undefined;
  }
  return common;
}
