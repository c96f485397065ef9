import { JSDOM, VirtualConsole } from 'jsdom';
import { describe, expect, it } from 'vitest';
import { ANNOTATION_RE, extractPage, resolveSelector } from '../../lib/extract';
import { ARTICLE_CONTROLS_CAP, CONTROLS_HEADER, PAGE_CONTROLS_CAP } from '../../lib/extract/controls';

function page(body: string): Document {
  return new JSDOM(`<!doctype html><html><head><title>Controls</title></head><body>${body}</body></html>`, {
    url: 'https://news.example/story',
    virtualConsole: new VirtualConsole(),
  }).window.document;
}

const article = `<main><article id="post"><h1>The story</h1>${Array.from(
  { length: 8 },
  (_, i) => `<p>Paragraph ${i} of the story has words enough to be read as the article by every extractor here.</p>`,
).join('')}</article></main>`;

/** The controls section's lines (after the header), or [] when there is none. */
function section(md: string): string[] {
  const i = md.indexOf(CONTROLS_HEADER);
  return i < 0 ? [] : md.slice(i + CONTROLS_HEADER.length).trim().split('\n');
}

/** Every selector of a line, each checked to name exactly one element. */
function selectorsOf(doc: Document, line: string): string[] {
  const out = [...line.matchAll(ANNOTATION_RE)].map((m) => m[0].trim().slice(1, -1));
  for (const s of out) expect(resolveSelector(doc, s), s).not.toBeNull();
  return out;
}

const menu = (label: string, n = 4) =>
  `<nav aria-label="${label}">${Array.from({ length: n }, (_, i) => `<a href="/${label}/${i}">${label} ${i}</a>`).join(' ')}</nav>`;

describe('page controls beside an article', () => {
  it('lists menus on one line, a search box as its field, a sign-in form whole, any other form as one line', () => {
    const doc = page(`
      <header>${menu('Main')}<form role="search"><input type="search" name="q" aria-label="Search the news"><button>Go</button></form></header>
      ${article}
      <aside><form id="login"><label>Email <input type="email" name="email"></label><label>Password <input type="password" name="pw"></label><button type="submit">Sign in</button></form>
        <form id="comment"><label>Name <input name="author"></label><label>Comment <textarea name="body"></textarea></label><button type="submit">Post comment</button></form></aside>
      <footer>${menu('Footer')}<nav><a href="/a">a</a></nav></footer>`);
    const lines = section(extractPage(doc).content);
    expect(lines).toEqual([
      '[nav "Main" {[aria-label="Main"]}] [nav "Footer" {[aria-label="Footer"]}]',
      '[input search "Search the news" {input[name="q"]}]',
      '[form {#login}]',
      '[input email "Email" {input[name="email"]}]',
      '[input password "Password" {input[name="pw"]}]',
      '[button "Sign in" {#login button[type="submit"]}]',
      '[form "Post comment" {#comment}]',
      '[+4 more {body}]',
    ]);
    for (const line of lines) selectorsOf(doc, line);
    // What the summary counts is all there when the model reads the region.
    const comment = extractPage(doc, { selector: '#comment' }).content;
    expect(comment).toContain('[input "Name" {input[name="author"]}]');
    expect(comment).toContain('[textarea "Comment" {textarea[name="body"]}]');
  });

  it('shows a form the page repeats once, one search box, and no form of buttons or tick boxes only', () => {
    const signup = (id: string) => `<form id="${id}"><input type="email" name="e" aria-label="Your email"><button>Subscribe</button></form>`;
    const doc = page(`
      <header><input class="search-field" aria-label="Search" name="s"><input type="search" aria-label="Search again"></header>
      ${article}
      <aside>${signup('top')}<form id="like"><button>Like</button><button>Share</button></form>
        <form id="consent"><label><input type="checkbox"> I agree</label></form></aside>
      <footer>${signup('bottom')}</footer>`);
    const lines = section(extractPage(doc).content);
    expect(lines).toEqual([
      '[input "Search" {input[name="s"]}]',
      '[input email "Your email" {#top input[name="e"]}]',
      '[+7 more {body}]',
    ]);
    for (const line of lines) selectorsOf(doc, line);
  });

  it('keeps a button outside forms only when it opens something, each label once, never an unlabelled one', () => {
    const doc = page(`
      <header><button aria-expanded="false" aria-controls="m">Menu</button><button aria-expanded="false">Menu</button>
        <button aria-haspopup="dialog"></button><button>Tweet</button><button aria-haspopup="menu">Account</button></header>
      ${article}`);
    const lines = section(extractPage(doc).content);
    expect(lines[0]).toMatch(/^\[button "Menu" collapsed \{[^}]+\}\]$/);
    expect(lines[1]).toMatch(/^\[button "Account" \{[^}]+\}\]$/);
    expect(lines[2]).toBe('[+3 more {body}]');
    expect(lines).toHaveLength(3);
  });

  it('names a select by its value and how many options it has, without listing them', () => {
    const options = Array.from({ length: 30 }, (_, i) => `<option${i === 3 ? ' selected' : ''}>Language ${i}</option>`).join('');
    const doc = page(`${article}<footer><form id="lang"><label>Language <select name="l">${options}</select></label></form></footer>`);
    expect(section(extractPage(doc).content)).toEqual(['[select "Language" = "Language 3" 30 options {select[name="l"]}]']);
    // Read whole, the select lists its options as anywhere else.
    expect(extractPage(doc, { selector: '#lang' }).content).toContain('options: "Language 0", "Language 1"');
  });

  it('leaves out hidden, disabled and off-page controls, and fields nothing names', () => {
    const doc = page(`<header><input name="" class="x"><input disabled aria-label="Off" name="q"><input hidden aria-label="Hidden" name="q2">
      <fieldset disabled><input aria-label="In a disabled fieldset" name="q3"></fieldset></header>${article}`);
    const lines = section(extractPage(doc).content);
    expect(lines).toEqual(['[+1 more {body}]']);
  });

  it('stays within its cap however much chrome the page has, and counts the rest', () => {
    const forms = Array.from({ length: 20 }, (_, i) => `<form id="f${i}"><input aria-label="A ${i}"><textarea aria-label="B ${i}"></textarea><button>Send ${i}</button></form>`).join('');
    const doc = page(`${article}<aside>${forms}</aside>`);
    const lines = section(extractPage(doc).content);
    expect(lines.length).toBe(ARTICLE_CONTROLS_CAP + 1);
    // A form shown as its line still counts its fields and button: none of them has a line of its own.
    expect(lines.at(-1)).toBe('[+60 more {body}]');
  });

  it('writes no section when nothing was left out', () => {
    expect(extractPage(page(article)).content).not.toContain(CONTROLS_HEADER);
  });
});

describe('page controls of a page without an article', () => {
  it('lists its chrome controls one per line up to the cap, fields first, and counts the rest', () => {
    const buttons = Array.from({ length: 50 }, (_, i) => `<button>Tool ${i}</button>`).join('');
    const doc = page(`<header><form id="find"><input name="q" aria-label="Find"><button>Find</button></form>${buttons}</header>
      <main><h1>Dashboard</h1><p>Few words.</p></main>`);
    const lines = section(extractPage(doc).content);
    expect(lines[0]).toBe('[form {#find}]');
    expect(lines[1]).toBe('[input "Find" {input[name="q"]}]');
    expect(lines[2]).toMatch(/^\[button "Find" \{[^}]+\}\]$/);
    const controls = lines.filter((l) => l.startsWith('[button') || l.startsWith('[input'));
    expect(controls).toHaveLength(PAGE_CONTROLS_CAP);
    expect(lines.at(-1)).toBe(`[+${52 - PAGE_CONTROLS_CAP} more {body}]`);
    for (const line of lines) selectorsOf(doc, line);
  });
});
