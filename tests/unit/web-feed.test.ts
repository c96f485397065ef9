import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decodeBody } from '../../lib/web/charset';
import { xmlToReadable } from '../../lib/web/feed';
import { parseXml } from '../../lib/web/xml-tree';

const feedFixture = (name: string) => readFileSync(new URL(`../fixtures/web/feeds/${name}`, import.meta.url), 'utf8');

describe('xmlToReadable: feeds', () => {
  it('a podcast RSS 2.0 feed with itunes:, content:, atom:self and CDATA descriptions', () => {
    const r = xmlToReadable(feedFixture('podcast.rss'), { baseUrl: 'https://feeds.example.com/night-shift.xml' });
    expect(r).toMatchObject({ shape: 'feed', format: 'RSS 2.0', title: 'The Night Shift & Friends' });
    expect(r.note).toBeUndefined();
    expect(r.content).toBe(
      [
        '# The Night Shift & Friends',
        'RSS 2.0 feed · 2 items · updated Tue, 14 May 2024 06:00:00 GMT · by Night Shift Media',
        'https://nightshift.example.com/',
        '',
        'Conversations about working late, sleep science and the people who keep cities running after dark.',
        '',
        '## Episode 42: Why nurses don’t trust melatonin',
        'https://nightshift.example.com/episodes/42',
        'Tue, 14 May 2024 06:00:00 GMT · by Dana Reyes',
        'Enclosure: https://cdn.example.com/nightshift/ep42.mp3 (audio/mpeg, 43.2 MB, duration 00:47:12)',
        '',
        'Dana talks to three ICU nurses about sleep aids, blackout curtains & the 4 a.m. slump.', // &nbsp; → space
        '',
        '- Melatonin timing',
        '- Caffeine half-life',
        '',
        // Relative links resolve against the item's page, not the feed host; scripts vanish.
        'Show notes: [read them here](https://nightshift.example.com/episodes/42/notes).',
        '',
        '## Episode 41: Bakers at 3 a.m.',
        'https://nightshift.example.com/episodes/41',
        'Tue, 07 May 2024 06:00:00 GMT',
        'Enclosure: https://cdn.example.com/nightshift/ep41.mp3 (audio/mpeg, 41.4 MB, duration 45:12)',
        '',
        'A visit to a bakery that starts work when everyone else goes to bed.',
      ].join('\n'),
    );
  });

  it('an Atom feed with xhtml content, html titles, xml:base and several authors', () => {
    const r = xmlToReadable(feedFixture('blog.atom'));
    expect(r).toMatchObject({ shape: 'feed', format: 'Atom 1.0', title: 'Field Notes' });
    expect(r.content).toBe(
      [
        '# Field Notes',
        'Atom 1.0 feed · 2 items · updated 2024-05-20T09:30:00Z · by Ada Byron',
        'https://blog.example.org/',
        '',
        'Notes on distributed systems and other failures',
        '',
        '## Retries considered ~~harmful~~ subtle',
        'https://blog.example.org/2024/05/retries',
        '2024-05-20T09:30:00Z · by Ada Byron, Grace H.',
        '',
        'Every retry loop needs three things:',
        '',
        '- a budget,',
        '- jitter, and',
        '- an idempotency key.',
        '',
        'See [the backoff post](https://blog.example.org/2024/05/backoff) & [this article](https://aws.example/builders).',
        '',
        '## Short note: 5 < 6',
        'https://blog.example.org/2024/05/short',
        '2024-05-18T12:00:00+02:00',
        '',
        'Plain text summary with <tags> shown literally.',
      ].join('\n'),
    );
  });

  it('an RSS 1.0 (RDF) feed: items beside the channel, dc: dates and creators', () => {
    const r = xmlToReadable(feedFixture('news.rdf'));
    expect(r).toMatchObject({ shape: 'feed', format: 'RSS 1.0', title: 'Example Science News' });
    expect(r.content).toBe(
      [
        '# Example Science News',
        'RSS 1.0 feed · 2 items · updated 2024-05-19T08:00:00+00:00',
        'https://news.example.net/',
        '',
        'Daily science headlines',
        '',
        '## Comet 12P brightens unexpectedly',
        'https://news.example.net/2024/comet',
        '2024-05-19T07:12:00+00:00 · by J. Smith',
        '',
        'Astronomers report a sudden outburst — visible with binoculars.',
        '',
        '## Plastic-eating enzyme works at room temperature',
        'https://news.example.net/2024/enzyme', // from rdf:about
        '2024-05-18T15:40:00+00:00',
        '',
        'A modified enzyme breaks down PET in days.',
      ].join('\n'),
    );
  });

  it('an RSS 0.91 feed with a DOCTYPE, bare ampersands and windows-1252 numeric references', () => {
    const r = xmlToReadable(feedFixture('netscape-091.rss'));
    expect(r).toMatchObject({ shape: 'feed', format: 'RSS 0.9x' });
    expect(r.note).toBeUndefined();
    expect(r.content).toContain('## AT&T and the "information superhighway"\nhttp://portal.example.com/story?id=1&ref=rss\n\nA look back – with quotes “as written”.');
  });

  it('a Turkish feed decoded from ISO-8859-9 through its XML declaration', () => {
    const bytes = new Uint8Array(readFileSync(new URL('../fixtures/web/charset/tr-iso-8859-9-feed.xml', import.meta.url)));
    const r = xmlToReadable(decodeBody(bytes, { kind: 'feed' }).text);
    expect(r.title).toBe('Günün Haberleri');
    expect(r.content).toContain("## Şehirde yoğun kar yağışı\nhttps://haber.example/kar\n\nİstanbul ve Ankara'da okullar tatil edildi; sürücüler dikkatli olmalı.");
  });

  it('RSS titles: escaped HTML is read as HTML only when it looks like HTML', () => {
    const rss = (title: string) => `<rss version="2.0"><channel><title>T</title><item><title>${title}</title></item></channel></rss>`;
    const itemTitle = (title: string) => /## (.*)/.exec(xmlToReadable(rss(title)).content)?.[1];
    expect(itemTitle('Q&amp;amp;A with &lt;b&gt;bold&lt;/b&gt; guests')).toBe('Q&A with bold guests');
    expect(itemTitle('Why &lt;blink&gt; died')).toBe('Why <blink> died');
    // Ambiguous, and read as markup like feedparser does: a common tag name looks like HTML.
    expect(itemTitle('Why &lt;div&gt; soup is bad')).toBe('Why soup is bad');
    expect(itemTitle('Tom &amp; Jerry')).toBe('Tom & Jerry');
    expect(itemTitle('<![CDATA[Fish & Chips <3]]>')).toBe('Fish & Chips <3');
    expect(itemTitle('')).toBe('(untitled)');
  });

  it('RSS links: guid as permalink, but not when isPermaLink="false"; atom:link in items', () => {
    const r = xmlToReadable(`<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom"><channel><title>T</title>
      <item><title>A</title><guid>https://example.com/a</guid></item>
      <item><title>B</title><guid isPermaLink="false">https://example.com/b</guid></item>
      <item><title>C</title><atom:link rel="alternate" href="https://example.com/c"/></item>
    </channel></rss>`);
    expect(r.content).toContain('## A\nhttps://example.com/a');
    expect(r.content).toMatch(/## B\n*$|## B\n\n/);
    expect(r.content).toContain('## C\nhttps://example.com/c');
  });

  it('undeclared namespace prefixes (dc:creator without xmlns:dc) still work', () => {
    const r = xmlToReadable('<rss version="2.0"><channel><title>T</title><item><title>A</title><dc:creator>Kim</dc:creator></item></channel></rss>');
    expect(r.shape).toBe('feed');
    expect(r.content).toContain('## A\nby Kim');
  });

  it('a media:title does not pass for the item title', () => {
    const r = xmlToReadable(`<rss version="2.0" xmlns:media="http://search.yahoo.com/mrss/"><channel><title>T</title>
      <item><media:title>Media title</media:title><title>Real title</title></item></channel></rss>`);
    expect(r.content).toContain('## Real title');
  });

  it('cuts long summaries at a word boundary', () => {
    const long = Array.from({ length: 300 }, (_, i) => `word${i}`).join(' ');
    const r = xmlToReadable(`<rss version="2.0"><channel><title>T</title><item><title>A</title><description>${long}</description></item></channel></rss>`, { maxSummaryChars: 100 });
    const summary = r.content.split('\n').at(-1)!;
    expect(summary.length).toBeLessThanOrEqual(101);
    expect(summary).toMatch(/^word0 word1 .* word\d+…$/);
  });

  it('an empty channel', () => {
    expect(xmlToReadable('<rss version="2.0"><channel></channel></rss>').content).toBe('# (untitled feed)\nRSS 2.0 feed · 0 items');
  });

  it('Atom 0.3 with escaped content and a content src', () => {
    const r = xmlToReadable(`<feed version="0.3" xmlns="http://purl.org/atom/ns#"><title>Old</title><tagline>Tag</tagline>
      <entry><title>E1</title><issued>2004-01-01T00:00:00Z</issued><content type="text/html" mode="escaped">&lt;p&gt;Hi &amp;amp; bye&lt;/p&gt;</content></entry>
      <entry><title>E2</title><content type="video/mp4" src="https://cdn.example/v.mp4"/></entry></feed>`);
    expect(r.format).toBe('Atom 0.3');
    expect(r.content).toContain('## E1\n2004-01-01T00:00:00Z\n\nHi & bye');
    expect(r.content).toContain('## E2\nEnclosure: https://cdn.example/v.mp4 (video/mp4)');
  });
});

describe('xmlToReadable: other XML', () => {
  it('a sitemap becomes an outline: names, text, CDATA, no comments or xmlns noise', () => {
    const r = xmlToReadable(feedFixture('sitemap.xml'));
    expect(r.shape).toBe('xml');
    expect(r.note).toBe('XML document shown as an outline of its elements (root element <urlset>).');
    expect(r.content).toBe(
      [
        'urlset',
        '  url',
        '    loc: https://shop.example.com/',
        '    lastmod: 2024-05-01',
        '    changefreq: daily',
        '    priority: 1.0',
        '  url',
        '    loc: https://shop.example.com/products?id=7&color=red',
        '    lastmod: 2024-04-28',
        '    image:image',
        '      image:loc: https://shop.example.com/img/7.jpg',
        '      image:title: Red mug <large>',
      ].join('\n'),
    );
  });

  it('attributes, mixed content and empty elements', () => {
    const r = xmlToReadable('<?xml version="1.0"?><catalog><book id="bk101" lang="en"><title>XML &amp; You</title><note>Read <b>this</b> first</note><cover src="a.png"/></book><empty/></catalog>');
    expect(r.content).toBe(
      ['catalog', '  book id="bk101" lang="en"', '    title: XML & You', '    note', '      Read', '      b: this', '      first', '    cover src="a.png"', '  empty'].join('\n'),
    );
  });

  it('elements named like Object.prototype members do not break parsing', () => {
    const r = xmlToReadable('<api><constructor name="__proto__">x</constructor><toString/><__proto__ a="1">y</__proto__><hasOwnProperty/></api>');
    expect(r.shape).toBe('xml');
    expect(r.content).toBe(['api', '  constructor name="__proto__": x', '  toString', '  __proto__ a="1": y', '  hasOwnProperty'].join('\n'));
    expect(({} as Record<string, unknown>).a).toBeUndefined();
  });
});

describe('xmlToReadable: malformed and hostile XML', () => {
  it.each([
    ['<rss><channel><title>x</title></rss>', /line 1, column 31: .*channel/],
    ['<a><b></a>', /line 1/],
    ['<note>\n  <to>A</to>\n  <from>B</to>\n</note>', /line 3/],
    ['not xml at all', /not well-formed/],
    ['<!DOCTYPE html><html><body><p>x<br></p></body></html>', /not well-formed/],
    ['<a b="1" b="2"/>', /repeated/],
  ])('%j is returned as is, with a note', (text, note) => {
    const r = xmlToReadable(text);
    expect(r.shape).toBe('raw');
    expect(r.content).toBe(text);
    expect(r.note).toMatch(/^The XML is not well-formed \(/);
    expect(r.note).toMatch(note);
  });

  it('does not expand a billion-laughs entity bomb', () => {
    const lol = (n: number) => `<!ENTITY lol${n} "${`&lol${n - 1};`.repeat(10)}">`;
    const bomb = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol0 "lol">${Array.from({ length: 9 }, (_, i) => lol(i + 1)).join('')}]><lolz>&lol9;</lolz>`;
    const started = performance.now();
    const r = xmlToReadable(bomb);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(r.content).toBe('lolz: &lol9;');
  });

  it('does not fetch or read external entities', () => {
    const r = xmlToReadable('<?xml version="1.0"?><!DOCTYPE r [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><r>&xxe;</r>');
    expect(r.content).toBe('r: &xxe;');
  });

  it('removes a DOCTYPE whose internal subset quotes "]" and ">"', () => {
    const r = xmlToReadable('<?xml version="1.0"?>\n<!DOCTYPE doc [\n  <!ENTITY a "x]>y">\n  <!ATTLIST doc v CDATA "]">\n]>\n<doc v="1"><p>&a; stays</p></doc>');
    expect(r.content).toBe('doc v="1"\n  p: &a; stays');
  });

  it('survives very deep nesting', () => {
    const deep = `${'<a>'.repeat(5000)}x${'</a>'.repeat(5000)}`;
    const r = xmlToReadable(deep);
    expect(r.shape).toBe('raw');
    expect(r.note).toMatch(/not well-formed/);
  });

  it('parses a large feed in reasonable time', () => {
    const items = Array.from({ length: 5000 }, (_, i) => `<item><title>Item ${i} &amp; more</title><link>https://example.com/${i}</link><description>&lt;p&gt;Body ${i}&lt;/p&gt;</description></item>`).join('\n');
    const text = `<?xml version="1.0"?><rss version="2.0"><channel><title>Big</title>${items}</channel></rss>`;
    const started = performance.now();
    const r = xmlToReadable(text);
    expect(performance.now() - started).toBeLessThan(8000); // ~0.8 s here
    expect(r.content).toContain('RSS 2.0 feed · 5000 items');
    expect(r.content).toContain('## Item 4999 & more\nhttps://example.com/4999\n\nBody 4999');
  });
});

describe('parseXml', () => {
  it('resolves namespaces, default and prefixed', () => {
    const r = parseXml('<a xmlns="urn:one" xmlns:x="urn:two"><x:b/><c xmlns="urn:three"><d/></c></a>');
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const [a] = r.roots;
    const kids = a!.children.filter((c) => c.type === 'element');
    expect(a).toMatchObject({ local: 'a', ns: 'urn:one' });
    expect(kids[0]).toMatchObject({ name: 'x:b', local: 'b', ns: 'urn:two' });
    expect(kids[1]).toMatchObject({ local: 'c', ns: 'urn:three', children: [{ local: 'd', ns: 'urn:three' }] });
  });

  it('keeps CDATA apart from entity-decoded text', () => {
    const r = parseXml('<a>x &amp;lt; y<![CDATA[ &amp; <b> ]]></a>');
    expect(r.ok && r.roots[0]!.children).toEqual([
      { type: 'text', text: 'x &lt; y', cdata: false },
      { type: 'text', text: ' &amp; <b> ', cdata: true },
    ]);
  });

  it('tolerates a BOM and leading whitespace before the XML declaration', () => {
    expect(parseXml('\uFEFF\n  <?xml version="1.0"?><a/>').ok).toBe(true);
  });
});
