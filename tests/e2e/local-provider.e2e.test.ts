/**
 * A local model server that refuses foreign Origins (a default Ollama: no OLLAMA_ORIGINS) works
 * from the extension as it is: the extension's requests to the configured local base URL carry
 * the server's own Origin (lib/browser/local-origin.ts). The fix is scoped: a web page's request
 * to the same server keeps its Origin and is refused, and a server the settings no longer name
 * sees the extension's Origin again.
 */
import type { Page } from 'puppeteer-core';
import { describe, expect, it } from 'vitest';
import type { BrowserName } from '../harness/browsers';
import { FakeAnthropic, text } from '../harness/fake-anthropic';
import { setSettings, TEST_PERMISSIONS } from '../harness/popup';
import { agentSession } from '../harness/session';
import { siteUrl } from '../harness/sites';
import { until } from '../harness/until';

const browsers: BrowserName[] = ['chromium', 'firefox'];

/** A POST to the server from `page` (as a web page or an extension page would), its status or 0 when fetch threw. */
const postFrom = (page: Page, url: string) =>
  page.evaluate(
    (u) =>
      fetch(`${u}/v1/messages`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' }).then(
        (r) => r.status,
        () => 0,
      ),
    url,
  );

describe.each(browsers)('a local model server in %s', (name) => {
  // The Ollama preset at the fake's address, with no key: what a user with a default Ollama sets.
  const session = agentSession(
    name,
    { provider: 'ollama', apiKey: '', authHeader: 'none', model: 'fake-model', providerConfigs: {} },
    TEST_PERMISSIONS,
    new FakeAnthropic({ rejectForeignOrigins: true }),
  );
  const { fake, fixtures } = session;

  it('chats with the Ollama preset and no OLLAMA_ORIGINS: the server sees its own Origin, and no key', async () => {
    fake.script({ ...text('Hello from the model on this computer.'), chunk: 5, delayMs: 5 });
    await session.popup.send('Hello, local model');
    await session.popup.waitForAssistantText('Hello from the model on this computer.');
    await session.popup.idle();

    const messages = fake.requests.filter((r) => r.path.startsWith('/v1/messages'));
    expect(messages.length).toBeGreaterThan(0);
    for (const r of fake.requests) {
      expect(r.refusedOrigin, `${r.method} ${r.path} from ${r.headers.origin}`).toBeUndefined();
      // The server's own origin (the rule's value), or none: never the extension's.
      expect([fake.url, undefined]).toContain(r.headers.origin);
    }
    expect(messages[0]!.headers.origin).toBe(fake.url);
    expect(messages[0]!.body.messages.at(-1).content[0].text).toContain('Hello, local model');
    // A local preset needs no key, and none is sent.
    expect(messages[0]!.headers['x-api-key']).toBeUndefined();
    expect(messages[0]!.headers.authorization).toBeUndefined();
  });

  it('leaves web pages alone: a site posting to the same server keeps its Origin and is refused', async () => {
    const site = siteUrl(fixtures.url, 'attacker');
    const page = await session.ext.browser.newPage();
    try {
      await page.goto(`${site}/index.html`);
      // The 403 has no CORS headers, so the page's fetch fails outright.
      expect(await postFrom(page, fake.url)).toBe(0);
    } finally {
      await page.close();
    }
    const seen = fake.requests.filter((r) => r.method === 'POST');
    expect(seen.map((r) => [r.headers.origin, r.refusedOrigin])).toEqual([[site, true]]);
  });

  it('follows the settings: a saved local connection keeps its rule; once removed, the extension’s Origin is refused', async () => {
    // The main provider elsewhere (nothing is sent to it here), the local server a saved connection.
    await setSettings(session.popup.page, {
      provider: 'anthropic',
      baseUrl: 'https://api.anthropic.com',
      apiKey: 'test-key',
      authHeader: 'x-api-key',
      providerConfigs: { ollama: { baseUrl: fake.url, apiKey: '', authHeader: 'none' } },
    });
    // Let through with the server's Origin: the fake then answers 400 (no reply scripted).
    await until(async () => (await postFrom(session.popup.page, fake.url)) === 400, { what: 'the saved connection to keep its Origin rule' });
    expect(fake.requests.at(-1)!.headers.origin).toBe(fake.url);

    await setSettings(session.popup.page, { providerConfigs: {} });
    await until(async () => (await postFrom(session.popup.page, fake.url)) === 403, { what: 'the rule to go with the connection' });
    const refused = fake.requests.at(-1)!;
    expect(refused.refusedOrigin).toBe(true);
    expect(refused.headers.origin).toBe(session.ext.origin);
  });
});
