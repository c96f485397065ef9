/**
 * search(): the contract's rules on top of the engines — max_results, config checks, HTTP status
 * mapping, time limits, ad / redirect / duplicate filtering, Baidu redirect resolution — with fake
 * fetchers serving the real captured pages. No network.
 */
import { SEARCH_DIR } from '../harness/fixtures';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { findRefreshTarget } from '../../lib/search-engines/baidu-resolve';
import { clampMaxResults, ENGINES, getEngine, search, SearchError, type Fetcher, type FetchResponse, type SearchErrorCode, type SearchRequest } from '../../lib/search-engines';

const read = (file: string): string => fs.readFileSync(path.join(SEARCH_DIR, file), 'utf8');

const DDG_HTML = read('duckduckgo/desimoose_celina/ddg_html.html');
const DDG_CHALLENGE = read('duckduckgo/desimoose_celina/ddg_lite.html');
const BING_HTML = read('bing/desimoose_celina/bing.html');
const BING_API = read('bing-api/microsoft_semantic-kernel/bing_what_is_the_semantic_kernel.json');
const GOOGLE = read('google-cse/microsoft_semantic-kernel/google_what_is_the_semantic_kernel.json');
const BAIDU = read('baidu/webis-de_archive-query-log/baidu-lian-yun-gang-qi-yang-yue-zi-hui-suo-zhong-xin-jing-zhun-ke-hu-ying-xiao-key668-cn-1537259978.html');

const HTML = 'text/html; charset=utf-8';
const JSON_TYPE = 'application/json; charset=utf-8';

type Route = (request: SearchRequest, signal: AbortSignal) => FetchResponse | Promise<FetchResponse>;

function fake(route: Route): { fetcher: Fetcher; calls: SearchRequest[] } {
  const calls: SearchRequest[] = [];
  const fetcher: Fetcher = async (request, signal) => {
    calls.push(request);
    return route(request, signal);
  };
  return { fetcher, calls };
}

const answer = (body: string, status = 200, contentType = HTML, url = 'https://engine.example/'): Route => (request) => ({ status, url: url || request.url, contentType, body });

async function searchError(promise: Promise<unknown>): Promise<SearchError> {
  try {
    await promise;
  } catch (e) {
    if (e instanceof SearchError) return e;
    throw e;
  }
  throw new Error('expected a SearchError');
}

async function expectError(promise: Promise<unknown>, code: SearchErrorCode, ...words: (string | RegExp)[]): Promise<SearchError> {
  const error = await searchError(promise);
  expect(error.code).toBe(code);
  for (const w of words) expect(error.message).toMatch(w);
  return error;
}

/** A DDG result page made of the given (href, title) pairs. */
function ddgPage(links: [string, string][]): string {
  const blocks = links
    .map(([href, title]) => `<div class="result results_links web-result"><h2 class="result__title"><a class="result__a" href="${href}">${title}</a></h2><a class="result__snippet" href="${href}">About ${title}</a></div>`)
    .join('');
  return `<html><body><div id="links" class="results">${blocks}</div></body></html>`;
}
const uddg = (url: string): string => `//duckduckgo.com/l/?uddg=${encodeURIComponent(url)}&amp;rut=0f`;

describe('registry', () => {
  it('has the four engines behind one interface, DuckDuckGo needing nothing and Google a key and cx', () => {
    expect(Object.keys(ENGINES)).toEqual(['duckduckgo', 'bing', 'baidu', 'google']);
    expect(getEngine('google')?.needs).toEqual(['apiKey', 'cx']);
    for (const id of ['duckduckgo', 'bing', 'baidu']) expect(getEngine(id)?.needs).toEqual([]);
    expect(getEngine('yahoo')).toBeUndefined();
    expect(getEngine('toString')).toBeUndefined();
  });
});

describe('max_results', () => {
  it('defaults to 5, clamps to 1..10, floors fractions', () => {
    expect([undefined, Number.NaN, Infinity, 0, -3, 1, 2.7, 10, 11, 1000].map(clampMaxResults)).toEqual([5, 5, 5, 1, 1, 1, 2, 10, 10, 10]);
  });

  it('returns 5 results by default and caps large requests at 10 (not an error)', async () => {
    const ddg = fake(answer(DDG_HTML));
    expect(await search('duckduckgo', 'does caffeine affect sleep', undefined, {}, ddg.fetcher)).toHaveLength(5);
    // The captured page has 9 results: asking 10 gives all 9.
    expect(await search('duckduckgo', 'does caffeine affect sleep', 10, {}, ddg.fetcher)).toHaveLength(9);
    expect(await search('duckduckgo', 'does caffeine affect sleep', 0, {}, ddg.fetcher)).toHaveLength(1);

    const api = fake(answer(BING_API, 200, JSON_TYPE));
    const ten = await search('bing', 'What is the Semantic Kernel?', 50, { apiKey: 'k' }, api.fetcher);
    expect(ten).toHaveLength(10);
    expect(new URL(api.calls[0]!.url).searchParams.get('count')).toBe('10');
  });
});

describe('requests', () => {
  it('DuckDuckGo: GET html.duckduckgo.com/html/?q=…', async () => {
    const ddg = fake(answer(DDG_HTML));
    const results = await search('duckduckgo', '  does   caffeine affect sleep ', 3, undefined, ddg.fetcher);
    expect(ddg.calls).toEqual([{ url: 'https://html.duckduckgo.com/html/?q=does+caffeine+affect+sleep', headers: { Accept: 'text/html,application/xhtml+xml' }, purpose: 'search' }]);
    expect(results.map((r) => r.url)).toEqual([
      'https://www.sleepfoundation.org/nutrition/caffeine-and-sleep',
      'https://knight-hennessy.stanford.edu/news/more-awake-less-rested-hidden-cost-caffeine-sleep-quality',
      'https://www.verywellhealth.com/why-does-coffee-make-me-sleepy-8584745',
    ]);
  });

  it('Bing: the API with a key (key in Ocp-Apim-Subscription-Key), the www.bing.com page without', async () => {
    const api = fake(answer(BING_API, 200, JSON_TYPE));
    await search('bing', 'semantic kernel', 5, { apiKey: ' secret ' }, api.fetcher);
    const apiUrl = new URL(api.calls[0]!.url);
    expect(apiUrl.origin + apiUrl.pathname).toBe('https://api.bing.microsoft.com/v7.0/search');
    expect(Object.fromEntries(apiUrl.searchParams)).toMatchObject({ q: 'semantic kernel', count: '7', textDecorations: 'false', textFormat: 'Raw' });
    expect(api.calls[0]!.headers['Ocp-Apim-Subscription-Key']).toBe('secret');

    const page = fake(answer(BING_HTML));
    const results = await search('bing', 'does caffeine affect sleep', 5, { apiKey: '' }, page.fetcher);
    expect(page.calls[0]!.url).toBe('https://www.bing.com/search?q=does+caffeine+affect+sleep&count=10');
    expect(page.calls[0]!.headers['Ocp-Apim-Subscription-Key']).toBeUndefined();
    expect(results[0]?.url).toBe('https://www.sleepfoundation.org/nutrition/caffeine-and-sleep');
  });

  it('Google: key, cx, q and num ≤ 10', async () => {
    const g = fake(answer(GOOGLE, 200, JSON_TYPE));
    await search('google', 'semantic kernel', 5, { apiKey: 'AIza', cx: '0123:abc' }, g.fetcher);
    await search('google', 'semantic kernel', 10, { apiKey: 'AIza', cx: '0123:abc' }, g.fetcher);
    const [five, ten] = g.calls.map((c) => new URL(c.url));
    expect(five!.origin + five!.pathname).toBe('https://www.googleapis.com/customsearch/v1');
    expect(Object.fromEntries(five!.searchParams)).toEqual({ key: 'AIza', cx: '0123:abc', q: 'semantic kernel', num: '7' });
    expect(ten!.searchParams.get('num')).toBe('10');
  });

  it('Baidu: www.baidu.com/s?wd=…&ie=utf-8', async () => {
    const b = fake((request) => (request.purpose === 'search' ? answer(BAIDU)(request, new AbortController().signal) : { status: 200, url: 'https://site.example/', contentType: HTML, body: '' }));
    await search('baidu', '咖啡因 睡眠', 1, {}, b.fetcher);
    expect(b.calls[0]!.url).toBe('https://www.baidu.com/s?wd=%E5%92%96%E5%95%A1%E5%9B%A0+%E7%9D%A1%E7%9C%A0&ie=utf-8');
  });

  it('every engine takes its base URL from config.endpoint (a 127.0.0.1 fixture server in e2e tests)', async () => {
    const cases: [string, Record<string, string>, string, string][] = [
      ['duckduckgo', {}, DDG_HTML, HTML],
      ['bing', {}, BING_HTML, HTML],
      ['bing', { apiKey: 'k' }, BING_API, JSON_TYPE],
      ['google', { apiKey: 'k', cx: 'c' }, GOOGLE, JSON_TYPE],
    ];
    for (const [id, config, body, type] of cases) {
      const f = fake(answer(body, 200, type));
      const results = await search(id, 'q', 2, { ...config, endpoint: 'http://127.0.0.1:4567/fixtures/search' }, f.fetcher);
      expect(f.calls[0]!.url.startsWith('http://127.0.0.1:4567/fixtures/search?')).toBe(true);
      expect(results).toHaveLength(2);
    }
  });
});

describe('config and query checks (before any request)', () => {
  const never = fake(() => {
    throw new Error('must not be called');
  });

  it('names the engine and the settings to fill when Google has no key or no cx', async () => {
    await expectError(search('google', 'x', 5, {}, never.fetcher), 'config', 'Google Custom Search', 'API key', 'Search engine ID (cx)', /settings/);
    const e = await expectError(search('google', 'x', 5, { apiKey: 'k', cx: '  ' }, never.fetcher), 'config', 'Search engine ID (cx)');
    expect(e.message).not.toMatch('API key and');
    expect(e.engine).toBe('google');
  });

  it('rejects an unknown engine, an endpoint that is not http(s), and an empty query', async () => {
    await expectError(search('altavista', 'x', 5, {}, never.fetcher), 'config', /Unknown search engine "altavista"/, /DuckDuckGo \("duckduckgo"\)/);
    await expectError(search('bing', 'x', 5, { endpoint: 'file:///etc/passwd' }, never.fetcher), 'config', /endpoint/);
    await expectError(search('duckduckgo', ' \n ', 5, {}, never.fetcher), 'query', /empty/);
    expect(never.calls).toHaveLength(0);
  });
});

describe('HTTP status and transport failures', () => {
  it('maps statuses to codes, with the status and a short body excerpt in the message', async () => {
    const serverError = '<html><head><style>h1{}</style></head><body><h1>Internal Server Error</h1></body></html>';
    const e500 = await expectError(search('duckduckgo', 'x', 5, {}, fake(answer(serverError, 500)).fetcher), 'http', 'DuckDuckGo', 'HTTP 500', '"Internal Server Error"');
    expect(e500.status).toBe(500);
    await expectError(search('baidu', 'x', 5, {}, fake(answer('Bad gateway', 502, 'text/plain')).fetcher), 'http', 'Baidu', 'HTTP 502');
    await expectError(search('duckduckgo', 'x', 5, {}, fake(answer('Too Many Requests', 429, 'text/plain')).fetcher), 'rate_limited', 'HTTP 429', /Wait/);
    const e403 = await expectError(search('bing', 'x', 5, {}, fake(answer('<html><body>Forbidden</body></html>', 403)).fetcher), 'blocked', 'Bing', 'HTTP 403');
    expect(e403.status).toBe(403);
    await expectError(search('duckduckgo', 'x', 5, {}, fake(answer('<html><body>Not here</body></html>', 404)).fetcher), 'http', 'HTTP 404');
  });

  it('reads challenge pages whatever their status (DDG serves its own with 202 or 403)', async () => {
    for (const status of [200, 202, 403]) {
      await expectError(search('duckduckgo', 'does caffeine affect sleep', 5, {}, fake(answer(DDG_CHALLENGE, status)).fetcher), 'blocked', /bots use DuckDuckGo too/);
    }
  });

  it('with an API key, 401/403 mean a bad key: the API message when it sent one, the status otherwise', async () => {
    const denied = '{"error":{"code":"401","message":"Access denied due to invalid subscription key or wrong API endpoint."}}';
    await expectError(search('bing', 'x', 5, { apiKey: 'bad' }, fake(answer(denied, 401, JSON_TYPE)).fetcher), 'auth', /invalid subscription key/, /Bing API key/);
    await expectError(search('bing', 'x', 5, { apiKey: 'bad' }, fake(answer('', 403, 'text/plain')).fetcher), 'auth', 'HTTP 403', /API key/);
    const quota = '{"error":{"code":429,"message":"Quota exceeded for quota metric \'Queries\'","status":"RESOURCE_EXHAUSTED"}}';
    await expectError(search('google', 'x', 5, { apiKey: 'k', cx: 'c' }, fake(answer(quota, 429, JSON_TYPE)).fetcher), 'rate_limited', /Quota exceeded/);
  });

  it('network failure → "network" naming the host; no answer in time → "timeout"; user stop → "aborted"', async () => {
    const offline = fake(() => {
      throw new TypeError('Failed to fetch');
    });
    await expectError(search('duckduckgo', 'x', 5, {}, offline.fetcher), 'network', 'html.duckduckgo.com', 'Failed to fetch');

    // A fetcher that ignores its signal still cannot hold the search past the time limit.
    const hang = fake(() => new Promise<FetchResponse>(() => {}));
    const started = Date.now();
    await expectError(search('bing', 'x', 5, {}, hang.fetcher, undefined, { timeoutMs: 50 }), 'timeout', 'Bing did not answer');
    expect(Date.now() - started).toBeLessThan(2000);

    const stop = new AbortController();
    const pending = search('baidu', 'x', 5, {}, hang.fetcher, stop.signal);
    stop.abort();
    await expectError(pending, 'aborted');
    await expectError(search('baidu', 'x', 5, {}, hang.fetcher, stop.signal), 'aborted');
  });

  it('passes an abort signal the fetcher can use, aborted on timeout', async () => {
    let seen: AbortSignal | undefined;
    const f = fake((_request, signal) => {
      seen = signal;
      return new Promise<FetchResponse>((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('aborted by signal'))));
    });
    await expectError(search('duckduckgo', 'x', 5, {}, f.fetcher, undefined, { timeoutMs: 30 }), 'timeout');
    expect(seen?.aborted).toBe(true);
  });
});

describe('result filtering', () => {
  it('drops ads, leftover redirect links and non-web URLs; strips tracking parameters; dedupes by normalised URL', async () => {
    const page = ddgPage([
      ['https://duckduckgo.com/y.js?ad_domain=ads.example&amp;u3=x', 'Ad'],
      [uddg('https://www.example.com/guide/?utm_source=ddg&utm_medium=x&id=7'), 'Guide'],
      ['//duckduckgo.com/l/?rut=abc', 'Redirect without target'],
      [uddg('javascript:alert(1)'), 'Script'],
      [uddg('ftp://files.example.com/a'), 'FTP'],
      [uddg('http://example.com/guide?id=7#part'), 'Guide again'],
      [uddg('https://other.example/a'), 'Other &amp; more'],
      [uddg('https://other.example/a/'), 'Other again'],
      [uddg('https://third.example/'), 'Third'],
    ]);
    const results = await search('duckduckgo', 'guide', 10, {}, fake(answer(page)).fetcher);
    expect(results).toEqual([
      { title: 'Guide', url: 'https://www.example.com/guide/?id=7', snippet: 'About Guide' },
      { title: 'Other & more', url: 'https://other.example/a', snippet: 'About Other & more' },
      { title: 'Third', url: 'https://third.example/', snippet: 'About Third' },
    ]);
  });

  it('fills max_results from later results when earlier ones are duplicates', async () => {
    const page = ddgPage([
      [uddg('https://a.example/'), 'A'],
      [uddg('https://www.a.example'), 'A dup'],
      [uddg('https://b.example/'), 'B'],
      [uddg('https://c.example/'), 'C'],
    ]);
    expect((await search('duckduckgo', 'x', 3, {}, fake(answer(page)).fetcher)).map((r) => r.title)).toEqual(['A', 'B', 'C']);
  });

  it('says "empty" when every result was an ad or unusable', async () => {
    const page = ddgPage([[uddg('javascript:void(0)'), 'Script'], ['//duckduckgo.com/l/?rut=abc', 'Redirect']]);
    await expectError(search('duckduckgo', 'x', 5, {}, fake(answer(page)).fetcher), 'empty', /no usable results/);
    const adsOnly = ddgPage([['https://duckduckgo.com/y.js?ad_domain=a.example', 'Ad']]);
    await expectError(search('duckduckgo', 'x', 5, {}, fake(answer(adsOnly)).fetcher), 'empty', /only ads/);
  });
});

describe('Baidu redirect resolution', () => {
  const token = (url: string): string => new URL(url).searchParams.get('url') ?? '';
  /** How each captured result's link answers, by its url= token prefix. */
  const behaviours: Record<string, 'followed' | 'meta' | 'dup' | 'js' | 'fail' | 'hang'> = {
    jeV0NQ: 'followed',
    R6jTaQ: 'meta',
    Ixqhea: 'dup',
    _fUrmt: 'js',
    EF5PQB: 'fail',
    fa8DZc: 'hang',
  };

  function baiduFetcher(): { fetcher: Fetcher; calls: SearchRequest[]; peak: () => number } {
    let running = 0;
    let peak = 0;
    const f = fake(async (request) => {
      if (request.purpose === 'search') return { status: 200, url: request.url, contentType: HTML, body: BAIDU };
      running++;
      peak = Math.max(peak, running);
      try {
        await new Promise((r) => setTimeout(r, 20));
        const kind = behaviours[token(request.url).slice(0, 6)];
        switch (kind) {
          case 'followed':
          case 'dup':
            return { status: 200, url: 'https://www.yuezi668.com/', contentType: HTML, body: '<html>site</html>' };
          case 'meta':
            return { status: 200, url: request.url, contentType: HTML, body: `<html><head><META http-equiv="refresh" content="0;URL='http://b2b.huangye88.com/qiye3001/'"></head></html>` };
          case 'js':
            return { status: 200, url: request.url, contentType: HTML, body: '<script>window.location.replace("http:\\/\\/www.key668.cn\\/news\\/1.html")</script><noscript>…</noscript>' };
          case 'fail':
            throw new TypeError('Failed to fetch');
          case 'hang':
            return await new Promise<FetchResponse>(() => {});
          default:
            return { status: 200, url: `https://site-${token(request.url).slice(0, 4).toLowerCase()}.example/`, contentType: HTML, body: '' };
        }
      } finally {
        running--;
      }
    });
    return { ...f, peak: () => peak };
  }

  it('resolves links in parallel (at most 4 at once): 302s, meta refresh and location.replace pages; keeps links that fail or time out', async () => {
    const f = baiduFetcher();
    const results = await search('baidu', '连云港骐扬月子会所', 5, {}, f.fetcher, undefined, { resolveTimeoutMs: 150 });
    expect(results.map((r) => r.url)).toEqual([
      'https://www.yuezi668.com/',
      'http://b2b.huangye88.com/qiye3001/',
      // result 3 resolved to result 1's URL: dropped, and result 6 resolved in a second round
      'http://www.key668.cn/news/1.html',
      'http://www.baidu.com/link?url=EF5PQBZKnycu1CdtRpqNboM1wV0EFuqwEhWYGPkz9Q1dsEJ291bSUq6kUv8VTFqnk0xrEVAvt_g4X15X4dAiwa',
      'http://www.baidu.com/link?url=fa8DZcxMu_IxQeT8sN922rM94DBE-_HzivV_JEBKrRbKLhpZhqVG81MtfsVljOEgSYE3kq_qv88x-8LFXLnX6_',
    ]);
    expect(results[1]?.title).toBe('【月子中心精准客户营销_全网精准营销】-广州市骐扬网络科技有限...');
    const resolves = f.calls.filter((c) => c.purpose === 'resolve');
    expect(resolves).toHaveLength(6); // only as many links as needed, not all 10
    expect(f.peak()).toBe(4);
  });

  it('bounds the whole resolution: a fetcher that never answers cannot hold the search', async () => {
    const f = fake((request) =>
      request.purpose === 'search' ? { status: 200, url: request.url, contentType: HTML, body: BAIDU } : new Promise<FetchResponse>(() => {}),
    );
    const started = Date.now();
    const results = await search('baidu', 'x', 10, {}, f.fetcher, undefined, { resolveTimeoutMs: 10_000, resolveBudgetMs: 100 });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(results).toHaveLength(10);
    for (const r of results) expect(r.url).toMatch(/^http:\/\/www\.baidu\.com\/link\?url=/);
  });

  it('asks an endpoint override (a 127.0.0.1 fixture server) for the links too, never the real Baidu', async () => {
    const f = fake((request) =>
      request.purpose === 'search'
        ? { status: 200, url: request.url, contentType: HTML, body: BAIDU }
        : { status: 200, url: `https://resolved.example/${new URL(request.url).searchParams.get('url')?.slice(0, 4)}`, contentType: HTML, body: '' },
    );
    const results = await search('baidu', 'x', 2, { endpoint: 'http://127.0.0.1:4567/baidu/s' }, f.fetcher);
    expect(f.calls.map((c) => c.url)).toEqual([
      'http://127.0.0.1:4567/baidu/s?wd=x&ie=utf-8',
      'http://127.0.0.1:4567/link?url=jeV0NQCH2RHB4swmfQTDjb9z1LnCMKMH5WcZS56XvEr50j3ox9yERNH6CPGFYruc',
      'http://127.0.0.1:4567/link?url=R6jTaQGNjSD6aj8asvDo-7EPC3NQ6Dk_SLRSLF16H7dbegGTOp6O41c3XgZfX179',
    ]);
    expect(results.map((r) => r.url)).toEqual(['https://resolved.example/jeV0', 'https://resolved.example/R6jT']);

    // A fixture server answers with 200 refresh pages (a 302 would take the fetcher off 127.0.0.1):
    // the page at the asked URL is not the target, its refresh is.
    const refresh = fake((request) =>
      request.purpose === 'search'
        ? { status: 200, url: request.url, contentType: HTML, body: BAIDU }
        : { status: 200, url: request.url, contentType: HTML, body: `<meta http-equiv="refresh" content="0;URL='https://target.example/${new URL(request.url).searchParams.get('url')?.slice(0, 4)}'">` },
    );
    const viaRefresh = await search('baidu', 'x', 1, { endpoint: 'http://127.0.0.1:4567/baidu/s' }, refresh.fetcher);
    expect(viaRefresh.map((r) => r.url)).toEqual(['https://target.example/jeV0']);
  });

  it('does not take Baidu error or verification pages for the target', async () => {
    const f = fake((request) =>
      request.purpose === 'search'
        ? { status: 200, url: request.url, contentType: HTML, body: BAIDU }
        : { status: 200, url: 'https://wappass.baidu.com/static/captcha/tuxing.html?ak=1', contentType: HTML, body: '<title>百度安全验证</title>' },
    );
    const results = await search('baidu', 'x', 2, {}, f.fetcher);
    expect(results.map((r) => r.url)).toEqual([
      'http://www.baidu.com/link?url=jeV0NQCH2RHB4swmfQTDjb9z1LnCMKMH5WcZS56XvEr50j3ox9yERNH6CPGFYruc',
      'http://www.baidu.com/link?url=R6jTaQGNjSD6aj8asvDo-7EPC3NQ6Dk_SLRSLF16H7dbegGTOp6O41c3XgZfX179',
    ]);
  });

  it('findRefreshTarget reads meta refresh and script redirects in their common spellings', () => {
    const base = 'http://www.baidu.com/link?url=x';
    expect(findRefreshTarget(`<meta http-equiv="refresh" content="0;URL='https://a.example/x?y=1&amp;z=2'">`, base)).toBe('https://a.example/x?y=1&z=2');
    expect(findRefreshTarget('<meta content="0; url=https://b.example/" http-equiv="Refresh">', base)).toBe('https://b.example/');
    expect(findRefreshTarget("<meta http-equiv='refresh' content='3;URL=\"/relative/path\"'>", base)).toBe('http://www.baidu.com/relative/path');
    expect(findRefreshTarget('<script>window.location.replace("https:\\/\\/c.example\\/\\u4e2d")</script>', base)).toBe('https://c.example/%E4%B8%AD');
    expect(findRefreshTarget("<script>location.href = 'https://d.example/';</script>", base)).toBe('https://d.example/');
    expect(findRefreshTarget('<html><body>nothing here</body></html>', base)).toBeNull();
  });
});
