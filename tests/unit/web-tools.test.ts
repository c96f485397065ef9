import { describe, expect, it } from 'vitest';
import { defaultSettings, type Settings } from '../../lib/settings';
import { detachedEnv } from '../../lib/tools/env';
import { ToolRegistry, type ToolContext } from '../../lib/tools/registry';
import { TaskBoard } from '../../lib/tools/task-board';
import { webTools } from '../../lib/tools/web';

/** A response as fetch() gives it after redirects: `url` is where it ended. */
function answer(body: BodyInit | null, init: ResponseInit & { url?: string } = {}): Response {
  const r = new Response(body, init);
  if (init.url) Object.defineProperty(r, 'url', { value: init.url });
  return r;
}

function harness(respond: (url: string, init: RequestInit) => Response | Promise<Response>, settings: Partial<Settings> = {}) {
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
