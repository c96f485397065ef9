import { describe, expect, it } from 'vitest';
import { byClass, byTag, findAll, findFirst, parseHtml, textOf, titleOf } from '../../lib/search-engines/html';
import { collapseWhitespace, excerpt, stripBom, truncate } from '../../lib/search-engines/text';
import { decodeBase64Url, dedupeKey, isHttpUrl, stripTracking, withParams } from '../../lib/search-engines/urls';
import { mapLimit } from '../../lib/search-engines/async';

describe('parseHtml', () => {
  it('reads quoted attributes holding ">" and newlines, spaces around "=", and unquoted values', () => {
    const root = parseHtml(`<a data-click="{'F':'7>8'}"\n href = "http://www.baidu.com/link?url=abc&amp;x=1"\n target=_blank>t</a>`);
    const a = findFirst(root, byTag('a'));
    expect(a?.attrs).toEqual({ 'data-click': "{'F':'7>8'}", href: 'http://www.baidu.com/link?url=abc&x=1', target: '_blank' });
    expect(a && textOf(a)).toBe('t');
  });

  it('treats script and style content as raw text, whatever markup it contains', () => {
    const root = parseHtml('<div class="x"><script>var s = "</div><a class=\\"result__a\\">no</a>";</script><style>a>b{}</style><p>yes</p></div>');
    expect(findAll(root, byClass('result__a'))).toHaveLength(0);
    const div = findFirst(root, byClass('x'));
    expect(div && collapseWhitespace(textOf(div))).toBe('yes');
    // An end tag's name must match exactly: </scripts> does not end a script.
    const tricky = parseHtml('<script>a</scripts>b</SCRIPT ><i>c</i>');
    expect(textOf(tricky)).toBe('c');
  });

  it('closes <p>, <li>, <dd> and nested <a> implicitly, ignores stray end tags, keeps void elements empty', () => {
    const root = parseHtml('<ul><li>one<li>two</ul><p>a<div>b</div></span><dl><dt>t<dd>d</dl><a href=1>x<a href=2>y</a><img src=z>after');
    expect(findAll(root, byTag('li')).map((li) => textOf(li))).toEqual(['one', 'two']);
    const p = findFirst(root, byTag('p'));
    expect(p && textOf(p)).toBe('a');
    expect(findAll(root, byTag('a'), { nested: true }).map((a) => textOf(a))).toEqual(['x', 'y']);
    const img = findFirst(root, byTag('img'));
    expect(img?.children).toEqual([]);
    expect(collapseWhitespace(textOf(root))).toBe('one two a b t d xy after');
  });

  it('skips comments, doctype, CDATA and processing instructions; decodes text; keeps a lone "<"', () => {
    const root = parseHtml('<!DOCTYPE html><!-- <div class="c">hidden</div> --><?xml x?><![CDATA[z]]><b>1 &lt; 2 &amp;&amp; 3 < 4</b>');
    expect(findAll(root, byClass('c'))).toHaveLength(0);
    expect(textOf(root)).toBe('1 < 2 && 3 < 4');
  });

  it('decodes the title (RCDATA) and never throws on truncated input', () => {
    expect(titleOf(parseHtml('<title>Q&amp;A &ndash; <b>x</b></title>'))).toBe('Q&A – <b>x</b>');
    for (const broken of ['<div class="a', '<a href="x', '<!-- open', '<script>never closed', '</', '<', '<a\n']) {
      expect(() => parseHtml(broken)).not.toThrow();
    }
    // Tag and attribute names that are Object.prototype members are ordinary names; "<_" is text, as in browsers.
    const odd = parseHtml('<constructor __proto__="p" toString=t><hasOwnProperty>x</hasOwnProperty><__proto__></constructor>');
    expect(textOf(odd)).toBe('x<__proto__>');
    const attrs = findFirst(odd, byTag('constructor'))?.attrs ?? {};
    expect(Object.entries(attrs)).toEqual([['__proto__', 'p'], ['tostring', 't']]);
  });

  it('textOf separates block elements and skips hidden content and chosen sub-trees', () => {
    const root = parseHtml('<div>A<div>B</div>C<br>D<noscript>N</noscript><template>T</template> <span class="u">URL</span></div>');
    expect(collapseWhitespace(textOf(root))).toBe('A B C D URL');
    expect(collapseWhitespace(textOf(root, byClass('u')))).toBe('A B C D');
  });

  it('finds outermost matches by default, every match with nested', () => {
    const root = parseHtml('<div class="r"><div class="r">inner</div></div><div class="r">2</div>');
    expect(findAll(root, byClass('r'))).toHaveLength(2);
    expect(findAll(root, byClass('r'), { nested: true })).toHaveLength(3);
  });
});

describe('text and URL helpers', () => {
  it('collapses all whitespace (nbsp, ideographic space, newlines) and drops zero-width characters', () => {
    expect(collapseWhitespace('  a\u00a0\u00a0b\u3000c\n\t d\u200be\u00ad ')).toBe('a b c de');
  });

  it('truncates with an ellipsis, at a word boundary when one is near the end', () => {
    expect(truncate('alpha beta gamma delta epsilon', 24)).toBe('alpha beta gamma delta…');
    expect(truncate('one two three four', 12)).toBe('one two thr…');
    expect(truncate('short', 12)).toBe('short');
  });

  it('strips a UTF-8 BOM and makes single-line excerpts without markup', () => {
    expect(stripBom('\ufeff{"a":1}')).toBe('{"a":1}');
    expect(excerpt('<html><script>x()</script><body><h1>Access   denied</h1></body>')).toBe('Access denied');
  });

  it('accepts only http(s) URLs with a host', () => {
    expect(isHttpUrl('https://example.com/a')).toBe(true);
    for (const bad of ['javascript:alert(1)', 'mailto:a@b.c', 'data:text/html,x', '/relative', 'ftp://x.org/', 'http://']) {
      expect(isHttpUrl(bad)).toBe(false);
    }
  });

  it('strips tracking parameters only', () => {
    expect(stripTracking('https://a.com/p?id=3&utm_source=x&utm_medium=y&fbclid=z#top')).toBe('https://a.com/p?id=3#top');
    expect(stripTracking('https://a.com/p?q=a+b&gclid=1')).toBe('https://a.com/p?q=a+b');
    expect(stripTracking('https://a.com/p?q=1')).toBe('https://a.com/p?q=1');
  });

  it('dedupe key ignores scheme, www, trailing slash, fragment, default port and tracking', () => {
    const same = ['https://www.Example.com/a/', 'http://example.com/a', 'https://example.com:443/a#x', 'https://example.com/a?utm_source=t'];
    expect(new Set(same.map(dedupeKey)).size).toBe(1);
    expect(dedupeKey('https://example.com/a?page=2')).not.toBe(dedupeKey('https://example.com/a'));
    expect(dedupeKey('https://example.com/A')).not.toBe(dedupeKey('https://example.com/a'));
  });

  it('decodes base64url to UTF-8, rejecting invalid input', () => {
    expect(decodeBase64Url('aHR0cHM6Ly9zbGVlcC5tZS9wb3N0L2NhZmZlaW5lLWFuZC1zbGVlcA')).toBe('https://sleep.me/post/caffeine-and-sleep');
    expect(decodeBase64Url('5L2g5aW9')).toBe('你好');
    expect(decodeBase64Url('not base64!')).toBeNull();
    expect(decodeBase64Url('/w')).toBeNull(); // 0xFF is not UTF-8
  });

  it('builds query strings on an endpoint, keeping its own parameters', () => {
    expect(withParams('http://127.0.0.1:8080/html/?kl=wt-wt', { q: 'a b&c', n: 3, skip: undefined })).toBe('http://127.0.0.1:8080/html/?kl=wt-wt&q=a+b%26c&n=3');
  });
});

describe('mapLimit', () => {
  it('keeps input order and never runs more than the limit at once', async () => {
    let running = 0;
    let peak = 0;
    const out = await mapLimit([30, 10, 20, 5, 15, 1], 2, async (ms, i) => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((r) => setTimeout(r, ms));
      running--;
      return i;
    });
    expect(out).toEqual([0, 1, 2, 3, 4, 5]);
    expect(peak).toBe(2);
  });
});
