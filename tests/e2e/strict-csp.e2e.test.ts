import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { launch, type BrowserName, type ExtensionBrowser } from '../harness/browsers';
import { FakeAnthropic, lastToolResult, text, toolCall } from '../harness/fake-anthropic';
import { FixtureServer } from '../harness/fixture-server';
import { PopupPage, setSettings } from '../harness/popup';

const browsers: BrowserName[] = ['chromium', 'firefox'];
const CODE = 'document.getElementById("counter").textContent = "7"; return { pageVar, doubled: pageDouble(21), counter: document.getElementById("counter").textContent };';

describe.each(browsers)('execute_script on a page whose CSP forbids eval, in %s', (name) => {
  const fake = new FakeAnthropic();
  const fixtures = new FixtureServer();
  let ext: ExtensionBrowser;
  let popup: PopupPage;
  let tab: number;

  beforeAll(async () => {
    await Promise.all([fake.start(), fixtures.start()]);
    ext = await launch(name);
  });
  afterAll(async () => {
    await ext?.close();
    await Promise.all([fake.stop(), fixtures.stop()]);
  });
  beforeEach(async () => {
    fake.reset();
    if (popup && !popup.page.isClosed()) await popup.close().catch(() => {});
    popup = await PopupPage.open(ext);
    await setSettings(popup.page, { apiKey: 'test-key', baseUrl: fake.url, scriptTimeoutSec: 10 });
    await popup.newChat();
    tab = await popup.page.evaluate(async (url) => {
      const api = (globalThis as any).browser ?? (globalThis as any).chrome;
      const t = await api.tabs.create({ url, active: false });
      await new Promise((r) => setTimeout(r, 800));
      return t.id;
    }, `${fixtures.url}/strict-csp.html`);
  });

  async function runOnce(finalText: string) {
    fake.script(toolCall('execute_script', { target: 'page', tab_id: tab, code: CODE }), text(finalText));
    await popup.send('Use the strict page');
    await popup.waitForAssistantText(finalText, 30_000);
    return lastToolResult(fake.requests[1]!.body);
  }

  it.runIf(name === 'chromium')('explains how to allow user scripts, then works once they are allowed', async () => {
    const refused = await runOnce('Could not.');
    expect(refused).toMatchObject({ isError: true, content: expect.stringMatching(/Allow User Scripts/) });
    await popup.waitFor('[data-notice="user-scripts"]');
    expect(await popup.text('[data-notice="user-scripts"]')).toContain('chrome://extensions');

    // What the user does by hand: chrome://extensions → Details → "Allow User Scripts".
    const settingsPage = await ext.browser.newPage();
    await settingsPage.goto('chrome://extensions/');
    const extensionId = ext.origin.replace('chrome-extension://', '');
    await settingsPage.evaluate(
      (id) => (globalThis as any).chrome.developerPrivate.updateExtensionConfiguration({ extensionId: id, userScriptsAccess: true }),
      extensionId,
    );
    await settingsPage.close();

    fake.reset();
    await popup.newChat();
    const allowed = await runOnce('Worked.');
    expect(allowed).toMatchObject({ isError: false, content: { target: 'page', result: { pageVar: 42, doubled: 42, counter: '7' } } });
  });

  it.runIf(name === 'firefox')('runs through the content-script world with the page\'s own window', async () => {
    const result = await runOnce('Worked.');
    expect(result).toMatchObject({
      isError: false,
      content: { target: 'page', result: { pageVar: 42, doubled: 42, counter: '7' }, note: expect.stringMatching(/CSP forbids eval/) },
    });
  });
});
