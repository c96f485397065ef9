import { beforeEach, describe, expect, it } from 'vitest';
import type { BrowserName } from '../harness/browsers';
import { lastToolResult, text, toolCall } from '../harness/fake-anthropic';
import { agentSession } from '../harness/session';

const browsers: BrowserName[] = ['chromium', 'firefox'];
const CODE = 'document.getElementById("counter").textContent = "7"; return { pageVar, doubled: pageDouble(21), counter: document.getElementById("counter").textContent };';

describe.each(browsers)('execute_script on a page whose CSP forbids eval, in %s', (name) => {
  const session = agentSession(name, { scriptTimeoutSec: 10 });
  const { fake } = session;
  let tab: number;

  beforeEach(async () => {
    tab = await session.openTab('/strict-csp.html');
  });

  async function runOnce(finalText: string) {
    fake.script(toolCall('execute_script', { target: 'page', tab_id: tab, code: CODE }), text(finalText));
    await session.popup.send('Use the strict page');
    await session.popup.waitForAssistantText(finalText, 30_000);
    return lastToolResult(fake.requests[1]!.body);
  }

  it.runIf(name === 'chromium')('explains how to allow user scripts, then works once they are allowed', async () => {
    const refused = await runOnce('Could not.');
    expect(refused).toMatchObject({ isError: true, content: expect.stringMatching(/Allow User Scripts/) });
    await session.popup.waitFor('[data-notice="user-scripts"]');
    expect(await session.popup.text('[data-notice="user-scripts"]')).toContain('chrome://extensions');

    // What the user does by hand: chrome://extensions → Details → "Allow User Scripts".
    const settingsPage = await session.ext.browser.newPage();
    await settingsPage.goto('chrome://extensions/');
    const extensionId = session.ext.origin.replace('chrome-extension://', '');
    await settingsPage.evaluate(
      (id) => (globalThis as any).chrome.developerPrivate.updateExtensionConfiguration({ extensionId: id, userScriptsAccess: true }),
      extensionId,
    );
    await settingsPage.close();

    fake.reset();
    await session.popup.newChat();
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
