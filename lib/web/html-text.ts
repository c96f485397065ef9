/**
 * HTML fragments (feed summaries, Atom content) and fetched pages to plain text without a DOM:
 * Chrome's service worker has neither DOMParser nor document. Not a full HTML parser: it reads the
 * tokens of lib/html/tokenizer.ts (so "5 < 6" stays text, a script's "</p>" is not markup) and
 * keeps what a reader needs: paragraphs, list items, line breaks and links.
 */
import { decodeEntities } from '../html/entities';
import { attributeValue, tokenizeHtml, type TokenSink } from '../html/tokenizer';

export { C1_REMAP, decodeEntities } from '../html/entities';

const BLOCK = new Set([
  'address', 'article', 'aside', 'blockquote', 'dd', 'details', 'div', 'dl', 'dt', 'figcaption', 'figure', 'footer', 'form',
  'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hr', 'main', 'nav', 'ol', 'p', 'pre', 'section', 'summary', 'table', 'ul',
  'tr', 'caption', 'center',
]);
/** Elements whose content is not text for a reader. */
const SKIPPED = new Set(['script', 'style', 'template', 'noscript', 'iframe', 'object', 'svg', 'math', 'head', 'select', 'button']);

export interface HtmlToTextOptions {
  /** Resolves relative link targets; links without an absolute http(s) target lose the URL. */
  baseUrl?: string | URL;
}

/** Reads the tokens of a fragment into text; see htmlToText. */
class TextSink implements TokenSink {
  readonly out: string[] = [];
  private readonly links: (string | null)[] = [];
  private readonly linkStart: number[] = [];
  /** The element whose content is being left out (see SKIPPED), and how deep it is nested in itself. */
  private skipping: string | null = null;
  private skipDepth = 0;

  constructor(private readonly baseUrl: string | URL | undefined) {}

  text(raw: string, decode: boolean): void {
    if (this.skipping === null) this.out.push((decode ? decodeEntities(raw) : raw).replace(/\s+/g, ' '));
  }

  cdata(text: string): void {
    if (this.skipping === null) this.out.push(text.replace(/\s+/g, ' '));
  }

  open(tag: string, names: string[], values: string[], selfClosing: boolean): void {
    const name = localName(tag);
    if (this.skipping !== null) {
      if (name === this.skipping && !selfClosing) this.skipDepth++;
      // <body> ends a <head> whose end tag was left out (it is optional).
      else if (name === 'body' && this.skipping === 'head') this.skipping = null;
      return;
    }
    if (SKIPPED.has(name)) {
      if (!selfClosing) {
        this.skipping = name;
        this.skipDepth = 1;
      }
      return;
    }
    const out = this.out;
    if (name === 'br') out.push('\n');
    else if (name === 'li') out.push('\n- ');
    else if (name === 'del' || name === 's' || name === 'strike') out.push('~~');
    else if (name === 'td' || name === 'th') out.push(' | ');
    else if (name === 'img') {
      const alt = attributeValue(names, values, 'alt')?.trim();
      if (alt) out.push(` ${alt} `);
    } else if (name === 'a') {
      this.linkStart.push(out.length);
      this.links.push(absoluteHref(attributeValue(names, values, 'href')?.trim(), this.baseUrl));
    } else if (BLOCK.has(name)) out.push('\n\n');
  }

  close(tag: string): void {
    const name = localName(tag);
    if (this.skipping !== null) {
      if (name === this.skipping && --this.skipDepth === 0) this.skipping = null;
      return;
    }
    const out = this.out;
    if (name === 'br') out.push('\n');
    else if (name === 'del' || name === 's' || name === 'strike') out.push('~~');
    else if (name === 'a') {
      if (this.linkStart.length) {
        const start = this.linkStart.pop()!;
        const href = this.links.pop();
        const inner = out.splice(start).join('').replace(/\s+/g, ' ').trim();
        out.push(href && inner && inner !== href ? `[${inner}](${href})` : inner || href || '');
      }
    } else if (BLOCK.has(name)) out.push('\n\n');
  }
}

/** "xhtml:p" → "p": Atom's XHTML content may carry a namespace prefix. */
function localName(tag: string): string {
  const colon = tag.lastIndexOf(':');
  return colon < 0 ? tag : tag.slice(colon + 1);
}

/**
 * An HTML fragment as plain text with light Markdown: blank lines between blocks, "- " for
 * list items, [text](url) for links whose text is not the URL itself.
 */
export function htmlToText(html: string, { baseUrl }: HtmlToTextOptions = {}): string {
  const sink = new TextSink(baseUrl);
  tokenizeHtml(html, sink);
  return tidy(sink.out.join(''));
}

/** Whitespace as a reader expects: single spaces, no blank runs, no trailing blanks. */
function tidy(text: string): string {
  return text
    .replace(/[ \t\u00a0]*\n[ \t\u00a0]*/g, '\n')
    .replace(/[ \t]{2,}/g, ' ')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

function absoluteHref(href: string | undefined, base: string | URL | undefined): string | null {
  if (!href) return null;
  try {
    const url = base ? new URL(href, base) : new URL(href);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

/** True when plain text looks like it carries HTML markup or references (feedparser's test). */
export function looksLikeHtml(text: string): boolean {
  return /<\/?(a|abbr|b|blockquote|br|code|div|em|h[1-6]|i|img|li|ol|p|pre|q|s|span|strong|sub|sup|table|u|ul)\b[^>]*>/i.test(text) || /&(#\d+|#x[0-9a-f]+|[a-z]+\d*);/i.test(text);
}
