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
  const shared = sharedBrowser(name, {
    async onLaunch(e) {
      ext = e;
      options = await ext.open('options.html', { width: 900, height: 800 });
      await options.waitForSelector('#apiKey');
    },
  });

  /** A new settings page on no saved settings, as a first run meets it. */
  async function pageOnNoSettings(): Promise<Page> {
    await options.evaluate(() => ((globalThis as any).browser ?? (globalThis as any).chrome).storage.local.remove('settings'));
    const page = await ext.open('options.html', { width: 900, height: 800 });
    await page.waitForSelector('form[aria-busy="false"]');
    return page;
  }

  /**
   * Valid settings saved through the shared page's form, as the saves of the tests that use it
   * need (a key, above all): once per browser, by whichever of them comes first.
   */
  async function fillValid(page: Page, key: string) {
    await fill(page, '#apiKey', key);
    await fill(page, '#baseUrl', fake.url);
    await fill(page, '#model', 'fake-model-x');
    await fill(page, '#maxTokens', '2048');
    await fill(page, '#roundCap', '7');
  }

  const validSaved = () =>
    shared.once('valid settings saved', async () => {
      await fillValid(options, 'sk-from-the-form');
      await options.click('button[type="submit"]');
      await options.waitForFunction(() => document.querySelector('[data-status="saved"]'), { polling: 100 });
    });

  it('shows inline errors for an empty key and a bad URL, and saves nothing', async () => {
    // A page of its own on no saved settings, as a first run meets it; what an earlier test of the
    // file saved is put back after.
    const earlier = await stored(options);
    const page = await pageOnNoSettings();
    try {
      await fill(page, '#baseUrl', 'not a url');
      await page.click('button[type="submit"]');
      await page.waitForFunction(() => document.querySelector('[data-status="invalid"]'));
      expect(await page.$eval('#apiKey-error', (el) => el.textContent)).toBe('Enter your API key.');
      expect(await page.$eval('#baseUrl-error', (el) => el.textContent)).toBe('Enter a full http:// or https:// URL.');
      expect(await page.$eval('#apiKey', (el) => el.getAttribute('aria-invalid'))).toBe('true');
      expect(await stored(page)).toBeNull();

      await fill(page, '#baseUrl', 'ftp://example.com');
      await fill(page, '#apiKey', 'sk-test');
      await fill(page, '#maxTokens', '0');
      await page.click('button[type="submit"]');
      expect(await page.$eval('#baseUrl-error', (el) => el.textContent)).toBe('Enter a full http:// or https:// URL.');
      expect(await page.$eval('#maxTokens-error', (el) => el.textContent)).toBe('Enter a whole number from 1 to 128000.');
      expect(await page.$eval('#apiKey-error', (el) => el.textContent)).toBe('');
      expect(await stored(page)).toBeNull();
    } finally {
      await page.close();
      if (earlier) await options.evaluate((settings) => ((globalThis as any).browser ?? (globalThis as any).chrome).storage.local.set({ settings }), earlier);
    }
  });

  it('saves valid settings, which the next run uses', async () => {
    // A page of its own on no saved settings: the values not filled in are the defaults, whatever
    // an earlier test of the file saved.
    const page = await pageOnNoSettings();
    try {
      await fillValid(page, '  sk-from-the-form  ');
      await page.click('button[type="submit"]');
      await page.waitForFunction(() => document.querySelector('[data-status="saved"]'));
      expect(await stored(page)).toMatchObject({
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
    } finally {
      await page.close();
    }

    // The fake records the whole file's requests: this test's from here.
    fake.reset();
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
    await validSaved();
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
    await validSaved();
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
