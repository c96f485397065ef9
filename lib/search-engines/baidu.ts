/**
 * Baidu, keyless, through its result page www.baidu.com/s?wd=….
 *
 * Organic results are `div.c-container` (class "result c-container", id 1..10) in `#content_left`;
 * the title is `h3 > a`, the abstract `.c-abstract` (2018 layout) or, in later layouts, the rest of
 * the block. Later layouts also put the real URL in the block's `mu` attribute, which saves the
 * redirect lookup; otherwise the link is `www.baidu.com/link?url=…`, resolved by baidu-resolve.ts.
 * Ads ("推广"/"广告") are blocks with ids from 3001, EC_/ec- classes, data-tuiguang attributes or a
 * "广告" label, linking through baidu.php. The side column (`#content_right`, hot lists) is ignored.
 */
import { resolveBaiduLinks, isBaiduLink } from './baidu-resolve';
import { byClass, byId, byTag, findAll, findFirst, parseHtml, textOf, titleOf, type HtmlElement } from './html';
import { blockedError, conclude, makeResult, pageText, type PageScan } from './page';
import type { ResponseInfo, SearchEngine, SearchResult } from './types';
import { HTML_ACCEPT, hostIs, isHttpUrl, parseUrl, searchRequest, withParams } from './urls';

const ENDPOINT = 'https://www.baidu.com/s';
const BASE = 'https://www.baidu.com/';

function isAdBlock(block: HtmlElement): boolean {
  const id = Number(block.attr('id'));
  if (Number.isInteger(id) && id >= 3000) return true;
  if ([...block.classes].some((c) => /^ec[_-]|^EC_/.test(c))) return true;
  // The "广告" label is an element of its own; the same word highlighted (<em>) in a title or
  // abstract is the query, not a label.
  const marked = findFirst(
    block,
    (el) =>
      el.hasAttr('data-tuiguang') ||
      (el.tag !== 'em' &&
        el.children.some((child) => typeof child === 'string' && child.trim() === '广告') &&
        !el.closest((up) => up.tag === 'h3' || up.hasClass('c-abstract'))),
  );
  return marked !== null || block.hasAttr('data-tuiguang');
}

function isResultBlock(el: HtmlElement): boolean {
  return el.tag === 'div' && (el.hasClass('c-container') || el.hasClass('result') || el.hasClass('result-op'));
}

/** The abstract: `.c-abstract`, or the block's text without its title, URL line and tool links. */
function snippetOf(block: HtmlElement): string {
  const abstract = findFirst(block, (el) => el.hasClass('c-abstract') || [...el.classes].some((c) => c.startsWith('content-right')));
  if (abstract) return textOf(abstract);
  return textOf(
    block,
    (el) => el.tag === 'h3' || el.hasClass('f13') || el.hasClass('c-tools') || el.hasClass('c-showurl') || el.hasClass('c-row-source') || el.tag === 'style',
  );
}

function scan(root: HtmlElement): PageScan {
  const out: PageScan = { results: [], ads: 0 };
  const scope = findFirst(root, byId('content_left')) ?? root;
  for (const block of findAll(scope, isResultBlock)) {
    const heading = findFirst(block, byTag('h3'));
    const link = heading ? findFirst(heading, byTag('a')) : null;
    const href = link?.attr('href');
    if (!link || !href) continue; // "related searches" and other boxes without a titled link
    const linkUrl = parseUrl(href.trim(), BASE);
    if (isAdBlock(block) || (linkUrl && isBaiduAd(linkUrl))) {
      out.ads++;
      continue;
    }
    const mu = block.attr('mu')?.trim();
    const url = mu && isHttpUrl(mu) ? mu : linkUrl?.href;
    if (!url) continue;
    out.results.push(makeResult(textOf(link), url, snippetOf(block)));
  }
  return out;
}

function isBaiduAd(url: URL): boolean {
  return hostIs(url.hostname, 'baidu.com') && (url.pathname === '/baidu.php' || url.pathname.startsWith('/adrc'));
}

/** Baidu's "百度安全验证" page (wappass.baidu.com/static/captcha/…), served instead of results to suspected bots. */
function challenge(root: HtmlElement, info: ResponseInfo): string | null {
  const final = parseUrl(info.url);
  if (final && (hostIs(final.hostname, 'wappass.baidu.com') || /\/captcha\//.test(final.pathname))) {
    return 'its security check (百度安全验证, a CAPTCHA)';
  }
  if (/安全验证/.test(titleOf(root)) || /百度安全验证|网络不给力，请稍后重试/.test(pageText(root))) {
    return 'its security check (百度安全验证, a CAPTCHA)';
  }
  return null;
}

/** "抱歉，没有找到与…相关的网页/结果。" in `div.nors` (also on Baidu's site-search pages). */
function noResults(root: HtmlElement): boolean {
  return findFirst(root, byClass('nors')) !== null || /(?:很)?抱歉[，,]?\s*没有找到与/.test(pageText(root));
}

export const baidu: SearchEngine = {
  id: 'baidu',
  label: 'Baidu',
  needs: [],
  defaultEndpoint: ENDPOINT,

  humanSearchUrl: (query) => withParams(ENDPOINT, { wd: query }),

  usesApiKey: () => false,

  // One page holds 10 results; ie=utf-8 makes Baidu read wd as UTF-8 (its old default was GBK).
  buildRequest: (query, _count, config) =>
    searchRequest(config, ENDPOINT, { wd: query, ie: 'utf-8' }, { Accept: HTML_ACCEPT, 'Accept-Language': 'zh-CN,zh;q=0.9,en;q=0.8' }),

  parse(body: string, info: ResponseInfo): SearchResult[] {
    const root = parseHtml(body);
    return conclude(baidu, scan(root), body, info, {
      expected: 'result blocks (div.c-container with an h3 link)',
      blocked: () => challenge(root, info),
      empty: () => noResults(root),
    });
  },

  explainFailure: (body, info) => blockedError(baidu, challenge(parseHtml(body), info), info.query),

  isAd: isBaiduAd,
  isRedirect: isBaiduLink,
  resolve: resolveBaiduLinks,
};
