import { readFileSync } from 'node:fs';
import { READABILITY_DIR } from '../harness/fixtures';
import { JSDOM, VirtualConsole } from 'jsdom';
import { afterEach, describe, expect, it } from 'vitest';
import { ANNOTATION_RE, ASIDE_HEADER, ExtractError, extractPage, LINK_NOTE, resolveSelector, SELECTOR_NOTE, stripAnnotations } from '../../lib/extract';
import { CONTROLS_HEADER } from '../../lib/extract/controls';

const FIXTURES = READABILITY_DIR;

function page(body: string, head = '', url = 'https://news.example/2024/story'): Document {
  return new JSDOM(`<!doctype html><html><head><title>The story</title>${head}</head><body>${body}</body></html>`, {
    url,
    virtualConsole: new VirtualConsole(),
  }).window.document;
}

function errorOf(f: () => unknown): ExtractError {
  try {
    f();
  } catch (e) {
    if (e instanceof ExtractError) return e;
    throw e;
  }
  throw new Error('expected an ExtractError');
}

const paragraphs = (n: number, word = 'reading') =>
  Array.from({ length: n }, (_, i) => `<p>Paragraph ${i} of the article keeps the reader ${word} with enough words to count as real text for the extractor.</p>`).join('');

/** A news page: navigation, a login form and a search box around a long article. */
const ARTICLE_PAGE = `
  <header><nav aria-label="Sections"><a href="/world">World</a> <a href="/tech">Tech</a></nav>
    <form id="search" role="search"><input type="search" name="q" placeholder="Search news"><button>Search</button></form></header>
  <main>
    <article id="post">
      <h1>The story</h1>
      ${paragraphs(6)}
      <h2 id="details">Details</h2>
      ${paragraphs(6, 'interested')}
      <h2>Numbers</h2>
      <table><tr><th>Year</th><th>Count</th></tr><tr><td>2023</td><td>12</td></tr><tr><td>2024</td><td>30</td></tr></table>
      <pre><code class="language-js">const x = { a: 1 };</code></pre>
      <p>Read <a href="/2024/other">the other story</a> and <a href="https://elsewhere.example/x?y=1">a source</a>.</p>
      <p><a href="#">Share</a> <a href="javascript:print()">Print</a></p>
    </article>
  </main>
  <aside><form id="login"><label>Email <input type="email" name="email"></label><label>Password <input type="password" name="pw"></label><button type="submit">Log in</button></form></aside>
  <footer><p>© News</p></footer>`;

describe('extractPage', () => {
  it('reads the article as annotated Markdown, with the page controls it left out', () => {
    const doc = page(ARTICLE_PAGE);
    const r = extractPage(doc);
    expect(r.title).toBe('The story');
    expect(r.url).toBe('https://news.example/2024/story');
    expect(r.truncated).toBe(false);
    expect(r.usedSelector).toBe('#post');
    expect(r.content).toContain('## Details {#details}');
    // Headings are named when the page names them, never stamped.
    expect(r.content).toMatch(/^## Numbers$/m);
    expect(r.content).toContain('| Year | Count |\n| --- | --- |\n| 2023 | 12 |');
    expect(r.content).toContain('```js\nconst x = { a: 1 };\n```');
    // Links: same-origin from their path, no selector.
    expect(r.content).toContain('[the other story](/2024/other)');
    expect(r.content).toContain('[a source](https://elsewhere.example/x?y=1)');
    // "#" links do nothing a URL says: they are controls, with a selector. (Readability turns
    // javascript: links into their text.)
    expect(r.content).toContain('[link "Share" {a[href="#"]}]');
    const controls = r.content.slice(r.content.indexOf(CONTROLS_HEADER));
    // Beside an article, in short: a search box is its field; a sign-in form is shown whole.
    expect(controls).not.toContain('[form {#search}]');
    expect(controls).toContain('[input search "Search news" {input[name="q"]}]');
    expect(controls).toContain('[form {#login}]');
    expect(controls).toContain('[input email "Email" {input[name="email"]}]');
    expect(controls).toContain('[button "Log in" {button[type="submit"]}]');
    expect(r.content).not.toContain('© News');
  });

  it('reads the whole body of an app-like page with little text, controls in place', () => {
    const doc = page(`<main><h1>Settings</h1><form id="s"><label>Display name <input name="n" value="Ada"></label><button>Save</button></form></main>`);
    const r = extractPage(doc);
    expect(r.usedSelector).toBe('body');
    expect(r.content).toContain('# Settings {h1}');
    expect(r.content).toContain('[form {#s}]');
    expect(r.content).toContain('[input "Display name" = "Ada" {input[name="n"]}]');
    expect(r.content).not.toContain(CONTROLS_HEADER);
  });

  it('never reads an app-like page whole: its chrome is set aside and named, each region with a selector that reads it', () => {
    const doc = page(`<header><nav aria-label="Main"><a href="/home">Home</a></nav></header><main><h1>Settings</h1><p>Few words here.</p></main><aside><p>A tip</p></aside><footer><p>Help desk</p></footer>`);
    const r = extractPage(doc);
    expect(r.content).toContain('# Settings');
    expect(r.content).toContain('Few words here.');
    for (const text of ['[Home](/home)', 'A tip', 'Help desk']) expect(r.content).not.toContain(text);
    const note = r.content.split('\n').find((l) => l.startsWith(ASIDE_HEADER));
    expect(note).toBeDefined();
    const selectors = [...note!.matchAll(ANNOTATION_RE)].map((m) => m[0].trim().slice(1, -1));
    expect(selectors.length).toBe(3);
    const read = selectors.map((selector) => extractPage(doc, { selector }).content).join('\n');
    for (const text of ['[Home](/home)', 'A tip', 'Help desk']) expect(read).toContain(text);
  });

  it('reads only the subtree a selector names', () => {
    const doc = page(ARTICLE_PAGE);
    const r = extractPage(doc, { selector: '#login' });
    expect(r.usedSelector).toBe('#login');
    expect(r.content).toContain('[input email "Email" {input[name="email"]}]');
    expect(r.content).not.toContain('Paragraph 0');
    const several = extractPage(doc, { selector: 'h2' });
    expect(several.content).toContain('## Details {#details}\n\n---\n\n## Numbers');
  });

  it('says which selector matched nothing, or is not a selector', () => {
    const doc = page(ARTICLE_PAGE);
    const none = errorOf(() => extractPage(doc, { selector: '#nope' }));
    expect(none.code).toBe('no_match');
    expect(none.message).toContain('"#nope"');
    const bad = errorOf(() => extractPage(doc, { selector: 'div[' }));
    expect(bad.code).toBe('invalid_selector');
    expect(bad.message).toContain('"div["');
    const hidden = errorOf(() => extractPage(page('<p hidden id="h">secret</p>'), { selector: '#h' }));
    expect(hidden.code).toBe('empty');
  });

  it('cuts at maxLength, at a line end, and says so', () => {
    const doc = page(ARTICLE_PAGE);
    const full = extractPage(doc).content;
    const r = extractPage(doc, { maxLength: 500 });
    expect(r.truncated).toBe(true);
    expect(r.content.length).toBeLessThanOrEqual(500);
    expect(r.content.length).toBeGreaterThan(250);
    expect(full.startsWith(r.content)).toBe(true);
    expect(full[r.content.length]).toBe('\n');
    expect(extractPage(doc, { maxLength: full.length }).truncated).toBe(false);
  });

  it('on a huge page reads only the beginning it needs, still pairing copy and page element by element', () => {
    const long = `<p>${'A long paragraph of the long read, with words enough to fill pages. '.repeat(40)}</p>`;
    const sections = Array.from({ length: 30 }, (_, i) => `<section id="s${i}"><h2>Part ${i}</h2>${long}<button>Like ${i}</button></section>`).join('');
    const doc = page(`<main><h1>Long read</h1>${sections}</main><footer><form id="late"><input name="late-field"></form></footer>`);
    const r = extractPage(doc, { maxLength: 3000 });
    expect(r.truncated).toBe(true);
    expect(r.content.length).toBeLessThanOrEqual(3000);
    expect(r.content).toContain('[section {#s0}]\n\n## Part 0\n');
    expect(r.content).not.toContain('late-field'); // past the cut
    // Selectors found in the partial copy point at the right live elements.
    const longer = extractPage(doc, { maxLength: 20_000 }).content;
    const regions = [...longer.matchAll(/^\[section \{(.+)\}\]\n\n## (Part \d+)$/gm)];
    expect(regions.length).toBeGreaterThan(5);
    for (const [, sel, text] of regions) expect(resolveSelector(doc, sel!)?.querySelector('h2')?.textContent).toBe(text);
  }, 30_000);

  it('changes nothing on the page but its stamps: DOM, shadow roots, field values', () => {
    const doc = page(`${ARTICLE_PAGE}<shadow-host></shadow-host><iframe id="f"></iframe>`);
    const shadow = doc.querySelector('shadow-host')!.attachShadow({ mode: 'open' });
    shadow.innerHTML = '<p>Shadow text</p><slot></slot><button>Shadow</button>';
    const frameDoc = (doc.getElementById('f') as HTMLIFrameElement).contentDocument!;
    frameDoc.body.innerHTML = '<p>Frame text</p>';
    const email = doc.querySelector('[name=email]') as HTMLInputElement;
    email.value = 'typed@example.com';
    const unstamped = (html: string) => html.replace(/ pw="\d+"/g, '');
    const state = () => [doc.documentElement.outerHTML, shadow.innerHTML, frameDoc.documentElement.outerHTML];
    const before = state();
    const first = extractPage(doc).content;
    extractPage(doc, { selector: 'shadow-host' });
    extractPage(page('<p>x</p>'));
    const after = state();
    expect(after.map(unstamped)).toEqual(before);
    expect(email.value).toBe('typed@example.com');
    // Stamps were left (the Shadow button has no attribute of its own), and a second read reuses
    // them: the same selectors, no new attributes.
    expect(after.join('')).toMatch(/ pw="\d+"/);
    expect(extractPage(doc).content).toBe(first);
    expect(state()).toEqual(after);
  });

  it('reads open shadow roots (slots filled) and same-origin frames', () => {
    const doc = page(`<main><h1>Shop</h1><product-card><span slot="name">Blue kettle</span><em>In stock</em></product-card><iframe id="pay" title="Payment"></iframe></main>`);
    const root = doc.querySelector('product-card')!.attachShadow({ mode: 'open' });
    root.innerHTML = '<h2><slot name="name">Unnamed</slot></h2><p>Status: <slot></slot></p><button class="add">Add to cart</button>';
    (doc.getElementById('pay') as HTMLIFrameElement).contentDocument!.body.innerHTML = '<label>Card number <input name="card"></label>';
    const md = extractPage(doc).content;
    expect(md).toMatch(/^## Blue kettle$/m);
    expect(md).toContain('Status: *In stock*');
    expect(md).toContain('[button "Add to cart" {product-card >>> .add}]');
    expect(md).toContain('[iframe "Payment" {#pay}]');
    expect(md).toContain('[input "Card number" {#pay >>> input[name="card"]}]');
  });

  it('defines the annotation once: ANNOTATION_RE / stripAnnotations leave the text and the code', () => {
    // Labels and page text have their braces escaped; selectors may hold braces in quotes.
    const md = '## Pricing {#pricing}\n[button "Buy \\{now\\}" {button[aria-label="a}b"]}] and \\{literal\\}\n```\nif (x) { y(); }\n```';
    const text = stripAnnotations(md);
    expect(text).toBe('## Pricing\n[button "Buy \\{now\\}"] and \\{literal\\}\n```\nif (x) { y(); }\n```');
    expect('{#a} {b > c}'.match(ANNOTATION_RE)).toHaveLength(2);
    expect(SELECTOR_NOTE).toContain('>>>');
    expect(LINK_NOTE).toContain('document.links');
  });

  it('shows same-origin links from their path, resolved against <base> or the url option', () => {
    const links = '<p><a href="docs/a">A</a> <a href="#notes">Notes</a> <a href="https://news.example/b?c=1#d">B</a> <a href="https://other.example/x">O</a></p>';
    const withBase = extractPage(page(`<main><h1>Links</h1>${paragraphs(8)}${links}</main>`, '<base href="https://news.example/2024/">')).content;
    expect(withBase).toContain('[A](/2024/docs/a) [Notes](/2024/#notes) [B](/b?c=1#d) [O](https://other.example/x)');
    const plain = extractPage(page(`<main><h1>Links</h1>${paragraphs(8)}${links}</main>`)).content;
    expect(plain).toContain('[A](/2024/docs/a) [Notes](#notes)');
    // A copy served from elsewhere, read as if at its real address.
    const copy = page(`<main><h1>Links</h1>${paragraphs(8)}${links}</main>`, '', 'http://127.0.0.1:8080/copy/page.html');
    expect(extractPage(copy, { url: 'https://news.example/2024/story' }).content).toContain('[A](/2024/docs/a) [Notes](#notes) [B](/b?c=1#d)');
  });

  it('writes a jump within the page as its text: the target heading carries the id', () => {
    const body = `<main><h1>Contents</h1><p><a href="#part-two">Part two</a>, a note<sup><a href="#cite_note-3">[3]</a></sup> and a <a href="#tab-b">tab</a>.</p>
      ${paragraphs(8)}<h2 id="part-two">Part two</h2>${paragraphs(2)}<ol><li id="cite_note-3">The note.</li></ol><p><a name="old">Old anchor</a> <a href="#old">to it</a></p></main>`;
    const md = extractPage(page(body)).content;
    expect(md).toContain('Part two, a note');
    expect(md).not.toContain('](#part-two)');
    expect(md).not.toContain('](#cite_note-3)');
    expect(md).toContain('## Part two {#part-two}');
    expect(md).not.toContain('](#old)');
    // Nothing on the page is #tab-b: a script handles it, and it stays a link.
    expect(md).toContain('[tab](#tab-b)');
  });

  it('shows a lazy-loaded picture at the URL it will load, and no picture whose alt is its file name', () => {
    const body = `<main><h1>Pictures</h1>${paragraphs(8)}
      <img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" data-src="/img/chart.png" alt="Sales by year">
      <img data-lazy-src="https://cdn.example/map.jpg" alt="Route map">
      <img srcset="/img/a-480.jpg 480w, /img/a-960.jpg 960w" alt="The harbour">
      <img src="/img/x.jpg" alt="IMG_0042.JPG"><img data-src="/img/y.jpg" alt="performance.jpg"></main>`;
    const md = extractPage(page(body)).content;
    expect(md).toContain('![Sales by year](/img/chart.png)');
    expect(md).toContain('![Route map](https://cdn.example/map.jpg)');
    expect(md).toContain('![The harbour](/img/a-480.jpg)');
    expect(md).not.toContain('IMG_0042');
    expect(md).not.toContain('performance.jpg');
  });

  it('escapes literal braces in page text', () => {
    const md = extractPage(page(`<main><h1>Templates</h1>${paragraphs(8)}<p>Write {name} in the template.</p></main>`)).content;
    expect(md).toContain('Write \\{name\\} in the template.');
  });

  it('fails with empty on a page with nothing visible', () => {
    expect(errorOf(() => extractPage(page('<div hidden><p>x</p></div>'))).code).toBe('empty');
  });

  it.each(['daringfireball-1', 'base-url-base-element', 'hidden-nodes', 'title-and-h1-discrepancy'])('Readability fixture %s gives Markdown with headings', (name) => {
    const html = readFileSync(`${FIXTURES}/${name}/source.html`, 'utf8');
    const doc = new JSDOM(html, { url: `http://fakehost/test/${name}/page.html`, virtualConsole: new VirtualConsole() }).window.document;
    const r = extractPage(doc);
    expect(r.content.length).toBeGreaterThan(200);
    expect(r.content).toMatch(/^#{1,6} \S.*$/m);
    expect(r.title).not.toBe('');
  });
});

describe('page-reader entry', () => {
  const g = globalThis as { document?: Document; __pagewrightReadPage?: (o?: object) => unknown };
  afterEach(() => {
    delete g.document;
    delete g.__pagewrightReadPage;
  });

  it('installs __pagewrightReadPage, idempotently, returning plain JSON or { error }', async () => {
    const reader = (await import('../../entrypoints/page-reader')).default as unknown as { main: () => void };
    reader.main();
    reader.main();
    g.document = page(ARTICLE_PAGE);
    const ok = g.__pagewrightReadPage!({ maxLength: 300 });
    expect(JSON.parse(JSON.stringify(ok))).toEqual(ok);
    expect(ok).toMatchObject({ title: 'The story', truncated: true, usedSelector: '#post' });
    expect(g.__pagewrightReadPage!({ selector: '##' })).toEqual({
      error: { code: 'invalid_selector', message: expect.stringContaining('"##"') },
    });
    expect(g.__pagewrightReadPage!({ selector: '.missing' })).toMatchObject({ error: { code: 'no_match' } });
  });
});
