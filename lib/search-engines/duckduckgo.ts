/**
 * DuckDuckGo, keyless, through its JavaScript-free HTML endpoint (html.duckduckgo.com/html/).
 *
 * Result links there go through DuckDuckGo's redirect, `//duckduckgo.com/l/?uddg=<real URL>&rut=…`:
 * the real URL is the uddg parameter. Ads link to `duckduckgo.com/y.js?ad_domain=…` and sit in
 * `.result--ad` blocks. The lite endpoint's table layout (a.result-link / td.result-snippet) is
 * read too, so `endpoint` may point at lite.duckduckgo.com/lite/ as well.
 */
import { byClass, findAll, findFirst, parseHtml, textOf, type HtmlElement } from './html';
import { blockedError, conclude, makeResult, pageText, type PageScan } from './page';
import type { ResponseInfo, SearchEngine, SearchResult } from './types';
import { HTML_ACCEPT, hostIs, parseUrl, searchRequest, withParams } from './urls';

const ENDPOINT = 'https://html.duckduckgo.com/html/';
const BASE = 'https://duckduckgo.com/';

/** The real URL behind a result link; the link itself when it carries none (dropped later). */
export function decodeDuckDuckGoUrl(href: string): string | null {
  const url = parseUrl(href, BASE);
  if (!url) return null;
  if (hostIs(url.hostname, 'duckduckgo.com') && url.pathname.startsWith('/l/')) {
    const target = url.searchParams.get('uddg');
    if (target) return target;
  }
  return url.href;
}

function isAdLink(url: URL): boolean {
  return (hostIs(url.hostname, 'duckduckgo.com') && url.pathname === '/y.js') || url.searchParams.has('ad_domain');
}

function scanHtmlLayout(root: HtmlElement): PageScan {
  const scan: PageScan = { results: [], ads: 0 };
  const blocks = findAll(root, (el) => el.hasClass('result') || el.hasClass('web-result'));
  for (const block of blocks) {
    if (block.hasClass('result--no-result')) continue;
    const link = findFirst(block, byClass('result__a'));
    const href = link?.attr('href');
    if (!link || !href) continue;
    const url = decodeDuckDuckGoUrl(href);
    const parsed = url ? parseUrl(url) : null;
    if (block.hasClass('result--ad') || (parsed && isAdLink(parsed))) {
      scan.ads++;
      continue;
    }
    if (!url) continue;
    const snippet = findFirst(block, byClass('result__snippet'));
    scan.results.push(makeResult(textOf(link), url, snippet ? textOf(snippet) : ''));
  }
  return scan;
}

/** lite.duckduckgo.com: one table row holds the link, a following row its snippet. */
function scanLiteLayout(root: HtmlElement): PageScan {
  const scan: PageScan = { results: [], ads: 0 };
  const cells = findAll(root, (el) => el.hasClass('result-link') || el.hasClass('result-snippet'));
  let last: SearchResult | null = null;
  for (const cell of cells) {
    if (cell.hasClass('result-snippet')) {
      if (last && !last.snippet) Object.assign(last, makeResult(last.title, last.url, textOf(cell)));
      continue;
    }
    last = null;
    const href = cell.attr('href');
    const url = href ? decodeDuckDuckGoUrl(href) : null;
    const parsed = url ? parseUrl(url) : null;
    if (cell.closest((el) => el.hasClass('result-sponsored')) || (parsed && isAdLink(parsed))) {
      scan.ads++;
      continue;
    }
    if (!url) continue;
    last = makeResult(textOf(cell), url, '');
    scan.results.push(last);
  }
  return scan;
}

export const duckduckgo: SearchEngine = {
  id: 'duckduckgo',
  label: 'DuckDuckGo',
  needs: [],
  defaultEndpoint: ENDPOINT,

  humanSearchUrl: (query) => withParams(BASE, { q: query }),

  usesApiKey: () => false,

  // The endpoint has no count parameter: one page carries about ten results.
  buildRequest: (query, _count, config) => searchRequest(config, ENDPOINT, { q: query }, { Accept: HTML_ACCEPT }),

  parse(body: string, info: ResponseInfo): SearchResult[] {
    const root = parseHtml(body);
    let scan = scanHtmlLayout(root);
    if (scan.results.length === 0 && scan.ads === 0) scan = scanLiteLayout(root);
    return conclude(duckduckgo, scan, body, info, {
      expected: 'result blocks (div.result with a.result__a)',
      blocked: () => challenge(root),
      empty: () => findFirst(root, byClass('no-results')) !== null || /\bNo (?:more )?results\./.test(pageText(root)),
    });
  },

  // DuckDuckGo answers a suspected bot with its challenge page and a 202 or 403.
  explainFailure: (body, info) => blockedError(duckduckgo, challenge(parseHtml(body)), info.query),

  isAd: isAdLink,
  isRedirect: (url) => hostIs(url.hostname, 'duckduckgo.com') && url.pathname.startsWith('/l/'),
};

/** The "anomaly" page: "Unfortunately, bots use DuckDuckGo too." with an image puzzle. */
function challenge(root: HtmlElement): string | null {
  const marked = findFirst(
    root,
    (el) =>
      el.hasClass('anomaly-modal__modal') ||
      el.attr('id') === 'challenge-form' ||
      (el.tag === 'form' && /anomaly/i.test(el.attr('action') ?? '')),
  );
  if (marked || /bots use DuckDuckGo too/i.test(pageText(root))) return 'a bot check (CAPTCHA: "bots use DuckDuckGo too")';
  return null;
}
