/**
 * Boilerplate left inside the main content after the base extractor chose it: share bars,
 * "related"/"read also" boxes, newsletter and promo boxes, tag and category lists, link lists.
 * The base extractors (Readability, Defuddle) decide at the level of the container; these decide
 * block by block inside it, as trafilatura does after choosing its body (its discard lists and
 * link-density test), which is where most of their precision difference comes from on pages
 * nobody tuned for.
 */
import { normalize } from './interactive';

/**
 * Words in a class or id that name page furniture, matched as whole parts of the name
 * ("post-share-bar", "relatedPosts", "c-newsletter"), never as substrings ("shareholder" is no
 * share bar, "adventure" no ad).
 */
const FURNITURE = new Set([
  'share', 'sharing', 'shares', 'sharebar', 'social', 'socials', 'sociable', 'addthis', 'sharethis', 'shariff',
  'related', 'recommended', 'recommendations', 'recommendation', 'readmore', 'also', 'more',
  'newsletter', 'subscribe', 'subscription', 'signup', 'optin',
  'promo', 'promotion', 'advert', 'advertisement', 'ad', 'ads', 'adslot', 'sponsor', 'sponsored', 'banner', 'outbrain', 'taboola',
  'tags', 'tag', 'tagcloud', 'categories', 'category', 'breadcrumb', 'breadcrumbs', 'pagination', 'pager',
  'byline', 'author', 'authors', 'bio', 'meta', 'postmeta', 'dateline', 'timestamp', 'date', 'published',
  'comments', 'comment', 'disqus', 'respond', 'reply',
  'disclaimer', 'copyright', 'rights', 'license', 'credits', 'credit',
  'print', 'toolbar', 'tools', 'actions', 'cookie', 'cookies', 'consent', 'gdpr',
  'widget', 'sidebar', 'footer', 'nav', 'navigation', 'menu',
  // Teaser boxes and post navigation ("sz-teaser", "nextpost", "most-popular"), ratings, paywall
  // notices, "login to comment" debris: what trafilatura's discard lists also name.
  'teaser', 'teasers', 'nextpost', 'prevpost', 'postnav', 'popular', 'trending', 'rating', 'ratings',
  'paywall', 'syndication', 'nocomments', 'signin', 'login', 'postmetadata', 'postinfo', 'postdate', 'pubdate',
]);
/**
 * Furniture words that a content word beside them does not redeem: "entry-author-info" and
 * "post-comments" are the post's author box and comments, not its text.
 */
const STRONG_FURNITURE = new Set(['meta', 'related', 'share', 'tags', 'author', 'authors', 'bio', 'byline', 'comments', 'comment', 'rating', 'ratings', 'paywall']);
/** Parts that mean the element is the article itself ("article-meta" is furniture, "article-body" is not). */
const CONTENT_PARTS = new Set(['body', 'content', 'text', 'article', 'story', 'entry', 'main', 'post']);

/** The lower-cased parts of a class or id: split at - _ : . and camelCase humps. */
export function nameParts(name: string): string[] {
  // BEM modifiers ("section--ads": a section that has ads in it) say how, not what.
  return name
    .split('--')[0]!
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/** True when a class or id says "this is page furniture", not the article. */
export function furnitureName(name: string): boolean {
  const parts = nameParts(name);
  if (!parts.some((p) => FURNITURE.has(p))) return false;
  // "entry-content social-enabled": a content name wins over a furniture one in the same name.
  if (parts.length > 1 && parts.some((p) => CONTENT_PARTS.has(p)) && !parts.some((p) => STRONG_FURNITURE.has(p))) return false;
  return true;
}

/**
 * A class list names furniture when one of its names does and none names the element as content:
 * CMSs put the post's taxonomy on the post itself ("post type-post category-news tag-travel"), so
 * "category-news" beside "post" says what the article is filed under, not that it is a category list.
 */
export function furnitureNames(names: readonly string[]): boolean {
  return names.some(furnitureName) && !names.some(contentName);
}

/** A name made only of content words and ids ("post", "type-post", "post-406", "entry-content"). */
function contentName(name: string): boolean {
  const parts = nameParts(name);
  return parts.some((p) => CONTENT_PARTS.has(p)) && parts.every((p) => CONTENT_PARTS.has(p) || /^\d+$/.test(p) || p === 'type');
}

const BLOCKS = 'div, section, aside, ul, ol, dl, table, p, nav, footer, header, form, figure, span';
/** A block holding more than this share of the content's text is the content, whatever its name. */
const MAX_SHARE = 0.4;
/** Link lists: links make up at least this share of the block's text … */
const LINK_DENSITY = 0.55;
/** … and it has fewer words than this outside its links. */
const MAX_FREE_WORDS = 12;

export interface Pruned {
  /** How many blocks were taken out. */
  removed: number;
  /** Words in what was taken out. */
  words: number;
}

/**
 * Takes page furniture out of `root` (a copy: the live page is not touched). `linkLists: false`
 * keeps lists of links (on a page without an article they may be what it offers); `nameOf` gives
 * the class and id to judge an element by.
 */
export function pruneBoilerplate(root: Element, opts: { linkLists?: boolean; nameOf?: (el: Element) => string } = {}): Pruned {
  const nameOf = opts.nameOf ?? ownNames;
  const total = wordCount(root.textContent ?? '');
  const out: Pruned = { removed: 0, words: 0 };
  if (!total) return out;
  const drop = (el: Element, words: number) => {
    el.remove();
    out.removed++;
    out.words += words;
  };
  const blocks = Array.from(root.querySelectorAll(BLOCKS));
  const thread = commentThread(blocks, nameOf, total);
  for (const el of blocks) {
    if (!root.contains(el) || el.closest('pre, code, table table')) continue;
    const text = el.textContent ?? '';
    const words = wordCount(text);
    if (words > total * MAX_SHARE) continue;
    const names = nameOf(el).split(/\s+/).filter(Boolean);
    if (thread && names.some(commentsName)) continue;
    if (furnitureNames(names) && (words <= MAX_FURNITURE_WORDS || linkDensity(el, text) > 0.3 || names.some(commentsName)) && !leadTeaser(el, root, names)) {
      drop(el, words);
      continue;
    }
    if (words <= MAX_DATELINE_WORDS && !el.querySelector(HEADINGS) && dateLine(el, text)) {
      drop(el, words);
      continue;
    }
    if (el.localName === 'p' || el.localName === 'span' || el.localName === 'figure') continue;
    if (opts.linkLists !== false && (linkList(el, text, words) || teaserList(el, text))) drop(el, words);
  }
  if (out.removed) dropOrphanHeadings(root);
  return out;
}

/**
 * Headings left with nothing under them once their section went ("Related articles" without its
 * list): a heading followed only by headings of its level or higher, or by the end.
 */
function dropOrphanHeadings(root: Element): void {
  const headings = Array.from(root.querySelectorAll(HEADINGS));
  for (let i = headings.length - 1; i >= 0; i--) {
    const h = headings[i]!;
    const level = Number(h.localName[1]);
    let next: Node | null = following(h, root);
    let empty = true;
    while (next) {
      if (next.nodeType === 1 && /^h[1-6]$/.test((next as Element).localName)) {
        if (Number((next as Element).localName[1]) <= level) break;
        empty = false; // a subsection: the heading has content
        break;
      }
      if ((next.textContent ?? '').trim() || (next.nodeType === 1 && (next as Element).querySelector('img, table, pre'))) {
        empty = false;
        break;
      }
      next = following(next, root);
    }
    if (empty && i > 0) h.remove(); // never the first heading: the title stays
  }
}

/** The next node after `node` in document order that is not inside it, within `root`. */
function following(node: Node, root: Element): Node | null {
  for (let n: Node | null = node; n && n !== root; n = n.parentNode) {
    if (n.nextSibling) return n.nextSibling;
  }
  return null;
}

const HEADINGS = 'h1, h2, h3, h4, h5, h6';

/**
 * A teaser points at another page; CMSs also call the article's own head and lead a "teaser"
 * ("module-imageTeaser topArticle", "figure.teaser" around the h1, "articleTeaser"). A block named
 * only a teaser that opens the content (next to nothing before it) is the lead, not a teaser.
 */
const TEASER = new Set(['teaser', 'teasers']);
const MAX_WORDS_BEFORE_LEAD = 20;
function leadTeaser(el: Element, root: Element, names: readonly string[]): boolean {
  const furniture = names.filter(furnitureName);
  if (!furniture.every((n) => nameParts(n).every((p) => !FURNITURE.has(p) || TEASER.has(p)))) return false;
  if (el.closest('a')) return false;
  let before = 0;
  for (let n: Element | null = el; n && n !== root; n = n.parentElement) {
    for (let sib = n.previousSibling; sib; sib = sib.previousSibling) {
      before += wordCount(sib.textContent ?? '');
      if (before > MAX_WORDS_BEFORE_LEAD) return false;
    }
  }
  return true;
}

/** A date line ("24. März 2004, 19:49 | Genesis", "Posted on 03.04.2020") has at most this many words. */
const MAX_DATELINE_WORDS = 8;
const NUMERIC_DATE = /\b\d{1,2}[./-]\d{1,2}[./-](\d{4}|\d{2})\b|\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}:\d{2}\b/;
const LABELLED = /^\s*[\p{L}][\p{L}\s-]{1,30}:\s*\d/u;
const DAY_MONTH_YEAR = /\b\d{1,2}\.?\s+\p{L}{3,}\.?,?\s+\d{4}\b|\b\p{L}{3,}\.?\s+\d{1,2},?\s+\d{4}\b/u;

/**
 * A short block that says when the post was made and little else: the date and time a CMS prints
 * above or below a post (trafilatura's discard lists name them "timestamp", "meta", "infoline";
 * many pages give them no name at all). In a sentence a date stands among words; here the date is
 * most of it: a <time>, or a written date, with at most as many other words as the date has.
 */
function dateLine(el: Element, text: string): boolean {
  // A timeline, a table of dates, a quote: dates that are the content.
  if (el.closest('li, td, th, dd, blockquote') || el.querySelector('li, td, dd')) return false;
  // "Termin: 29.02.2020, 19 Uhr", "Einsendeschluss: 03.11.2019": a labelled date is a fact of the article.
  if (LABELLED.test(text)) return false;
  const time = el.localName === 'time' ? el : el.querySelector('time');
  // A <time> says a moment when its datetime is a date ("2021-03-04T…"); "PT15M" or none is a recipe's duration.
  const moment = time && /^\s*\d{4}-\d{2}/.test(time.getAttribute('datetime') ?? '') ? time : null;
  const m = text.match(NUMERIC_DATE) ?? text.match(DAY_MONTH_YEAR);
  if (!moment && !m) return false;
  const dateWords = m ? wordCount(m[0]) : wordCount(moment?.textContent ?? '');
  return wordCount(text) - dateWords <= Math.max(dateWords, 3);
}

/**
 * A list of teasers: several headings that are links, each with at most a short excerpt under it
 * ("Neueste Artikel", "Das könnte dich auch interessieren" under the article). An article's own
 * subheadings are not links, and a listicle whose headings link has prose under each.
 */
const MIN_TEASERS = 2;
const MAX_WORDS_PER_TEASER = 40;
function teaserList(el: Element, text: string): boolean {
  const headings = Array.from(el.querySelectorAll(HEADINGS));
  if (headings.length < MIN_TEASERS) return false;
  const linked = headings.filter((h) => {
    const all = normalize(h.textContent ?? '').length;
    if (!all) return false;
    if (h.closest('a')) return true;
    const inLinks = Array.from(h.querySelectorAll('a')).reduce((n, a) => n + normalize(a.textContent ?? '').length, 0);
    return inLinks / all >= 0.8;
  });
  if (linked.length < MIN_TEASERS || linked.length < 0.8 * headings.length) return false;
  return wordCount(text) <= MAX_WORDS_PER_TEASER * linked.length;
}

/**
 * A block named like furniture but holding prose (several paragraphs, few links) is more likely
 * the article with an odd name than a share bar; only comment sections are that long.
 */
const MAX_FURNITURE_WORDS = 60;
const COMMENTS = new Set(['comments', 'comment', 'disqus', 'respond', 'discussion']);
function commentsName(name: string): boolean {
  return nameParts(name).some((p) => COMMENTS.has(p));
}

/**
 * Comments that hold most of the content's text are what the page is (a forum thread, a Q&A, a
 * guestbook): the extractor chose them, and dropping them would leave next to nothing.
 */
const THREAD_SHARE = 0.5;
function commentThread(blocks: Element[], nameOf: (el: Element) => string, total: number): boolean {
  let words = 0;
  let counted: Element | null = null; // blocks come in document order: its descendants follow it
  for (const el of blocks) {
    if (counted?.contains(el)) continue;
    if (!nameOf(el).split(/\s+/).some(commentsName)) continue;
    words += wordCount(el.textContent ?? '');
    counted = el;
  }
  return words > total * THREAD_SHARE;
}

function linkDensity(el: Element, text: string): number {
  const all = normalize(text).length;
  if (!all) return 0;
  let linked = 0;
  for (const a of Array.from(el.querySelectorAll('a'))) linked += normalize(a.textContent ?? '').length;
  return linked / all;
}

/** A list of links with little else: related articles, tags, a menu that stayed in. */
function linkList(el: Element, text: string, words: number): boolean {
  if (!words) return false;
  const links = Array.from(el.querySelectorAll('a'));
  if (links.length < 2) return false;
  const linked = links.reduce((n, a) => n + normalize(a.textContent ?? '').length, 0);
  const all = normalize(text).length;
  if (!all || linked / all < LINK_DENSITY) return false;
  return words - wordCount(links.map((a) => a.textContent ?? '').join(' ')) < MAX_FREE_WORDS;
}

function ownNames(el: Element): string {
  return `${el.getAttribute('class') ?? ''} ${el.getAttribute('id') ?? ''}`.trim();
}

export function wordCount(text: string): number {
  return text.match(/[\p{L}\p{N}_]+/gu)?.length ?? 0;
}
