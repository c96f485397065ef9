import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { charsetFromMetaContent, decodeBody, normalizeEncodingLabel, prescanMetaCharset, xmlDeclarationEncoding } from '../../lib/web/charset';
import { sniffBom } from '../../lib/web/bom';

const fixture = (name: string) => new Uint8Array(readFileSync(new URL(`../fixtures/web/charset/${name}`, import.meta.url)));
const bytes = (text: string) => new TextEncoder().encode(text);
/** Bytes 0–255 from a string of code units 0–255 (legacy single-byte content). */
const raw = (text: string) => Uint8Array.from(text, (c) => c.charCodeAt(0));
const tag = (html: string, name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(html)?.[1];
const paragraphs = (html: string) => [...html.matchAll(/<p>([^<]*)<\/p>/g)].map((m) => m[1]);

describe('decodeBody on real-looking legacy pages', () => {
  it('Turkish windows-1254, declared only in the header', () => {
    const r = decodeBody(fixture('tr-windows-1254-header.html'), { contentType: 'text/html; charset=windows-1254', kind: 'html' });
    expect(r).toMatchObject({ encoding: 'windows-1254', source: 'header' });
    expect(tag(r.text, 'title')).toBe("Haberler — İstanbul'da güneşli bir gün");
    expect(tag(r.text, 'h1')).toBe('Türkçe karakterler');
    expect(paragraphs(r.text)).toEqual([
      'Küçük harfler: ğüşıöç. Büyük harfler: İĞÜŞÖÇ.',
      'Işık, ılık süt ve çiğ köfte; “tırnak” işaretleri ve € simgesi.',
    ]);
  });

  it('the same Turkish page with the ISO-8859-9 label and odd header spelling', () => {
    const r = decodeBody(fixture('tr-windows-1254-header.html'), { contentType: 'TEXT/HTML;Charset="ISO-8859-9"', kind: 'html' });
    expect(r.encoding).toBe('windows-1254');
    expect(paragraphs(r.text)[0]).toBe('Küçük harfler: ğüşıöç. Büyük harfler: İĞÜŞÖÇ.');
  });

  it('Korean EUC-KR, declared only in <meta charset> (after a comment naming utf-8)', () => {
    const r = decodeBody(fixture('ko-euc-kr-meta.html'), { contentType: 'text/html', kind: 'html' });
    expect(r).toMatchObject({ encoding: 'euc-kr', source: 'meta' });
    expect(tag(r.text, 'title')).toBe('오늘의 뉴스 - 한국어 페이지');
    expect(paragraphs(r.text)).toEqual(['서울의 날씨는 맑고 따뜻합니다. 내일은 비가 올 예정입니다.']);
  });

  it('Japanese Shift_JIS, declared only in <meta http-equiv> with upper-case attributes', () => {
    const r = decodeBody(fixture('ja-shift_jis-http-equiv.html'), { contentType: null, kind: 'html' });
    expect(r).toMatchObject({ encoding: 'shift_jis', source: 'meta' });
    expect(tag(r.text, 'title')).toBe('日本語のページ｜天気予報');
    expect(paragraphs(r.text)).toEqual(['今日の東京は晴れです。カタカナ、ひらがな、漢字が混ざった文章です。']);
  });

  it('Chinese GBK, declared with the legacy gb2312 label in an unquoted <meta charset>', () => {
    const r = decodeBody(fixture('zh-gbk-meta.html'), { contentType: 'text/html', kind: 'html' });
    expect(r).toMatchObject({ encoding: 'gbk', source: 'meta' });
    expect(tag(r.text, 'title')).toBe('简体中文网页 - 北京新闻');
    expect(paragraphs(r.text)).toEqual(['北京今天天气晴朗，气温二十五度。欢迎访问我们的网站！']);
  });

  it('the header beats <meta>', () => {
    // The file's meta says euc-kr; a (wrong) header still wins, as in browsers.
    const r = decodeBody(fixture('ko-euc-kr-meta.html'), { contentType: 'text/html; charset=utf-8', kind: 'html' });
    expect(r).toMatchObject({ encoding: 'utf-8', source: 'header' });
    expect(r.text).toContain('\uFFFD');
  });

  it('a BOM beats the header and <meta>: UTF-16LE', () => {
    const r = decodeBody(fixture('ru-utf-16le-bom.html'), { contentType: 'text/html; charset=iso-8859-1', kind: 'html' });
    expect(r).toMatchObject({ encoding: 'utf-16le', source: 'bom' });
    expect(r.text.startsWith('<html>')).toBe(true); // the BOM itself is not in the text
    expect(tag(r.text, 'title')).toBe('Привет, мир');
    expect(paragraphs(r.text)).toEqual(['Съешь же ещё этих мягких французских булок.']);
  });

  it('UTF-16BE and UTF-8 BOMs', () => {
    const be = new Uint8Array([0xfe, 0xff, 0x00, 0x48, 0x00, 0x69, 0x04, 0x1f]);
    expect(decodeBody(be)).toEqual({ text: 'HiП', encoding: 'utf-16be', source: 'bom' });
    const utf8 = new Uint8Array([0xef, 0xbb, 0xbf, ...bytes('{"a":"ş"}')]);
    expect(decodeBody(utf8, { contentType: 'application/json; charset=windows-1252' })).toEqual({ text: '{"a":"ş"}', encoding: 'utf-8', source: 'bom' });
  });

  it('undeclared, invalid UTF-8: falls back to windows-1252', () => {
    const r = decodeBody(fixture('fr-undeclared-windows-1252.html'), { contentType: 'text/html', kind: 'html' });
    expect(r).toMatchObject({ encoding: 'windows-1252', source: 'fallback' });
    expect(tag(r.text, 'title')).toBe('Café crème à Noël');
    expect(paragraphs(r.text)).toEqual(['Déjà vu – « naïve » façade, 20 €.']);
  });

  it('undeclared, valid UTF-8: UTF-8', () => {
    expect(decodeBody(bytes('<p>naïve — ok</p>'), { kind: 'html' })).toEqual({ text: '<p>naïve — ok</p>', encoding: 'utf-8', source: 'default' });
  });

  it('an XML feed declared only in its XML declaration', () => {
    const r = decodeBody(fixture('tr-iso-8859-9-feed.xml'), { contentType: 'application/rss+xml', kind: 'feed' });
    expect(r).toMatchObject({ encoding: 'windows-1254', source: 'xml-declaration' });
    expect(r.text).toContain('<title>Şehirde yoğun kar yağışı</title>');
    expect(r.text).toContain("İstanbul ve Ankara'da okullar tatil edildi; sürücüler dikkatli olmalı.");
  });

  it('looks for <meta> only in HTML and for the XML declaration only in HTML and XML', () => {
    const page = raw('<meta charset="windows-1254"><p>\xFE</p>');
    expect(decodeBody(page, { kind: 'text' }).source).toBe('fallback');
    expect(decodeBody(page, { kind: 'html' }).text).toBe('<meta charset="windows-1254"><p>ş</p>');
    const xml = raw('<?xml version="1.0" encoding="windows-1254"?><a>\xFE</a>');
    expect(decodeBody(xml, { kind: 'xml' }).text).toContain('<a>ş</a>');
    expect(decodeBody(xml, { kind: 'html' }).source).toBe('xml-declaration');
    expect(decodeBody(xml, { kind: 'json' }).source).toBe('fallback');
  });

  it('without a kind, the Content-Type says where to look', () => {
    const page = raw('<meta charset="windows-1254"><p>\xFE</p>');
    expect(decodeBody(page, { contentType: 'text/html' })).toMatchObject({ encoding: 'windows-1254', source: 'meta' });
    const xml = raw('<?xml version="1.0" encoding="windows-1254"?><a>\xFE</a>');
    expect(decodeBody(xml, { contentType: 'application/atom+xml' })).toMatchObject({ encoding: 'windows-1254', source: 'xml-declaration' });
    expect(decodeBody(page, { contentType: 'text/plain' }).source).toBe('fallback');
    expect(decodeBody(page).source).toBe('fallback');
  });

  it('skips an unknown or unsupported label instead of failing', () => {
    const page = raw('<meta charset="windows-1254"><p>\xFE</p>');
    expect(decodeBody(page, { contentType: 'text/html; charset=klingon-8', kind: 'html' })).toMatchObject({ encoding: 'windows-1254', source: 'meta' });
    // iso-2022-kr is the Encoding Standard's "replacement" encoding: TextDecoder refuses it.
    expect(decodeBody(bytes('abc'), { contentType: 'text/plain; charset=iso-2022-kr' })).toEqual({ text: 'abc', encoding: 'utf-8', source: 'default' });
    expect(decodeBody(bytes('abc'), { contentType: 'text/plain; charset=' })).toMatchObject({ source: 'default' });
    expect(decodeBody(bytes('abc'), { contentType: 'garbage' })).toMatchObject({ source: 'default' });
  });

  it('drops a multi-byte character cut by the size cap instead of ending in U+FFFD', () => {
    const full = bytes('añb€');
    expect(decodeBody(full.subarray(0, full.length - 1)).text).toBe('añb');
    expect(decodeBody(full.subarray(0, full.length - 1)).source).toBe('default');
  });

  it('decodes an empty body', () => {
    expect(decodeBody(new Uint8Array(0), { kind: 'html' })).toEqual({ text: '', encoding: 'utf-8', source: 'default' });
  });
});

describe('prescanMetaCharset', () => {
  const scan = (html: string) => prescanMetaCharset(raw(html));

  it.each([
    ['<meta charset="utf-8">', 'utf-8'],
    ["<meta charset='Shift_JIS'>", 'shift_jis'],
    ['<meta charset=euc-kr>', 'euc-kr'],
    ['<META CHARSET="KOI8-R">', 'koi8-r'],
    ['<meta\ncharset = "big5" >', 'big5'],
    ['<meta/charset="gb18030">', 'gb18030'],
    ['<meta http-equiv="Content-Type" content="text/html; charset=windows-1251">', 'windows-1251'],
    ['<meta content="text/html;charset=iso-8859-2" http-equiv="content-type">', 'iso-8859-2'],
    ["<meta http-equiv=content-type content='text/html; charset=\"koi8-u\"'>", 'koi8-u'],
    ['<meta http-equiv="Content-Type" content="text/html; charset = latin1 ; foo">', 'windows-1252'],
    // UTF-16 cannot be right for a page readable as ASCII: the spec reads it as UTF-8.
    ['<meta charset="utf-16">', 'utf-8'],
    ['<meta charset="x-user-defined">', 'windows-1252'],
    // The first of two declarations wins.
    ['<meta charset="iso-8859-7"><meta charset="utf-8">', 'iso-8859-7'],
    // A '>' inside a quoted attribute of an earlier tag does not end it early.
    ['<link title="a > b <meta charset=koi8-r>" href="x"><meta charset="big5">', 'big5'],
    // A <meta> inside a comment does not count; "<!-->" closes a comment.
    ['<!-- <meta charset="koi8-r"> --><meta charset="euc-jp">', 'euc-jp'],
    ['<!--><meta charset="euc-jp">', 'euc-jp'],
  ])('%s → %s', (html, expected) => {
    expect(scan(html)).toBe(expected);
  });

  it.each([
    '<meta content="text/html; charset=koi8-r">', // content without http-equiv
    '<meta http-equiv="refresh" content="0; charset=koi8-r">',
    '<meta name="charset" content="koi8-r">',
    '<meta charset="no-such-encoding">',
    '<meta charset="">',
    '<!-- var s = "<meta charset=koi8-r>" -->',
    '<metadata charset="koi8-r">',
    '<p>no declaration</p>',
    '<meta charset="koi8-r"', // unterminated at the end of input
  ])('no encoding from %s', (html) => {
    expect(scan(html)).toBeNull();
  });

  it('only looks at the first 1024 bytes', () => {
    expect(scan(`${' '.repeat(1002)}<meta charset="koi8-r">`)).toBeNull(); // '>' is byte 1025
    expect(scan(`${' '.repeat(1001)}<meta charset="koi8-r">`)).toBe('koi8-r'); // '>' is byte 1024
  });
});

describe('charsetFromMetaContent', () => {
  it.each([
    ['text/html; charset=utf-8', 'utf-8'],
    ['text/html;charset="euc-kr"', 'euc-kr'],
    ["text/html; CHARSET='big5' ", 'big5'],
    ['charset =  gbk', 'gbk'],
    ['text/html; charsetx; charset=koi8-r', 'koi8-r'],
    ['text/html; charset="unterminated', null],
    ['text/html', null],
    ['text/html; charset=', null],
  ])('%j → %j', (content, expected) => {
    expect(charsetFromMetaContent(content)).toBe(expected);
  });
});

describe('xmlDeclarationEncoding and sniffBom', () => {
  it('reads the encoding pseudo-attribute', () => {
    expect(xmlDeclarationEncoding(raw('<?xml version="1.0" encoding="ISO-8859-9"?><rss/>'))).toBe('windows-1254');
    expect(xmlDeclarationEncoding(raw("\n<?xml version='1.0' encoding='Shift_JIS' standalone='yes'?>"))).toBe('shift_jis');
    expect(xmlDeclarationEncoding(raw('<?xml version="1.0" encoding="UTF-16"?>'))).toBe('utf-8');
    expect(xmlDeclarationEncoding(raw('<?xml version="1.0"?><a encoding="koi8-r"/>'))).toBeNull();
    expect(xmlDeclarationEncoding(raw('<a/><?xml version="1.0" encoding="koi8-r"?>'))).toBeNull();
  });

  it('sniffs byte order marks', () => {
    expect(sniffBom(new Uint8Array([0xef, 0xbb, 0xbf, 0x41]))).toBe('utf-8');
    expect(sniffBom(new Uint8Array([0xff, 0xfe, 0x41, 0x00]))).toBe('utf-16le');
    expect(sniffBom(new Uint8Array([0xfe, 0xff, 0x00, 0x41]))).toBe('utf-16be');
    expect(sniffBom(new Uint8Array([0xef, 0xbb]))).toBeNull();
    expect(sniffBom(bytes('abc'))).toBeNull();
  });
});

describe('normalizeEncodingLabel', () => {
  it.each([
    ['UTF-8', 'utf-8'],
    ['utf8', 'utf-8'],
    [' "utf-8" ', 'utf-8'],
    ['latin1', 'windows-1252'],
    ['iso-8859-1', 'windows-1252'],
    ['us-ascii', 'windows-1252'],
    ['cp1254', 'windows-1254'],
    ['iso-8859-9', 'windows-1254'],
    ['x-sjis', 'shift_jis'],
    ['ms932', 'shift_jis'],
    ['ks_c_5601-1987', 'euc-kr'],
    ['gb2312', 'gbk'],
    ['GB18030', 'gb18030'],
    ['big5-hkscs', 'big5'],
    ['koi8-r', 'koi8-r'],
    ['windows-874', 'windows-874'],
    ['euc_kr', 'euc-kr'], // Python-style spelling
  ])('%j → %s', (label, expected) => {
    expect(normalizeEncodingLabel(label)).toBe(expected);
  });

  it.each(['', '   ', 'klingon', 'utf-9', 'iso-2022-kr', 'hz-gb-2312', 'replacement'])('%j → null', (label) => {
    expect(normalizeEncodingLabel(label)).toBeNull();
  });
});
