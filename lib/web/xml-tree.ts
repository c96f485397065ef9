/**
 * XML to a small element tree with namespaces resolved, through fast-xml-parser, made safe for
 * untrusted documents:
 * - Entities: the DOCTYPE is removed and processEntities is off, so no entity is ever expanded
 *   (no billion laughs, no external entities). References are decoded here instead, in one pass: the five
 *   XML ones, numeric ones and the HTML named set (which feeds use undeclared). A reference to
 *   an entity the DOCTYPE declares stays as written ("&custom;").
 * - Names: fast-xml-parser refuses elements and attributes named like Object.prototype members
 *   (`<constructor>`, `__proto__`), throwing on the whole document. Every name is given a
 *   prefix that no XML name can start with and the prefix is removed again here.
 * - Depth: fast-xml-parser stops at 100 nested elements (maxNestedTags), which also bounds the
 *   recursion below.
 */

import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { decodeEntities, type DecodeOptions } from '../html/entities';
import { errorMessage } from '../errors';

export interface XmlElement {
  type: 'element';
  /** The name as written, prefix included ("itunes:duration"). */
  name: string;
  /** Without the prefix ("duration"). */
  local: string;
  /** The namespace URI, '' for none. */
  ns: string;
  /** Attribute names as written; values decoded. */
  attrs: Record<string, string>;
  children: XmlNode[];
}

export interface XmlText {
  type: 'text';
  text: string;
  cdata: boolean;
}

export type XmlNode = XmlElement | XmlText;

export type XmlParseResult =
  | { ok: true; roots: XmlElement[] }
  | { ok: false; message: string; line?: number; column?: number };

/** Namespaces used often enough that feeds forget to declare their prefixes. */
export const KNOWN_PREFIXES: Readonly<Record<string, string>> = {
  xml: 'http://www.w3.org/XML/1998/namespace',
  dc: 'http://purl.org/dc/elements/1.1/',
  content: 'http://purl.org/rss/1.0/modules/content/',
  itunes: 'http://www.itunes.com/dtds/podcast-1.0.dtd',
  atom: 'http://www.w3.org/2005/Atom',
  media: 'http://search.yahoo.com/mrss/',
  rdf: 'http://www.w3.org/1999/02/22-rdf-syntax-ns#',
  podcast: 'https://podcastindex.org/namespace/1.0',
};

// A character no XML name may start with; see the module comment.
const NAME_MARK = '~';
const unmark = (name: string) => name.replace(/^~+/, '');

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  allowBooleanAttributes: true,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  processEntities: false,
  htmlEntities: false,
  cdataPropName: '#cdata',
  commentPropName: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  transformTagName: (name) => NAME_MARK + name,
  transformAttributeName: (name) => NAME_MARK + name,
});

/**
 * Parses a document. Well-formedness is checked first (fast-xml-parser's parser alone accepts
 * `<a><b></a>`), after one repair browsers' feed readers also make: a bare '&' ("AT&T",
 * "?a=1&b=2"), the most common defect of real feeds, is read as "&amp;".
 */
export function parseXml(text: string): XmlParseResult {
  const source = repairAmpersands(stripDoctype(text.replace(/^\uFEFF/, '').trimStart()));
  const valid = XMLValidator.validate(source, { allowBooleanAttributes: true });
  if (valid !== true) return { ok: false, message: valid.err.msg, line: valid.err.line, column: valid.err.col };
  let raw: unknown;
  try {
    raw = parser.parse(source);
  } catch (e) {
    return { ok: false, message: errorMessage(e) };
  }
  const roots = convert(raw, { '': '' }).filter((n): n is XmlElement => n.type === 'element');
  if (!roots.length) return { ok: false, message: 'no root element' };
  return { ok: true, roots };
}

// A DOCTYPE: name, external id, and an internal subset whose quoted strings may hold '>' or ']'.
const DOCTYPE = /<!DOCTYPE(?:[^>["']|"[^"]*"|'[^']*')*(?:\[(?:[^\]"']|"[^"]*"|'[^']*')*\])?\s*>/i;

/**
 * The DOCTYPE goes before parsing: its entities are never used (see the module comment), and
 * fast-xml-parser refuses a whole document that declares an external entity.
 */
function stripDoctype(text: string): string {
  const at = text.search(/<!DOCTYPE/i);
  // Only in the prolog, before the root element.
  if (at < 0 || /<[A-Za-z_]/.test(text.slice(0, at))) return text;
  return text.slice(0, at) + text.slice(at).replace(DOCTYPE, '');
}

/** Bare '&' outside CDATA sections and comments, as '&amp;'. */
function repairAmpersands(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(/<!\[CDATA\[[\s\S]*?\]\]>|<!--[\s\S]*?-->|&(?!(?:#\d+|#x[0-9a-fA-F]+|[A-Za-z_][\w.-]*);)/g, (m) => (m === '&' ? '&amp;' : m));
}

/** XML references always end in ';' (repairAmpersands escaped the rest); an unknown name is the document's own entity. */
const XML_REFERENCES: DecodeOptions = { strict: true };

type Scope = Readonly<Record<string, string>>;

function convert(raw: unknown, scope: Scope): XmlNode[] {
  if (!Array.isArray(raw)) return [];
  const out: XmlNode[] = [];
  for (const item of raw as unknown[]) {
    if (!item || typeof item !== 'object') continue;
    const entry = item as Record<string, unknown>;
    const key = Object.keys(entry).find((k) => k !== ':@');
    if (key === undefined) continue;
    const value = entry[key];
    if (key === '#text') {
      if (typeof value === 'string' && value) out.push({ type: 'text', text: decodeEntities(value, XML_REFERENCES), cdata: false });
    } else if (key === '#cdata') {
      const text = Array.isArray(value) ? value.map((v) => (v && typeof v === 'object' ? String((v as Record<string, unknown>)['#text'] ?? '') : '')).join('') : '';
      if (text) out.push({ type: 'text', text, cdata: true });
    } else if (key.startsWith(NAME_MARK)) {
      out.push(element(unmark(key), entry[':@'], value, scope));
    }
  }
  return out;
}

function element(name: string, rawAttrs: unknown, rawChildren: unknown, parentScope: Scope): XmlElement {
  const attrs: Record<string, string> = {};
  let scope = parentScope;
  if (rawAttrs && typeof rawAttrs === 'object') {
    for (const [k, v] of Object.entries(rawAttrs as Record<string, unknown>)) {
      const attr = unmark(k);
      const value = v === true ? '' : decodeEntities(String(v), XML_REFERENCES);
      attrs[attr] = value;
      if (attr === 'xmlns' || attr.startsWith('xmlns:')) {
        if (scope === parentScope) scope = { ...parentScope };
        (scope as Record<string, string>)[attr === 'xmlns' ? '' : attr.slice(6)] = value;
      }
    }
  }
  const colon = name.indexOf(':');
  const prefix = colon < 0 ? '' : name.slice(0, colon);
  const local = colon < 0 ? name : name.slice(colon + 1);
  const ns = scope[prefix] ?? KNOWN_PREFIXES[prefix] ?? `${prefix}:`;
  return { type: 'element', name, local, ns, attrs, children: convert(rawChildren, scope) };
}

// --- Reading the tree ------------------------------------------------------------------------

export const childElements = (el: XmlElement): XmlElement[] => el.children.filter((c): c is XmlElement => c.type === 'element');

/** The first child element with this local name in one of the namespaces. */
export function child(el: XmlElement, local: string, ns: string | readonly string[]): XmlElement | undefined {
  const spaces = typeof ns === 'string' ? [ns] : ns;
  return el.children.find((c): c is XmlElement => c.type === 'element' && c.local === local && spaces.includes(c.ns));
}

export function children(el: XmlElement, local: string, ns: string | readonly string[]): XmlElement[] {
  const spaces = typeof ns === 'string' ? [ns] : ns;
  return el.children.filter((c): c is XmlElement => c.type === 'element' && c.local === local && spaces.includes(c.ns));
}

/** All text inside an element, as written (whitespace kept). */
export function textContent(el: XmlElement): string {
  let out = '';
  for (const c of el.children) out += c.type === 'text' ? c.text : textContent(c);
  return out;
}

const collapse = (s: string) => s.replace(/\s+/g, ' ').trim();

/** An element subtree as HTML source (for Atom xhtml content, read by htmlToText). */
export function toHtml(nodes: readonly XmlNode[]): string {
  let out = '';
  for (const n of nodes) {
    if (n.type === 'text') {
      out += n.text.replace(/&/g, '&amp;').replace(/</g, '&lt;');
      continue;
    }
    const attrs = Object.entries(n.attrs)
      .map(([k, v]) => ` ${k}="${v.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}"`)
      .join('');
    out += `<${n.local}${attrs}>${toHtml(n.children)}</${n.local}>`;
  }
  return out;
}

/**
 * A document as an indented outline: one line per element with its attributes, "name: text"
 * for elements that hold only text. Namespace declarations are left out: they are noise to a
 * reader.
 */
export function outlineXml(roots: readonly XmlElement[]): string {
  const lines: string[] = [];
  const walk = (el: XmlElement, depth: number) => {
    const indent = '  '.repeat(depth);
    const attrs = Object.entries(el.attrs)
      .filter(([k]) => k !== 'xmlns' && !k.startsWith('xmlns:'))
      .map(([k, v]) => ` ${k}=${JSON.stringify(collapse(v))}`)
      .join('');
    const elements = childElements(el);
    if (!elements.length) {
      const text = collapse(textContent(el));
      lines.push(`${indent}${el.name}${attrs}${text ? `: ${text}` : ''}`);
      return;
    }
    lines.push(`${indent}${el.name}${attrs}`);
    for (const c of el.children) {
      if (c.type === 'element') walk(c, depth + 1);
      else {
        const text = collapse(c.text);
        if (text) lines.push(`${indent}  ${text}`);
      }
    }
  };
  for (const root of roots) walk(root, 0);
  return lines.join('\n');
}
