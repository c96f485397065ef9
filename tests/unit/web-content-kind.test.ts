import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { classifyContent, describeBinary, formatBytes, sniffBinaryFormat } from '../../lib/web/content-kind';
import { parseMimeType } from '../../lib/web/mime';

const fixture = (name: string) => new Uint8Array(readFileSync(new URL(`../fixtures/web/binary/${name}`, import.meta.url)));
const utf8 = (text: string) => new TextEncoder().encode(text);
const bytes = (...parts: (number[] | string)[]) =>
  new Uint8Array(parts.flatMap((p) => (typeof p === 'string' ? [...p].map((c) => c.charCodeAt(0)) : p)));
const pad = (b: Uint8Array, n = 64) => new Uint8Array([...b, ...new Uint8Array(n)]);

const u16be = (n: number) => [n >> 8, n & 0xff];
const u32be = (n: number) => [n >>> 24, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff];
const u16le = (n: number) => [n & 0xff, n >> 8];

const PNG = bytes([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], u32be(13), 'IHDR', u32be(640), u32be(480), [8, 6, 0, 0, 0]);
const GIF = bytes('GIF89a', u16le(320), u16le(200), [0xf7, 0, 0]);
// SOI, an APP0 segment to walk past, then SOF2 (progressive) with height 1080, width 1920.
const JPEG = bytes([0xff, 0xd8], [0xff, 0xe0], u16be(16), 'JFIF\0', [1, 1, 0, 0, 1, 0, 1, 0, 0], [0xff, 0xc2], u16be(17), [8], u16be(1080), u16be(1920), [3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]);
const WEBP_VP8X = bytes('RIFF', [0, 0, 0, 0], 'WEBP', 'VP8X', [10, 0, 0, 0], [0x10, 0, 0, 0], [0x7f, 0x02, 0x00], [0xdf, 0x01, 0x00]);
const MP4 = bytes([0, 0, 0, 0x20], 'ftypisom', [0, 0, 2, 0], 'isomiso2avc1mp41');

describe('parseMimeType', () => {
  it('parses what servers really send', () => {
    expect(parseMimeType('Text/HTML;Charset="UTF-8"')).toEqual({ essence: 'text/html', type: 'text', subtype: 'html', params: new Map([['charset', 'UTF-8']]) });
    expect(parseMimeType(' application/json ; charset=utf-8 ; ')?.params.get('charset')).toBe('utf-8');
    expect(parseMimeType('text/plain; charset="a\\"b"; charset=second')?.params.get('charset')).toBe('a"b');
    expect(parseMimeType('text/html;;charset=koi8-r')?.params.get('charset')).toBe('koi8-r');
    expect(parseMimeType('text/html; charset')?.params.size).toBe(0);
  });

  it.each([null, undefined, '', 'html', '/html', 'text/', 'text/ html', 't ext/html', '; charset=utf-8'])('rejects %j', (raw) => {
    expect(parseMimeType(raw)).toBeNull();
  });
});

describe('classifyContent', () => {
  it.each([
    ['text/html; charset=utf-8', '<!doctype html><title>x</title>', 'html'],
    ['application/xhtml+xml', '<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"/>', 'html'],
    ['application/json', '{"a":1}', 'json'],
    ['Application/JSON; charset=UTF-8', '[1,2]', 'json'],
    ['text/json', '{}', 'json'],
    ['application/ld+json', '{"@context":"https://schema.org"}', 'json'],
    ['application/problem+json', '{"title":"Not Found"}', 'json'],
    ['application/json', 'not json at all', 'json'], // declared: json.ts says it did not parse
    ['application/rss+xml', '<rss version="2.0"><channel/></rss>', 'feed'],
    ['application/atom+xml', '<feed xmlns="http://www.w3.org/2005/Atom"/>', 'feed'],
    ['application/xml', '<?xml version="1.0"?><urlset/>', 'xml'],
    ['image/svg+xml', '<svg xmlns="http://www.w3.org/2000/svg"/>', 'xml'],
    ['text/plain', 'hello', 'text'],
    ['text/csv', 'a,b\n1,2', 'text'],
    ['text/markdown', '# Title', 'text'],
    ['application/javascript', 'export const a = 1;', 'text'],
    ['application/x-ndjson', '{"a":1}\n{"a":2}\n', 'text'],
    ['text/plain', '<!doctype html><p>source</p>', 'text'], // text/plain is never promoted to HTML
  ])('%s with %j → %s, as declared', (type, body, kind) => {
    expect(classifyContent(type, utf8(body))).toMatchObject({ kind, sniffed: false });
  });

  it.each([
    ['text/html', '{"ok":true,"items":[]}', 'json'], // PHP's default type
    ['text/plain', '\n  [{"id":1}]', 'json'], // raw file hosts
    ['text/html', '<?xml version="1.0"?>\n<rss version="2.0"><channel/></rss>', 'feed'],
    ['text/xml', '<?xml version="1.0"?><!-- generator --><rss version="2.0"/>', 'feed'],
    ['application/xml', '<?xml version="1.0"?><rdf:RDF xmlns:rdf="x"><channel/></rdf:RDF>', 'feed'],
  ])('%s with %j → %s (the declared type was wrong)', (type, body, kind) => {
    expect(classifyContent(type, utf8(body))).toMatchObject({ kind, sniffed: true });
  });

  it('keeps the declared kind when the JSON-looking body does not parse', () => {
    expect(classifyContent('text/html', utf8('{{ template }}'))).toMatchObject({ kind: 'html', sniffed: false });
    expect(classifyContent('text/plain', utf8('[INFO] started'))).toMatchObject({ kind: 'text' });
  });

  it.each([
    ['text/html', pad(PNG), 'png'],
    ['text/html; charset=utf-8', utf8('%PDF-1.7\n...'), 'pdf'],
    ['text/plain', fixture('server.log.gz'), 'gzip'],
    ['application/json', fixture('archive.zip'), 'zip'],
  ])('%s that is really binary → binary (%s)', (type, body, format) => {
    expect(classifyContent(type, body)).toMatchObject({ kind: 'binary', sniffed: true, format: { id: format } });
  });

  it('a declared text type with mostly control bytes is binary; a stray one is not', () => {
    const junk = new Uint8Array(200).map((_, i) => (i % 3 === 0 ? 0x01 : 0x41));
    expect(classifyContent('text/html', junk).kind).toBe('binary');
    expect(classifyContent('text/html', utf8(`<p>a\u0000b</p>${' '.repeat(100)}`)).kind).toBe('html');
  });

  it.each([
    [null, '<!DOCTYPE html>\n<html><body>x</body></html>', 'html'],
    [null, '\n\n   <html lang="en">', 'html'],
    ['application/octet-stream', '<!-- comment --><div>hi</div>', 'html'],
    [null, '<p>Paragraph</p>', 'html'],
    [null, '<?xml version="1.0"?>\n<note><to>A</to></note>', 'xml'],
    ['application/octet-stream', '<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"></feed>', 'feed'],
    [null, '<rss version="2.0"><channel></channel></rss>', 'feed'],
    ['binary/octet-stream', '{"a":[1,2,3]}', 'json'],
    [null, ' [1, 2]', 'json'],
    [null, '[not json', 'text'],
    [null, 'Just some words.\nAnd a second line.', 'text'],
    ['nonsense', 'Just text', 'text'],
    ['application/vnd.example.custom', 'plain text really', 'text'],
    [null, '', 'text'],
  ])('sniffs %s with %j → %s', (type, body, kind) => {
    expect(classifyContent(type, utf8(body))).toMatchObject({ kind, sniffed: true });
  });

  it('sniffs UTF-16 text with a BOM as text, not as binary', () => {
    const html = new Uint8Array([0xff, 0xfe, ...new Uint8Array(new Uint16Array([...'<html><p>Hi</p></html>'].map((c) => c.charCodeAt(0))).buffer)]);
    expect(classifyContent(null, html).kind).toBe('html');
    expect(classifyContent('text/html', html).kind).toBe('html');
  });

  it.each([
    [null, pad(PNG), 'png'],
    ['application/octet-stream', fixture('report.docx'), 'docx'],
    ['application/vnd.example', bytes([0, 1, 2, 3, 4, 5, 6, 7]), undefined],
    [null, bytes('text then\u0000NUL'), undefined],
    ['image/png', utf8('<html>an error page</html>'), undefined], // image types are trusted
    ['application/pdf', fixture('three-pages.pdf'), 'pdf'],
    ['font/woff2', bytes('wOF2', [0, 1, 0, 0]), 'woff2'],
    ['application/zip', fixture('archive.zip'), 'zip'],
  ])('%s → binary (%s)', (type, body, format) => {
    const c = classifyContent(type, body);
    expect(c.kind).toBe('binary');
    expect(c.format?.id).toBe(format);
  });
});

describe('sniffBinaryFormat', () => {
  it.each([
    [pad(PNG), 'png'],
    [pad(JPEG), 'jpeg'],
    [pad(GIF), 'gif'],
    [pad(WEBP_VP8X), 'webp'],
    [fixture('three-pages.pdf'), 'pdf'],
    [fixture('archive.zip'), 'zip'],
    [fixture('report.docx'), 'docx'],
    [fixture('server.log.gz'), 'gzip'],
    [pad(bytes([0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c, 0, 4])), '7z'],
    [pad(bytes('Rar!\x1a\x07\x01\x00')), 'rar'],
    [pad(MP4), 'mp4'],
    [pad(bytes([0, 0, 0, 0x1c], 'ftypavif')), 'avif'],
    [pad(bytes([0, 0, 0, 0x14], 'ftypqt  ')), 'mov'],
    [pad(bytes('ID3', [4, 0, 0])), 'mp3'],
    [pad(bytes([0xff, 0xfb, 0x90, 0x64])), 'mp3'],
    [pad(bytes('OggS', [0, 2])), 'ogg'],
    [pad(bytes('fLaC')), 'flac'],
    [pad(bytes([0x1a, 0x45, 0xdf, 0xa3])), 'webm'],
    [pad(bytes('wOFF', [0, 1, 0, 0])), 'woff'],
    [pad(bytes([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0])), 'wasm'],
    [pad(bytes([0x7f], 'ELF', [2, 1, 1])), 'elf'],
    [pad(bytes('SQLite format 3\0')), 'sqlite'],
    [pad(bytes([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1])), 'ole'],
    [pad(bytes([0x1f, 0x8b, 8, 0])), 'gzip'],
  ])('%#: %s', (body, id) => {
    expect(sniffBinaryFormat(body)?.id).toBe(id);
  });

  it('does not see formats in ordinary text', () => {
    for (const text of ['GIF is a format', 'PK is a prefix', 'MZ says hi', 'BM is a brand', 'ID3 tags explained', 'BZh9 text', 'RIFF raff']) {
      expect(sniffBinaryFormat(utf8(text))).toBeNull();
    }
    expect(sniffBinaryFormat(new Uint8Array(0))).toBeNull();
  });
});

describe('describeBinary', () => {
  it('a PDF: name, type, size, version and page count', () => {
    const pdf = fixture('three-pages.pdf');
    expect(describeBinary(pdf, 'application/pdf', 'https://example.com/docs/three-pages.pdf', pdf.length)).toBe(
      `Binary content: three-pages.pdf (PDF document, ${pdf.length} bytes, application/pdf) — not shown; web_fetch returns text only. PDF 1.4, about 3 pages.`,
    );
  });

  it('a linearized PDF gives its exact page count', () => {
    const pdf = utf8('%PDF-1.7\n%\u00e2\u00e3\n1 0 obj\n<< /Linearized 1 /L 2516582 /H [ 700 200 ] /O 4 /E 9000 /N 12 /T 2500000 >>\nendobj\n');
    expect(describeBinary(pdf, 'application/pdf', 'https://example.com/paper', 2_516_582)).toBe(
      'Binary content (PDF document, 2.4 MB, application/pdf) — not shown; web_fetch returns text only. PDF 1.7, 12 pages.',
    );
  });

  it('a capped PDF says "at least" and "over"', () => {
    const pdf = fixture('three-pages.pdf');
    expect(describeBinary(pdf, null, null, 10 * 1024 * 1024, { capped: true })).toBe(
      'Binary content (PDF document, over 10 MB) — not shown; web_fetch returns text only. PDF 1.4, at least 3 pages.',
    );
  });

  it('a PDF whose pages are in compressed object streams: no page guess', () => {
    expect(describeBinary(utf8('%PDF-1.5\n1 0 obj << /Type /ObjStm >> stream xyz'), 'application/pdf', null, 5000)).toBe(
      'Binary content (PDF document, 4.9 KB, application/pdf) — not shown; web_fetch returns text only. PDF 1.5.',
    );
  });

  it.each([
    [pad(PNG), 'image/png', '640×480 pixels.'],
    [pad(GIF), 'image/gif', '320×200 pixels.'],
    [pad(JPEG), 'image/jpeg', '1920×1080 pixels.'],
    [pad(WEBP_VP8X), 'image/webp', '640×480 pixels.'],
  ])('image dimensions: %#', (body, type, dims) => {
    expect(describeBinary(body, type, 'https://cdn.example.com/i/photo.img', 123_456)).toMatch(new RegExp(`\\(.*, 121 KB, ${type}\\) — not shown; web_fetch returns text only\\. ${dims}$`));
  });

  it('archives: kind and entry count', () => {
    const docx = fixture('report.docx');
    expect(describeBinary(docx, 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', 'https://x.example/files/Q1%20report.docx', docx.length)).toBe(
      `Binary content: Q1 report.docx (Word document (.docx), ${docx.length} bytes, application/vnd.openxmlformats-officedocument.wordprocessingml.document) — not shown; web_fetch returns text only. 3 entries in the archive.`,
    );
    const zip = fixture('archive.zip');
    expect(describeBinary(zip, 'application/zip', null, zip.length)).toMatch(/\(ZIP archive, .*\) — .* 3 entries in the archive\.$/);
    expect(describeBinary(zip.subarray(0, 100), 'application/zip', null, 20e6, { capped: true })).toBe(
      'Binary content (ZIP archive, over 19.1 MB, application/zip) — not shown; web_fetch returns text only.',
    );
  });

  it('gzip: the compressed file name', () => {
    const gz = fixture('server.log.gz');
    expect(describeBinary(gz, 'application/gzip', null, gz.length)).toMatch(/gzip-compressed data.* Compressed file name: server\.log\.$/);
  });

  it('unknown binary content: what is known, never the bytes', () => {
    const junk = new Uint8Array(2000).map((_, i) => (i * 7919) % 256);
    expect(describeBinary(junk, 'application/vnd.example.thing', 'https://example.com/download?id=7', 1_300_000)).toBe(
      'Binary content (1.2 MB, application/vnd.example.thing) — not shown; web_fetch returns text only.',
    );
    expect(describeBinary(junk, null, 'https://example.com/blob.bin', 2000)).toBe(
      'Binary content: blob.bin (unrecognised binary data, 2 KB) — not shown; web_fetch returns text only.',
    );
    expect(describeBinary(junk, 'application/octet-stream', undefined, 2000)).toBe(
      'Binary content (unrecognised binary data, 2 KB, application/octet-stream) — not shown; web_fetch returns text only.',
    );
  });

  it('truncated headers do not crash or invent numbers', () => {
    for (const body of [PNG.subarray(0, 10), GIF.subarray(0, 7), JPEG.subarray(0, 12), WEBP_VP8X.subarray(0, 16), bytes('%PDF-')]) {
      expect(describeBinary(body, null, null, body.length)).toMatch(/^Binary content \([^)]*\) — not shown; web_fetch returns text only\.$/);
    }
  });
});

describe('formatBytes', () => {
  it.each([
    [0, '0 bytes'],
    [1, '1 byte'],
    [1023, '1023 bytes'],
    [1024, '1 KB'],
    [1536, '1.5 KB'],
    [2_516_582, '2.4 MB'],
    [150 * 1024 * 1024, '150 MB'],
    [3 * 1024 ** 3, '3 GB'],
  ])('%d → %s', (n, text) => {
    expect(formatBytes(n)).toBe(text);
  });
});
