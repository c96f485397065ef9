/**
 * Keyless Bing: the www.bing.com/search result page.
 *
 * Organic results are `li.b_algo` in `#b_results`; the title link is `h2 > a` and goes through
 * Bing's click tracker `https://www.bing.com/ck/a?!&&p=…&u=a1<base64url of the real URL>&ntb=1`
 * ("a1" is a format tag, the rest is the URL). Ads are separate `li.b_ad` blocks linking to
 * `bing.com/aclk`. Without cookies Bing may answer with its Turnstile challenge, "One last step".
 */
import type { SearchError } from './errors';
import { byClass, byId, byTag, findAll, findFirst, parseHtml, textOf, type HtmlElement } from './html';
import { blockedError, conclude, makeResult, pageText, type PageScan } from './page';
import type { EngineConfig, ResponseInfo, SearchRequest } from './types';
import { decodeBase64Url, HTML_ACCEPT, hostIs, parseUrl, searchRequest, withParams } from './urls';

export const BING_HTML_ENDPOINT = 'https://www.bing.com/search';
const BASE = 'https://www.bing.com/';

export const bingHumanSearchUrl = (query: string): string => withParams(BING_HTML_ENDPOINT, { q: query });

export function buildBingHtmlRequest(query: string, count: number, config: EngineConfig): SearchRequest {
  // count asks for more than the default 10 only when headroom is needed; Bing ignores values under 10.
  return searchRequest(config, BING_HTML_ENDPOINT, { q: query, count: Math.max(10, count) }, { Accept: HTML_ACCEPT });
}

/** The real URL behind a `bing.com/ck/a` link; other links as they are (made absolute). */
export function decodeBingUrl(href: string): string | null {
  const url = parseUrl(href, BASE);
  if (!url) return null;
  if (hostIs(url.hostname, 'bing.com') && url.pathname === '/ck/a') {
    const u = url.searchParams.get('u');
    if (u && u.startsWith('a1')) {
      const decoded = decodeBase64Url(u.slice(2));
      // Relative targets are Bing's own pages (images, videos…): resolved so the filter sees bing.com.
      const target = decoded ? parseUrl(decoded, BASE) : null;
      if (target) return target.href;
    }
  }
  return url.href;
}

export function isBingAd(url: URL): boolean {
  return hostIs(url.hostname, 'bing.com') && /^\/aclk\b/.test(url.pathname);
}

/** Click trackers and Bing's own search pages: never a result on their own. */
export function isBingRedirect(url: URL): boolean {
  return hostIs(url.hostname, 'bing.com') && /^\/(?:ck\/|search\b|images\/|videos\/|news\/|shop\b|maps\b|travel\/)/.test(url.pathname);
}

function snippetOf(block: HtmlElement): string {
  const caption = findFirst(block, byClass('b_caption'));
  const paragraph = caption ? findFirst(caption, byTag('p')) : null;
  if (paragraph) return textOf(paragraph);
  const clamp = findFirst(block, (el) => [...el.classes].some((c) => c.startsWith('b_lineclamp')) || el.hasClass('b_algoSlug'));
  if (clamp) return textOf(clamp);
  // The caption minus its URL line and deep links.
  return caption ? textOf(caption, (el) => el.hasClass('b_attribution') || el.tag === 'cite' || el.hasClass('b_deep') || el.hasClass('b_vList')) : '';
}

function scan(root: HtmlElement): PageScan {
  const out: PageScan = { results: [], ads: 0 };
  const scope = findFirst(root, byId('b_results')) ?? root;
  for (const block of findAll(scope, (el) => el.hasClass('b_algo') || el.hasClass('b_ad'))) {
    if (block.hasClass('b_ad') || findFirst(block, byClass('b_adSlug'))) {
      out.ads++;
      continue;
    }
    const heading = findFirst(block, byTag('h2'));
    const link = heading ? findFirst(heading, byTag('a')) : findFirst(block, (el) => el.tag === 'a' && el.hasClass('tilk'));
    const href = link?.attr('href');
    const url = href ? decodeBingUrl(href) : null;
    if (!link || !url) continue;
    const parsed = parseUrl(url);
    if (parsed && isBingAd(parsed)) {
      out.ads++;
      continue;
    }
    out.results.push(makeResult(textOf(heading ?? link), url, snippetOf(block)));
  }
  return out;
}

/** The Cloudflare-Turnstile page: "One last step — Please solve the challenge below to continue". */
function challenge(root: HtmlElement): string | null {
  const marked = findFirst(root, (el) => el.hasClass('captcha') || el.hasClass('captcha_header') || el.attr('id') === 'turnstile-widget');
  if (marked || /One last step/i.test(pageText(root))) return 'a bot check (CAPTCHA: "One last step")';
  return null;
}

const bingRef = { id: 'bing', label: 'Bing', humanSearchUrl: bingHumanSearchUrl } as const;

export function parseBingHtml(body: string, info: ResponseInfo): PageScan {
  const root = parseHtml(body);
  const found = scan(root);
  conclude(bingRef, found, body, info, {
    expected: 'result blocks (li.b_algo)',
    blocked: () => challenge(root),
    empty: () => findFirst(root, byClass('b_no')) !== null || /There are no results for/i.test(pageText(root)),
  });
  return found;
}

export function explainBingHtmlFailure(body: string, info: ResponseInfo): SearchError | null {
  return blockedError(bingRef, challenge(parseHtml(body)), info.query);
}
