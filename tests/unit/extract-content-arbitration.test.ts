import { JSDOM, VirtualConsole } from 'jsdom';
import { describe, expect, it } from 'vitest';
import { extractPage, stripAnnotations } from '../../lib/extract';

/**
 * A news page whose article sits beside a longer box of other prose (an embedded list of letters,
 * each with commas, the kind Readability scores highest), and whose description sums up the article.
 */
function page(description: string): Document {
  const story = Array.from(
    { length: 6 },
    (_, i) => `<p>The harbour council voted on the lighthouse repairs in meeting ${i}, and the keepers welcomed the decision.</p>`,
  ).join('');
  const letters = Array.from(
    { length: 40 },
    (_, i) =>
      `<p>Letter ${i}: gardening, in my view, needs patience, compost, good tools, long summers and neighbours who share seeds, cuttings and advice.</p>`,
  ).join('');
  const html = `<!doctype html><html><head><title>Lighthouse repairs approved</title>
    <meta property="og:description" content="${description}"></head><body>
    <article class="story"><h1>Lighthouse repairs approved</h1>${story}</article>
    <div class="module">${letters}</div></body></html>`;
  return new JSDOM(html, { url: 'https://news.example/lighthouse', virtualConsole: new VirtualConsole() }).window.document;
}

describe('which box is the article', () => {
  it("asks Defuddle when Readability's long box shares few words with the page's description", () => {
    const text = stripAnnotations(extractPage(page('The harbour council voted on the lighthouse repairs and the keepers welcomed the decision')).content);
    expect(text).toContain('The harbour council voted on the lighthouse repairs in meeting 3');
    expect(text).not.toContain('Letter 12: gardening');
  });

  it('keeps Readability\'s box when the description gives no sign against it', () => {
    const text = stripAnnotations(extractPage(page('Gardening letters: patience, compost, good tools and neighbours who share seeds')).content);
    expect(text).toContain('Letter 12: gardening');
  });
});
