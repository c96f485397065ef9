/**
 * Settings' model provider group in the built extension: the model list and the Test button go
 * through the background (lib/protocol.ts listModels / testProvider) to the fake on 127.0.0.1 with
 * the form's unsaved values, and each outcome reads as one plain line.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'puppeteer-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { launch, type BrowserName, type ExtensionBrowser } from '../harness/browsers';
import { apiKeyOf, FakeAnthropic, toolCall } from '../harness/fake-anthropic';

const browsers: BrowserName[] = ['chromium', 'firefox'];

async function fill(page: Page, selector: string, value: string) {
  await page.$eval(selector, (el) => ((el as HTMLInputElement).value = ''));
  await page.type(selector, value);
}

/** Clicks Test and returns the result line once the test has finished. */
async function runTest(page: Page): Promise<string> {
  await page.click('[data-test-provider]');
  await page.waitForFunction(() => ['ok', 'failed'].includes(document.querySelector('[data-provider-test-result]')?.getAttribute('data-state') ?? ''), { polling: 100 });
  return page.$eval('[data-provider-test-result]', (el) => el.textContent?.trim() ?? '');
}

describe.each(browsers)('the model provider settings in %s', (name) => {
  const fake = new FakeAnthropic();
  /** A local server that refuses every request as Ollama refuses an Origin it does not allow. */
  const refusing = http.createServer((_req, res) => void res.writeHead(403, { 'content-length': '0' }).end());
  let refusingUrl = '';
  let ext: ExtensionBrowser;
  let options: Page;

  beforeAll(async () => {
    await fake.start();
    await new Promise<void>((r) => refusing.listen(0, '127.0.0.1', r));
    refusingUrl = `http://127.0.0.1:${(refusing.address() as AddressInfo).port}`;
    ext = await launch(name);
    options = await ext.open('options.html', { width: 900, height: 800 });
    await options.waitForSelector('#provider');
    await options.select('#provider', 'other-anthropic');
  });

  afterAll(async () => {
    await ext?.close();
    refusing.closeAllConnections();
    await new Promise<void>((r) => refusing.close(() => r()));
    await fake.stop();
  });

  beforeEach(() => fake.reset());

  it("lists the endpoint's models as the key is typed, and the Test reports a tool call", async () => {
    fake.models = ['fake-model-a', 'fake-model-b'];
    await fill(options, '#baseUrl', fake.url);
    await fill(options, '#apiKey', 'sk-e2e');
    await options.waitForFunction(() => document.querySelector('[data-model-list]')?.getAttribute('data-model-list') === 'done', { polling: 100 });
    expect(await options.$eval('#model-list', (el) => el.textContent?.trim())).toBe('2 models listed by the server: pick one or type a name.');
    expect(await options.$$eval('#model-options option', (os) => os.map((o) => (o as HTMLOptionElement).value))).toEqual(['fake-model-a', 'fake-model-b']);
    expect(apiKeyOf(fake.modelListRequests.at(-1)!.headers)).toBe('sk-e2e');

    await fill(options, '#model', 'fake-model-a');
    fake.script(toolCall('report_ok', { ok: true }));
    expect(await runTest(options)).toBe('OK — fake-model-a answered and called the tool.');
    const [req] = fake.requests;
    expect(apiKeyOf(req!.headers)).toBe('sk-e2e');
    expect(req!.body).toMatchObject({ model: 'fake-model-a', stream: true, tools: [{ name: 'report_ok' }] });
    // Nothing was saved: the test used the form's values.
    expect(await options.evaluate(async () => ((await ((globalThis as any).browser ?? (globalThis as any).chrome).storage.local.get('settings')).settings ?? null))).toBeNull();
  });

  it('says when the key is refused, and when the model does not call tools', async () => {
    await fill(options, '#baseUrl', fake.url);
    await fill(options, '#model', 'fake-model-a');
    await fill(options, '#apiKey', 'bad-key');
    expect(await runTest(options)).toBe('The key was refused (HTTP 401): invalid x-api-key');

    await fill(options, '#apiKey', 'sk-e2e');
    fake.script({ error: { status: 400, type: 'invalid_request_error', message: 'registry.ollama.ai/library/gemma3:4b does not support tools' } });
    expect(await runTest(options)).toBe(
      'This model does not call tools; Pagewright needs one that does. The server said: registry.ollama.ai/library/gemma3:4b does not support tools',
    );
  });

  it('says when the server cannot be reached, and what to allow when a local server refuses the origin', async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const closedUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise<void>((r) => closed.close(() => r()));
    await fill(options, '#baseUrl', closedUrl);
    expect(await runTest(options)).toMatch(new RegExp(`^Could not reach ${closedUrl.replace(/[.]/g, '\\.')}: `));

    await fill(options, '#baseUrl', refusingUrl);
    expect(await runTest(options)).toBe(
      `The server at ${refusingUrl} refused the extension's origin (HTTP 403). Allow the origins chrome-extension://* and moz-extension://* in its settings.`,
    );
  });
});
