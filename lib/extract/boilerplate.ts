/**
 * Boilerplate left inside the main content after the base extractor chose it: share bars,
 * "related"/"read also" boxes, newsletter and promo boxes, tag and category lists, link lists.
 * The base extractors (Readability, Defuddle) decide at the level of the container; these decide
 * block by block inside it, as trafilatura does after choosing its body (its discard lists and
 * link-density test), which is where most of their precision difference comes from on pages
 * nobody tuned for.
 */
import { normalize } from './interactive';
import { adLabel, authorHeading, commentPrompt, creditLine, legalNotice, otherSectionHeading, readAlsoLine, sharePrompt, subscribePrompt, withoutTrailingCredit } from './phrases';

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
    const names = nameOf(el).split(/\s+/).filter(Boolean);
    if (thread && names.some(commentsName)) continue;
    const furniture = furnitureNames(names);
    const inline = el.localName === 'p' || el.localName === 'span' || el.localName === 'figure';
    const text = el.textContent ?? '';
    // A paragraph, span or figure not named as furniture can only go as a date line: its words
    // are counted no further than that needs (most blocks are these, and the longest).
    const words = wordCount(text, !furniture && inline ? MAX_DATELINE_WORDS : Infinity);
    if (words > total * MAX_SHARE) continue;
    if (furniture && (words <= MAX_FURNITURE_WORDS || linkDensity(el, text) > 0.3 || names.some(commentsName)) && !leadTeaser(el, root, names)) {
      drop(el, words);
      continue;
    }
    if (words <= MAX_DATELINE_WORDS && !el.querySelector(HEADINGS) && dateLine(el, text)) {
      drop(el, words);
      continue;
    }
    if (inline) continue;
    if (opts.linkLists !== false && (linkList(el, text, words) || teaserList(el, text))) drop(el, words);
  }
  prunePhrases(root, thread, drop);
  if (out.removed) dropOrphanHeadings(root);
  return out;
}

/** Blocks that may say in words what they are (phrases.ts), smallest wrappers included. */
const PHRASE_BLOCKS = 'h2, h3, h4, h5, h6, p, div, li, dt, dd, figcaption, small, span, em, strong, b, i, blockquote, section, aside, header, footer, td';
/** A "Read also:" line with its linked title, a credit, a prompt: a line or two, never prose. */
const MAX_PHRASE_WORDS = 40;
const MAX_PHRASE_CHARS = 600;
const INLINE_PHRASE = new Set(['span', 'em', 'strong', 'b', 'i', 'small']);
/** What a related-reading heading may head and still go with it: a list of teasers, not an essay. */
const MAX_SECTION_WORDS = 300;
const MAX_AUTHOR_WORDS = 150;
/** A pseudo-heading ("**Schon gelesen?**" in a paragraph) has at most this many words. */
const MAX_LABEL_WORDS = 8;

/**
 * The second pass: short blocks that say what they are in words (phrases.ts) — "Read also:" lines,
 * related-reading sections under their heading, author boxes under theirs, credits, ad labels,
 * comment, share and subscribe prompts, legal notices — and picture credits at the end of a short
 * block (any credit label in a caption, a picture's label elsewhere).
 */
function prunePhrases(root: Element, thread: boolean, dropBlock: (el: Element, words: number) => void): void {
  // A table cell is emptied, not removed: the cells after it would move into its column.
  const drop = (el: Element, words: number) => (el.localName === 'td' ? el.replaceChildren() : dropBlock(el, words));
  // Blocks too long to be a phrase: an inline element inside one is part of its prose.
  const long = new WeakSet<Element>();
  for (const el of Array.from(root.querySelectorAll(PHRASE_BLOCKS))) {
    if (INLINE_PHRASE.has(el.localName) && el.parentElement && long.has(el.parentElement)) continue;
    if (!root.contains(el) || el.closest('pre, code')) continue;
    const text = el.textContent ?? '';
    if (text.length > MAX_PHRASE_CHARS) {
      long.add(el);
      continue;
    }
    const words = wordCount(text);
    if (!words || words > MAX_PHRASE_WORDS) continue;
    if (/^h[2-6]$/.test(el.localName)) {
      const author = authorHeading(text);
      const comments = !thread && commentPrompt(text);
      if (author || comments || otherSectionHeading(text)) dropSection(el, root, author ? MAX_AUTHOR_WORDS : comments ? Infinity : MAX_SECTION_WORDS, !author && !comments, drop);
      continue;
    }
    if (el.closest('h1, h2, h3, h4, h5, h6')) continue;
    const readAlso = readAlsoLine(text);
    const hasLink = readAlso && !!el.querySelector('a');
    if (readAlso && (hasLink || words <= MAX_LABEL_WORDS)) {
      // "Lea también:" on its own, its link in the next block.
      const next = el.nextElementSibling;
      if (!hasLink && next && isTeaserLink(next)) drop(next, wordCount(next.textContent ?? ''));
      drop(el, words);
      continue;
    }
    if (words <= MAX_LABEL_WORDS && !el.querySelector('p, li, div')) {
      // A pseudo-heading: "**Schon gelesen?**", "Über den Autor" in a paragraph of its own.
      const next = el.nextElementSibling;
      if (otherSectionHeading(text)) {
        if (next && isTeaserLink(next)) drop(next, wordCount(next.textContent ?? ''));
        drop(el, words);
        continue;
      }
      if (authorHeading(text)) {
        const bio = next ? wordCount(next.textContent ?? '') : 0;
        if (next && bio <= MAX_AUTHOR_WORDS) drop(next, bio);
        drop(el, words);
        continue;
      }
    }
    if ((words <= 14 && creditLine(text)) || adLabel(text) || (!thread && words <= 30 && commentPrompt(text)) || sharePrompt(text) || subscribePrompt(text) || legalNotice(text)) {
      drop(el, words);
      continue;
    }
    // The block's text ends as its last text node does: no credit at its end, none to take off.
    const caption = captionLike(el);
    if (withoutTrailingCredit(text.trimEnd(), caption) !== null && !el.querySelector(PHRASE_BLOCKS)) stripTrailingCredit(el, caption);
  }
}

/** A short block that is mostly a link: the teaser a "Read also" label introduces. */
function isTeaserLink(el: Element): boolean {
  const text = el.textContent ?? '';
  const words = wordCount(text);
  return words > 0 && words <= MAX_PHRASE_WORDS && linkDensity(el, text) >= 0.6;
}

/**
 * `heading` and what follows it up to the next heading of its level or higher, when that is short
 * enough (and, with `links`, link-heavy enough) to be a box of teasers rather than more of the
 * article. A heading alone in its wrapper takes the wrapper's siblings as its section.
 */
function dropSection(heading: Element, root: Element, maxWords: number, links: boolean, drop: (el: Element, words: number) => void): void {
  const level = Number(heading.localName[1]);
  let start: Element = heading;
  while (start.parentElement && start.parentElement !== root && normalize(start.parentElement.textContent ?? '') === normalize(heading.textContent ?? '')) start = start.parentElement;
  const section: Element[] = [];
  for (let sib = start.nextElementSibling; sib; sib = sib.nextElementSibling) {
    const h = /^h[1-6]$/.test(sib.localName) ? sib : sib.querySelector(HEADINGS);
    if (h && Number(h.localName[1]) <= level) break;
    section.push(sib);
  }
  const text = section.map((s) => s.textContent ?? '').join(' ');
  const words = wordCount(text);
  if (words > maxWords * (links ? 3 : 1)) return;
  if (links && words > 60) {
    const linked = section.reduce((n, s) => n + Array.from(s.querySelectorAll('a')).reduce((m, a) => m + normalize(a.textContent ?? '').length, 0) + (s.localName === 'a' ? normalize(s.textContent ?? '').length : 0), 0);
    const density = linked / Math.max(1, normalize(text).length);
    // A long section goes only when it is mostly links (a box of teasers); a short one when it has a fair share.
    if (density < (words > maxWords ? 0.6 : 0.4)) return;
  }
  for (const s of section) drop(s, wordCount(s.textContent ?? ''));
  drop(start, wordCount(start.textContent ?? ''));
}

const CAPTION_PARTS = /(?:^|[-_\s])(?:caption|credits?|legend|bildunterschrift|bu|wp-caption-text)(?:$|[-_\s])/i;

/** A picture's caption: a figcaption, a block inside a figure, or named so. */
function captionLike(el: Element): boolean {
  if (el.localName === 'figcaption' || el.closest('figure')) return true;
  return CAPTION_PARTS.test(`${el.getAttribute('class') ?? ''} ${el.getAttribute('id') ?? ''}`);
}

/** Takes a picture credit off the end of a caption when the credit is in its last text. */
function stripTrailingCredit(el: Element, caption: boolean): void {
  const walker = el.ownerDocument.createTreeWalker(el, 4 /* NodeFilter.SHOW_TEXT */);
  let last: Node | null = null;
  for (let n = walker.nextNode(); n; n = walker.nextNode()) if ((n.nodeValue ?? '').trim()) last = n;
  if (!last) return;
  const kept = withoutTrailingCredit(last.nodeValue ?? '', caption);
  if (kept !== null) last.nodeValue = kept;
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
const PUBLISHED_LABEL = /^\s*(?:publiziert|veröffentlicht|veröffentlichung|erschienen|aktualisiert|zuletzt aktualisiert|stand|erstellt|published|posted|updated|last updated|publié|mis à jour|publicado|actualizado|publikacja|aktualizacja|opublikowano|pubblicato|aggiornato)(?: am| on| le| el| il)?\s*:/i;
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
  // "Termin: 29.02.2020, 19 Uhr", "Einsendeschluss: 03.11.2019": a labelled date is a fact of the
  // article — unless the label says when the page was published ("Publiziert: 03.04.2020, 12:35").
  if (LABELLED.test(text) && !PUBLISHED_LABEL.test(text)) return false;
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

/** The share of `text` (el's) that is link text. */
export function linkDensity(el: Element, text: string): number {
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

/** An element's class and id, as the names it is judged by. */
export function ownNames(el: Element): string {
  return `${el.getAttribute('class') ?? ''} ${el.getAttribute('id') ?? ''}`.trim();
}

/**
 * How many runs of `[\p{L}\p{N}_]` (the held-out metric's tokens) `text` holds; past `max` it
 * stops, and the count is then max + 1. Most texts go to a regular expression: the reader runs once
 * per page, cold, and V8 runs an expression's native code from the first call where a loop is
 * interpreted (a char loop for every text made the median first read 35 ms, from 31). A text of
 * LONG_TEXT chars or more (the nested boxes of a page of megabytes, counted once per box) goes to a
 * loop over the char codes instead: V8 compiles a loop that long while it runs, and it builds no
 * array of every word (the 5 MB page read in about 0.8 s with it, 1.0 s without).
 */
export function wordCount(text: string, max = Infinity): number {
  if (text.length >= LONG_TEXT) return countWordChars(text, max);
  if (max === Infinity) return text.match(WORDS)?.length ?? 0;
  WORDS.lastIndex = 0;
  let words = 0;
  while (words <= max && WORDS.exec(text)) words++;
  WORDS.lastIndex = 0;
  return words;
}
const LONG_TEXT = 50_000;

function countWordChars(text: string, max: number): number {
  let words = 0;
  let inWord = false;
  for (let i = 0; i < text.length && words <= max; i++) {
    const c = text.charCodeAt(i);
    let word: boolean;
    if (c < 128) word = (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95;
    else if (c >= 0xd800 && c <= 0xdbff) {
      // A surrogate pair is one character (an astral letter or digit); a lone half is not a letter.
      const d = text.charCodeAt(i + 1);
      word = false;
      if (d >= 0xdc00 && d <= 0xdfff) {
        word = WORD_CHAR.test(text.slice(i, i + 2));
        i++;
      }
    } else {
      let kind = charKinds[c]!;
      if (!kind) kind = charKinds[c] = WORD_CHAR.test(String.fromCharCode(c)) ? WORD : OTHER;
      word = kind === WORD;
    }
    if (word && !inWord) words++;
    inWord = word;
  }
  return words;
}
const WORD_CHAR = /[\p{L}\p{N}_]/u;
/** For each BMP char code: 0 not yet known, WORD or OTHER (filled on first sight). */
const charKinds = new Uint8Array(0x10000);
const WORD = 1;
const OTHER = 2;
const WORDS = /[\p{L}\p{N}_]+/gu;
