import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readBodyCapped } from '../../lib/web/body';
import { readableFromBytes, toReadable } from '../../lib/web/convert';

const fixture = (path: string) => new Uint8Array(readFileSync(new URL(`../fixtures/web/${path}`, import.meta.url)));
const utf8 = (text: string) => new TextEncoder().encode(text);

describe('toReadable', () => {
  it('html: only decoded, with the charset from <meta>', () => {
    const r = toReadable('html', fixture('charset/ko-euc-kr-meta.html'), { contentType: 'text/html' });
    expect(r.encoding).toBe('euc-kr');
    expect(r.content).toContain('<title>오늘의 뉴스 - 한국어 페이지</title>');
    expect(r.note).toBeUndefined();
  });

  it('json: pretty-printed, decoded per the header', () => {
    const bytes = new Uint8Array([...utf8('{"city":"'), 0xdd, 0x73, 0x74, 0x61, 0x6e, 0x62, 0x75, 0x6c, ...utf8('"}')]);
    const r = toReadable('json', bytes, { contentType: 'application/json; charset=windows-1254' });
    expect(r).toEqual({ content: '{\n  "city": "İstanbul"\n}', encoding: 'windows-1254' });
  });

  it('json that does not parse: as is, with a note', () => {
    const r = toReadable('json', utf8('{"a":'), { contentType: 'application/json' });
    expect(r.content).toBe('{"a":');
    expect(r.note).toMatch(/did not parse as JSON \(line 1, column 6/);
  });

  it('feed: Markdown, title, links resolved against the response URL', () => {
    const r = toReadable('feed', utf8('<rss version="2.0"><channel><title>News</title><item><title>A</title><link>/a</link></item></channel></rss>'), {
      contentType: 'application/rss+xml',
      url: 'https://news.example/rss.xml',
    });
    expect(r).toEqual({ content: '# News\nRSS 2.0 feed · 1 item\n\n## A\nhttps://news.example/a', title: 'News', encoding: 'utf-8' });
  });

  it('xml: an outline with a note', () => {
    const r = toReadable('xml', '<config><debug>true</debug></config>', {});
    expect(r).toEqual({ content: 'config\n  debug: true', note: 'XML document shown as an outline of its elements (root element <config>).' });
  });

  it('text: line endings normalised, BOM dropped', () => {
    expect(toReadable('text', '\uFEFFa,b\r\n1,2\r3', {})).toEqual({ content: 'a,b\n1,2\n3' });
  });

  it('binary: a description, never the bytes', () => {
    const pdf = fixture('binary/three-pages.pdf');
    const r = toReadable('binary', pdf, { contentType: 'application/pdf', url: 'https://example.com/three-pages.pdf' });
    expect(r.content).toMatch(/^Binary content: three-pages\.pdf \(PDF document, \d+ bytes, application\/pdf\) — not shown; web_fetch returns text only\. PDF 1\.4, about 3 pages\.$/);
    expect(r.note).toBeUndefined();
  });

  it('a capped body says so, after any note of its own', () => {
    const r = toReadable('json', utf8('[1,2,'), { contentType: 'application/json', capped: true });
    expect(r.note).toBe(
      'The body did not parse as JSON (line 1, column 6: the text ends where a value should be); shown as is, because the body was cut at the size limit. Only the first 10 MB of the body were read.',
    );
    expect(toReadable('text', 'abc', { capped: true, maxBytes: 1024 }).note).toBe('Only the first 1 KB of the body were read.');
    expect(toReadable('binary', fixture('binary/archive.zip'), { capped: true, size: 10 * 1024 * 1024 }).content).toMatch(/\(ZIP archive, over 10 MB\)/);
  });
});

describe('readableFromBytes', () => {
  it.each([
    ['application/json', '{"ok":true}', 'json', '{\n  "ok": true\n}'],
    ['text/html; charset=utf-8', '{"ok":true}', 'json', '{\n  "ok": true\n}'],
    ['text/plain', 'hello\r\nworld', 'text', 'hello\nworld'],
    [null, '<!doctype html><p>hi</p>', 'html', '<!doctype html><p>hi</p>'],
    ['application/octet-stream', '<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>F</title></feed>', 'feed', '# F\nAtom 1.0 feed · 0 items'],
  ])('%s %j → %s', (contentType, body, kind, content) => {
    const r = readableFromBytes(utf8(body), { contentType });
    expect(r.kind).toBe(kind);
    expect(r.content).toBe(content);
  });

  it('a Turkish feed in ISO-8859-9 served as text/xml without a charset', () => {
    const r = readableFromBytes(fixture('charset/tr-iso-8859-9-feed.xml'), { contentType: 'text/xml', url: 'https://haber.example/rss' });
    expect(r.kind).toBe('feed');
    expect(r.classification).toEqual({ kind: 'feed', mimeType: 'text/xml', sniffed: true });
    expect(r.encoding).toBe('windows-1254');
    expect(r.title).toBe('Günün Haberleri');
    expect(r.content).toContain('## Şehirde yoğun kar yağışı');
  });

  it('a PNG served as text/html is described, not decoded', () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 16, 0, 0, 0, 9, 8, 6, 0, 0, 0]);
    const r = readableFromBytes(png, { contentType: 'text/html', url: 'https://example.com/logo' });
    expect(r.kind).toBe('binary');
    expect(r.content).toBe('Binary content (PNG image, 29 bytes, text/html) — not shown; web_fetch returns text only. 16×9 pixels.');
  });

  it('end to end from a streamed, capped Response', async () => {
    const chunks = [utf8('{"items":['), ...Array.from({ length: 50 }, (_, i) => utf8(`{"id":${i}},`)), utf8('{"id":-1}]}')];
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = chunks.shift();
        if (next) controller.enqueue(next);
        else controller.close();
      },
    });
    const response = new Response(stream, { headers: { 'content-type': 'application/json' } });
    const body = await readBodyCapped(response, { maxBytes: 100 });
    const r = readableFromBytes(body.bytes, { contentType: response.headers.get('content-type'), capped: body.capped, size: body.size, maxBytes: 100 });
    expect(r.kind).toBe('json');
    expect(r.content.length).toBe(100);
    expect(r.note).toMatch(/did not parse as JSON .*; shown as is, because the body was cut at the size limit\. Only the first 100 bytes of the body were read\.$/);
  });
});
