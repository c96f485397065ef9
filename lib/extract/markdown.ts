/**
 * The inert copy (or Defuddle's cleaned content) → annotated Markdown, with turndown. Every rule that
 * annotates looks up the live element through the node's ref, so labels, values and selectors
 * describe the page as it is now.
 */
import TurndownService from 'turndown';
import { annotation, formatControl, formatRegion } from './annotate';
import { describeControl, isControl, labelOf, normalize, widgetRole, type ControlInfo } from './interactive';
import { unwrapRedirect } from './redirects';
import { isAutoId, type SelectorBuilder } from './selectors';
import { liveOf, REF_ATTR } from './snapshot';
import { notActionable } from './visibility';

export interface RenderContext {
  /** The live document the refs point into. */
  doc: Document;
  /** The page's URL (same-origin links are shown from their path) and the base relative URLs resolve against. */
  pageUrl: URL | null;
  baseUrl: string;
  /** The page title (normalised), which lead images often repeat as their alt text. */
  title?: string;
  refs: Element[];
  builder: SelectorBuilder;
  /** Live elements already written out (so "Page controls" does not repeat them). */
  emitted: Set<Element>;
  /** The element the content was taken from (used_selector names it): it and the wrappers around it get no region line. */
  root?: Element;
  /** Told each control's selector and what it is (page_action finds it again by role and name after a re-render). */
  record?: (selector: string, info: ControlInfo) => void;
}

const REGION_ROLES: Record<string, string> = {
  navigation: 'nav', main: 'main', search: 'search', form: 'form', dialog: 'dialog', alertdialog: 'dialog',
  complementary: 'aside', region: 'region', tablist: 'tablist', menu: 'menu', menubar: 'menubar',
  toolbar: 'toolbar', tree: 'tree', grid: 'grid', listbox: 'listbox', radiogroup: 'radiogroup',
};
const REGION_TAGS = new Set(['main', 'nav', 'form', 'search', 'aside', 'dialog']);
const NAMED_REGION_TAGS = new Set(['section', 'article', 'fieldset']);
const BLOCKY = 'p, div, h1, h2, h3, h4, h5, h6, ul, ol, table, blockquote, pre, section, article';

/** What kind of region `el` is, for a `[kind "label" {selector}]` line, or null. */
export function regionKind(el: Element): string | null {
  const role = el.getAttribute('role')?.trim().split(/\s+/)[0]?.toLowerCase();
  if (role && REGION_ROLES[role]) return REGION_ROLES[role]!;
  const tag = el.localName;
  if (tag === 'iframe' || tag === 'frame') return 'iframe';
  if (REGION_TAGS.has(tag)) return tag;
  if (NAMED_REGION_TAGS.has(tag)) {
    const id = el.getAttribute('id');
    if (el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby') || (id && !isAutoId(id))) return tag;
  }
  return null;
}

function regionLabel(el: Element): string {
  if (el.localName === 'iframe' || el.localName === 'frame') {
    const name = el.getAttribute('name');
    return normalize(el.getAttribute('title') ?? el.getAttribute('aria-label') ?? (name && !isAutoId(name) ? name : ''));
  }
  if (el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby')) return labelOf(el);
  if (el.localName === 'fieldset') return normalize(el.querySelector('legend')?.textContent ?? '');
  return '';
}

/**
 * Renders the children of `root`. With a `limit`, stops soon after the output passes that many
 * characters (the caller cuts it exactly): a 5 MB page is not converted whole for 50k characters.
 */
export type Renderer = (root: Element, limit?: number) => string;

export function createRenderer(ctx: RenderContext): Renderer {
  /** The lines blank controls (icon buttons, empty fields) were rendered as, by their node in the copy. */
  const blankControls = new Map<Element, string>();
  const service = new TurndownService({
    headingStyle: 'atx',
    codeBlockStyle: 'fenced',
    bulletListMarker: '-',
    hr: '---',
    emDelimiter: '*',
    blankReplacement: (content, node) => {
      // A <frame> is always "blank" to turndown (unlike an <iframe>, its rules never see it).
      if (node.nodeName === 'FRAME') return frameLine(node);
      // Icon-only buttons and empty fields are "blank" to turndown but are exactly what we list.
      const live = ctx.refs.length ? liveOf(node, ctx.refs) : undefined;
      if (live && isControl(live)) {
        const line = control(live, '');
        if (line) blankControls.set(node, line);
        return line;
      }
      const block = (node as unknown as { isBlock: boolean }).isBlock;
      // A blank element's content is thrown away, controls and all, and a <p> around an icon
      // button (its name visually hidden, its icon aria-hidden, both left out of the copy) is
      // blank: the lines its controls were given are written here instead.
      const inner = blankControls.size ? Array.from(node.querySelectorAll(`[${REF_ATTR}]`), (c) => blankControls.get(c) ?? '').filter(Boolean).join(' ') : '';
      if (inner) return block ? `\n\n${inner}\n\n` : inner;
      return block ? '\n\n' : '';
    },
  });
  const baseEscape = service.escape.bind(service);
  service.escape = (s: string) => baseEscape(s).replace(/[{}]/g, '\\$&');

  const live = (node: Element) => liveOf(node, ctx.refs);
  const selector = (el: Element) => ctx.builder.selectorFor(el);
  // A frame we could not read (cross-origin): named ones (a video, a payment form) are worth a
  // line; unnamed ones are mostly ads and trackers.
  const frameLine = (node: Element): string => {
    const l = live(node);
    const label = l ? regionLabel(l) : '';
    return l && label ? `\n\n${formatRegion('iframe', label, selector(l))}\n\n` : '';
  };

  /** A control's annotation, once per control (`again`: the caller replaces an earlier rendering). */
  const control = (el: Element, content: string, again = false): string => {
    if (notActionable(el) || (ctx.emitted.has(el) && !again)) return '';
    ctx.emitted.add(el);
    const info = describeControl(el);
    const sel = selector(el);
    if (sel) ctx.record?.(sel, info);
    // A big clickable card (role=button around a whole teaser) keeps its text; the marker follows it.
    if ((info.kind === 'button' || info.kind === 'widget' || info.kind === 'link') && el.querySelector(BLOCKY)) {
      return `${content.trim()} ${formatControl({ ...info, label: '' }, sel)}`;
    }
    // A form reads as one field per line; buttons and widgets stay in the flow of the text.
    const line = formatControl(info, sel);
    return info.kind === 'button' || info.kind === 'widget' || info.kind === 'link' ? line : `\n${line}\n`;
  };

  service.remove(['script', 'style', 'noscript', 'template', 'head', 'title', 'meta', 'link', 'svg' as 'script', 'canvas', 'object', 'embed', 'datalist']);
  // Ruby annotations (furigana, pinyin) are read above the text, not inside it: kept, they split
  // every annotated word in two ("漢かん字じ"), and quoting or searching the text no longer finds it.
  // The base text is what a reader of the language reads (and what extraction benchmarks expect).
  service.remove(['rt', 'rp'] as unknown as 'script'[]);

  service.addRule('pre', {
    filter: 'pre',
    replacement: (_content, node) => {
      const code = node.textContent ?? '';
      if (!code.trim()) return '';
      const cls = `${node.getAttribute('class') ?? ''} ${node.querySelector('code')?.getAttribute('class') ?? ''}`;
      const lang = /(?:^|\s)(?:language|lang)-([\w+#.-]+)/.exec(cls)?.[1] ?? '';
      let fence = '```';
      while (code.includes(fence)) fence += '`';
      return `\n\n${fence}${lang}\n${code.replace(/\n$/, '')}\n${fence}\n\n`;
    },
  });

  // Only images with a text alternative: the model cannot see pixels, and an unlabelled image URL
  // is tokens for nothing.
  service.addRule('image', {
    filter: 'img',
    replacement: (_content, node) => {
      const alt = normalize(node.getAttribute('alt') ?? '');
      const src = imageSource(node);
      // Nor the lead image that only repeats the page title (the result has the title), nor one
      // whose "alternative" is its file name (a CMS's default: "performance.jpg", "IMG_0042.JPG").
      if (!alt || (ctx.title && alt.length >= 15 && ctx.title.includes(alt)) || FILE_NAME.test(alt)) return '';
      // In a link (a thumbnail), the alt is the link's text; the picture's URL adds nothing.
      if (!src || /^data:/i.test(src) || node.closest('a')) return service.escape(alt);
      return `![${service.escape(alt)}](${destination(displayUrl(src, ctx))})`;
    },
  });

  service.addRule('iframe', { filter: ['iframe', 'frame' as 'iframe'], replacement: (_content, node) => frameLine(node) });

  // Lists with a one-space gap after the marker (turndown pads to four): the same Markdown, fewer tokens.
  service.addRule('listItem', {
    filter: 'li',
    replacement: (content, node) => {
      const parent = node.parentNode as Element | null;
      let prefix = '- ';
      if (parent?.nodeName === 'OL') {
        const start = Number(parent.getAttribute('start')) || 1;
        prefix = `${start + Array.prototype.indexOf.call(parent.children, node)}. `;
      }
      const body = content.replace(/^\n+/, '').replace(/\n+$/, '\n').replace(/\n/gm, `\n${' '.repeat(prefix.length)}`);
      return prefix + body.trimEnd() + (node.nextSibling ? '\n' : '');
    },
  });

  addTableRules(service);

  let shown: Set<Element> | undefined;
  const isShown = (el: Element) => (shown ??= new Set(ctx.refs)).has(el);
  service.addRule('label', {
    filter: 'label',
    replacement: (content, node) => {
      const l = live(node) as HTMLLabelElement | undefined;
      const target = l?.control;
      if (!l || !target || !isControl(target) || notActionable(target)) return content;
      // The control carries this text as its label: say it once. A control the page hides behind
      // its label (a styled checkbox) is listed here, where the user clicks.
      if (l.contains(target)) return control(target, content, true);
      if (!isShown(target)) return control(target, content);
      return '';
    },
  });

  service.addRule('region', {
    filter: (node) => {
      const l = live(node);
      return !!l && !(ctx.root && l.contains(ctx.root)) && !isControl(l) && regionKind(l) !== null;
    },
    replacement: (content, node) => {
      const l = live(node)!;
      const line = formatRegion(regionKind(l)!, regionLabel(l), selector(l));
      return content.trim() ? `\n\n${line}\n\n${content}\n\n` : `\n\n${line}\n\n`;
    },
  });

  service.addRule('heading', {
    filter: ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'],
    replacement: (content, node) => {
      const text = content.replace(/\s*\n+\s*/g, ' ').trim();
      if (!text) return '';
      const l = live(node);
      const level = Number(node.nodeName.charAt(1));
      // Headings are read, rarely acted on: named when the page names them (an id, a test id),
      // not stamped — a stamp on every heading cost 1.1 points of precision as the reviewers score it.
      const sel = l && !isControl(l) ? ctx.builder.selectorFor(l, false) : null;
      if (l) ctx.emitted.add(l);
      return `\n\n${'#'.repeat(level)} ${text}${sel ? ` ${annotation(sel)}` : ''}\n\n`;
    },
  });

  service.addRule('control', {
    filter: (node) => {
      const l = live(node);
      return !!l && isControl(l) && !(l.localName === 'a' && !widgetRole(l));
    },
    replacement: (content, node) => control(live(node)!, content),
  });

  // Links are found by URL (LINK_NOTE): following any link to a URL does what following another
  // one does, so only links that document.links cannot see (shadow roots, frames) get a selector.
  service.addRule('link', {
    filter: 'a',
    replacement: (content, node) => {
      const l = live(node) as HTMLAnchorElement | undefined;
      const inTop = !l || l.getRootNode() === ctx.doc;
      // Frames and shadow trees resolve against their own base: take the browser's resolution there.
      const href = l && !inTop ? l.href : (l ?? node).getAttribute('href');
      let text = content.replace(/\s*\n+\s*/g, ' ').trim();
      if (!href || /^\s*(?:javascript:|#!?$)/i.test(href)) {
        // Clickable but going nowhere ("#", javascript:): a button in disguise, found by selector.
        return l && isControl(l) ? control(l, content) : text;
      }
      if (!text && l) text = service.escape(labelOf(l));
      if (!text) return '';
      if (l) ctx.emitted.add(l);
      const sel = l && !inTop ? selector(l) : null;
      const url = displayUrl(href, ctx);
      // A jump within the page (a table of contents, a footnote mark: Wikipedia's [[3]](#cite_note-3))
      // is its text: there is nothing to fetch, and its target carries the id as its own selector.
      // 1.4% of the tokens sent on the Readability pages. A fragment nothing on the page answers to
      // is a script's (a tab, a toggle) and stays a link.
      if (inTop && url.startsWith('#') && fragmentTarget(ctx.doc, url)) return text;
      // A link whose text is its URL says it once: <https://…>.
      const link = text.replace(/\\(.)/g, '$1') === url && /^[a-z][\w+.-]*:\/\/[^\s<>]+$/i.test(url) ? `<${url}>` : `[${text}](${destination(url)})`;
      return `${link}${sel ? ` ${annotation(sel)}` : ''}`;
    },
  });

  const whole = (root: Element) => tidy(service.turndown(root as unknown as TurndownService.Node));
  return (root, limit) => {
    if (limit === undefined || (root.textContent?.length ?? 0) * MARKDOWN_GROWTH <= limit) return whole(root);
    // Convert the content in slices cut at block boundaries (big wrappers opened up), and stop
    // once past the limit.
    const parts: string[] = [];
    let size = 0;
    let slice: Node[] = [];
    let sliceText = 0;
    const flush = () => {
      if (!slice.length) return;
      const holder = root.ownerDocument.createElement('div');
      holder.append(...slice);
      slice = [];
      sliceText = 0;
      const md = whole(holder);
      if (md) {
        parts.push(md);
        size += md.length + 2;
      }
    };
    for (const unit of units(root)) {
      if (size > limit) break;
      if (sliceText > SLICE && unit.node.nodeType === 1 && BLOCKS.has((unit.node as Element).localName)) flush();
      slice.push(unit.node);
      sliceText += unit.text;
    }
    if (size <= limit) flush();
    return parts.join('\n\n');
  };
}

/** The children of `el` in order, with wrappers too big for one slice opened up. */
function* units(el: Element): Generator<{ node: Node; text: number }> {
  for (const node of Array.from(el.childNodes)) {
    const text = node.textContent?.length ?? 0;
    if (text > SLICE && node.nodeType === 1 && WRAPPERS.has((node as Element).localName)) yield* units(node as Element);
    else yield { node, text };
  }
}

const SLICE = 16_000;
/**
 * Markdown runs longer than the text it holds (link URLs, annotations: half as long again on the
 * Readability pages), so content with more than limit / MARKDOWN_GROWTH characters of text is
 * converted in slices, in case it passes the limit before its end.
 */
const MARKDOWN_GROWTH = 2;
const WRAPPERS = new Set(['div', 'section', 'article', 'main', 'body', 'span', 'font', 'center']);
const BLOCKS = new Set([
  'address', 'article', 'aside', 'blockquote', 'details', 'dialog', 'div', 'dl', 'fieldset', 'figure', 'footer', 'form',
  'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hr', 'main', 'nav', 'ol', 'p', 'pre', 'section', 'table', 'ul',
]);


/** GFM tables for data tables; layout tables (one column, or blocks in cells) become their content. */
function addTableRules(service: TurndownService): void {
  const kinds = new WeakMap<Element, boolean>();
  const isData = (table: Element | null): boolean => {
    if (!table) return false;
    let data = kinds.get(table);
    if (data === undefined) {
      const rows = Array.from((table as HTMLTableElement).rows ?? []);
      const width = Math.max(0, ...rows.map((r) => r.cells.length));
      data = rows.length > 0 && width > 1 && !table.querySelector('table, pre, ul, ol, h1, h2, h3, h4, h5, h6, blockquote');
      kinds.set(table, data);
    }
    return data;
  };
  const cellRow = (node: Element) => node.closest('tr');

  service.addRule('tableCell', {
    filter: (node) => (node.nodeName === 'TD' || node.nodeName === 'TH') && isData(node.closest('table')),
    replacement: (content, node) => {
      const text = content.replace(/\s*\n+\s*/g, ' ').replace(/\|/g, '\\|').trim();
      const span = Math.min(Number(node.getAttribute('colspan')) || 1, 20);
      const first = cellRow(node)?.cells[0] === node;
      return `${first ? '|' : ''} ${text} |${' |'.repeat(span - 1)}`;
    },
  });
  service.addRule('tableRow', {
    filter: (node) => node.nodeName === 'TR' && isData(node.closest('table')),
    replacement: (content, node) => {
      const table = node.closest('table') as HTMLTableElement;
      const line = `\n${content.trim()}`;
      if (table.rows[0] !== node) return line;
      const width = Math.max(...Array.from(table.rows).map((r) => Array.from(r.cells).reduce((n, c) => n + (Math.min(Number(c.getAttribute('colspan')) || 1, 20)), 0)));
      return `${line}\n|${' --- |'.repeat(width)}`;
    },
  });
  service.addRule('tableSection', {
    filter: (node) => ['THEAD', 'TBODY', 'TFOOT'].includes(node.nodeName) && isData(node.closest('table')),
    replacement: (content) => content,
  });
  service.addRule('table', {
    filter: (node) => node.nodeName === 'TABLE' && isData(node),
    replacement: (content, node) => {
      const caption = normalize(node.querySelector('caption')?.textContent ?? '');
      return `\n\n${caption ? `${service.escape(caption)}\n\n` : ''}${content.replace(/^\n+/, '')}\n\n`;
    },
  });
  service.addRule('caption', { filter: 'caption', replacement: () => '' });
}

/**
 * Same-origin URLs are shown from their path (the page URL is in the result), same-page fragments as
 * `#id`, tracking parameters left out (see withoutTracking): links are most of a page's tokens.
 * Same origin means scheme, host and port: an http: link on an https: page stays absolute.
 */
/** An image's alt text that is only a file name. */
const FILE_NAME = /^[\w@~%+-]+(?:[ .][\w@~%+-]+)*\.(?:jpe?g|png|gif|webp|avif|svg|bmp|tiff?|heic)$/i;
/** Where lazy loaders keep the real picture until the image scrolls into view. */
const LAZY_SRC = ['data-src', 'data-lazy-src', 'data-original', 'data-lazy', 'data-url', 'data-hi-res-src'];

/**
 * The picture's URL: its src, or, while a lazy loader still shows a placeholder (none, or a data:
 * pixel), the URL it will load (data-src and kin, else the first srcset candidate).
 */
function imageSource(img: Element): string {
  const src = img.getAttribute('src')?.trim() ?? '';
  if (src && !/^data:/i.test(src)) return src;
  for (const name of LAZY_SRC) {
    const lazy = img.getAttribute(name)?.trim();
    if (lazy && !/^data:/i.test(lazy)) return lazy;
  }
  const set = (img.getAttribute('srcset') ?? img.getAttribute('data-srcset'))?.trim().split(/\s+/)[0];
  return set && !/^data:/i.test(set) ? set : src;
}

/** The element a same-page `#fragment` scrolls to (by id, or an old-style <a name>), if any. */
function fragmentTarget(doc: Document, fragment: string): Element | null {
  let id = fragment.slice(1);
  if (!id) return null;
  try {
    id = decodeURIComponent(id);
  } catch {
    // a malformed escape: the id as written
  }
  return doc.getElementById(id) ?? doc.getElementsByName(id)[0] ?? null;
}

export function displayUrl(href: string, ctx: Pick<RenderContext, 'pageUrl' | 'baseUrl'>): string {
  // Fast paths (a page has hundreds of links): a fragment, a root-relative path against a base on
  // the page's origin, an absolute URL on the page's origin. The lookup resolves them as a.href does.
  const page = ctx.pageUrl;
  if (page && /^https?:$/.test(page.protocol) && ctx.baseUrl.startsWith(page.origin + '/') && !/[\s\\]/.test(href)) {
    if (href.startsWith('#') && ctx.baseUrl.split('#')[0] === page.href.split('#')[0]) return href;
    if (href.startsWith('/') && !href.startsWith('//')) return withoutTracking(href);
    // (With a fragment it may be this very page: the slow path tells.)
    if (href.startsWith(page.origin + '/') && !href.includes('#')) return withoutTracking(href.slice(page.origin.length));
  }
  let url: URL;
  try {
    url = new URL(href, ctx.baseUrl);
  } catch {
    return href;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return url.href; // mailto:?subject=… is not tracking
  // An affiliate or "leaving the site" redirector's link: where it leads (redirects.ts).
  if (!page || url.origin !== page.origin) url = unwrapRedirect(url);
  if (!page || url.origin !== page.origin) return withoutTracking(url.href);
  const path = withoutTracking(url.pathname + url.search + url.hash);
  const hash = path.indexOf('#');
  if (hash >= 0 && path.slice(0, hash) === withoutTracking(page.pathname + page.search)) return path.slice(hash);
  return path;
}

/**
 * Query parameters that only say where a click came from, never what the page shows: campaign
 * tags (utm_*), ad-click ids (Google, Microsoft, Meta, Yandex, X, TikTok, LinkedIn, Instagram),
 * Google Analytics' cross-domain linker, and the ids mail tools add to every link (Mailchimp,
 * HubSpot, Marketo, Vero, Omeda, MailerLite). Kept short on purpose: a name some site might use for
 * content (ref, source, spm, si, cid) stays, whatever it costs.
 */
const TRACKING_PARAM = new RegExp(
  '^(?:utm_[a-z0-9_]*|fbclid|gclid|gclsrc|dclid|gbraid|wbraid|srsltid|msclkid|yclid|twclid|ttclid|li_fat_id|igshid|' +
    '_ga|_gl|mc_cid|mc_eid|_hsenc|_hsmi|__hstc|__hssc|__hsfp|hsctatracking|mkt_tok|vero_conv|vero_id|' +
    'oly_anon_id|oly_enc_id|ml_subscriber|ml_subscriber_hash|ref_src|ref_url)$',
);

/**
 * `url` (absolute or a path) without tracking parameters (TRACKING_PARAM, in any case), the rest of
 * the query as it was (order, encoding, repeats), and no "?" left when nothing remains.
 */
export function withoutTracking(url: string): string {
  let end = url.indexOf('#');
  if (end < 0) end = url.length;
  const q = url.indexOf('?');
  if (q < 0 || q > end) return url; // none, or only in the fragment
  const params = url.slice(q + 1, end).split('&');
  const kept = params.filter((p) => !TRACKING_PARAM.test(paramName(p)));
  if (kept.length === params.length) return url;
  const rest = kept.filter(Boolean).join('&'); // no "&&" where a parameter was
  return url.slice(0, q) + (rest ? `?${rest}` : '') + url.slice(end);
}

function paramName(param: string): string {
  const eq = param.indexOf('=');
  const raw = (eq < 0 ? param : param.slice(0, eq)).replace(/\+/g, ' ');
  try {
    return decodeURIComponent(raw).toLowerCase();
  } catch {
    return raw.toLowerCase();
  }
}

function destination(url: string): string {
  const escaped = url.replace(/[()<>]/g, (c) => encodeURIComponent(c));
  return /\s/.test(escaped) ? `<${escaped}>` : escaped;
}


/**
 * Collapses the blank lines and stray spaces turndown leaves around removed blocks, and keeps
 * adjacent controls apart ("][" cannot come from page text: its brackets are escaped).
 */
function tidy(md: string): string {
  return md
    .replace(/[ \t]+$/gm, '')
    .replace(/^ {1,3}(?=\[)/gm, '')
    .replace(/(?<!\\)\]\[(?=[a-z])/g, '] [')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

