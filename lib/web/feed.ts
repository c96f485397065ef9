/**
 * XML bodies as something a model can read: RSS 2.0 / 0.9x, RSS 1.0 (RDF) and Atom feeds as
 * compact Markdown (feed header, then one "## title" section per item), any other XML as an
 * indented outline, and malformed XML as the text itself with a note.
 */

import { formatBytes } from './content-kind';
import { htmlToText, looksLikeHtml } from './html-text';
import { child, children, childElements, KNOWN_PREFIXES, outlineXml, parseXml, textContent, toHtml, type XmlElement } from './xml-tree';

export type FeedFormat = 'RSS 2.0' | 'RSS 0.9x' | 'RSS 1.0' | 'Atom 1.0' | 'Atom 0.3';

export interface XmlReadable {
  content: string;
  note?: string;
  /** 'feed' or 'xml' when parsed; 'raw' when the XML did not parse and `content` is the text. */
  shape: 'feed' | 'xml' | 'raw';
  format?: FeedFormat;
  title?: string;
}

export interface XmlReadableOptions {
  /** The document's URL: relative links in the feed are resolved against it. */
  baseUrl?: string | URL;
  /** Item summaries are cut to this many characters (the item's link has the rest). */
  maxSummaryChars?: number;
}

/** Default cut for item summaries: enough for a lead paragraph, and a 50-item feed stays short. */
export const DEFAULT_SUMMARY_CHARS = 600;

const NS = {
  atom: 'http://www.w3.org/2005/Atom',
  atom03: 'http://purl.org/atom/ns#',
  rss1: 'http://purl.org/rss/1.0/',
  rss090: 'http://my.netscape.com/rdf/simple/0.9/',
  rdf: 'http://www.w3.org/1999/02/22-rdf-syntax-ns#',
  dc: KNOWN_PREFIXES.dc!,
  content: KNOWN_PREFIXES.content!,
  itunes: KNOWN_PREFIXES.itunes!,
} as const;

/** Any XML text → feed Markdown, an outline, or the text itself with a note. */
export function xmlToReadable(text: string, options: XmlReadableOptions = {}): XmlReadable {
  const parsed = parseXml(text);
  if (!parsed.ok) {
    const where = parsed.line !== undefined ? `line ${parsed.line}, column ${parsed.column}: ` : '';
    return { content: text, shape: 'raw', note: `The XML is not well-formed (${where}${parsed.message}); shown as is.` };
  }
  const root = parsed.roots[0]!;
  const feed = readFeed(root, options);
  if (feed) return feed;
  return { content: outlineXml(parsed.roots), shape: 'xml', note: `XML document shown as an outline of its elements (root element <${root.name}>).` };
}

interface FeedItem {
  title: string;
  link?: string;
  date?: string;
  author?: string;
  enclosure?: string;
  summary?: string;
}

interface Feed {
  format: FeedFormat;
  title: string;
  link?: string;
  description?: string;
  updated?: string;
  author?: string;
  items: FeedItem[];
}

function readFeed(root: XmlElement, options: XmlReadableOptions): XmlReadable | null {
  let feed: Feed | null = null;
  if (root.local === 'rss' && root.ns === '') feed = readRss(root, options);
  else if (root.local === 'RDF' && root.ns === NS.rdf) feed = readRdf(root, options);
  else if (root.local === 'feed' && (root.ns === NS.atom || root.ns === NS.atom03 || root.ns === '')) feed = readAtom(root, options);
  if (!feed) return null;
  return { content: renderFeed(feed, options), shape: 'feed', format: feed.format, ...(feed.title ? { title: feed.title } : {}) };
}

// --- RSS -------------------------------------------------------------------------------------

function readRss(root: XmlElement, options: XmlReadableOptions): Feed | null {
  const channel = child(root, 'channel', '');
  if (!channel) return null;
  const version = root.attrs.version ?? '';
  const items = [...children(channel, 'item', ''), ...children(root, 'item', '')];
  return {
    format: version.startsWith('0.9') ? 'RSS 0.9x' : 'RSS 2.0',
    ...rssChannel(channel, '', options),
    items: items.map((item) => rssItem(item, '', options)),
  };
}

function readRdf(root: XmlElement, options: XmlReadableOptions): Feed | null {
  const core = [NS.rss1, NS.rss090];
  const channel = child(root, 'channel', core);
  if (!channel) return null;
  // RSS 1.0 items are siblings of the channel; the channel only lists them in rdf:Seq.
  const items = [...children(root, 'item', core), ...children(channel, 'item', core)];
  return { format: 'RSS 1.0', ...rssChannel(channel, core, options), items: items.map((item) => rssItem(item, core, options)) };
}

type Core = string | readonly string[];

function rssChannel(channel: XmlElement, core: Core, options: XmlReadableOptions): Omit<Feed, 'format' | 'items'> {
  const description = child(channel, 'description', core) ?? child(channel, 'summary', NS.itunes) ?? child(channel, 'subtitle', NS.itunes);
  const updated = child(channel, 'lastBuildDate', core) ?? child(channel, 'pubDate', core) ?? child(channel, 'date', NS.dc);
  const author = child(channel, 'author', NS.itunes) ?? child(channel, 'creator', NS.dc) ?? child(channel, 'managingEditor', core);
  return {
    title: rssText(child(channel, 'title', core)),
    ...opt('link', resolve(plain(child(channel, 'link', core)), options.baseUrl)),
    ...opt('description', description && htmlish(textContent(description), options)),
    ...opt('updated', plain(updated)),
    ...opt('author', plain(author)),
  };
}

function rssItem(item: XmlElement, core: Core, options: XmlReadableOptions): FeedItem {
  const guid = child(item, 'guid', core);
  const guidLink = guid && guid.attrs.isPermaLink !== 'false' && /^https?:\/\//i.test(plain(guid) ?? '') ? plain(guid) : undefined;
  const atomLink = children(item, 'link', NS.atom).find((l) => !l.attrs.rel || l.attrs.rel === 'alternate')?.attrs.href;
  const link = plain(child(item, 'link', core)) ?? guidLink ?? atomLink ?? item.attrs['rdf:about'];
  const date = child(item, 'pubDate', core) ?? child(item, 'date', NS.dc) ?? child(item, 'updated', NS.atom);
  const authors = [...children(item, 'author', core), ...children(item, 'creator', NS.dc)];
  const itunesAuthor = child(item, 'author', NS.itunes);
  const summary =
    child(item, 'description', core) ?? child(item, 'encoded', NS.content) ?? child(item, 'summary', NS.itunes) ?? child(item, 'subtitle', NS.itunes);
  const itemLink = resolve(link, options.baseUrl);
  // Relative links in an item's HTML mean the item's site, which is often not where the feed
  // is served (feed hosts, CDNs), so they resolve against the item's own link.
  const htmlBase = { ...options, ...(itemLink ? { baseUrl: itemLink } : {}) };
  return {
    title: rssText(child(item, 'title', core)),
    ...opt('link', itemLink),
    ...opt('date', plain(date)),
    ...opt('author', (authors.length ? authors.map(plain).filter(Boolean).join(', ') : plain(itunesAuthor)) || undefined),
    ...opt('enclosure', enclosure(item, core, options)),
    ...opt('summary', summary && htmlish(textContent(summary), htmlBase)),
  };
}

function enclosure(item: XmlElement, core: Core, options: XmlReadableOptions): string | undefined {
  const enc = child(item, 'enclosure', core);
  const url = resolve(enc?.attrs.url, options.baseUrl);
  const duration = formatDuration(plain(child(item, 'duration', NS.itunes)));
  if (!url && !duration) return undefined;
  const length = Number(enc?.attrs.length);
  const facts = [enc?.attrs.type, Number.isFinite(length) && length > 0 ? formatBytes(length) : undefined, duration ? `duration ${duration}` : undefined].filter(Boolean);
  return `${url ?? ''}${facts.length ? `${url ? ' ' : ''}(${facts.join(', ')})` : ''}`;
}

/** itunes:duration is "h:mm:ss", "mm:ss" or plain seconds; seconds are shown as a clock. */
function formatDuration(raw: string | undefined): string | undefined {
  if (!raw || !/^\d+$/.test(raw)) return raw;
  const total = Number(raw);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const two = (n: number) => String(n).padStart(2, '0');
  return h ? `${h}:${two(m)}:${two(s)}` : `${m}:${two(s)}`;
}

/**
 * RSS titles are nominally plain text but are often escaped HTML ("Q&amp;amp;A", "<b>New</b>");
 * like feedparser, treat them as HTML only when they look like it.
 */
function rssText(el: XmlElement | undefined): string {
  if (!el) return '';
  const raw = textContent(el);
  return looksLikeHtml(raw) ? htmlToText(raw).replace(/\s+/g, ' ') : raw.replace(/\s+/g, ' ').trim();
}

/** RSS descriptions are HTML (RSS 2.0 allows entity-encoded HTML). */
function htmlish(raw: string, options: XmlReadableOptions): string | undefined {
  const text = htmlToText(raw, options.baseUrl ? { baseUrl: options.baseUrl } : {});
  return text || undefined;
}

// --- Atom ------------------------------------------------------------------------------------

function readAtom(root: XmlElement, options: XmlReadableOptions): Feed {
  const core = root.ns;
  const base = xmlBase(root, options.baseUrl);
  const entries = children(root, 'entry', core);
  const subtitle = child(root, 'subtitle', core) ?? child(root, 'tagline', core);
  return {
    format: core === NS.atom03 ? 'Atom 0.3' : 'Atom 1.0',
    title: atomText(child(root, 'title', core), base) ?? '',
    ...opt('link', atomLink(root, core, base)),
    ...opt('description', atomText(subtitle, base)),
    ...opt('updated', plain(child(root, 'updated', core) ?? child(root, 'modified', core))),
    ...opt('author', atomAuthors(root, core)),
    items: entries.map((entry) => {
      const entryBase = xmlBase(entry, base);
      const content = child(entry, 'content', core);
      const summary = atomText(child(entry, 'summary', core), entryBase) ?? atomText(content, entryBase);
      const src = resolve(content?.attrs.src, entryBase);
      return {
        title: atomText(child(entry, 'title', core), entryBase) ?? '',
        ...opt('link', atomLink(entry, core, entryBase)),
        ...opt('date', plain(child(entry, 'published', core) ?? child(entry, 'updated', core) ?? child(entry, 'issued', core) ?? child(entry, 'modified', core))),
        ...opt('author', atomAuthors(entry, core)),
        ...opt('enclosure', src ? `${src}${content?.attrs.type ? ` (${content.attrs.type})` : ''}` : undefined),
        ...opt('summary', summary),
      };
    }),
  };
}

/** An Atom text construct: type="text" (default), "html" (escaped HTML) or "xhtml" (inline). */
function atomText(el: XmlElement | undefined, parentBase: string | undefined): string | undefined {
  if (!el || el.attrs.src) return undefined;
  const base = xmlBase(el, parentBase);
  const type = (el.attrs.type ?? 'text').toLowerCase();
  const mode = el.attrs.mode; // Atom 0.3: mode="escaped" holds HTML
  const baseOpt = base ? { baseUrl: base } : {};
  let text: string;
  if (type === 'xhtml' || type === 'application/xhtml+xml' || mode === 'xml') {
    // The content is one xhtml:div whose children are the markup (RFC 4287 §3.1.1.3).
    const div = childElements(el).find((c) => c.local === 'div');
    text = htmlToText(toHtml(div ? div.children : el.children), baseOpt);
  } else if (type === 'html' || type === 'text/html' || mode === 'escaped') {
    text = htmlToText(textContent(el), baseOpt);
  } else {
    text = textContent(el).trim();
  }
  return text || undefined;
}

function atomLink(el: XmlElement, core: string, base: string | undefined): string | undefined {
  const links = children(el, 'link', core);
  const link = links.find((l) => (l.attrs.rel ?? 'alternate') === 'alternate' && (!l.attrs.type || /html/.test(l.attrs.type))) ??
    links.find((l) => (l.attrs.rel ?? 'alternate') === 'alternate') ??
    links.find((l) => l.attrs.rel !== 'self');
  return resolve(link?.attrs.href, base);
}

function atomAuthors(el: XmlElement, core: string): string | undefined {
  const names = children(el, 'author', core).map((a) => plain(child(a, 'name', core)) ?? plain(a)).filter(Boolean);
  return names.length ? names.join(', ') : undefined;
}

function xmlBase(el: XmlElement, base: string | URL | undefined): string | undefined {
  const own = el.attrs['xml:base'];
  const resolved = own ? resolve(own, base) : undefined;
  return resolved ?? (base === undefined ? undefined : String(base));
}

// --- Rendering -------------------------------------------------------------------------------

function renderFeed(feed: Feed, options: XmlReadableOptions): string {
  const max = options.maxSummaryChars ?? DEFAULT_SUMMARY_CHARS;
  const lines: string[] = [`# ${feed.title || '(untitled feed)'}`];
  const count = `${feed.items.length} item${feed.items.length === 1 ? '' : 's'}`;
  lines.push([`${feed.format} feed`, count, feed.updated && `updated ${feed.updated}`, feed.author && `by ${feed.author}`].filter(Boolean).join(' · '));
  if (feed.link) lines.push(feed.link);
  if (feed.description) lines.push('', cut(feed.description, max));
  for (const item of feed.items) {
    lines.push('', `## ${item.title || '(untitled)'}`);
    if (item.link) lines.push(item.link);
    const meta = [item.date, item.author && `by ${item.author}`].filter(Boolean).join(' · ');
    if (meta) lines.push(meta);
    if (item.enclosure) lines.push(`Enclosure: ${item.enclosure}`);
    if (item.summary) lines.push('', cut(item.summary, max));
  }
  return lines.join('\n');
}

/** Cuts at a word boundary near `max`, marking the cut. */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const slice = text.slice(0, max);
  const space = slice.lastIndexOf(' ');
  return `${(space > max * 0.6 ? slice.slice(0, space) : slice).trimEnd()}…`;
}

/** Text of an element with whitespace collapsed, or undefined when empty. */
function plain(el: XmlElement | undefined): string | undefined {
  if (!el) return undefined;
  const text = textContent(el).replace(/\s+/g, ' ').trim();
  return text || undefined;
}

function resolve(href: string | undefined, base: string | URL | undefined): string | undefined {
  if (!href) return undefined;
  try {
    return new URL(href.trim(), base).href;
  } catch {
    return href.trim();
  }
}

/** `{ key: value }` when value is set, `{}` otherwise: keeps optional fields absent. */
function opt<K extends string>(key: K, value: string | undefined): { [P in K]?: string } {
  return (value ? { [key]: value } : {}) as { [P in K]?: string };
}
