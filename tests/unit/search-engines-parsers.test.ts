/**
 * The result parsers on real captured pages (tests/fixtures/search, see its SOURCE.md) and on
 * small variations of them for what no capture shows (ads, no-result pages, entities).
 */
import { SEARCH_DIR } from '../harness/fixtures';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { baidu } from '../../lib/search-engines/baidu';
import { bing } from '../../lib/search-engines/bing';
import { decodeBingUrl } from '../../lib/search-engines/bing-html';
import { decodeDuckDuckGoUrl, duckduckgo } from '../../lib/search-engines/duckduckgo';
import { SearchError, type SearchErrorCode } from '../../lib/search-engines/errors';
import { google } from '../../lib/search-engines/google';
import type { ResponseInfo, SearchEngine, SearchResult } from '../../lib/search-engines/types';

const read = (file: string): string => fs.readFileSync(path.join(SEARCH_DIR, file), 'utf8');
const readLocal = read;

const DDG_HTML = read('duckduckgo/desimoose_celina/ddg_html.html');
const DDG_CHALLENGE = read('duckduckgo/desimoose_celina/ddg_lite.html');
const BING_HTML = read('bing/desimoose_celina/bing.html');
const BING_CHALLENGE = read('bing/sanguinary-bus_web-search-mcp/bing.html');
const BING_API = read('bing-api/microsoft_semantic-kernel/bing_what_is_the_semantic_kernel.json');
const BING_API_BOM = read('bing-api/microsoft_semantic-kernel/bing_site_filter_devblogs_microsoft.com.json');
const GOOGLE = read('google-cse/microsoft_semantic-kernel/google_what_is_the_semantic_kernel.json');
const GOOGLE_BOM = read('google-cse/microsoft_semantic-kernel/google_site_filter_devblogs_microsoft.com.json');
const BAIDU = read('baidu/webis-de_archive-query-log/baidu-lian-yun-gang-qi-yang-yue-zi-hui-suo-zhong-xin-jing-zhun-ke-hu-ying-xiao-key668-cn-1537259978.html');
const BAIDU_EMPTY = read('baidu/webis-de_archive-query-log/baidu-lian-xi-qu-dian-nao-pei-xun-1643390077.html');
const BAIDU_CAPTCHA = readLocal('baidu-captcha.html');
const LAYOUT_CHANGED = readLocal('layout-changed.html');

const html = (query: string, url = 'https://example.test/'): ResponseInfo => ({ status: 200, url, contentType: 'text/html; charset=UTF-8', query });
const json = (query: string, status = 200): ResponseInfo => ({ status, url: 'https://api.example.test/', contentType: 'application/json; charset=utf-8', query });

function parseError(engine: SearchEngine, body: string, info: ResponseInfo): SearchError {
  try {
    engine.parse(body, info);
  } catch (e) {
    if (e instanceof SearchError) return e;
    throw e;
  }
  throw new Error('expected a SearchError');
}

function expectError(engine: SearchEngine, body: string, info: ResponseInfo, code: SearchErrorCode, ...words: (string | RegExp)[]): SearchError {
  const error = parseError(engine, body, info);
  expect(error.code).toBe(code);
  expect(error.engine).toBe(engine.id);
  for (const w of words) expect(error.message).toMatch(w);
  return error;
}

function expectCleanText(results: SearchResult[]): void {
  for (const r of results) {
    for (const text of [r.title, r.snippet]) {
      expect(text).not.toMatch(/<\/?[a-z][^>]*>/i); // no tags
      expect(text).not.toMatch(/&(?:[a-z]+|#\d+|#x[0-9a-f]+);/i); // no entities
      expect(text).not.toMatch(/\s{2,}|^\s|\s$/); // single-spaced
    }
    expect(r.title.length).toBeGreaterThan(0);
  }
}

/** The real DDG page with extra result blocks inserted first, to test what no capture shows. */
const ddgWith = (blocks: string): string => DDG_HTML.replace('<div id="links" class="results">', `<div id="links" class="results">${blocks}`);
const ddgBlock = (href: string, title: string, snippet: string, extraClass = ''): string =>
  `<div class="result results_links results_links_deep web-result ${extraClass}"><div class="links_main links_deep result__body">` +
  `<h2 class="result__title"><a rel="nofollow" class="result__a" href="${href}">${title}</a></h2>` +
  `<a class="result__snippet" href="${href}">${snippet}</a></div></div>`;

describe('DuckDuckGo (html.duckduckgo.com/html/)', () => {
  it('reads the 9 results of the captured page with their real URLs decoded from uddg= links', () => {
    const results = duckduckgo.parse(DDG_HTML, html('does caffeine affect sleep'));
    expect(results).toHaveLength(9);
    expect(results[0]).toEqual({
      title: 'Caffeine and Sleep Problems',
      url: 'https://www.sleepfoundation.org/nutrition/caffeine-and-sleep',
      snippet: 'Drinking caffeine too close to bedtime can keep you awake. Learn why this happens and what other effects caffeine may be having on your sleep.',
    });
    expect(results[3]?.url).toBe('https://pmc.ncbi.nlm.nih.gov/articles/PMC6292246/');
    expect(results[8]).toEqual({
      title: 'How Caffeine Affects Sleep: When to Cut Off',
      url: 'https://sleep.me/post/caffeine-and-sleep',
      snippet: expect.stringMatching(/^How caffeine affects your sleep depends on dose, .* easiest change most people can make\.$/),
    });
    for (const r of results) {
      expect(r.url).toMatch(/^https:\/\//);
      expect(r.url).not.toMatch(/duckduckgo\.com|uddg=|rut=/);
    }
    expectCleanText(results);
  });

  it('decodes redirect links and leaves direct links as they are', () => {
    expect(decodeDuckDuckGoUrl('//duckduckgo.com/l/?uddg=https%3A%2F%2Fa.org%2Fx%3Fy%3D1%26z%3D%25C3%25A9&rut=abc')).toBe('https://a.org/x?y=1&z=%C3%A9');
    expect(decodeDuckDuckGoUrl('https://example.com/direct')).toBe('https://example.com/direct');
    expect(decodeDuckDuckGoUrl('//duckduckgo.com/l/?rut=only')).toBe('https://duckduckgo.com/l/?rut=only');
  });

  it('reports the "bots use DuckDuckGo too" page as blocked, with the page to open instead', () => {
    expectError(duckduckgo, DDG_CHALLENGE, html('does caffeine affect sleep'), 'blocked', 'DuckDuckGo', /bot check/, 'https://duckduckgo.com/?q=does+caffeine+affect+sleep');
    const failure = duckduckgo.explainFailure?.(DDG_CHALLENGE, { ...html('x'), status: 403 });
    expect(failure).toBeInstanceOf(SearchError);
    expect((failure as SearchError).code).toBe('blocked');
    expect(duckduckgo.explainFailure?.('<html><body>Service unavailable</body></html>', { ...html('x'), status: 503 })).toBeNull();
  });

  it('leaves out ad blocks (result--ad, y.js?ad_domain links)', () => {
    const page = ddgWith(
      ddgBlock('https://duckduckgo.com/y.js?ad_domain=shop.example&ad_provider=bingv7aa&u3=https%3A%2F%2Fwww.bing.com%2Faclk', 'Buy Coffee Now', 'Ad text', 'result--ad') +
        ddgBlock('https://duckduckgo.com/y.js?ad_domain=other.example&u3=x', 'Ad without the class', 'Ad text'),
    );
    const results = duckduckgo.parse(page, html('caffeine'));
    expect(results).toHaveLength(9);
    expect(results.map((r) => r.title)).not.toContain('Buy Coffee Now');
    expect(results[0]?.title).toBe('Caffeine and Sleep Problems');
  });

  it('decodes entities and strips markup in titles and snippets', () => {
    const page = ddgWith(
      ddgBlock('//duckduckgo.com/l/?uddg=https%3A%2F%2Fqa.example%2F&amp;rut=1', 'Q&amp;A: &quot;Caffeine&quot; &#x27;n&#39; <b>Sleep</b>&nbsp;&ndash; Caf&eacute;', 'It&#39;s <b>caffeine</b> &amp;&nbsp;sleep&hellip;'),
    );
    expect(duckduckgo.parse(page, html('caffeine'))[0]).toEqual({
      title: 'Q&A: "Caffeine" \'n\' Sleep – Café',
      url: 'https://qa.example/',
      snippet: "It's caffeine & sleep…",
    });
  });

  it('says "empty" for its no-results page', () => {
    const page = '<html><body><div id="links" class="results"><div class="result results_links results_links_deep result--no-result"><div class="no-results">No results.</div></div></div></body></html>';
    expectError(duckduckgo, page, html('qwxzv kjhq'), 'empty', 'DuckDuckGo found no results for "qwxzv kjhq"');
  });

  it('says "layout" for a page it does not know, and for a non-HTML answer', () => {
    expectError(duckduckgo, LAYOUT_CHANGED, html('caffeine'), 'layout', 'DuckDuckGo', /div\.result/, /changed its page/);
    expectError(duckduckgo, '{"results": []}', { ...html('caffeine'), contentType: 'application/json' }, 'layout', /not HTML/);
  });

  it('also reads the lite endpoint table layout, without its sponsored rows', () => {
    const lite = `<html><body><table>
      <tr class="result-sponsored"><td><a rel="nofollow" href="https://duckduckgo.com/y.js?ad_domain=x.example" class="result-link">Sponsored</a></td></tr>
      <tr class="result-sponsored"><td class="result-snippet">Ad</td></tr>
      <tr><td>1.&nbsp;</td><td><a rel="nofollow" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fa.example%2F&amp;rut=r" class='result-link'>First &amp; best</a></td></tr>
      <tr><td>&nbsp;&nbsp;&nbsp;</td><td class='result-snippet'>Snippet <b>one</b>.</td></tr>
      <tr><td>2.&nbsp;</td><td><a rel="nofollow" href="https://b.example/" class='result-link'>Second</a></td></tr>
      </table></body></html>`;
    expect(duckduckgo.parse(lite, html('x'))).toEqual([
      { title: 'First & best', url: 'https://a.example/', snippet: 'Snippet one.' },
      { title: 'Second', url: 'https://b.example/', snippet: '' },
    ]);
  });
});

describe('Bing, keyless (www.bing.com/search HTML)', () => {
  it('reads the 10 li.b_algo results of the captured page with real URLs decoded from ck/a?u=a1… links', () => {
    const results = bing.parse(BING_HTML, html('does caffeine affect sleep'));
    expect(results).toHaveLength(10);
    expect(results[0]).toEqual({
      title: 'Caffeine and Sleep Problems',
      url: 'https://www.sleepfoundation.org/nutrition/caffeine-and-sleep',
      snippet: 'Jul 16, 2025 · Drinking caffeine too close to bedtime can keep you awake. Learn why this happens and what other effects caffeine …',
    });
    expect(results[2]?.url).toBe('https://scienceinsights.org/how-caffeine-affects-sleep-from-brain-chemistry-to-bedtime/');
    expect(results[9]).toEqual({
      title: 'How Caffeine Affects Sleep: When to Cut Off',
      url: 'https://sleep.me/post/caffeine-and-sleep',
      snippet: 'Jul 24, 2025 · How caffeine affects your sleep depends on dose, frequency, and individual biology including genetics. Even if you can …',
    });
    for (const r of results) expect(r.url).not.toMatch(/bing\.com|\/ck\/a|[?&]u=a1/);
    expectCleanText(results);
  });

  it('decodes ck/a links: a1 + base64url, relative targets made absolute on bing.com', () => {
    const ck = (u: string) => `https://www.bing.com/ck/a?!&&p=2ebc&ptn=3&ver=2&hsh=4&u=${u}&ntb=1`;
    expect(decodeBingUrl(ck('a1aHR0cHM6Ly9wbWMubmNiaS5ubG0ubmloLmdvdi9hcnRpY2xlcy9QTUM2MjkyMjQ2Lw'))).toBe('https://pmc.ncbi.nlm.nih.gov/articles/PMC6292246/');
    expect(decodeBingUrl(ck('a1L2ltYWdlcy9zZWFyY2g_cT1jYWZmZWluZQ'))).toBe('https://www.bing.com/images/search?q=caffeine');
    // No decodable target: the tracker link itself, which the orchestrator drops as a Bing redirect.
    expect(decodeBingUrl(ck('zzz'))).toMatch(/^https:\/\/www\.bing\.com\/ck\/a\?/);
    expect(decodeBingUrl('https://direct.example/x')).toBe('https://direct.example/x');
  });

  it('reports the "One last step" challenge as blocked (also when served with a 4xx)', () => {
    expectError(bing, BING_CHALLENGE, html('javascript tutorial'), 'blocked', 'Bing', /One last step/, 'https://www.bing.com/search?q=javascript+tutorial');
    expect((bing.explainFailure?.(BING_CHALLENGE, { ...html('x'), status: 429 }) as SearchError).code).toBe('blocked');
  });

  it('leaves out li.b_ad blocks and aclk ad links', () => {
    const ad = '<li class="b_ad b_adTop"><ul><li><div class="sb_add"><h2><a href="https://www.bing.com/aclk?ld=e8x&u=aHR0cA">Coffee Deals</a></h2></div></li></ul></li>' +
      '<li class="b_algo"><h2><a href="https://www.bing.com/aclk?ld=abc">Sponsored as algo</a></h2></li>';
    const page = BING_HTML.replace('<li class="b_algo" data-id="" iid="SERP.5346">', `${ad}<li class="b_algo" data-id="" iid="SERP.5346">`);
    const results = bing.parse(page, html('caffeine'));
    expect(results).toHaveLength(10);
    expect(results.map((r) => r.title)).not.toContain('Coffee Deals');
    expect(results.map((r) => r.title)).not.toContain('Sponsored as algo');
  });

  it('says "empty" for its no-results page and "layout" for an unknown one', () => {
    const none = '<html><body><ol id="b_results"><li class="b_no"><h1>There are no results for <strong>qwxzv kjhq</strong></h1></li></ol></body></html>';
    expectError(bing, none, html('qwxzv kjhq'), 'empty', 'Bing found no results for "qwxzv kjhq"');
    expectError(bing, LAYOUT_CHANGED, html('caffeine'), 'layout', /li\.b_algo/);
  });
});

describe('Bing Web Search API v7 (JSON)', () => {
  it('reads webPages.value of the captured answer', () => {
    const results = bing.parse(BING_API, json('What is the Semantic Kernel?'));
    expect(results).toHaveLength(10);
    expect(results[0]).toEqual({
      title: 'Introduction to Semantic Kernel | Microsoft Learn',
      url: 'https://learn.microsoft.com/en-us/semantic-kernel/overview/',
      snippet:
        'Semantic Kernel is a lightweight, open-source development kit that lets you easily build AI agents and integrate the latest AI models into your C#, Python, or Java codebase. It serves as an efficient middleware that enables rapid delivery of enterprise-grade solutions.',
    });
    expect(results[9]).toEqual({
      title: 'Semantic Kernel: The New Way to Create Artificial Intelligence ... - Medium',
      url: 'https://medium.com/globant/semantic-kernel-the-new-way-to-create-artificial-intelligence-applications-7959d5fc90ca',
      snippet: 'Semantic Kernel enables developers to easily blend cutting-edge AI with native code, opening up a world of new possibilities for AI applications. This article could go on to discuss...',
    });
    expectCleanText(results);
  });

  it('reads an answer that starts with a UTF-8 BOM (even labelled text/plain)', () => {
    expect(BING_API_BOM.charCodeAt(0)).toBe(0xfeff);
    const results = bing.parse(BING_API_BOM, { ...json('What is the Semantic Kernel? site:devblogs.microsoft.com'), contentType: 'text/plain' });
    expect(results.map((r) => r.url)).toEqual([
      'https://devblogs.microsoft.com/semantic-kernel/hello-world/',
      'https://devblogs.microsoft.com/semantic-kernel/architecting-ai-apps-with-semantic-kernel/',
      'https://devblogs.microsoft.com/semantic-kernel/',
      'https://devblogs.microsoft.com/semantic-kernel/how-to-get-started-using-semantic-kernel-net/',
    ]);
  });

  it('turns the API error bodies into auth / rate_limited / http errors with the API message', () => {
    const apim = '{"error":{"code":"401","message":"Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource."}}';
    const e1 = expectError(bing, apim, json('x', 401), 'auth', 'Bing Web Search API', /invalid subscription key/, /Bing API key/, 'HTTP 401');
    expect(e1.status).toBe(401);
    const quota = '{"error":{"code":"403","message":"Out of call volume quota. Quota will be replenished in 2.12:34:56."}}';
    expectError(bing, quota, json('x', 403), 'rate_limited', /quota/);
    const v7 = '{"_type": "ErrorResponse", "errors": [{"code": "InvalidRequest", "subCode": "ParameterMissing", "message": "Required parameter is missing.", "parameter": "q"}]}';
    expectError(bing, v7, json('x', 400), 'http', /InvalidRequest ParameterMissing: Required parameter is missing\. \(parameter: q\)/);
    const rate = '{"_type": "ErrorResponse", "errors": [{"code": "RateLimitExceeded", "message": "Rate limit is exceeded."}]}';
    expectError(bing, rate, json('x', 429), 'rate_limited');
  });

  it('says "empty" for a SearchResponse without web pages', () => {
    expectError(bing, '\ufeff{"_type": "SearchResponse", "queryContext": {"originalQuery": "qwxzv"}, "rankingResponse": {}}', json('qwxzv'), 'empty', /no results for "qwxzv"/);
  });
});

describe('Google Custom Search JSON API', () => {
  it('reads items of the captured answers, with or without a BOM', () => {
    const results = google.parse(GOOGLE, json('What is the Semantic Kernel?'));
    expect(results).toHaveLength(4);
    expect(results[0]).toEqual({
      title: 'Introduction to Semantic Kernel | Microsoft Learn',
      url: 'https://learn.microsoft.com/en-us/semantic-kernel/overview/',
      snippet: 'Jun 24, 2024 ... In this article ... Semantic Kernel is a lightweight, open-source development kit that lets you easily build AI agents and integrate the latest AI ...',
    });
    expect(results[3]?.url).toBe('https://medium.com/globant/semantic-kernel-the-new-way-to-create-artificial-intelligence-applications-7959d5fc90ca');
    expectCleanText(results);

    expect(GOOGLE_BOM.charCodeAt(0)).toBe(0xfeff);
    const site = google.parse(GOOGLE_BOM, json('What is the Semantic Kernel? site:devblogs.microsoft.com'));
    expect(site.map((r) => r.title)).toEqual([
      'Hello, Semantic Kernel! | Semantic Kernel',
      'Semantic Kernel Planners: Action Planner | Semantic Kernel',
      'Semantic Kernel Office Hours Recordings | Semantic Kernel',
      'Introducing Semantic Kernel for Java | Semantic Kernel',
    ]);
    // The API's "LLM\u00a0..." reads as a plain space.
    expect(site[0]?.snippet).toMatch(/with the latest in LLM \.\.\.$/);
  });

  it('turns API errors into auth / rate_limited errors naming the settings to check', () => {
    const badKey = JSON.stringify({
      error: {
        code: 400,
        message: 'API key not valid. Please pass a valid API key.',
        errors: [{ message: 'API key not valid. Please pass a valid API key.', domain: 'global', reason: 'badRequest' }],
        status: 'INVALID_ARGUMENT',
        details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com' }],
      },
    });
    expectError(google, badKey, json('x', 400), 'auth', 'Google Custom Search', /API key not valid/, /Search engine ID \(cx\)/);
    const quota = JSON.stringify({ error: { code: 429, message: "Quota exceeded for quota metric 'Queries' and limit 'Queries per day' of service 'customsearch.googleapis.com'", status: 'RESOURCE_EXHAUSTED' } });
    expectError(google, quota, json('x', 429), 'rate_limited', /Quota exceeded/);
    const closed = JSON.stringify({ error: { code: 403, message: 'This project does not have the access to Custom Search JSON API.', status: 'PERMISSION_DENIED' } });
    expectError(google, closed, json('x', 403), 'auth', /does not have the access/);
  });

  it('says "empty" when the search has no items', () => {
    const none = '{"kind": "customsearch#search", "searchInformation": {"totalResults": "0"}, "queries": {}}';
    expectError(google, none, json('qwxzv'), 'empty', /Google Custom Search found no results for "qwxzv"/);
    expectError(google, '<html>Proxy error</html>', { ...json('x'), contentType: 'text/html' }, 'layout', /not JSON/);
  });
});

describe('Baidu (www.baidu.com/s HTML)', () => {
  const QUERY = '连云港骐扬月子会所中心精准客户营销key668.cn';

  it('reads the 10 c-container results of the 2018 capture, their links still Baidu redirects', () => {
    const results = baidu.parse(BAIDU, html(QUERY));
    expect(results).toHaveLength(10);
    expect(results[0]).toEqual({
      title: '月子中心推广-骐扬全网营销-专业从事月子会所精准客户宣传推广!',
      url: 'http://www.baidu.com/link?url=jeV0NQCH2RHB4swmfQTDjb9z1LnCMKMH5WcZS56XvEr50j3ox9yERNH6CPGFYruc',
      snippet: '骐扬网络科技有限公司,多年全网精准营销经验,近年专注于母婴行业与月子中心推广服务,致力打造国内产后护理中心、月子会所等母婴行业推广专业品牌! 骐扬网络目前已有成熟...',
    });
    // The date prefix of the abstract, with its &nbsp;-&nbsp; read as " - ".
    expect(results[1]?.snippet).toMatch(/^2016年11月16日 - 广州市骐扬网络科技有限公司,主营月子中心精准客户营销/);
    expect(results[9]).toEqual({
      title: '月子中心推广-骐扬全网营销-专业从事月子会所精准客户宣传推广!',
      url: 'http://www.baidu.com/link?url=OBefHJIFAaBQsTqO3h7feboQxAXxP5qtGVOgg0rLGr3',
      snippet: '月子中心行业如何走出网络营销误区?- 广州骐扬月子中心推广 月子中心传统推广与线上推广区别 月子会所推广,...',
    });
    // The right column (result-op boxes with "mu" data, hot lists) is not a result.
    expect(results.map((r) => r.url)).not.toContain('http://top.baidu.com/buzz?b=1');
    for (const r of results) expect(r.url).toMatch(/^http:\/\/www\.baidu\.com\/link\?url=/);
    expectCleanText(results);
  });

  it('takes the real URL from the mu attribute of later layouts (no redirect to resolve)', () => {
    const page = `<html><body><div id="content_left">
      <div class="result c-container xpath-log new-pmd" srcid="1599" id="1" tpl="se_com_default" mu="https://www.example.cn/page?a=1&amp;b=2">
        <div class="c-container"><h3 class="c-title t t tts-title"><a href="http://www.baidu.com/link?url=AbC">示例 &amp; <em>标题</em></a></h3>
        <div class="c-row"><span class="content-right_8Zs40">这是摘要&nbsp;内容</span></div></div></div>
      </div></body></html>`;
    expect(baidu.parse(page, html('标题'))).toEqual([{ title: '示例 & 标题', url: 'https://www.example.cn/page?a=1&b=2', snippet: '这是摘要 内容' }]);
  });

  it('leaves out ads: ids from 3001, EC_ classes, data-tuiguang, a "广告" label, baidu.php links; keeps 广告 as a query word', () => {
    const block = (attrs: string, title: string, extra = '', href = 'http://www.baidu.com/link?url=x') =>
      `<div ${attrs}><h3 class="t"><a href="${href}">${title}</a></h3><div class="c-abstract">摘要</div>${extra}</div>`;
    const page = `<html><body><div id="content_left">
      ${block('id="3001" class="result c-container"', 'Ad by id')}
      ${block('id="2" class="EC_result"', 'Ad by class')}
      ${block('id="3" class="result c-container" data-tuiguang="1"', 'Ad by attribute')}
      ${block('id="4" class="result c-container"', 'Ad by label', '<div class="f13"><span class="ec-tuiguang">广告</span></div>')}
      ${block('id="5" class="result c-container"', 'Ad by link', '', 'https://www.baidu.com/baidu.php?url=K00000abc')}
      ${block('id="6" class="result c-container"', '<em>广告</em>法规定', '', 'http://www.baidu.com/link?url=organic')}
      </div></body></html>`;
    const results = baidu.parse(page, html('广告'));
    expect(results.map((r) => r.title)).toEqual(['广告法规定']);
  });

  it('says "empty" for the "抱歉，没有找到…" page, naming the query', () => {
    expectError(baidu, BAIDU_EMPTY, html('濂溪区电脑培训'), 'empty', 'Baidu found no results for "濂溪区电脑培训"');
  });

  it('reports the 百度安全验证 page as blocked, by its content or by the wappass URL it was redirected to', () => {
    expectError(baidu, BAIDU_CAPTCHA, html('咖啡因', 'https://www.baidu.com/s?wd=%E5%92%96%E5%95%A1%E5%9B%A0'), 'blocked', 'Baidu', /安全验证/, 'https://www.baidu.com/s?wd=');
    const redirected = html('咖啡因', 'https://wappass.baidu.com/static/captcha/tuxing.html?&logid=1&ak=c27bbc89afca0463650ac9bde68ebe06&backurl=https%3A%2F%2Fwww.baidu.com%2Fs');
    expectError(baidu, '<html><body><div id="app"></div></body></html>', redirected, 'blocked');
  });

  it('says "layout" for a page it does not know', () => {
    expectError(baidu, LAYOUT_CHANGED, html('caffeine'), 'layout', 'Baidu', /c-container/);
  });
});

describe('every HTML engine on the changed-layout page', () => {
  it('never reads markup inside a script as results', () => {
    for (const engine of [duckduckgo, bing, baidu]) {
      expect(parseError(engine, LAYOUT_CHANGED, html('caffeine')).code).toBe('layout');
    }
  });
});
