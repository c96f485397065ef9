import { beforeEach, describe, expect, it } from 'vitest';
import type { BrowserName } from '../harness/browsers';
import { lastToolResult, text, toolCall } from '../harness/fake-anthropic';
import { searchRequests } from '../harness/fixture-server';
import { setSettings } from '../harness/popup';
import { agentSession } from '../harness/session';
import { siteUrl } from '../harness/sites';
import { until } from '../harness/until';

const browsers: BrowserName[] = ['chromium', 'firefox'];

describe.each(browsers)('web_fetch and web_search in %s', (name) => {
  // The fixture server is on 127.0.0.1: the tests allow private addresses, except where they test the refusal.
  const session = agentSession(name, { allowPrivateNetwork: true });
  const { fake, fixtures, agentRuns } = session;
  const fetchOf = (path: string, extra: Record<string, unknown> = {}) => () => ({ name: 'web_fetch', input: { url: `${fixtures.url}${path}`, ...extra } });

  it('fetches an HTML page as the Markdown of its main content, through a redirect chain', async () => {
    const [page] = await agentRuns([fetchOf('/web/redirect?n=3')]);
    expect(page!.isError, JSON.stringify(page!.content).slice(0, 400)).toBe(false);
    expect(page!.content).toMatchObject({
      url: `${fixtures.url}/web/redirect?n=3`,
      final_url: `${fixtures.url}/web/article.html`,
      content_type: 'text/html',
      truncated: false,
    });
    const md: string = page!.content.content;
    expect(md).toMatch(/^# How lighthouses work/m);
    expect(md).toContain('## Keeping the light turning');
    expect(md).toContain('invented by Augustin-Jean Fresnel in 1822');
    expect(md).toContain('[Read more about the Fresnel lens](/web/fresnel.html)');
    // Navigation, the sidebar and the footer are not the main content; fetched copies carry no selectors.
    expect(md).not.toMatch(/Ten celebrity lighthouses|Cookie settings|Sign in/);
    expect(md).not.toMatch(/\{[#.\w[\]="' -]+\}/);
  });

  it('returns JSON pretty, feeds as items, text as is, and binary files as a description', async () => {
    const [json, feed, atom, plain, pdf] = await agentRuns([
      fetchOf('/web/echo-headers'),
      fetchOf('/web/feeds/podcast.rss'),
      fetchOf('/web/feeds/blog.atom'),
      fetchOf('/fixture-note.txt'),
      fetchOf('/web/binary/three-pages.pdf'),
    ]);
    expect(json!.content).toMatchObject({ content_type: 'application/json', truncated: false });
    expect(json!.content.content).toBe('{\n  "cookie": null,\n  "authorization": null\n}');
    expect(feed!.content.content_type).toBe('application/rss+xml');
    expect(feed!.content.content).toMatch(/^## /m);
    expect(feed!.content.content).not.toContain('<item>');
    expect(atom!.content.content).toMatch(/^## /m);
    expect(plain!.content).toMatchObject({ content_type: 'text/plain', content: 'A plain text file.\nSecond line, as is.\n' });
    expect(pdf!.content.content_type).toBe('application/pdf');
    expect(pdf!.content.content).toMatch(/PDF/);
    expect(pdf!.content.content).toMatch(/not shown/i);
    expect(pdf!.content.content.length).toBeLessThan(600);
  });

  it('decodes pages in windows-1254, EUC-KR, Shift_JIS and GBK', async () => {
    const results = await agentRuns([
      fetchOf('/web/charset/tr-windows-1254-header.html'),
      fetchOf('/web/charset/ko-euc-kr-meta.html'),
      fetchOf('/web/charset/ja-shift_jis-http-equiv.html'),
      fetchOf('/web/charset/zh-gbk-meta.html'),
    ]);
    const [tr, ko, ja, zh] = results.map((r) => String(r.content.content));
    expect(tr).toContain('Küçük harfler: ğüşıöç. Büyük harfler: İĞÜŞÖÇ.');
    expect(ko).toContain('서울의 날씨는 맑고 따뜻합니다.');
    expect(ja).toContain('今日の東京は晴れです。');
    expect(zh).toContain('北京今天天气晴朗，气温二十五度。');
  });

  it('sends none of the user\'s cookies', async () => {
    // The user's own visit sets a cookie for the site…
    await session.openTab('/web/set-cookie', 'Cookie set');
    const [echo] = await agentRuns([fetchOf('/web/echo-headers')]);
    // …which the agent's request does not carry.
    expect(JSON.parse(echo!.content.content)).toEqual({ cookie: null, authorization: null });
  });

  it('caps max_length, caps a huge body at 10 MB with a note, and reports HTTP errors', async () => {
    const [short, huge, missing] = await agentRuns([fetchOf('/web/article.html', { max_length: 200 }), fetchOf('/web/huge.txt'), fetchOf('/web/missing')]);
    expect(short!.content.truncated).toBe(true);
    expect(short!.content.content.length).toBeLessThanOrEqual(200);
    expect(huge!.isError).toBe(false);
    expect(huge!.content.truncated).toBe(true);
    expect(huge!.content.content).toMatch(/^\[Note: Only the first 10 MB of the body were read/);
    expect(missing).toMatchObject({ isError: true, content: expect.stringMatching(/^HTTP 404 Not Found from .*\/web\/missing\..*Nothing here/) });
  });

  it('gives clear errors for bad input and a server that does not answer, and the conversation goes on', async () => {
    const t0 = Date.now();
    const [ftp, junk, noScheme, slow] = await agentRuns([
      () => ({ name: 'web_fetch', input: { url: 'ftp://example.com/file' } }),
      () => ({ name: 'web_fetch', input: { url: 'https://example.com', max_length: 'lots' } }),
      () => ({ name: 'web_fetch', input: { url: 'example.com/page' } }),
      fetchOf('/web/slow'),
    ]);
    expect(ftp).toMatchObject({ isError: true, content: expect.stringMatching(/ftp:/) });
    expect(junk).toMatchObject({ isError: true, content: expect.stringMatching(/max_length/) });
    expect(noScheme).toMatchObject({ isError: true, content: expect.stringMatching(/not an absolute URL/) });
    expect(slow).toMatchObject({ isError: true, content: expect.stringMatching(/did not answer within 30 s/) });
    expect(Date.now() - t0).toBeLessThan(60_000);
  }, 120_000);

  it('refuses private addresses by default, and reads them once the user allows it', async () => {
    await setSettings(session.popup.page, { allowPrivateNetwork: false });
    const [refused, localhost] = await agentRuns([fetchOf('/web/article.html'), () => ({ name: 'web_fetch', input: { url: 'http://localhost:8080/' } })]);
    expect(refused).toMatchObject({ isError: true, content: expect.stringMatching(/127\.0\.0\.1 is a loopback address.*settings/) });
    expect(localhost).toMatchObject({ isError: true, content: expect.stringMatching(/localhost/) });

    await setSettings(session.popup.page, { allowPrivateNetwork: true });
    fake.reset();
    const [allowed] = await agentRuns([fetchOf('/web/article.html')]);
    expect(allowed!.isError).toBe(false);
    expect(allowed!.content.content).toContain('How lighthouses work');
  });

  it('reaches the test sites by name: a tab loads one, and web_fetch reads it', async () => {
    const shop = `${siteUrl(fixtures.url, 'shop')}/index.html`;
    // The requests this test made: the fixture server records the whole file's.
    const asked = fixtures.requests.length;
    const id = await session.popup.page.evaluate(async (url) => {
      const api = (globalThis as any).browser ?? (globalThis as any).chrome;
      return (await api.tabs.create({ url, active: false })).id as number;
    }, shop);
    await until(async () => (await session.tabs()).some((t) => t.id === id && t.url === shop && t.status === 'complete' && t.title === 'Pagewright fixture'), {
      timeout: 20_000,
      what: `the tab to load ${shop}`,
    });
    const [page] = await agentRuns([() => ({ name: 'web_fetch', input: { url: `${siteUrl(fixtures.url, 'news')}/fixture-note.txt` } })]);
    expect(page).toMatchObject({ isError: false, content: { content: 'A plain text file.\nSecond line, as is.\n' } });
    const port = new URL(fixtures.url).port;
    expect(fixtures.requests.slice(asked)).toEqual(
      expect.arrayContaining([
        { host: `shop.pagewright.test:${port}`, path: '/index.html' },
        { host: `news.pagewright.test:${port}`, path: '/fixture-note.txt' },
      ]),
    );
  });

  it('refuses a name that resolves to this computer, by the address it answered from; reads it once allowed', async () => {
    // rebind.pagewright.test resolves to 127.0.0.1, as a hostile DNS record would make it.
    const rebind = `${siteUrl(fixtures.url, 'rebind')}/web/article.html`;
    const viaRedirect = `${siteUrl(fixtures.url, 'news')}/web/redirect-to?to=${encodeURIComponent(rebind)}`;
    await setSettings(session.popup.page, { allowPrivateNetwork: false });
    const asked = fixtures.requests.length;
    const [direct, redirected] = await agentRuns([() => ({ name: 'web_fetch', input: { url: rebind } }), () => ({ name: 'web_fetch', input: { url: viaRedirect } })]);
    expect(direct).toMatchObject({
      isError: true,
      content: expect.stringMatching(/^rebind\.pagewright\.test resolved to a loopback address \(127\.0\.0\.1\); Pagewright does not read the local network unless the user allows it in Settings/),
    });
    expect(redirected).toMatchObject({ isError: true, content: expect.stringMatching(/pagewright\.test resolved to a loopback address \(127\.0\.0\.1\)/) });
    for (const refused of [direct, redirected]) expect(JSON.stringify(refused)).not.toMatch(/lighthouse|Fresnel/i);
    const sent = fixtures.requests.slice(asked).filter((r) => r.host.includes('.pagewright.test'));
    if (name === 'firefox') {
      // Firefox resolved the names first (dns.resolve) and sent nothing.
      expect(sent).toEqual([]);
    } else {
      // Chromium cannot resolve first: the requests were made (the redirect followed too), their
      // answers discarded unread.
      expect(sent.map((r) => r.host.split(':')[0])).toEqual(['rebind.pagewright.test', 'news.pagewright.test', 'rebind.pagewright.test']);
    }

    await setSettings(session.popup.page, { allowPrivateNetwork: true });
    fake.reset();
    const [allowed, allowedRedirect] = await agentRuns([() => ({ name: 'web_fetch', input: { url: rebind } }), () => ({ name: 'web_fetch', input: { url: viaRedirect } })]);
    expect(allowed).toMatchObject({ isError: false, content: { final_url: rebind } });
    expect(allowed!.content.content).toContain('How lighthouses work');
    expect(allowedRedirect).toMatchObject({ isError: false, content: { final_url: rebind } });
  });

  it('summarises with a prompt', async () => {
    fake.script(
      toolCall('web_fetch', { url: `${fixtures.url}/web/article.html`, prompt: 'Who invented the lens?' }),
      text('Augustin-Jean Fresnel, in 1822.'),
      text('Fresnel did.'),
    );
    await session.popup.send('Who invented it?');
    await session.popup.waitForAssistantText('Fresnel did.', 30_000);
    // The summary request carried the page and the prompt; the tool result is the summary.
    expect(JSON.stringify(fake.requests[1]!.body)).toContain('invented by Augustin-Jean Fresnel in 1822');
    expect(JSON.stringify(fake.requests[1]!.body)).toContain('Who invented the lens?');
    expect(lastToolResult(fake.requests[2]!.body).content).toMatchObject({ content: 'Augustin-Jean Fresnel, in 1822.', truncated: false });
  });

  describe('web_search', () => {
    const endpoints = () => ({
      duckduckgoEndpoint: `${fixtures.url}/engines/duckduckgo/html/`,
      bingEndpoint: `${fixtures.url}/engines/bing/search`,
      baiduEndpoint: `${fixtures.url}/engines/baidu/s`,
      googleEndpoint: `${fixtures.url}/engines/google/customsearch/v1`,
    });
    const searchFor = (query: string, extra: Record<string, unknown> = {}) => () => ({ name: 'web_search', input: { query, ...extra } });
    // The last request each engine's fixture saw is this test's, never an earlier one's.
    beforeEach(() => searchRequests.clear());

    it('searches DuckDuckGo by default: five real result URLs, then ten at most', async () => {
      await setSettings(session.popup.page, endpoints());
      const [five, capped] = await agentRuns([searchFor('does caffeine affect sleep'), searchFor('caffeine', { max_results: 50 })]);
      expect(five!.isError).toBe(false);
      expect(five!.content).toHaveLength(5);
      expect(five!.content[0]).toEqual({
        title: 'Caffeine and Sleep Problems',
        url: 'https://www.sleepfoundation.org/nutrition/caffeine-and-sleep',
        snippet: 'Drinking caffeine too close to bedtime can keep you awake. Learn why this happens and what other effects caffeine may be having on your sleep.',
      });
      expect(Object.keys(five!.content[0]).sort()).toEqual(['snippet', 'title', 'url']);
      expect(capped!.content.length).toBe(9); // the page has nine: capped at ten, not an error
      expect(searchRequests.get('/engines/duckduckgo/html/')!.url).toContain('q=caffeine');
      expect(searchRequests.get('/engines/duckduckgo/html/')!.headers.cookie).toBeUndefined();
    });

    it('searches Bing without a key, Baidu with its redirect links resolved, and Google with key and cx', async () => {
      await setSettings(session.popup.page, { ...endpoints(), searchEngine: 'bing' });
      const [bing] = await agentRuns([searchFor('does caffeine affect sleep', { max_results: 3 })]);
      expect(bing!.content).toHaveLength(3);
      expect(bing!.content[2].url).toBe('https://scienceinsights.org/how-caffeine-affects-sleep-from-brain-chemistry-to-bedtime/');

      await setSettings(session.popup.page, { searchEngine: 'baidu' });
      fake.reset();
      const [baidu] = await agentRuns([searchFor('月子会所', { max_results: 4 })]);
      expect(baidu!.content).toHaveLength(4);
      expect(baidu!.content[0].title).toBe('月子中心推广-骐扬全网营销-专业从事月子会所精准客户宣传推广!');
      for (const r of baidu!.content) expect(r.url).toMatch(/^https:\/\/resolved\.example\//);

      await setSettings(session.popup.page, { searchEngine: 'google', googleApiKey: 'test-google-key', googleCx: 'cx-123' });
      fake.reset();
      const [google] = await agentRuns([searchFor('What is the Semantic Kernel?')]);
      expect(google!.content[0].url).toBe('https://learn.microsoft.com/en-us/semantic-kernel/overview/');
      const asked = new URL(searchRequests.get('/engines/google/customsearch/v1')!.url, fixtures.url);
      expect(asked.searchParams.get('key')).toBe('test-google-key');
      expect(asked.searchParams.get('cx')).toBe('cx-123');
    });

    it('names the engine and what happened: a bot challenge, an empty page, a missing key, bad input', async () => {
      await setSettings(session.popup.page, { ...endpoints(), searchEngine: 'duckduckgo', duckduckgoEndpoint: `${fixtures.url}/engines/duckduckgo-challenge/html/` });
      const [challenge, empty, noWords] = await agentRuns([
        searchFor('caffeine'),
        () => ({ name: 'web_search', input: { query: 'x', max_results: 0 } }),
        () => ({ name: 'web_search', input: { query: '   ' } }),
      ]);
      expect(challenge).toMatchObject({ isError: true, content: expect.stringMatching(/DuckDuckGo .*bot/i) });
      expect(empty).toMatchObject({ isError: true, content: expect.stringMatching(/max_results.*at least 1/) });
      expect(noWords).toMatchObject({ isError: true, content: expect.stringMatching(/query/) });

      await setSettings(session.popup.page, { searchEngine: 'baidu', baiduEndpoint: `${fixtures.url}/engines/baidu-empty/s` });
      fake.reset();
      const [none] = await agentRuns([searchFor('濂溪区电脑培训')]);
      expect(none).toMatchObject({ isError: true, content: expect.stringMatching(/Baidu found no results/) });

      await setSettings(session.popup.page, { searchEngine: 'google', googleApiKey: '', googleCx: '' });
      fake.reset();
      const [noKey] = await agentRuns([searchFor('anything')]);
      expect(noKey).toMatchObject({ isError: true, content: expect.stringMatching(/Google Custom Search cannot search without an API key and a Search engine ID/) });
    });
  });
});
