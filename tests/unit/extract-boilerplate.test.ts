import { JSDOM, VirtualConsole } from 'jsdom';
import { describe, expect, it } from 'vitest';
import { furnitureName, furnitureNames, nameParts, pruneBoilerplate, wordCount } from '../../lib/extract/boilerplate';
import { extractPage } from '../../lib/extract';

function holder(html: string): Element {
  const doc = new JSDOM(`<!doctype html><body><div id="root">${html}</div></body>`, { virtualConsole: new VirtualConsole() }).window.document;
  return doc.getElementById('root')!;
}

const prose = (n: number, word = 'article') =>
  Array.from({ length: n }, (_, i) => `<p>Sentence ${i} of the ${word} goes on with plain words that a reader came for and nothing else.</p>`).join('');

describe('furniture names', () => {
  it('splits class and id names into their parts, BEM modifiers left out', () => {
    expect(nameParts('relatedPosts')).toEqual(['related', 'posts']);
    expect(nameParts('c-share_bar')).toEqual(['c', 'share', 'bar']);
    expect(nameParts('TestReport__Section--Ads')).toEqual(['test', 'report', 'section']);
  });

  it('matches whole parts, never substrings, and lets a content name win', () => {
    for (const name of ['post-share-bar', 'relatedPosts', 'c-newsletter', 'article-meta', 'entry-tags', 'sd-social', 'comments-area'])
      expect(furnitureName(name), name).toBe(true);
    for (const name of ['shareholder-report', 'adventure', 'entry-content', 'article-body', 'TestReport__Section--Ads', 'metadata-free', 'story'])
      expect(furnitureName(name), name).toBe(false);
  });
});

describe('furniture class lists', () => {
  it('lets a content name in the list win over the taxonomy a CMS puts on the post', () => {
    expect(furnitureNames(['post-406', 'post', 'type-post', 'category-news', 'tag-travel'])).toBe(false);
    expect(furnitureNames(['hentry', 'entry-content', 'category-news'])).toBe(false);
    // A furniture word inside the content name still makes it furniture, and so does a lone one.
    expect(furnitureNames(['post-meta', 'category-news'])).toBe(true);
    expect(furnitureNames(['widget', 'widget_categories'])).toBe(true);
  });
});

describe('pruneBoilerplate', () => {
  it('keeps a short post whose classes name its category, and drops the category widget beside it', () => {
    const root = holder(`<div class="post-406 post type-post category-thoughts">${prose(3, 'short post')}</div>
      <div class="widget widget_categories"><h2>Categories</h2><p>Thoughts and other notes</p></div>`);
    pruneBoilerplate(root);
    expect(root.textContent).toContain('Sentence 2 of the short post');
    expect(root.textContent).not.toContain('Thoughts and other notes');
  });

  it('takes out share bars, related link lists and newsletter boxes, and the heading left empty', () => {
    const root = holder(`<h1>Title</h1>${prose(8)}
      <div class="share-buttons"><a href="/s/fb">Facebook</a> <a href="/s/x">X</a></div>
      <h2>Related stories</h2>
      <ul><li><a href="/a">A story about one thing</a></li><li><a href="/b">Another story about more</a></li><li><a href="/c">A third one</a></li></ul>
      <div id="newsletter-signup"><p>Get our newsletter every morning.</p></div>`);
    const out = pruneBoilerplate(root);
    const text = root.textContent!;
    expect(text).toContain('Sentence 7 of the article');
    for (const gone of ['Facebook', 'A story about one thing', 'newsletter', 'Related stories']) expect(text).not.toContain(gone);
    expect(out.removed).toBeGreaterThanOrEqual(3);
    expect(root.querySelector('h1')?.textContent).toBe('Title');
  });

  it('keeps prose in a block with a furniture-like name, and a wrapper holding most of the text', () => {
    const root = holder(`<div class="social-enabled">${prose(10)}</div><div class="author">${prose(6, 'profile section')}</div><p>End.</p>`);
    pruneBoilerplate(root);
    expect(root.textContent).toContain('Sentence 9 of the article');
    // 6 sentences of prose named "author": over the furniture size, and no links: kept.
    expect(root.textContent).toContain('Sentence 5 of the profile section');
  });

  it('drops comment sections whatever their size', () => {
    const root = holder(`${prose(12)}<section id="comments">${prose(5, 'comment thread')}</section>`);
    pruneBoilerplate(root);
    expect(root.textContent).not.toContain('comment thread');
  });

  it('keeps link lists when asked (a page without an article offers them), and code untouched', () => {
    const list = `<ul><li><a href="/a">Dashboard</a></li><li><a href="/b">Reports</a></li><li><a href="/c">Billing</a></li></ul>`;
    const kept = holder(`${prose(3)}${list}`);
    pruneBoilerplate(kept, { linkLists: false });
    expect(kept.textContent).toContain('Billing');
    const dropped = holder(`${prose(3)}${list}`);
    pruneBoilerplate(dropped);
    expect(dropped.textContent).not.toContain('Billing');
    const code = holder(`${prose(3)}<pre><code><div class="share">x</div></code></pre>`);
    pruneBoilerplate(code);
    expect(code.querySelector('pre')?.textContent).toBe('x');
  });

  it('does nothing to an empty holder', () => {
    expect(pruneBoilerplate(holder(''))).toEqual({ removed: 0, words: 0 });
  });
});

describe('main content through extractPage', () => {
  const page = (body: string) =>
    new JSDOM(`<!doctype html><html><head><title>A post</title><script type="application/ld+json">{"@type": "NewsArticle", broken</script></head><body>${body}</body></html>`, {
      url: 'https://blog.example/post',
      virtualConsole: new VirtualConsole(),
    }).window.document;

  it('reads the article without the share bar and related box inside its container', () => {
    const r = extractPage(page(`<nav><a href="/">Home</a><a href="/about">About</a></nav>
      <article id="post"><h1>A post</h1>${prose(10)}
        <div class="post-share"><a href="https://x.example/share">Share on X</a> <a href="https://fb.example/share">Share on Facebook</a></div>
        <aside class="related-posts"><h3>You may also like</h3><ul><li><a href="/p1">First other post title</a></li><li><a href="/p2">Second other post title</a></li></ul></aside>
      </article><footer>© Blog 2026</footer>`));
    expect(r.usedSelector).toBe('#post');
    expect(r.content).toContain('Sentence 9 of the article');
    for (const gone of ['Share on X', 'First other post title', 'You may also like', '© Blog', '[Home](/)']) expect(r.content).not.toContain(gone);
  });
});

describe('pruneBoilerplate: teasers, date lines, author boxes, threads', () => {
  const teaser = (n: number) =>
    `<div class="card"><h3><a href="/story-${n}">Other story number ${n} with a title</a></h3><p>A short excerpt of story ${n}.</p></div>`;

  it('drops a list of teasers (headings that are links, short excerpts) and keeps the article subheadings', () => {
    const root = holder(`<h2>What happened</h2>${prose(6)}<h2>What comes next</h2>${prose(6, 'outlook')}
      <div class="more-box-x"><h2>Latest articles</h2>${teaser(1)}${teaser(2)}${teaser(3)}</div>`);
    pruneBoilerplate(root);
    const text = root.textContent!;
    expect(text).toContain('What comes next');
    expect(text).toContain('Sentence 5 of the outlook');
    for (const gone of ['Other story number 2', 'A short excerpt of story 3', 'Latest articles']) expect(text).not.toContain(gone);
  });

  it('keeps a listicle whose headings link, with prose under each', () => {
    const item = (n: number) => `<h2><a href="/tool-${n}">Tool ${n}</a></h2>${prose(4, `review of tool ${n}`)}`;
    const root = holder(`${prose(2)}<div class="list">${item(1)}${item(2)}${item(3)}</div>`);
    pruneBoilerplate(root);
    expect(root.textContent).toContain('Sentence 3 of the review of tool 2');
    expect(root.textContent).toContain('Tool 3');
  });

  it('keeps a lead named "teaser" that opens the content, drops a linked teaser further down', () => {
    const root = holder(`<div class="articleTeaser"><p>The lead says what the article is about.</p></div>${prose(8)}
      <div class="sz-teaser"><a href="/other"><p>Another article to read</p></a></div>`);
    pruneBoilerplate(root);
    expect(root.textContent).toContain('The lead says what the article is about.');
    expect(root.textContent).not.toContain('Another article to read');
  });

  it('drops an author box even when its name also says "entry", and a date line', () => {
    const root = holder(`<p class="dateline-x">24. März 2004, 19:49 | Genesis</p><p><time datetime="2021-03-04">4 marca 2021</time></p>${prose(8)}
      <div id="entry-author-info"><p>Jane writes about gardens and has done so for years.</p></div>`);
    pruneBoilerplate(root);
    const text = root.textContent!;
    expect(text).toContain('Sentence 7 of the article');
    expect(text).not.toContain('Jane writes about gardens');
    expect(text).not.toContain('19:49');
    expect(text).not.toContain('4 marca 2021');
  });

  it('keeps dates that are content: in a sentence, labelled, a duration, in a list or a table', () => {
    const root = holder(`${prose(6)}<p>Am 12.03.2020 trat das neue Gesetz in Kraft.</p><p>Einsendeschluss: 03.11.2019 (Poststempel)</p>
      <div class="time">Backzeit <time datetime="PT30M">30 Min</time></div><div>Gesamt <time datetime="">30 – 45 Min</time></div>
      <ul><li>03.04.2020</li><li>05.06.2021</li></ul><table><tr><td><p>01.02.2022</p></td></tr></table>`);
    pruneBoilerplate(root);
    const text = root.textContent!;
    for (const kept of ['Am 12.03.2020 trat', 'Einsendeschluss: 03.11.2019', 'Backzeit 30 Min', 'Gesamt 30 – 45 Min', '05.06.2021', '01.02.2022']) expect(text).toContain(kept);
  });

  it('keeps the comments of a thread page (they are most of the text), drops them under an article', () => {
    const post = (n: number) => `<div class="MtnComment"><p>Reply ${n}: I had the same problem after the update and this is what I found out about it.</p></div>`;
    const thread = holder(`<p>My phone lost the connection.</p>${post(1)}${post(2)}${post(3)}${post(4)}`);
    pruneBoilerplate(thread);
    expect(thread.textContent).toContain('Reply 4: I had the same problem');
    const article = holder(`${prose(12)}${post(1)}${post(2)}`);
    pruneBoilerplate(article);
    expect(article.textContent).toContain('Sentence 11 of the article');
    expect(article.textContent).not.toContain('Reply 1');
  });
});

describe('wordCount', () => {
  const byRegex = (t: string) => t.match(/[\p{L}\p{N}_]+/gu)?.length ?? 0;

  it('counts the runs of letters, digits and _ as the metric’s tokeniser does, in any script', () => {
    expect(wordCount('')).toBe(0);
    expect(wordCount('  — … ')).toBe(0);
    expect(wordCount("The fox's 42 snake_case words")).toBe(6);
    expect(wordCount('Съешь же ещё этих')).toBe(4);
    expect(wordCount('我能吞下玻璃。テスト 한국어')).toBe(3);
    expect(wordCount('𠀀𠀁 x')).toBe(2); // astral Han: a surrogate pair is one letter
    expect(wordCount('\ud800 a \udc00')).toBe(1); // lone halves are not letters
    expect(wordCount('one two three four five', 2)).toBe(3); // stops past max
    expect(wordCount('one two', 2)).toBe(2);
  });

  it('agrees with the regular expression on random text of every kind', () => {
    let seed = 7;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let k = 0; k < 3000; k++) {
      let s = '';
      for (let i = 0, n = Math.floor(rand() * 30); i < n; i++) {
        const r = rand();
        s += r < 0.5 ? String.fromCharCode(32 + Math.floor(rand() * 96))
          : r < 0.8 ? String.fromCharCode(Math.floor(rand() * 0x3000))
            : r < 0.9 ? String.fromCharCode(0xd800 + Math.floor(rand() * 0x800))
              : String.fromCodePoint(0x10000 + Math.floor(rand() * 0x30000));
      }
      expect(wordCount(s), JSON.stringify(s)).toBe(byRegex(s));
    }
  });

  it('counts a text of 50,000 chars or more (counted by the char loop) as the expression does, bounded too', () => {
    let seed = 11;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    let s = '';
    while (s.length < 60_000) {
      const r = rand();
      s += r < 0.6 ? String.fromCharCode(32 + Math.floor(rand() * 96))
        : r < 0.85 ? String.fromCharCode(Math.floor(rand() * 0x3000))
          : r < 0.92 ? String.fromCharCode(0xd800 + Math.floor(rand() * 0x800))
            : String.fromCodePoint(0x10000 + Math.floor(rand() * 0x30000));
    }
    const all = byRegex(s);
    expect(all).toBeGreaterThan(1000);
    expect(wordCount(s)).toBe(all);
    expect(wordCount(s, 500)).toBe(501);
    expect(wordCount('word '.repeat(10_000), 10_000)).toBe(10_000);
    expect(wordCount('word '.repeat(10_000) + '我能')).toBe(10_001);
  });
});
