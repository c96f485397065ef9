/**
 * Decoding a response body to text the way a browser would, without a DOM (this runs in
 * Chrome's service worker too). Order, as in the HTML Standard's encoding sniffing:
 *   1. a byte order mark (UTF-8, UTF-16LE, UTF-16BE) — it beats everything, even the header;
 *   2. the Content-Type charset parameter;
 *   3. for HTML, a <meta charset> / <meta http-equiv="Content-Type"> in the first 1024 bytes
 *      (the spec's prescan), then an <?xml encoding?> declaration as Blink and WebKit do;
 *      for XML, the <?xml encoding?> declaration;
 *   4. UTF-8 — unless the bytes are not valid UTF-8, then windows-1252.
 *
 * Why UTF-8 and not the spec's windows-1252 default: the spec's fallback is a locale-dependent
 * guess for legacy pages. Today almost every page, API and feed is UTF-8, and an undeclared
 * body is more likely to be UTF-8 than anything else. Invalid UTF-8 is a strong sign of a
 * legacy single-byte encoding, and windows-1252 (a superset of ISO-8859-1) then keeps Latin
 * text readable instead of filling it with U+FFFD.
 */

import type { ContentKind } from './content-kind';
import { C1_REMAP } from '../html/entities';
import { sniffBom } from './bom';
import { parseMimeType } from './mime';

export type CharsetSource = 'bom' | 'header' | 'meta' | 'xml-declaration' | 'default' | 'fallback';

export interface DecodedBody {
  text: string;
  /** The encoding's canonical WHATWG name (what TextDecoder#encoding reports). */
  encoding: string;
  /** Where the encoding came from. */
  source: CharsetSource;
}

export interface DecodeOptions {
  contentType?: string | null;
  /**
   * Which in-document declaration to look for: HTML <meta>, or the XML declaration. Defaults
   * to what the Content-Type names (text/html → HTML, XML types → XML).
   */
  kind?: ContentKind;
}

/** How many bytes the HTML Standard's prescan looks at. */
export const PRESCAN_BYTES = 1024;

/** Decodes a body; never throws on an unknown or unsupported label (it is skipped). */
export function decodeBody(bytes: Uint8Array, { contentType, kind: givenKind }: DecodeOptions = {}): DecodedBody {
  const bom = sniffBom(bytes);
  if (bom) return { text: decode(bytes, bom), encoding: bom, source: 'bom' };

  const mime = parseMimeType(contentType);
  const kind = givenKind ?? declarationKind(mime?.essence);
  const headerLabel = mime?.params.get('charset');
  const fromHeader = headerLabel ? normalizeEncodingLabel(headerLabel) : null;
  if (fromHeader) return { text: decode(bytes, fromHeader), encoding: fromHeader, source: 'header' };

  if (kind === 'html') {
    const meta = prescanMetaCharset(bytes);
    if (meta) return { text: decode(bytes, meta), encoding: meta, source: 'meta' };
  }
  if (kind === 'html' || kind === 'xml' || kind === 'feed') {
    const declared = xmlDeclarationEncoding(bytes);
    if (declared) return { text: decode(bytes, declared), encoding: declared, source: 'xml-declaration' };
  }

  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: true }), encoding: 'utf-8', source: 'default' };
  } catch {
    return { text: decode(bytes, 'windows-1252'), encoding: 'windows-1252', source: 'fallback' };
  }
}

/** Without a kind, the declared type says which in-document declaration to look for. */
function declarationKind(essence: string | undefined): ContentKind | undefined {
  if (!essence) return undefined;
  if (essence === 'text/html' || essence === 'application/xhtml+xml') return 'html';
  if (essence === 'text/xml' || essence === 'application/xml' || essence.endsWith('+xml')) return 'xml';
  return undefined;
}

const labelCache = new Map<string, string | null>();

/**
 * The canonical WHATWG encoding name for a label ("Shift_JIS", "x-sjis", "latin1",
 * "ks_c_5601-1987", "cp1254" …), or null when the label is unknown or this platform has no
 * decoder for it. Labels the Encoding Standard maps to "replacement" (iso-2022-kr, hz-gb-2312)
 * make TextDecoder throw, so they come back null too and the next source is tried.
 */
export function normalizeEncodingLabel(label: string): string | null {
  const key = label.trim().replace(/^["']|["']$/g, '').trim().toLowerCase();
  if (!key) return null;
  const cached = labelCache.get(key);
  if (cached !== undefined) return cached;
  // Python-style names ("euc_kr", "iso8859_9") are common in server configs; the Encoding
  // Standard only knows some of them with hyphens.
  const result = tryDecoder(key) ?? (key.includes('_') ? tryDecoder(key.replace(/_/g, '-')) : null);
  labelCache.set(key, result);
  return result;
}

function tryDecoder(label: string): string | null {
  try {
    return new TextDecoder(label).encoding;
  } catch {
    return null;
  }
}

function decode(bytes: Uint8Array, encoding: string): string {
  // stream: a body cut at the size cap may end inside a multi-byte character; streaming mode
  // drops that partial tail instead of ending the text with U+FFFD.
  const text = new TextDecoder(encoding).decode(bytes, { stream: true });
  // Node (20, at least) decodes windows-1252 as ISO-8859-1 (0x80–0x9F become C1 controls, not
  // € – “ ”); browsers do not. Mapping them keeps the CLI and unit tests honest, and is a
  // no-op where the decoder is right (the bytes it leaves as C1 are not in the table).
  return encoding === 'windows-1252' ? text.replace(/[\x80-\x9f]/g, (c) => String.fromCharCode(C1_REMAP[c.charCodeAt(0)] ?? c.charCodeAt(0))) : text;
}

/**
 * An encoding found in the in-document declaration when it is read as ASCII. A document that
 * can be read that way is not UTF-16, so a UTF-16 declaration means UTF-8 (HTML Standard,
 * prescan step "if charset is UTF-16BE/LE, set it to UTF-8"); x-user-defined means
 * windows-1252.
 */
function fixDeclared(label: string): string | null {
  const encoding = normalizeEncodingLabel(label);
  if (encoding === 'utf-16le' || encoding === 'utf-16be') return 'utf-8';
  if (label.trim().toLowerCase() === 'x-user-defined') return 'windows-1252';
  return encoding;
}

/** The encoding an XML declaration (`<?xml version="1.0" encoding="…"?>`) names, or null. */
export function xmlDeclarationEncoding(bytes: Uint8Array): string | null {
  const head = latin1(bytes, PRESCAN_BYTES);
  const m = /^\s*<\?xml\s[^>]*?\bencoding\s*=\s*(["'])([^"']*)\1/.exec(head);
  return m ? fixDeclared(m[2]!) : null;
}

// --- The HTML Standard's "prescan a byte stream to determine its encoding" -----------------

const isSpace = (c: string | undefined) => c === '\t' || c === '\n' || c === '\f' || c === '\r' || c === ' ';
const isAlpha = (c: string | undefined) => c !== undefined && /^[A-Za-z]$/.test(c);

/** The encoding a <meta> in the first 1024 bytes declares, or null. */
export function prescanMetaCharset(bytes: Uint8Array): string | null {
  const s = latin1(bytes, PRESCAN_BYTES);
  let pos = 0;
  while (pos < s.length) {
    if (s.startsWith('<!--', pos)) {
      const end = s.indexOf('-->', pos + 2);
      if (end < 0) return null;
      pos = end + 3;
      continue;
    }
    if (/^<meta[\t\n\f\r /]/i.test(s.slice(pos, pos + 6))) {
      pos += 6;
      const found = metaEncoding(s, pos);
      if (found.encoding) return found.encoding;
      pos = found.pos;
      continue;
    }
    if (s[pos] === '<' && (isAlpha(s[pos + 1]) || (s[pos + 1] === '/' && isAlpha(s[pos + 2])))) {
      pos += s[pos + 1] === '/' ? 2 : 1;
      while (pos < s.length && !isSpace(s[pos]) && s[pos] !== '>') pos++;
      // Attributes are read (not skipped to the next '>') so a '>' inside a quoted value
      // does not end the tag early.
      for (;;) {
        const attr = getAttribute(s, pos);
        if (!attr) break;
        pos = attr.pos;
      }
      pos = skipToGt(s, pos);
      continue;
    }
    if (s.startsWith('<!', pos) || s.startsWith('</', pos) || s.startsWith('<?', pos)) {
      pos = skipToGt(s, pos);
      continue;
    }
    pos++;
  }
  return null;
}

function skipToGt(s: string, pos: number): number {
  const gt = s.indexOf('>', pos);
  return gt < 0 ? s.length : gt + 1;
}

function metaEncoding(s: string, start: number): { encoding: string | null; pos: number } {
  const seen = new Set<string>();
  let gotPragma = false;
  let needPragma: boolean | null = null;
  let charset: string | null = null;
  let pos = start;
  for (;;) {
    const attr = getAttribute(s, pos);
    if (!attr) break;
    pos = attr.pos;
    if (seen.has(attr.name)) continue;
    seen.add(attr.name);
    if (attr.name === 'http-equiv') {
      if (attr.value === 'content-type') gotPragma = true;
    } else if (attr.name === 'content') {
      const label = charsetFromMetaContent(attr.value);
      if (label !== null && charset === null) {
        charset = label;
        needPragma = true;
      }
    } else if (attr.name === 'charset') {
      charset = attr.value;
      needPragma = false;
    }
  }
  // A tag the scanned bytes cut off before its '>' is not a declaration yet.
  if (s.indexOf('>', pos) < 0) return { encoding: null, pos: s.length };
  pos = skipToGt(s, pos);
  if (needPragma === null || (needPragma && !gotPragma) || charset === null) return { encoding: null, pos };
  return { encoding: fixDeclared(charset), pos };
}

/** The HTML Standard's "algorithm for extracting a character encoding from a meta element". */
export function charsetFromMetaContent(content: string): string | null {
  let pos = 0;
  for (;;) {
    const at = content.toLowerCase().indexOf('charset', pos);
    if (at < 0) return null;
    pos = at + 7;
    while (isSpace(content[pos])) pos++;
    if (content[pos] !== '=') continue;
    pos++;
    while (isSpace(content[pos])) pos++;
    const q = content[pos];
    if (q === '"' || q === "'") {
      const end = content.indexOf(q, pos + 1);
      return end < 0 ? null : content.slice(pos + 1, end);
    }
    let end = pos;
    while (end < content.length && !isSpace(content[end]) && content[end] !== ';') end++;
    return end > pos ? content.slice(pos, end) : null;
  }
}

/** The HTML Standard's "get an attribute" for the prescan; null when the tag has no more. */
function getAttribute(s: string, start: number): { name: string; value: string; pos: number } | null {
  let pos = start;
  while (isSpace(s[pos]) || s[pos] === '/') pos++;
  if (pos >= s.length || s[pos] === '>') return null;
  let name = '';
  let value = '';
  for (;;) {
    const c = s[pos];
    if (c === undefined) return null;
    if (c === '=' && name) {
      pos++;
      break;
    }
    if (isSpace(c)) {
      while (isSpace(s[pos])) pos++;
      if (s[pos] !== '=') return { name, value, pos };
      pos++;
      break;
    }
    if (c === '/' || c === '>') return { name, value, pos };
    name += c.toLowerCase();
    pos++;
  }
  while (isSpace(s[pos])) pos++;
  const q = s[pos];
  if (q === '"' || q === "'") {
    const end = s.indexOf(q, pos + 1);
    if (end < 0) return null;
    return { name, value: s.slice(pos + 1, end).toLowerCase(), pos: end + 1 };
  }
  if (q === '>') return { name, value, pos };
  if (q === undefined) return null;
  let end = pos;
  while (end < s.length && !isSpace(s[end]) && s[end] !== '>') end++;
  if (end >= s.length) return null;
  return { name, value: s.slice(pos, end).toLowerCase(), pos: end };
}

/** The first `max` bytes as a string of code units 0–255, for ASCII-level scanning. */
function latin1(bytes: Uint8Array, max: number): string {
  const n = Math.min(bytes.length, max);
  let out = '';
  for (let i = 0; i < n; i += 4096) out += String.fromCharCode(...bytes.subarray(i, Math.min(n, i + 4096)));
  return out;
}
