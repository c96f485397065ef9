/**
 * Link URLs as the reader writes them (lib/extract/markdown.ts displayUrl): same-origin ones from
 * their path, tracking parameters left out, everything else exactly as the page had it.
 */
import { JSDOM, VirtualConsole } from 'jsdom';
import { describe, expect, it } from 'vitest';
import { extractPage } from '../../lib/extract';
import { displayUrl, withoutTracking } from '../../lib/extract/markdown';

const PAGE = 'https://news.example/2024/story?id=7';
const ctx = { pageUrl: new URL(PAGE), baseUrl: PAGE };
const show = (href: string) => displayUrl(href, ctx);

describe('withoutTracking', () => {
  it('drops campaign tags and click ids, keeping the rest of the query in order and as encoded', () => {
    expect(withoutTracking('/a?utm_source=x&id=2&utm_medium=mail&page=3')).toBe('/a?id=2&page=3');
    expect(withoutTracking('https://shop.example/p?gclid=abc&fbclid=def&msclkid=1&color=red')).toBe('https://shop.example/p?color=red');
    expect(withoutTracking('/a?q=caf%C3%A9%20au+lait&mc_cid=1&mc_eid=2')).toBe('/a?q=caf%C3%A9%20au+lait');
    expect(withoutTracking('/a?_hsenc=p2A&_hsmi=9&mkt_tok=x&vero_id=1&oly_enc_id=2&_ga=2.1&_gl=1*x&b=')).toBe('/a?b=');
  });

  it('leaves no empty "?" and keeps the fragment', () => {
    expect(withoutTracking('/a?utm_source=x')).toBe('/a');
    expect(withoutTracking('/a?utm_source=x&utm_campaign=y#part-2')).toBe('/a#part-2');
    expect(withoutTracking('/a?id=1&utm_source=x#s?utm_source=in-fragment')).toBe('/a?id=1#s?utm_source=in-fragment');
    expect(withoutTracking('/a#only?utm_source=x')).toBe('/a#only?utm_source=x');
  });

  it('matches names in any case, repeated, percent-encoded; never values or look-alike names', () => {
    expect(withoutTracking('/a?UTM_SOURCE=x&Utm_Medium=y&FBCLID=z&id=1')).toBe('/a?id=1');
    expect(withoutTracking('/a?utm_source=a&id=1&utm_source=b&id=2')).toBe('/a?id=1&id=2');
    expect(withoutTracking('/a?next=/b?c=1&utm_source=x')).toBe('/a?next=/b?c=1');
    expect(withoutTracking('/a?utm%5Fsource=x&id=1')).toBe('/a?id=1');
    // A tracking name as a value, or inside another name or value, is content.
    expect(withoutTracking('/search?q=utm_source&tag=fbclid')).toBe('/search?q=utm_source&tag=fbclid');
    expect(withoutTracking('/a?xutm_source=1&gclid_note=2&next=%2Fb%3Futm_source%3Dx')).toBe('/a?xutm_source=1&gclid_note=2&next=%2Fb%3Futm_source%3Dx');
    // Parameters some sites use for content stay, even where others track with them.
    expect(withoutTracking('/a?ref=home&source=rss&spm=1&si=2&cid=3')).toBe('/a?ref=home&source=rss&spm=1&si=2&cid=3');
  });

  it('returns a URL without tracking parameters untouched, odd encodings and empty pairs included', () => {
    for (const url of ['/a', '/a?', '/a?&&b=1', '/a?%E0%A4%A=1', 'https://x.example/?a=1&a=2#f']) expect(withoutTracking(url)).toBe(url);
  });
});

describe('displayUrl', () => {
  it('shows same-origin URLs from their path and same-page fragments as #id', () => {
    expect(show('https://news.example/2024/other?utm_source=rss')).toBe('/2024/other');
    expect(show('/2024/other?utm_source=rss&p=2')).toBe('/2024/other?p=2');
    expect(show('other')).toBe('/2024/other');
    expect(show('#notes')).toBe('#notes');
    expect(show('https://news.example/2024/story?id=7#notes')).toBe('#notes');
    // The same page once its tracking tag is gone: still a fragment of this page.
    expect(show('https://news.example/2024/story?id=7&utm_medium=share#notes')).toBe('#notes');
    expect(show('https://news.example/2024/story?id=8#notes')).toBe('/2024/story?id=8#notes');
  });

  it('keeps other origins absolute: another host, port or scheme (http: on an https: page)', () => {
    expect(show('https://other.example/x?fbclid=1&y=2')).toBe('https://other.example/x?y=2');
    expect(show('http://news.example/2024/other')).toBe('http://news.example/2024/other');
    expect(show('https://news.example:8443/x')).toBe('https://news.example:8443/x');
    expect(show('https://sub.news.example/x')).toBe('https://sub.news.example/x');
    // Protocol-relative: the page's scheme makes it this origin (a path), or another one, absolute.
    expect(show('//news.example/2024/other?gclid=1')).toBe('/2024/other');
    expect(show('//other.example/x')).toBe('https://other.example/x');
  });

  it('leaves non-web URLs alone, their queries included', () => {
    expect(show('mailto:desk@news.example?subject=Tip&utm_source=x')).toBe('mailto:desk@news.example?subject=Tip&utm_source=x');
    expect(show('tel:+15551234')).toBe('tel:+15551234');
  });

  it('on an http: page, https: links to the same host stay absolute', () => {
    const http = { pageUrl: new URL('http://intranet.example/a'), baseUrl: 'http://intranet.example/a' };
    expect(displayUrl('https://intranet.example/b?utm_source=x', http)).toBe('https://intranet.example/b');
    expect(displayUrl('http://intranet.example/b?utm_source=x', http)).toBe('/b');
  });

  it('is what the page read writes for its links', () => {
    const body = `<main><article><h1>Links</h1>${'<p>A paragraph of the article with enough words in it to count as the article text for the reader.</p>'.repeat(8)}
      <p><a href="/2024/next?utm_source=homepage&utm_medium=web">Next</a> <a href="https://elsewhere.example/r?id=4&fbclid=IwAR0">Source</a></p></article></main>`;
    const doc = new JSDOM(`<!doctype html><title>Links</title><body>${body}`, { url: PAGE, virtualConsole: new VirtualConsole() }).window.document;
    const md = extractPage(doc).content;
    expect(md).toContain('[Next](/2024/next)');
    expect(md).toContain('[Source](https://elsewhere.example/r?id=4)');
    expect(md).not.toMatch(/utm_|fbclid/);
  });
});

describe('links through a redirector', () => {
  it('are shown as where they lead, tracking left out, from its path when that is this site', () => {
    const amazon = 'https://www.amazon.com/Lady-Bird/dp/B07734STRN/ref=sr_1_3?s=instant-video&utm_source=skim';
    expect(show(`https://go.redirectingat.com/?id=66960X1516588&xs=1&url=${encodeURIComponent(amazon)}&sref=https%3A%2F%2Fnews.example%2F`)).toBe(
      'https://www.amazon.com/Lady-Bird/dp/B07734STRN/ref=sr_1_3?s=instant-video',
    );
    expect(show('https://l.facebook.com/l.php?u=https%3A%2F%2Fnews.example%2F2024%2Fother%3Fid%3D8&h=AT0x')).toBe('/2024/other?id=8');
    expect(show('https://www.google.com/url?sa=t&url=https%3A%2F%2Fen.wikipedia.org%2Fwiki%2FHarbour&ved=2ah')).toBe('https://en.wikipedia.org/wiki/Harbour');
    expect(show('https://eur01.safelinks.protection.outlook.com/?url=https%3A%2F%2Fshop.example%2Fp&data=05')).toBe('https://shop.example/p');
    // A redirector inside a redirector.
    expect(show(`https://out.reddit.com/t3_x?url=${encodeURIComponent('https://l.facebook.com/l.php?u=https%3A%2F%2Fshop.example%2Fq')}`)).toBe('https://shop.example/q');
  });

  it('stay as they are when they are not a known redirector’s, or lead nowhere a browser goes', () => {
    // "from" names where the reader came from, not where the link goes.
    const survey = 'https://ankety.example/s3/00310d?from=https%3A%2F%2Fsport.example%2Ffotbal';
    expect(show(survey)).toBe(survey);
    // Google's own pages are pages; only /url redirects.
    expect(show('https://www.google.com/search?q=https%3A%2F%2Fshop.example%2F')).toBe('https://www.google.com/search?q=https%3A%2F%2Fshop.example%2F');
    expect(show('https://go.redirectingat.com/?id=1&url=javascript%3Aalert(1)')).toBe('https://go.redirectingat.com/?id=1&url=javascript%3Aalert(1)');
    expect(show('https://go.redirectingat.com/?id=1&url=not%20a%20url')).toBe('https://go.redirectingat.com/?id=1&url=not%20a%20url');
    expect(show('https://go.redirectingat.com/?id=1')).toBe('https://go.redirectingat.com/?id=1');
    // A loop ends after a few hops, on a redirector link (never throws, never spins).
    const loop = `https://out.reddit.com/?url=${encodeURIComponent(`https://out.reddit.com/?url=${encodeURIComponent('https://out.reddit.com/?url=https%3A%2F%2Fout.reddit.com%2F%3Furl%3Dhttps%253A%252F%252Fshop.example%252Fz')}`)}`;
    expect(show(loop)).toMatch(/^https:\/\/(?:out\.reddit\.com\/\?url=|shop\.example\/z)/);
  });
});
