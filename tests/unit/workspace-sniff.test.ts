import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decodeText, detectText, guessMimeType, isUtf8, SAMPLE_BYTES } from '../../lib/workspace/sniff';

const utf8 = (s: string) => new TextEncoder().encode(s);
const bytes = (...parts: (number[] | string)[]) => new Uint8Array(parts.flatMap((p) => (typeof p === 'string' ? [...utf8(p)] : p)));
const utf16le = (s: string, bom = true) => {
  const out = new Uint8Array((bom ? 2 : 0) + s.length * 2);
  if (bom) out.set([0xff, 0xfe]);
  for (let i = 0; i < s.length; i++) {
    out[(bom ? 2 : 0) + i * 2] = s.charCodeAt(i) & 0xff;
    out[(bom ? 2 : 0) + i * 2 + 1] = s.charCodeAt(i) >> 8;
  }
  return out;
};
const utf16be = (s: string) => {
  const le = utf16le(s, false);
  const out = new Uint8Array(2 + le.length);
  out.set([0xfe, 0xff]);
  for (let i = 0; i < le.length; i += 2) {
    out[2 + i] = le[i + 1]!;
    out[3 + i] = le[i]!;
  }
  return out;
};
const random = (n: number, seed = 1) => {
  const out = new Uint8Array(n);
  let x = seed;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
};
const fixtureDir = new URL('../fixtures/web/binary/', import.meta.url);
const fixture = (name: string) => new Uint8Array(readFileSync(new URL(name, fixtureDir)));

describe('detectText: text', () => {
  it.each([
    ['empty', new Uint8Array(0), 'utf-8'],
    ['ASCII', utf8('hello world\n'), 'utf-8'],
    ['UTF-8 multilingual', utf8('Grüße, 日本語, Ελληνικά, emoji 😀\n'), 'utf-8'],
    ['UTF-8 with BOM', bytes([0xef, 0xbb, 0xbf], 'hi'), 'utf-8'],
    ['UTF-16LE with BOM', utf16le('hello, wörld'), 'utf-16le'],
    ['UTF-16BE with BOM', utf16be('hello, wörld'), 'utf-16be'],
    ['tabs, CR LF, form feed, ESC colour codes', utf8('a\tb\r\n\f\x1b[31mred\x1b[0m\n'), 'utf-8'],
    ['JSON', utf8('{"a": [1, 2, 3]}'), 'utf-8'],
    ['windows-1252 (Latin-1 legacy)', bytes('Caf', [0xe9], ' cr', [0xe8], 'me br', [0xfb], 'l', [0xe9], 'e, na', [0xef], 've\n'), 'windows-1252'],
    ['a log with one stray backspace in 200 bytes', utf8(`${'log line\n'.repeat(22)}\b`), 'utf-8'],
  ])('%s', (_, input, encoding) => {
    expect(detectText(input)).toMatchObject({ kind: 'text', encoding });
  });

  it('a multi-byte character cut at the sample boundary is still UTF-8', () => {
    const text = utf8(`${'a'.repeat(SAMPLE_BYTES - 1)}é and more`);
    expect(text[SAMPLE_BYTES - 1]).toBe(0xc3); // the sample ends inside "é"
    expect(detectText(text)).toMatchObject({ kind: 'text', encoding: 'utf-8' });
  });

  it('the fixtures\' generator script is text', () => {
    expect(detectText(fixture('generate.py'))).toMatchObject({ kind: 'text', encoding: 'utf-8' });
  });
});

describe('detectText: binary', () => {
  it.each([
    ['NUL bytes', bytes('abc', [0], 'def')],
    ['UTF-16 without a BOM (NUL bytes)', utf16le('hello', false)],
    ['UTF-32LE with BOM', bytes([0xff, 0xfe, 0, 0], [0x68, 0, 0, 0])],
    ['random bytes', random(4096)],
    ['control characters over 1 %', utf8(`${'x'.repeat(90)}${'\x01'.repeat(10)}`)],
    ['a lone control character', bytes([0x07])],
    ['invalid UTF-8, mostly high bytes', bytes([0xc3, 0x28, 0xa0, 0xa1, 0xe2, 0x28, 0xa1, 0xf0, 0x28, 0x8c, 0xbc])],
  ])('%s', (_, input) => {
    expect(detectText(input)).toMatchObject({ kind: 'binary' });
  });

  it.each(readdirSync(fixtureDir).filter((n) => !n.endsWith('.py')))('fixture %s', (name) => {
    expect(detectText(fixture(name))).toMatchObject({ kind: 'binary' });
  });

  it('names a known format from the magic number', () => {
    const png = bytes([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'rest');
    expect(detectText(png)).toEqual({ kind: 'binary', reason: 'PNG image', format: { id: 'png', label: 'PNG image' } });
    // "%PDF-" is all printable ASCII: only the magic number tells.
    expect(detectText(utf8('%PDF-1.7\n1 0 obj\n'))).toMatchObject({ kind: 'binary', format: { id: 'pdf' } });
  });

  it('looks at the start only', () => {
    const late = new Uint8Array(SAMPLE_BYTES + 10).fill(0x61);
    late[SAMPLE_BYTES + 5] = 0;
    expect(detectText(late)).toMatchObject({ kind: 'text' });
  });
});

describe('isUtf8 and decodeText', () => {
  it('isUtf8', () => {
    expect(isUtf8(utf8('é'))).toBe(true);
    expect(isUtf8(bytes([0xc3]))).toBe(false);
    expect(isUtf8(bytes([0xc3]), false)).toBe(true); // a tail that may go on
    expect(isUtf8(bytes([0xed, 0xa0, 0x80]))).toBe(false); // an encoded surrogate
  });

  it('decodeText drops the BOM and decodes each encoding', () => {
    expect(decodeText(bytes([0xef, 0xbb, 0xbf], 'hi'), 'utf-8')).toBe('hi');
    expect(decodeText(utf16le('wörld'), 'utf-16le')).toBe('wörld');
    expect(decodeText(utf16be('wörld'), 'utf-16be')).toBe('wörld');
    // Not 0x80–0x9f: Node 20's decoder reads windows-1252 as ISO-8859-1 there (browsers do not).
    expect(decodeText(bytes([0xe9, 0xfc]), 'windows-1252')).toBe('éü');
    expect(decodeText(bytes('a', [0xff], 'b'), 'utf-8')).toBe('a\ufffdb');
  });
});

describe('guessMimeType', () => {
  const png = bytes([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'rest');
  it.each([
    ['magic beats the extension', png, 'image.jpg', 'image/png'],
    ['magic without an extension', png, 'image', 'image/png'],
    ['PDF', utf8('%PDF-1.4\n'), 'x.bin', 'application/pdf'],
    ['unknown binary', random(100), 'blob', 'application/octet-stream'],
    ['unknown binary with a binary extension', random(100), 'song.mp3', 'audio/mpeg'],
    ['binary with a text extension', random(100), 'notes.txt', 'application/octet-stream'],
    ['text by extension', utf8('a,b\n1,2\n'), 'data.csv', 'text/csv;charset=utf-8'],
    ['markdown', utf8('# Title\n'), 'README.md', 'text/markdown;charset=utf-8'],
    ['text with a binary extension stays text', utf8('not really a png'), 'fake.png', 'text/plain;charset=utf-8'],
    ['HTML by content', utf8('<!doctype html><p>hi'), 'page', 'text/html;charset=utf-8'],
    ['JSON by content', utf8('{"a":1}'), 'data', 'application/json;charset=utf-8'],
    ['SVG by content', utf8('<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"/>'), 'drawing', 'image/svg+xml;charset=utf-8'],
    ['XML by content', utf8('<?xml version="1.0"?><root/>'), 'data', 'application/xml;charset=utf-8'],
    ['plain text', utf8('hello'), 'file', 'text/plain;charset=utf-8'],
    ['UTF-16 text', utf16le('hello'), 'a.txt', 'text/plain;charset=utf-16le'],
    ['legacy text', bytes('caf', [0xe9], ' au lait, s\'il vous pla', [0xee], 't'), 'menu.txt', 'text/plain;charset=windows-1252'],
  ])('%s', (_, input, name, mime) => {
    expect(guessMimeType(input, name)).toBe(mime);
  });

  it('a ZIP container takes the extension\'s more specific type', () => {
    const zip = bytes([0x50, 0x4b, 0x03, 0x04], new Array(40).fill(0));
    expect(guessMimeType(zip, 'a.zip')).toBe('application/zip');
    expect(guessMimeType(zip, 'book.epub')).toBe('application/epub+zip');
    expect(guessMimeType(zip, 'lib.jar')).toBe('application/java-archive');
    // …but not a textual one.
    expect(guessMimeType(zip, 'a.txt')).toBe('application/zip');
  });

  it('OLE files take the extension (.doc, .xls)', () => {
    const ole = bytes([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1], new Array(40).fill(0));
    expect(guessMimeType(ole, 'old.doc')).toBe('application/msword');
    expect(guessMimeType(ole, 'old.xls')).toBe('application/vnd.ms-excel');
    expect(guessMimeType(ole, 'old')).toBe('application/x-ole-storage');
  });

  it.each([
    ['three-pages.pdf', 'application/pdf'],
    ['server.log.gz', 'application/gzip'],
    ['report.docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
    ['archive.zip', 'application/zip'],
  ])('fixture %s', (name, mime) => {
    expect(guessMimeType(fixture(name), 'renamed.bin')).toBe(mime);
  });
});
