/**
 * `data:` URLs → bytes, after the Fetch standard's "data: URL processor": the media type runs
 * to the first comma, a final ";base64" makes the body base64 (forgiving-base64: ASCII white
 * space skipped, padding optional), and the body is percent-decoded first either way.
 *
 * Departures, each because the content comes from a model rather than from a URL bar:
 *   - "#" and line breaks in the body are kept. The URL parser would cut at "#" (a fragment)
 *     and drop newlines; a model writing "data:text/csv,a#b" means the "#". Data URLs built by
 *     encodeURIComponent or toDataURL() have neither, so both readings agree on them.
 *   - The base64url alphabet ("-" "_") is accepted as well: it is unambiguous, and models and
 *     JWT-style tools produce it.
 *   - A ";base64" that is not last ("data:image/png;base64;name=x,…") is an error: the standard
 *     would read the body as percent-encoded text and write the base64 characters themselves,
 *     a silent corruption.
 *   - An unparseable media type does not fail (the bytes do not depend on it); it is reported
 *     as null.
 */

import { parseMimeType } from '../web/mime';
import { WorkspaceError } from './errors';

export interface DecodedDataUrl {
  bytes: Uint8Array;
  /** The media type's essence ("image/png"), "text/plain" when omitted, null when unparseable. */
  mimeType: string | null;
  /** Media-type parameters, names lower-cased (e.g. charset). */
  parameters: Record<string, string>;
  base64: boolean;
}

const DATA_URL_SYNTAX = 'A data URL looks like "data:[<media type>][;base64],<data>", e.g. "data:image/png;base64,iVBORw0KGgo…" or "data:text/plain,Hello%20world".';

/**
 * Whether written content is meant as a data URL: "data:" then a comma, a ";" or a
 * "type/" — the start of a media type. "data: 1" (YAML) or "data:foo" stay text.
 */
export function looksLikeDataUrl(content: string): boolean {
  return /^data:(?:[,;]|[!#$%&'*+\-.^_`|~0-9A-Za-z]+\/)/i.test(content);
}

const fail = (why: string) => new WorkspaceError('invalid_data_url', `Invalid data URL: ${why}. ${DATA_URL_SYNTAX}`);

/** Decodes a data URL. @throws WorkspaceError('invalid_data_url') naming the part that is wrong. */
export function decodeDataUrl(url: string): DecodedDataUrl {
  if (!/^data:/i.test(url)) throw fail('it does not start with "data:"');
  const comma = url.indexOf(',', 5);
  if (comma < 0) throw fail('there is no comma: the media type must be followed by "," and then the data');
  let header = url.slice(5, comma).trim();
  if (/[\r\n]/.test(header)) throw fail('the media type part (before the first comma) contains a line break');

  const base64 = /;\s*base64$/i.test(header);
  if (base64) header = header.replace(/;\s*base64$/i, '');
  else if (/;\s*base64\s*(;|$)/i.test(header)) throw fail('";base64" must come last in the media type, right before the comma');

  const mimeSource = header === '' ? 'text/plain' : header.startsWith(';') ? `text/plain${header}` : header;
  const mime = parseMimeType(mimeSource);
  const parameters: Record<string, string> = {};
  if (mime) for (const [k, v] of mime.params) parameters[k] = v;

  const body = url.slice(comma + 1);
  const bytes = base64 ? decodeBase64Body(body) : percentDecode(body);
  return { bytes, mimeType: mime?.essence ?? null, parameters, base64 };
}

// --- percent-decoding --------------------------------------------------------------------------

const encoder = new TextEncoder();

const hexValue = (c: number) => (c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x41 && c <= 0x46 ? c - 0x37 : c >= 0x61 && c <= 0x66 ? c - 0x57 : -1);

/**
 * The URL standard's percent-decode of the string's UTF-8 bytes: "%XX" becomes the byte, a "%"
 * not followed by two hex digits stays as it is, other characters are their UTF-8 bytes.
 */
export function percentDecode(text: string): Uint8Array {
  const input = encoder.encode(text);
  if (!input.includes(0x25)) return input;
  const out = new Uint8Array(input.length);
  let n = 0;
  for (let i = 0; i < input.length; i++) {
    const b = input[i]!;
    if (b === 0x25 && i + 2 < input.length) {
      const hi = hexValue(input[i + 1]!);
      const lo = hexValue(input[i + 2]!);
      if (hi >= 0 && lo >= 0) {
        out[n++] = (hi << 4) | lo;
        i += 2;
        continue;
      }
    }
    out[n++] = b;
  }
  return out.slice(0, n);
}

// --- base64 ------------------------------------------------------------------------------------

interface Base64Api {
  fromBase64(text: string, options: { alphabet: 'base64' | 'base64url'; lastChunkHandling: 'loose' }): Uint8Array;
}

/** Uint8Array.fromBase64 (Chrome 140, Firefox 133): native and many times faster on big files. */
const nativeBase64 = (Uint8Array as unknown as Partial<Base64Api>).fromBase64 ? (Uint8Array as unknown as Base64Api) : null;

function decodeBase64Body(body: string): Uint8Array {
  // The standard percent-decodes first; "%2B" for "+" and "%3D" for "=" do occur.
  const text = body.includes('%') ? latin1(percentDecode(body)) : body;
  const url = text.includes('-') || text.includes('_');
  if (url && (text.includes('+') || text.includes('/'))) {
    throw fail('the base64 data mixes the two alphabets ("+" "/" and "-" "_"); use one');
  }
  if (nativeBase64) {
    try {
      return nativeBase64.fromBase64(text, { alphabet: url ? 'base64url' : 'base64', lastChunkHandling: 'loose' });
    } catch {
      // Fall through: the decoder below finds the exact fault for the message.
    }
  }
  return decodeBase64(text);
}

const BASE64_VALUES = (() => {
  const table = new Int8Array(128).fill(-1);
  const chars = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  for (let i = 0; i < 64; i++) table[chars.charCodeAt(i)] = i;
  table[0x2d] = 62; // '-' (base64url)
  table[0x5f] = 63; // '_' (base64url)
  return table;
})();

// Forgiving-base64 skips ASCII white space: TAB, LF, FF, CR, SPACE.
const isAsciiWhite = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d;

/** Forgiving-base64 decode (standard or URL alphabet), with the position of the first fault. */
export function decodeBase64(text: string): Uint8Array {
  const out = new Uint8Array(Math.floor((text.length * 3) / 4) + 3);
  let n = 0;
  let acc = 0;
  let count = 0;
  let padding = 0;
  let paddingAt = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (isAsciiWhite(c)) continue;
    if (c === 0x3d) {
      if (paddingAt < 0) paddingAt = i;
      padding++;
      continue;
    }
    const v = c < 128 ? BASE64_VALUES[c]! : -1;
    if (v < 0) throw fail(`the base64 data has the character ${JSON.stringify(text[i])} at position ${i + 1} of the data, which is not a base64 character (A–Z a–z 0–9 + / =)`);
    if (paddingAt >= 0) throw fail(`the base64 data goes on after "=" padding at position ${paddingAt + 1}; "=" may only end the data`);
    acc = (acc << 6) | v;
    if (++count === 4) {
      out[n++] = (acc >> 16) & 0xff;
      out[n++] = (acc >> 8) & 0xff;
      out[n++] = acc & 0xff;
      acc = 0;
      count = 0;
    }
  }
  if (padding > 2) throw fail('the base64 data ends with more than two "="');
  if (count === 1) throw fail('the base64 data has one character too many or too few at the end (it may be cut short)');
  if (padding > 0 && (count + padding) % 4 !== 0) throw fail('the "=" padding at the end does not fit the data length');
  if (count === 2) out[n++] = (acc >> 4) & 0xff;
  if (count === 3) {
    out[n++] = (acc >> 10) & 0xff;
    out[n++] = (acc >> 2) & 0xff;
  }
  return out.slice(0, n);
}

function latin1(bytes: Uint8Array): string {
  // windows-1252 maps 0x80–0x9f elsewhere, but base64 text is ASCII, and any other byte is an
  // error either way.
  return new TextDecoder('windows-1252').decode(bytes);
}
