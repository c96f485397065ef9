import { describe, expect, it, vi } from 'vitest';
import { RequestLog } from '../../lib/browser/request-log';
import { defaultSettings, type Settings } from '../../lib/settings';
import { detachedEnv, type ToolEnv } from '../../lib/tools/env';
import { ToolRegistry, type ToolContext } from '../../lib/tools/registry';
import { TaskBoard } from '../../lib/tools/task-board';
import { webTools } from '../../lib/tools/web';
import type { ResolvedAddresses } from '../../lib/web/answer-address';

/** A response as fetch() gives it after redirects: `url` is where it ended. */
function answer(body: BodyInit | null, init: ResponseInit & { url?: string } = {}): Response {
  const r = new Response(body, init);
  if (init.url) Object.defineProperty(r, 'url', { value: init.url });
  return r;
}

function harness(respond: (url: string, init: RequestInit) => Response | Promise<Response>, settings: Partial<Settings> = {}, extra: Partial<ToolEnv> = {}) {
  const requests: { url: string; init: RequestInit }[] = [];
  const fetchFn = (async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = String(input);
    requests.push({ url, init });
    return respond(url, init);
  }) as typeof fetch;
  const env = {
    ...detachedEnv({ ...defaultSettings(), apiKey: 'k', ...settings }),
    fetch: fetchFn,
    dom: { htmlToMarkdown: async ({ html }: { html: string }) => ({ title: 'T', content: `converted ${html.length}`, truncated: false }), blobUrl: async () => ({ url: 'blob:x' }) },
    summarize: async (text: string, prompt: string) => `summary of ${text.length} chars for ${prompt}`,
    ...extra,
  };
  const ctx: ToolContext = { conversationId: 'c', signal: new AbortController().signal, tasks: new TaskBoard(), env };
  const registry = new ToolRegistry(webTools);
  const call = async (name: string, input: unknown) => {
    const out = await registry.call(name, input, ctx);
    return { isError: out.isError, content: out.isError ? out.content : JSON.parse(out.content) };
  };
  return { call, requests };
}

describe('web_fetch', () => {
  it('asks without cookies, referrer or cache, and reports the final URL and the content type', async () => {
    const { call, requests } = harness(() => answer('{"a":[1,2]}', { headers: { 'content-type': 'application/json; charset=utf-8' }, url: 'https://example.com/final' }));
    const out = await call('web_fetch', { url: 'https://example.com/start' });
    expect(out).toEqual({
      isError: false,
      content: { url: 'https://example.com/start', content_type: 'application/json', content: '{\n  "a": [\n    1,\n    2\n  ]\n}', truncated: false, final_url: 'https://example.com/final' },
    });
    expect(requests[0]!.init).toMatchObject({ credentials: 'omit', referrerPolicy: 'no-referrer', cache: 'no-store', redirect: 'follow' });
  });

  it('sends HTML to the DOM host and puts the title first', async () => {
    const { call } = harness(() => answer('<p>hello</p>', { headers: { 'content-type': 'text/html' } }));
    const out = await call('web_fetch', { url: 'https://example.com/' });
    expect(out.content).toMatchObject({ content_type: 'text/html', content: '# T\n\nconverted 12' });
  });

  it('cuts long text at max_length, or at the default with a note saying how to get more', async () => {
    const long = 'line of text\n'.repeat(30_000);
    const { call } = harness(() => answer(long, { headers: { 'content-type': 'text/plain' } }));
    const capped = await call('web_fetch', { url: 'https://example.com/log', max_length: 1000 });
    expect(capped.content.truncated).toBe(true);
    expect(capped.content.content.length).toBeLessThanOrEqual(1000);
    const byDefault = await call('web_fetch', { url: 'https://example.com/log' });
    expect(byDefault.content.truncated).toBe(true);
    expect(byDefault.content.content).toMatch(/^\[Note: Cut at 200000 characters: pass a prompt/);
  });

  it('summarises with a prompt, the whole body going to the summariser', async () => {
    const { call } = harness(() => answer('x'.repeat(300_000), { headers: { 'content-type': 'text/plain' } }));
    const out = await call('web_fetch', { url: 'https://example.com/big', prompt: 'what is it?' });
    expect(out.content).toMatchObject({ content: 'summary of 300000 chars for what is it?', truncated: false });
  });

  it('a summary longer than max_length is cut and says so', async () => {
    const { call } = harness(() => answer('short page', { headers: { 'content-type': 'text/plain' } }));
    const out = await call('web_fetch', { url: 'https://example.com/s', prompt: 'x'.repeat(200), max_length: 100 });
    expect(out.content.truncated).toBe(true);
    expect(out.content.content.length).toBeLessThanOrEqual(100);
  });

  it('refuses a redirect that lands on a private address, and says so', async () => {
    const { call } = harness(() => answer('secret router page', { headers: { 'content-type': 'text/html' }, url: 'http://192.168.1.1/admin' }));
    const out = await call('web_fetch', { url: 'https://public.example/go' });
    expect(out).toEqual({ isError: true, content: expect.stringMatching(/^https:\/\/public\.example\/go redirected to http:\/\/192\.168\.1\.1\/admin, which is a private-network address/) });
    expect(out.content).not.toContain('secret router page');
  });

  it('tells a 403 and a 500 apart, with the start of what the server said', async () => {
    const { call } = harness((url) =>
      url.endsWith('/forbidden')
        ? answer('<html><title>Denied</title><h1>Access denied</h1><p>Bots are not welcome.</p></html>', { status: 403, statusText: 'Forbidden', headers: { 'content-type': 'text/html' } })
        : answer('upstream crashed', { status: 502, statusText: 'Bad Gateway', headers: { 'content-type': 'text/plain' } }),
    );
    expect((await call('web_fetch', { url: 'https://example.com/forbidden' })).content).toMatch(/^HTTP 403 Forbidden from https:\/\/example\.com\/forbidden\. The site refuses .*"Denied Access denied Bots are not welcome\."/);
    expect((await call('web_fetch', { url: 'https://example.com/broken' })).content).toMatch(/^HTTP 502 Bad Gateway .* try again later\. The response began: "upstream crashed"/);
  });

  it('turns a network failure into a message the model can act on', async () => {
    const { call } = harness(() => {
      throw new TypeError('Failed to fetch');
    });
    expect((await call('web_fetch', { url: 'https://no-such-host.example/' })).content).toMatch(/^Could not reach https:\/\/no-such-host\.example\/: the request failed \(Failed to fetch\)/);
  });

  it.each<[string, unknown, RegExp]>([
    ['no url', {}, /url/],
    ['a number for url', { url: 42 }, /url.*URL string/],
    ['an empty url', { url: '' }, /url.*empty/],
    ['a relative url', { url: '/page' }, /not an absolute URL/],
    ['ftp:', { url: 'ftp://example.com/file.txt' }, /ftp:/],
    ['file:', { url: 'file:///etc/passwd' }, /file:/],
    ['a malformed URL (no host)', { url: 'https://' }, /not an absolute URL|no host/],
    ['a malformed URL (broken IPv6)', { url: 'http://[::1/' }, /not an absolute URL/],
    ['a malformed URL (space in the host)', { url: 'https://exa mple.com/' }, /not an absolute URL/],
    ['javascript:', { url: 'javascript:alert(1)' }, /javascript:/],
    ['data:', { url: 'data:text/html,<script>1</script>' }, /data:/],
    ['credentials in the URL', { url: 'https://user:pw@example.com/' }, /user name or password/],
    ['loopback', { url: 'http://127.0.0.1:8080/' }, /loopback.*settings/],
    ['localhost', { url: 'http://localhost/' }, /localhost/],
    ['IPv6 loopback', { url: 'http://[::1]/' }, /loopback/],
    ['metadata service', { url: 'http://169.254.169.254/latest/meta-data/' }, /link-local/],
    ['max_length too small', { url: 'https://example.com', max_length: 5 }, /max_length.*at least 100/],
    ['max_length too large', { url: 'https://example.com', max_length: 5_000_000 }, /max_length.*at most 1000000/],
    ['an unknown argument', { url: 'https://example.com', selector: 'main' }, /selector/],
    ['an empty prompt', { url: 'https://example.com', prompt: '' }, /prompt.*empty/],
  ])('refuses %s with a clear error, before any request', async (_name, input, message) => {
    const { call, requests } = harness(() => answer('never'));
    const out = await call('web_fetch', input);
    expect(out.isError).toBe(true);
    expect(out.content).toMatch(message);
    expect(requests).toHaveLength(0);
  });

  it('lets private addresses through when the user allowed them', async () => {
    const { call } = harness(() => answer('local dev server', { headers: { 'content-type': 'text/plain' } }), { allowPrivateNetwork: true });
    expect((await call('web_fetch', { url: 'http://127.0.0.1:5173/' })).content).toMatchObject({ content: 'local dev server' });
  });
});

/**
 * The browser's network as web_fetch sees it: `dns` says what each name resolves to, the fake
 * fetch follows `redirects`, and webRequest's events (with each hop's address) reach the log a
 * little after fetch() resolved, as they do in the browsers. `resolvesFirst`: Firefox's dns API.
 */
function browserNetwork(dns: Record<string, string>, { resolvesFirst = false, redirects = {} as Record<string, string> } = {}) {
  const log = new RequestLog();
  const sent: string[] = [];
  let ids = 0;
  const addresses: ResolvedAddresses = {
    lookup: async (host) => (resolvesFirst && dns[host] ? [dns[host]] : null),
    watch: (url) => log.watch(url),
  };
  const respond = (start: string) => {
    const requestId = String(++ids);
    const hops = [start];
    while (redirects[hops.at(-1)!]) hops.push(redirects[hops.at(-1)!]!);
    sent.push(...hops);
    setTimeout(() => {
      hops.forEach((url, i) => {
        const ip = dns[new URL(url).hostname];
        log.record({ type: 'request', requestId, url });
        if (i < hops.length - 1) log.record({ type: 'redirect', requestId, url, redirectUrl: hops[i + 1]!, ...(ip ? { ip } : {}) });
        else log.record({ type: 'response', requestId, url, ...(ip ? { ip } : {}) });
      });
      log.record({ type: 'completed', requestId, url: hops.at(-1)! });
    }, 10);
    return answer(`the page at ${hops.at(-1)}: the router's admin password is hunter2`, { headers: { 'content-type': 'text/plain' }, url: hops.at(-1)! });
  };
  return { log, sent, addresses, respond };
}

describe('web_fetch checks the address each answer came from', () => {
  it('discards the answer of a public name that resolved to this computer (Chrome: the request was made)', async () => {
    const net = browserNetwork({ 'rebind.example': '127.0.0.1' });
    const { call } = harness(net.respond, {}, { addresses: net.addresses });
    const out = await call('web_fetch', { url: 'http://rebind.example/admin' });
    expect(out).toEqual({
      isError: true,
      content:
        'rebind.example resolved to a loopback address (127.0.0.1); Pagewright does not read the local network unless the user allows it in Settings (Let web_fetch reach this computer and the local network).',
    });
    expect(net.sent).toEqual(['http://rebind.example/admin']);
    expect(net.log.size).toBe(0);
  });

  it('refuses before sending where the browser resolves first (Firefox)', async () => {
    const net = browserNetwork({ 'nas.example': '192.168.1.5' }, { resolvesFirst: true });
    const { call } = harness(net.respond, {}, { addresses: net.addresses });
    const out = await call('web_fetch', { url: 'https://nas.example/' });
    expect(out).toMatchObject({ isError: true, content: expect.stringMatching(/^nas\.example resolved to a private-network address \(192\.168\.1\.5\); Pagewright does not read/) });
    expect(net.sent).toEqual([]);
  });

  it('still checks the answer when the name resolved to a public address first (the answer is what counts)', async () => {
    const net = browserNetwork({ 'rebind.example': '127.0.0.1' }, { resolvesFirst: true });
    // A DNS-rebinding server: public when asked first, this computer when connected to.
    net.addresses.lookup = async () => ['93.184.216.34'];
    const { call } = harness(net.respond, {}, { addresses: net.addresses });
    const out = await call('web_fetch', { url: 'http://rebind.example/' });
    expect(out).toMatchObject({ isError: true, content: expect.stringMatching(/^rebind\.example resolved to a loopback address \(127\.0\.0\.1\)/) });
    expect(out.content).not.toContain('hunter2');
  });

  it('catches a redirect from a public site into the local network, and names it', async () => {
    const net = browserNetwork({ 'public.example': '93.184.216.34', 'intranet.example': '10.1.2.3' }, { redirects: { 'https://public.example/go': 'http://intranet.example/wiki' } });
    const { call } = harness(net.respond, {}, { addresses: net.addresses });
    const out = await call('web_fetch', { url: 'https://public.example/go' });
    expect(out).toMatchObject({
      isError: true,
      content: expect.stringMatching(/^https:\/\/public\.example\/go redirected to http:\/\/intranet\.example\/wiki: intranet\.example resolved to a private-network address \(10\.1\.2\.3\)/),
    });
    expect(out.content).not.toContain('hunter2');
  });

  it('reads answers from public addresses, two fetches of one URL at once included', async () => {
    const net = browserNetwork({ 'example.com': '93.184.216.34' });
    const { call } = harness(net.respond, {}, { addresses: net.addresses });
    const [a, b] = await Promise.all([call('web_fetch', { url: 'https://example.com/x' }), call('web_fetch', { url: 'https://example.com/x' })]);
    for (const out of [a, b]) expect(out).toMatchObject({ isError: false, content: { content: expect.stringContaining('https://example.com/x') } });
    expect(net.sent).toHaveLength(2);
    expect(net.log.size).toBe(0);
  });

  it('discards an answer whose address the browser never reported, for a name; not for an IP literal', async () => {
    const log = new RequestLog(); // no event ever reaches it
    const { call } = harness(() => answer('unchecked body', { headers: { 'content-type': 'text/plain' } }), {}, { addresses: { lookup: async () => null, watch: (url) => log.watch(url) } });
    vi.useFakeTimers();
    try {
      const [name, literal] = [call('web_fetch', { url: 'https://example.com/' }), call('web_fetch', { url: 'http://93.184.216.34/' })];
      await vi.advanceTimersByTimeAsync(5000);
      expect(await name).toMatchObject({ isError: true, content: expect.stringMatching(/^The browser did not report which address example\.com answered from, so the answer was discarded/) });
      expect((await name).content).not.toContain('unchecked body');
      expect(await literal).toMatchObject({ isError: false, content: { content: 'unchecked body' } });
    } finally {
      vi.useRealTimers();
    }
  });

  it('neither resolves nor watches once the user allowed the local network', async () => {
    const net = browserNetwork({ 'rebind.example': '127.0.0.1' }, { resolvesFirst: true });
    const used: string[] = [];
    const addresses: ResolvedAddresses = {
      lookup: async (host) => (used.push(`lookup ${host}`), net.addresses.lookup(host)),
      watch: async (url) => (used.push(`watch ${url}`), net.addresses.watch(url)),
    };
    const { call } = harness(net.respond, { allowPrivateNetwork: true }, { addresses });
    const out = await call('web_fetch', { url: 'http://rebind.example/' });
    expect(out).toMatchObject({ isError: false, content: { content: expect.stringContaining('hunter2') } });
    expect(used).toEqual([]);
  });
});

describe('web_search', () => {
  const DDG = `<div class="result results_links web-result"><div class="links_main result__body"><h2 class="result__title"><a class="result__a" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fexample.com%2Fa&amp;rut=x">A &amp; B</a></h2><a class="result__snippet" href="#">Snippet <b>one</b></a></div></div>`;

  it('searches the engine of the settings, cookie-less, and returns exactly title, url, snippet', async () => {
    const { call, requests } = harness(() => answer(`<html><body>${DDG}</body></html>`, { headers: { 'content-type': 'text/html; charset=utf-8' }, url: 'https://html.duckduckgo.com/html/?q=x' }));
    const out = await call('web_search', { query: '  a and b ', max_results: 25 });
    expect(out).toEqual({ isError: false, content: [{ title: 'A & B', url: 'https://example.com/a', snippet: 'Snippet one' }] });
    expect(requests[0]!.url).toMatch(/^https:\/\/html\.duckduckgo\.com\/html\/\?q=a(\+|%20)and(\+|%20)b/);
    expect(requests[0]!.init.credentials).toBe('omit');
  });

  it.each<[string, unknown, RegExp]>([
    ['no query', {}, /query/],
    ['a blank query', { query: '   ' }, /query.*empty/],
    ['max_results 0', { query: 'x', max_results: 0 }, /max_results.*at least 1/],
    ['max_results -1', { query: 'x', max_results: -1 }, /max_results.*at least 1/],
    ['max_results "5"', { query: 'x', max_results: '5' }, /max_results.*must be a number/],
    ['a non-string query', { query: 42 }, /query.*string/],
    ['a 100 KB query', { query: 'word '.repeat(20_000) }, /query.*at most 2000/],
    ['max_results 2.5', { query: 'x', max_results: 2.5 }, /max_results.*whole number/],
    ['a 1 MB query', { query: 'x'.repeat(1_000_000) }, /query.*at most 2000/],
  ])('refuses %s with a clear error', async (_name, input, message) => {
    const { call, requests } = harness(() => answer('never'));
    const out = await call('web_search', input);
    expect(out).toEqual({ isError: true, content: expect.stringMatching(message) });
    expect(requests).toHaveLength(0);
  });

  it('caps max_results 1000 at ten results, not an error', async () => {
    const many = Array.from({ length: 14 }, (_, i) => DDG.replace('%2Fa&', `%2F${i}&`)).join('');
    const { call } = harness(() => answer(`<html><body>${many}</body></html>`, { headers: { 'content-type': 'text/html' } }));
    const out = await call('web_search', { query: 'x', max_results: 1000 });
    expect(out.isError).toBe(false);
    expect(out.content).toHaveLength(10);
    expect(out.content[9].url).toBe('https://example.com/9');
  });

  it('says which setting is missing for Google', async () => {
    const { call } = harness(() => answer('never'), { searchEngine: 'google' });
    expect((await call('web_search', { query: 'x' })).content).toMatch(/Google Custom Search cannot search without an API key and a Search engine ID/);
  });
});
