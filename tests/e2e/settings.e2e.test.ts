import type { Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserName, ExtensionBrowser } from '../harness/browsers';
import { sharedBrowser } from '../harness/shared-browser';
import { apiKeyOf, FakeAnthropic, text } from '../harness/fake-anthropic';
import { FixtureServer } from '../harness/fixture-server';
import { PopupPage } from '../harness/popup';
import { BUILTIN_PRICES } from '../../lib/agent/pricing';
import { SETTINGS_VERSION } from '../../lib/settings';

const browsers: BrowserName[] = ['chromium', 'firefox'];

const stored = (page: Page) =>
  page.evaluate(async () => {
    const api = (globalThis as any).browser ?? (globalThis as any).chrome;
    return (await api.storage.local.get('settings')).settings ?? null;
  });

async function fill(page: Page, selector: string, value: string) {
  await page.$eval(selector, (el) => ((el as HTMLInputElement).value = ''));
  await page.type(selector, value);
}

describe.each(browsers)('management page settings in %s', (name) => {
  const fake = new FakeAnthropic();
  const fixtures = new FixtureServer();
  let ext: ExtensionBrowser;
  let options: Page;

  beforeAll(async () => {
    await Promise.all([fake.start(), fixtures.start()]);
  });
  afterAll(async () => {
    await Promise.all([fake.stop(), fixtures.stop()]);
  });
  sharedBrowser(name, {
    async onLaunch(e) {
      ext = e;
      options = await ext.open('options.html', { width: 900, height: 800 });
      await options.waitForSelector('#apiKey');
    },
  });

  it('shows inline errors for an empty key and a bad URL, and saves nothing', async () => {
    await fill(options, '#baseUrl', 'not a url');
    await options.click('button[type="submit"]');
    await options.waitForFunction(() => document.querySelector('[data-status="invalid"]'));
    expect(await options.$eval('#apiKey-error', (el) => el.textContent)).toBe('Enter your API key.');
    expect(await options.$eval('#baseUrl-error', (el) => el.textContent)).toBe('Enter a full http:// or https:// URL.');
    expect(await options.$eval('#apiKey', (el) => el.getAttribute('aria-invalid'))).toBe('true');
    expect(await stored(options)).toBeNull();

    await fill(options, '#baseUrl', 'ftp://example.com');
    await fill(options, '#apiKey', 'sk-test');
    await fill(options, '#maxTokens', '0');
    await options.click('button[type="submit"]');
    expect(await options.$eval('#baseUrl-error', (el) => el.textContent)).toBe('Enter a full http:// or https:// URL.');
    expect(await options.$eval('#maxTokens-error', (el) => el.textContent)).toBe('Enter a whole number from 1 to 128000.');
    expect(await options.$eval('#apiKey-error', (el) => el.textContent)).toBe('');
    expect(await stored(options)).toBeNull();
  });

  it('saves valid settings, which the next run uses', async () => {
    await fill(options, '#apiKey', '  sk-from-the-form  ');
    await fill(options, '#baseUrl', fake.url);
    await fill(options, '#model', 'fake-model-x');
    await fill(options, '#maxTokens', '2048');
    await fill(options, '#roundCap', '7');
    await options.click('button[type="submit"]');
    await options.waitForFunction(() => document.querySelector('[data-status="saved"]'));
    expect(await stored(options)).toMatchObject({
      version: SETTINGS_VERSION,
      apiKey: 'sk-from-the-form',
      baseUrl: fake.url,
      model: 'fake-model-x',
      maxTokens: 2048,
      roundCap: 7,
      summaryModel: '',
      scriptTimeoutSec: 30,
      searchEngine: 'duckduckgo',
      allowPrivateNetwork: false,
    });

    fake.script(text('Configured.'));
    const popup = await PopupPage.open(ext);
    await popup.send('Which settings?');
    await popup.waitForAssistantText('Configured.');
    const [req] = fake.requests;
    expect(apiKeyOf(req!.headers)).toBe('sk-from-the-form');
    expect(req!.body).toMatchObject({ model: 'fake-model-x', max_tokens: 2048, stream: true });
    await popup.close();
  });

  it('tests each search engine with the values in the form, and saves the engine choice', async () => {
    await fill(options, '#bingEndpoint', `${fixtures.url}/engines/bing/search`);
    await options.click('[data-test-engine="bing"]');
    await options.waitForFunction(() => document.querySelector('[data-test-result="bing"]')?.getAttribute('data-state') === 'ok', { polling: 100 });
    expect(await options.$eval('[data-test-result="bing"]', (el) => el.textContent?.trim())).toBe('3 results. First: Caffeine and Sleep Problems');

    // Google without its key and cx: the error names what is missing.
    await options.click('[data-test-engine="google"]');
    await options.waitForFunction(() => document.querySelector('[data-test-result="google"]')?.getAttribute('data-state') === 'failed', { polling: 100 });
    expect(await options.$eval('[data-test-result="google"]', (el) => el.textContent?.trim())).toMatch(/^Failed: Google Custom Search cannot search without an API key and a Search engine ID \(cx\)/);

    // A bad endpoint is refused inline.
    await fill(options, '#baiduEndpoint', 'baidu.example');
    await options.click('button[type="submit"]');
    await options.waitForFunction(() => document.querySelector('[data-status="invalid"]'), { polling: 100 });
    expect(await options.$eval('#baiduEndpoint-error', (el) => el.textContent)).toBe('Enter a full http:// or https:// URL.');
    await fill(options, '#baiduEndpoint', ' ');

    await options.click('input[name="searchEngine"][value="bing"]');
    await options.click('#allowPrivateNetwork');
    await options.click('button[type="submit"]');
    await options.waitForFunction(() => document.querySelector('[data-status="saved"]'), { polling: 100 });
    expect(await stored(options)).toMatchObject({ searchEngine: 'bing', bingEndpoint: `${fixtures.url}/engines/bing/search`, baiduEndpoint: '', allowPrivateNetwork: true });
  });

  it('refuses a negative price inline and saves nothing; saves a context window that a fresh page shows again', async () => {
    const before = await stored(options);
    expect(await options.$eval('#price-0-model', (el) => (el as HTMLInputElement).value)).toBe(BUILTIN_PRICES[0]!.model);
    await fill(options, '#price-0-input', '-1');
    await fill(options, '#contextWindow', '64000');
    await options.click('button[type="submit"]');
    await options.waitForFunction(() => document.querySelector('[data-status="invalid"]'), { polling: 100 });
    expect(await options.$eval('#price-0-input-error', (el) => el.textContent)).toBe(
      'Enter a price in dollars per million tokens: a number from 0 to 10000, never negative.',
    );
    expect(await options.$eval('#price-0-input', (el) => el.getAttribute('aria-invalid'))).toBe('true');
    expect(await options.$eval('#price-0-input', (el) => el.getAttribute('aria-describedby'))).toBe('price-0-input-error');
    expect(await stored(options)).toEqual(before);

    await fill(options, '#price-0-input', String(BUILTIN_PRICES[0]!.input));
    await options.click('button[type="submit"]');
    await options.waitForFunction(() => document.querySelector('[data-status="saved"]'), { polling: 100 });
    expect(await stored(options)).toMatchObject({ version: SETTINGS_VERSION, contextWindow: 64_000, prices: [] });

    // A fresh page (over BiDi, reload() of a moz-extension:// page never resolves).
    const again = await ext.open('options.html', { width: 900, height: 800 });
    await again.waitForSelector('form[aria-busy="false"]');
    expect(await again.$eval('#contextWindow', (el) => (el as HTMLInputElement).value)).toBe('64000');
    expect(await again.$eval('#price-0-input', (el) => (el as HTMLInputElement).value)).toBe(String(BUILTIN_PRICES[0]!.input));
    await again.close();
  });
});
