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
]);
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
  if (parts.length > 1 && parts.some((p) => CONTENT_PARTS.has(p)) && !parts.some((p) => p === 'meta' || p === 'related' || p === 'share' || p === 'tags')) return false;
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
  for (const el of Array.from(root.querySelectorAll(BLOCKS))) {
    if (!root.contains(el) || el.closest('pre, code, table table')) continue;
    const text = el.textContent ?? '';
    const words = wordCount(text);
    if (words > total * MAX_SHARE) continue;
    const names = nameOf(el).split(/\s+/).filter(Boolean);
    if (furnitureNames(names) && (words <= MAX_FURNITURE_WORDS || linkDensity(el, text) > 0.3 || names.some(commentsName))) {
      drop(el, words);
      continue;
    }
    if (el.localName === 'p' || el.localName === 'span' || el.localName === 'figure') continue;
    if (opts.linkLists !== false && linkList(el, text, words)) drop(el, words);
  }
  if (out.removed) dropOrphanHeadings(root);
  return out;
}

/**
 * Headings left with nothing under them once their section went ("Related articles" without its
 * list): a heading followed only by headings of its level or higher, or by the end.
 */
function dropOrphanHeadings(root: Element): void {
  const headings = Array.from(root.querySelectorAll('h1, h2, h3, h4, h5, h6'));
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

/**
 * A block named like furniture but holding prose (several paragraphs, few links) is more likely
 * the article with an odd name than a share bar; only comment sections are that long.
 */
const MAX_FURNITURE_WORDS = 60;
const COMMENTS = new Set(['comments', 'comment', 'disqus', 'respond', 'discussion']);
function commentsName(name: string): boolean {
  return nameParts(name).some((p) => COMMENTS.has(p));
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
