import { JSDOM, VirtualConsole } from 'jsdom';
import { describe, expect, it } from 'vitest';
import { extractPage, stripAnnotations } from '../../lib/extract';
import { textStart } from '../../lib/extract/lead';

const page = (body: string, title = 'Harbour reopens after the storm - Example News') =>
  new JSDOM(`<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`, {
    url: 'https://news.example/story',
    virtualConsole: new VirtualConsole(),
  }).window.document;

const prose = (n: number) =>
  Array.from({ length: n }, (_, i) => `<p>Sentence ${i} of the article body goes on with plain words that a reader came for and nothing else.</p>`).join('');
const LEAD = 'The harbour reopened on Monday after a week of repairs, and the ferries are running to the usual timetable again.';

const read = (body: string) => stripAnnotations(extractPage(page(body)).content);

describe('the article lead', () => {
  it('puts back the lead the extractors leave in the article header, before the body', () => {
    const text = read(`<nav><a href="/">Home</a> <a href="/news">News</a></nav>
      <div class="article"><header><h1>Harbour reopens after the storm</h1><div class="byline">By Ann Lee, 3 May 2021</div><p class="lead">${LEAD}</p></header>
      <div class="article-body">${prose(12)}</div></div>`);
    expect(text).toContain(LEAD);
    expect(text.indexOf(LEAD)).toBeLessThan(text.indexOf('Sentence 0 of the article body'));
    expect(text).not.toContain('By Ann Lee');
  });

  it('finds a lead named as one outside any header, and a subtitle in the headline’s header', () => {
    const named = read(`<div class="header"><h1>Harbour reopens after the storm</h1></div><div class="teaser-text"><p>${LEAD}</p></div><div class="body">${prose(12)}</div>`);
    expect(named).toContain(LEAD);
    const subtitle = read(`<article><header><h1>Harbour reopens after the storm</h1><h2>${LEAD}</h2></header><section class="content">${prose(12)}</section></article>`);
    expect(subtitle.match(/harbour reopened on Monday/g)?.length).toBe(1);
  });

  it('adds nothing that is not a lead: a byline "subhead", a list of teasers, text already in the content', () => {
    const byline = read(`<header><h1>Harbour reopens after the storm</h1><div class="entry-subhead"><span class="author">By Ann Lee who writes about ports and ferries every week</span></div></header><div class="entry-content">${prose(12)}</div>`);
    expect(byline).not.toContain('Ann Lee');
    const teasers = read(`<h1>Harbour reopens after the storm</h1><div class="intro"><a href="/a">Another story about the ferries and their long timetable</a> <a href="/b">And one more story about the harbour and its cranes</a></div><div class="content">${prose(12)}</div>`);
    expect(teasers).not.toContain('Another story');
    const kept = read(`<article><h1>Harbour reopens after the storm</h1><p class="lead">${LEAD}</p>${prose(12)}</article>`);
    expect(kept.match(/harbour reopened on Monday/g)?.length).toBe(1);
  });

  it('never takes a long box for the lead, whatever its script (CJK has few “words” between its stops)', () => {
    // 2,300 characters in 60 "words": under the word cap, far over any lead's length.
    const cjk = Array.from({ length: 60 }, (_, i) => `港口在风暴后重新开放第${i}段文字继续写下去读者为此而来没有别的内容也没有链接。`).join('');
    const text = read(`<header><h1>Harbour reopens after the storm</h1><div class="intro">${cjk}</div></header><div class="content">${prose(80)}</div>`);
    expect(text).toContain('Sentence 79 of the article body');
    expect(text).not.toContain('港口在风暴后');
  });
});

describe('textStart', () => {
  it('gives the normalised start of a text from as little of it as needed', () => {
    const long = `  ${'word  \n '.repeat(2000)}`;
    expect(textStart(long)).toBe('word '.repeat(16).slice(0, 80));
    expect(textStart(' a  b ')).toBe('a b');
    expect(textStart('')).toBe('');
    const spaces = `${' '.repeat(1000)}x`;
    expect(textStart(spaces)).toBe('x');
  });
});

