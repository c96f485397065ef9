/**
 * A small forgiving HTML tokenizer, with no DOM (a Chrome MV3 service worker has none): it reads
 * a page once, left to right, and hands text, start tags and end tags to a sink. Shared by the
 * search result parsers' element tree (lib/search-engines/html.ts) and by htmlToText
 * (lib/web/html-text.ts). Not the HTML5 tokenizer state machine; it keeps what those need:
 *   - a tag starts with '<' and a letter ("5 < 6" and "3<4" stay text); "</" without a letter
 *     starts a bogus comment up to '>';
 *   - quoted attribute values may hold '>' and newlines (Baidu's data-click JSON, `href = "…"`);
 *   - script/style/xmp/iframe/noembed/noframes are raw text, textarea/title escapable raw text,
 *     plaintext runs to the end (a script's "</div>" or "<a href>" never becomes markup);
 *   - comments, doctype and processing instructions are skipped; CDATA sections too, unless the
 *     sink takes them (feeds' XHTML content);
 *   - every character is looked at a bounded number of times: unclosed quotes, tags or comments
 *     run to the end of the input, so no input makes it quadratic.
 * Tag and attribute names are lower-cased; text and attribute values are handed over as written
 * (decode text with decodeEntities from ./entities; attributeValue below reads an attribute decoded).
 */

import { decodeEntities } from './entities';

export interface TokenSink {
  /** Text between tags. `decode` is false for raw text (script, style…) and a lone '<'. */
  text(raw: string, decode: boolean): void;
  /** A start tag; `names[i]` goes with `values[i]` ('' for an attribute without a value). */
  open(tag: string, names: string[], values: string[], selfClosing: boolean): void;
  close(tag: string): void;
  /** The content of a `<![CDATA[…]]>` section; a sink without it never sees one. */
  cdata?(text: string): void;
}

const ATTRIBUTE = { attribute: true } as const;
const RAW_TEXT = new Set(['script', 'style', 'xmp', 'iframe', 'noembed', 'noframes']);
const ESCAPABLE_RAW_TEXT = new Set(['textarea', 'title']);

function isNameStart(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 65 && code <= 90);
}

function isSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13 || code === 12;
}

/** Reads the whole of `html` into `sink`. Never throws: malformed input is read as far as it goes. */
export function tokenizeHtml(html: string, sink: TokenSink): void {
  const len = html.length;
  let pos = 0;
  while (pos < len) {
    const lt = html.indexOf('<', pos);
    if (lt < 0) {
      sink.text(html.slice(pos), true);
      break;
    }
    if (lt > pos) sink.text(html.slice(pos, lt), true);
    const next = html.charCodeAt(lt + 1);
    if (next === 33 /* ! */) {
      if (html.startsWith('<!--', lt)) {
        const end = html.indexOf('-->', lt + 4);
        pos = end < 0 ? len : end + 3;
      } else if (sink.cdata && html.startsWith('<![CDATA[', lt)) {
        const end = html.indexOf(']]>', lt + 9);
        sink.cdata(html.slice(lt + 9, end < 0 ? len : end));
        pos = end < 0 ? len : end + 3;
      } else {
        const end = html.indexOf('>', lt + 2);
        pos = end < 0 ? len : end + 1;
      }
      continue;
    }
    if (next === 63 /* ? */) {
      const end = html.indexOf('>', lt + 2);
      pos = end < 0 ? len : end + 1;
      continue;
    }
    if (next === 47 /* / */) {
      if (!isNameStart(html.charCodeAt(lt + 2))) {
        // "</>" is dropped; "</ 3" and the like are bogus comments up to '>'.
        const end = html.indexOf('>', lt + 2);
        pos = end < 0 ? len : end + 1;
        continue;
      }
      let nameEnd = lt + 2;
      let upper = false;
      for (; nameEnd < len; nameEnd++) {
        const cc = html.charCodeAt(nameEnd);
        if (isSpace(cc) || cc === 47 || cc === 62) break;
        if (cc >= 65 && cc <= 90) upper = true;
      }
      const name = html.slice(lt + 2, nameEnd);
      sink.close(upper ? name.toLowerCase() : name);
      const end = html.indexOf('>', nameEnd);
      pos = end < 0 ? len : end + 1;
      continue;
    }
    if (!isNameStart(next)) {
      sink.text('<', false);
      pos = lt + 1;
      continue;
    }
    pos = readStartTag(html, lt + 1, sink);
  }
}

/** Reads `<name attrs…>` from just after '<'; returns the index after the tag (and its raw text). */
function readStartTag(html: string, from: number, sink: TokenSink): number {
  const len = html.length;
  let i = from;
  let upper = false;
  for (; i < len; i++) {
    const cc = html.charCodeAt(i);
    if (isSpace(cc) || cc === 47 || cc === 62) break;
    if (cc >= 65 && cc <= 90) upper = true;
  }
  const tag = upper ? html.slice(from, i).toLowerCase() : html.slice(from, i);
  const names: string[] = [];
  const values: string[] = [];
  let selfClosing = false;
  for (;;) {
    while (i < len && isSpace(html.charCodeAt(i))) i++;
    if (i >= len) break;
    const c = html.charCodeAt(i);
    if (c === 62 /* > */) {
      i++;
      break;
    }
    if (c === 47 /* / */) {
      i++;
      if (html.charCodeAt(i) === 62) {
        selfClosing = true;
        i++;
        break;
      }
      continue;
    }
    const nameStart = i;
    let nameUpper = c >= 65 && c <= 90;
    i++; // a name may start with '=' (the spec allows it); it never ends there
    while (i < len) {
      const cc = html.charCodeAt(i);
      if (isSpace(cc) || cc === 61 || cc === 62 || cc === 47) break;
      if (cc >= 65 && cc <= 90) nameUpper = true;
      i++;
    }
    const name = nameUpper ? html.slice(nameStart, i).toLowerCase() : html.slice(nameStart, i);
    let j = i;
    while (j < len && isSpace(html.charCodeAt(j))) j++;
    let value = '';
    if (html.charCodeAt(j) === 61 /* = */) {
      j++;
      while (j < len && isSpace(html.charCodeAt(j))) j++;
      const q = html.charCodeAt(j);
      if (q === 34 || q === 39) {
        const close = html.indexOf(q === 34 ? '"' : "'", j + 1);
        const end = close < 0 ? len : close;
        value = html.slice(j + 1, end);
        i = close < 0 ? len : close + 1;
      } else {
        const start = j;
        while (j < len && !isSpace(html.charCodeAt(j)) && html.charCodeAt(j) !== 62) j++;
        value = html.slice(start, j);
        i = j;
      }
    }
    names.push(name);
    values.push(value);
  }
  sink.open(tag, names, values, selfClosing);
  if (selfClosing) return i;
  const escapable = ESCAPABLE_RAW_TEXT.has(tag);
  if (escapable || RAW_TEXT.has(tag) || tag === 'plaintext') {
    const end = tag === 'plaintext' ? -1 : findEndTag(html, tag, i);
    sink.text(html.slice(i, end < 0 ? len : end), escapable);
    sink.close(tag);
    if (end < 0) return len;
    const gt = html.indexOf('>', end);
    return gt < 0 ? len : gt + 1;
  }
  return i;
}

/** Index of the `</tag` that ends a raw-text element (case-insensitive), or -1. */
function findEndTag(html: string, tag: string, from: number): number {
  let i = from;
  for (;;) {
    const at = html.indexOf('</', i);
    if (at < 0) return -1;
    const after = html.charCodeAt(at + 2 + tag.length);
    if (
      html.substr(at + 2, tag.length).toLowerCase() === tag &&
      (Number.isNaN(after) || isSpace(after) || after === 47 || after === 62)
    ) {
      return at;
    }
    i = at + 2;
  }
}

/**
 * The value of attribute `name` (lower case) from a start tag's names and values, decoded with
 * attribute rules; undefined when the tag has none (the first of duplicate names wins).
 */
export function attributeValue(names: readonly string[], values: readonly string[], name: string): string | undefined {
  const i = names.indexOf(name);
  return i < 0 ? undefined : decodeEntities(values[i]!, ATTRIBUTE);
}
