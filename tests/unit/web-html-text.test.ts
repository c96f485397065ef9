import { describe, expect, it } from 'vitest';
import { decodeEntities as sharedDecodeEntities } from '../../lib/html/entities';
import { decodeEntities, htmlToText, looksLikeHtml } from '../../lib/web/html-text';

describe('decodeEntities', () => {
  // The decoder itself is tested in html-entities.test.ts.
  it('is the shared HTML decoder', () => {
    expect(decodeEntities).toBe(sharedDecodeEntities);
    expect(decodeEntities('caf&eacute; &#150; &copy 2024')).toBe('café – © 2024');
  });
});

describe('htmlToText', () => {
  it('paragraphs, line breaks and lists', () => {
    expect(htmlToText('<p>One</p><p>Two<br>Three</p><ul><li>a</li><li>b</li></ul><ol><li>c</li></ol><h2>Head</h2>tail')).toBe(
      'One\n\nTwo\nThree\n\n- a\n- b\n\n- c\n\nHead\n\ntail',
    );
  });

  it('links become Markdown when they have an absolute or resolvable http(s) target', () => {
    expect(htmlToText('See <a href="https://a.example/x?y=1&amp;z=2">the docs</a>.')).toBe('See [the docs](https://a.example/x?y=1&z=2).');
    expect(htmlToText('<a href="/rel">rel</a>', { baseUrl: 'https://site.example/blog/post' })).toBe('[rel](https://site.example/rel)');
    expect(htmlToText('<a href="/rel">rel</a>')).toBe('rel');
    expect(htmlToText('<a href="javascript:alert(1)">click</a>')).toBe('click');
    expect(htmlToText('<a href="https://a.example/">https://a.example/</a>')).toBe('https://a.example/');
    expect(htmlToText('<a href="https://a.example/"><img src="x.png"></a>')).toBe('https://a.example/');
    expect(htmlToText('<a name="anchor">Section</a>')).toBe('Section');
    // Attribute rules: a query's "&copy=2" is a parameter, not ©; text follows text rules.
    expect(htmlToText('<a href="https://a.example/?q=1&copy=2&amp;r=3">&copy 2024</a>')).toBe('[© 2024](https://a.example/?q=1&copy=2&r=3)');
  });

  it('drops scripts, styles, comments and other non-text elements', () => {
    expect(htmlToText('a<script>if (x < 1) alert("</p>")</script>b<style>p{}</style>c<!-- <p>hidden</p> -->d<svg><text>no</text></svg>e<noscript>n</noscript>')).toBe('abcde');
    expect(htmlToText('<svg><svg/><svg></svg>inner</svg>after<svg/>end')).toBe('afterend');
    // The end tag of <head> is optional: <body> ends it.
    expect(htmlToText('<html><head><title>T</title><meta charset=utf-8><body><p>Body</p>')).toBe('Body');
  });

  it('reads namespace-prefixed XHTML (Atom content)', () => {
    expect(htmlToText('<xhtml:p>One</xhtml:p><xhtml:p>Two<xhtml:br/>Three</xhtml:p>')).toBe('One\n\nTwo\nThree');
  });

  it('keeps "<" that does not start a tag', () => {
    expect(htmlToText('5 < 6 and 7 <= 8, 3<4')).toBe('5 < 6 and 7 <= 8, 3<4');
    // As in browsers, a tag left open at the end is still a tag.
    expect(htmlToText('a<b')).toBe('a');
    expect(htmlToText('x &lt;script&gt; y')).toBe('x <script> y');
  });

  it('reads attributes with ">" inside quotes and very long attributes', () => {
    expect(htmlToText('<img alt="a > b" src="x">after')).toBe('a > b after');
    expect(htmlToText(`<img src="data:image/png;base64,${'A'.repeat(20_000)}">after`)).toBe('after');
  });

  it('table cells are separated', () => {
    expect(htmlToText('<table><tr><th>Name</th><th>Age</th></tr><tr><td>Ada</td><td>36</td></tr></table>')).toBe('| Name | Age\n\n| Ada | 36');
  });

  it('strikethrough and CDATA', () => {
    expect(htmlToText('<del>old</del> new <![CDATA[raw & <kept>]]>')).toBe('~~old~~ new raw & <kept>');
  });

  it('collapses whitespace and trims', () => {
    expect(htmlToText('  <div>\n\n  lots   of\n\tspace  </div>\n\n\n<p> x </p>  ')).toBe('lots of space\n\nx');
  });

  it('is linear on pathological input', () => {
    const started = performance.now();
    htmlToText('<a '.repeat(20_000));
    htmlToText('<p>'.repeat(100_000));
    expect(performance.now() - started).toBeLessThan(5000);
  });
});

describe('looksLikeHtml', () => {
  it.each([
    ['<b>bold</b>', true],
    ['a <br/> b', true],
    ['Tom &amp; Jerry', true],
    ['&#8217;', true],
    ['5 < 6', false],
    ['Why <blink> died', false],
    ['AT&T', false],
  ])('%j → %s', (text, expected) => {
    expect(looksLikeHtml(text)).toBe(expected);
  });
});
