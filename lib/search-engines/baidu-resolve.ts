/**
 * Baidu's result links are `www.baidu.com/link?url=<opaque>`: the real URL is not in the link, only
 * in Baidu's answer to it — a 302 to the page, or a 200 page that moves on with
 * `<meta http-equiv="refresh" content="0;URL='…'">` and/or `window.location.replace("…")`.
 * Each link is asked once, a few at a time, with a time limit; a link that cannot be resolved is
 * kept as it is (it still works in a browser), never failing the search.
 */
import { linkedAbort, mapLimit, untilAborted } from './async';
import { byTag, findAll, parseHtml } from './html';
import type { ResolveContext, SearchResult } from './types';
import { hostIs, isHttpUrl, parseUrl } from './urls';

/** Only the start of a refresh page is read: the target is in its first lines. */
const REFRESH_SCAN_CHARS = 32 * 1024;

export function isBaiduLink(url: URL): boolean {
  return hostIs(url.hostname, 'baidu.com') && url.pathname === '/link' && url.searchParams.has('url');
}

/**
 * Still Baidu after following the link: the link itself, its search host (an error page such as
 * /search/error.html) or its verification host. Other baidu.com sites (baike, zhidao) are real results.
 */
function isBaiduOwnPage(url: URL): boolean {
  const host = url.hostname.toLowerCase();
  return isBaiduLink(url) || host === 'www.baidu.com' || host === 'baidu.com' || host === 'm.baidu.com' || hostIs(host, 'wappass.baidu.com');
}

function unescapeJsString(text: string): string {
  return text.replace(/\\(?:x([0-9a-fA-F]{2})|u([0-9a-fA-F]{4})|(.))/g, (_m, hex: string | undefined, uni: string | undefined, ch: string | undefined) =>
    hex ? String.fromCharCode(parseInt(hex, 16)) : uni ? String.fromCharCode(parseInt(uni, 16)) : (ch ?? ''),
  );
}

const JS_REDIRECT = [
  /location\.(?:replace|assign)\(\s*(["'])((?:\\.|(?!\1).)*)\1\s*\)/,
  /location(?:\.href)?\s*=\s*(["'])((?:\\.|(?!\1).)*)\1/,
];

/** The URL a 200 "redirect page" sends the browser to, or null. */
export function findRefreshTarget(body: string, base: string): string | null {
  const head = body.slice(0, REFRESH_SCAN_CHARS);
  for (const meta of findAll(parseHtml(head), byTag('meta'), { nested: true })) {
    if ((meta.attr('http-equiv') ?? '').toLowerCase() !== 'refresh') continue;
    // content="0;URL='https://…'" — delay, separator, optional "url=", optionally quoted URL.
    const match = /^\s*[\d.]*\s*[;,]?\s*(?:url\s*=\s*)?(.*)$/i.exec(meta.attr('content') ?? '');
    const raw = (match?.[1] ?? '').trim().replace(/^(["'])(.*)\1$/, '$2').replace(/^["']/, '');
    const target = raw ? parseUrl(raw, base) : null;
    if (target) return target.href;
  }
  for (const pattern of JS_REDIRECT) {
    const match = pattern.exec(head);
    const target = match?.[2] ? parseUrl(unescapeJsString(match[2]), base) : null;
    if (target) return target.href;
  }
  return null;
}

/** Where one Baidu link leads, or null when that cannot be found out in time. */
export async function resolveBaiduLink(link: string, ctx: ResolveContext): Promise<string | null> {
  const limit = linkedAbort(ctx.signal, ctx.timeoutMs);
  try {
    const url = ctx.endpoint ? rebase(link, ctx.endpoint) : link;
    const response = await untilAborted(ctx.fetcher({ url, headers: { Accept: 'text/html' }, purpose: 'resolve' }, limit.signal), limit.signal);
    // Moved elsewhere: that is the page. Not moved (the answer came from the URL asked, e.g. a
    // 200 refresh page from Baidu or from a fixture server): the body says where to.
    const final = parseUrl(response.url);
    const moved = final !== null && final.href !== parseUrl(url)?.href;
    if (final && moved && isHttpUrl(final.href) && !isBaiduOwnPage(final)) return final.href;
    if (response.status >= 200 && response.status < 300) {
      const target = findRefreshTarget(response.body, response.url || link);
      const parsed = target ? parseUrl(target) : null;
      if (parsed && isHttpUrl(parsed.href) && !isBaiduOwnPage(parsed)) return parsed.href;
    }
    return null;
  } catch {
    return null;
  } finally {
    limit.dispose();
  }
}

/** `link` on the endpoint's origin: same path and query. */
function rebase(link: string, endpoint: string): string {
  const from = parseUrl(link);
  const origin = parseUrl(endpoint);
  return from && origin ? new URL(from.pathname + from.search, origin.origin).href : link;
}

/** Results with their Baidu links replaced where resolved; order and everything else unchanged. */
export function resolveBaiduLinks(results: readonly SearchResult[], ctx: ResolveContext): Promise<SearchResult[]> {
  return mapLimit(results, ctx.concurrency, async (result) => {
    const url = parseUrl(result.url);
    if (!url || !isBaiduLink(url)) return result;
    const real = await resolveBaiduLink(result.url, ctx);
    return real ? { ...result, url: real } : result;
  });
}
