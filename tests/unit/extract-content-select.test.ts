import { JSDOM, VirtualConsole } from 'jsdom';
import { describe, expect, it } from 'vitest';
import { extractPage, stripAnnotations } from '../../lib/extract';

const page = (body: string, title = 'A story') =>
  new JSDOM(`<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`, {
    url: 'https://news.example/story',
    virtualConsole: new VirtualConsole(),
  }).window.document;

const prose = (n: number, word = 'article') =>
  Array.from({ length: n }, (_, i) => `<p>Sentence ${i} of the ${word} goes on with plain words that a reader came for and nothing else.</p>`).join('');

describe('main content text', () => {
  it('reads words without their soft hyphens, in an article and on a page without one', () => {
    const shy = '<p>Die Klima&shy;wandel&shy;anpassung ist eine Heraus&shy;forderung.</p>';
    const article = stripAnnotations(extractPage(page(`<article>${shy}${prose(10)}</article>`)).content);
    expect(article).toContain('Die Klimawandelanpassung ist eine Herausforderung.');
    expect(article).not.toContain('\u00ad');
    const app = stripAnnotations(extractPage(page(`<div>${shy}<button>Go</button></div>`)).content);
    expect(app).toContain('Klimawandelanpassung');
    expect(app).not.toContain('\u00ad');
  });
});
