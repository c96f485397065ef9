import { beforeAll, describe, expect, it } from 'vitest';
import { draftFor, MAX_QUOTE } from '../../lib/browser/ask-menu';
import { setMessageLookup } from '../../lib/i18n';
import { lookupMessage } from '../component/setup';

beforeAll(() => setMessageLookup(lookupMessage));

const tab = { id: 7, windowId: 1, url: 'https://news.example/story', title: 'The story' };

describe('the message "Ask Pagewright about…" prefills', () => {
  it('names the page by its title and address', () => {
    expect(draftFor({ menuItemId: 'ask-page', pageUrl: tab.url }, tab)).toBe('About this page: The story — https://news.example/story\n\n');
  });

  it('quotes the selection line by line, under the page it came from', () => {
    const d = draftFor({ menuItemId: 'ask-selection', pageUrl: tab.url, selectionText: 'First line\nSecond line' }, tab);
    expect(d).toBe('About this passage from The story — https://news.example/story:\n\n> First line\n> Second line\n\n');
  });

  it('quotes at most MAX_QUOTE characters of a huge selection and says how much was selected', () => {
    const selection = 'x'.repeat(5 * 1024 * 1024);
    const d = draftFor({ menuItemId: 'ask-selection', pageUrl: tab.url, selectionText: selection }, tab);
    expect(d.length).toBeLessThan(MAX_QUOTE + 500);
    expect(d).toContain(`(The first ${MAX_QUOTE} of ${selection.length} selected characters are quoted.)`);
  });

  it('gives a link and an image by their address, on their page', () => {
    expect(draftFor({ menuItemId: 'ask-link', pageUrl: tab.url, linkUrl: 'https://other.example/a' }, tab)).toBe(
      'About this link: https://other.example/a (on The story — https://news.example/story)\n\n',
    );
    expect(draftFor({ menuItemId: 'ask-image', pageUrl: tab.url, srcUrl: 'https://cdn.example/p.jpg', mediaType: 'image' }, tab)).toContain(
      'About this image: https://cdn.example/p.jpg (on The story',
    );
  });

  it('describes an inline data: image of 20 MB instead of pasting it', () => {
    const src = `data:image/png;base64,${'A'.repeat(20 * 1024 * 1024)}`;
    const d = draftFor({ menuItemId: 'ask-image', pageUrl: tab.url, srcUrl: src, mediaType: 'image' }, tab);
    expect(d.length).toBeLessThan(300);
    expect(d).toContain('an image embedded in the page (image/png, 20480 KB, not copied here)');
  });

  it('says so on a page the browser keeps extensions out of (internal pages, the stores)', () => {
    for (const url of ['chrome://settings/', 'about:addons', 'https://chromewebstore.google.com/detail/x', 'https://addons.mozilla.org/en-US/firefox/']) {
      const d = draftFor({ menuItemId: 'ask-page', pageUrl: url }, { ...tab, url, title: '' });
      expect(d, url).toContain(`About this page: ${url}`);
      expect(d, url).toContain('Pagewright cannot read this page');
    }
    expect(draftFor({ menuItemId: 'ask-page', pageUrl: tab.url }, tab)).not.toContain('cannot read');
  });

  it('works without a tab (a click the browser reports with the page URL only)', () => {
    expect(draftFor({ menuItemId: 'ask-page', pageUrl: 'https://a.example/' }, undefined)).toBe('About this page: https://a.example/\n\n');
  });
});
