/**
 * The `wxt dev` session docs/development.md's "Development with `wxt dev`" describes, in Chromium: in a copy of
 * the project (the checkout is never touched), an edit to a popup component shows in the open
 * popup without reloading it, and an edit to the background reloads the extension, which then
 * answers in the chat again. Both times are printed.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Target } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, type ExtensionBrowser } from '../harness/browsers';
import { FakeAnthropic, text } from '../harness/fake-anthropic';
import { PopupPage, setSettings } from '../harness/popup';
import { copyProject, startWxtDev, type WxtDev } from '../harness/wxt-dev';

// A component the popup renders (lib/ui/chat/Chat.svelte) and the background's own entrypoint.
const POPUP_COMPONENT = 'lib/ui/chat/Composer.svelte';
const BACKGROUND = 'entrypoints/background.ts';

declare global {
  interface Window {
    __devSessionMarker?: string;
  }
}

describe('wxt dev session in chromium', () => {
  const fake = new FakeAnthropic();
  let dev: WxtDev | undefined;
  let ext: ExtensionBrowser | undefined;
  let popup: PopupPage | undefined;
  const times: { popup?: number; worker?: number; background?: number } = {};

  /** Appends to a file of the copy; returns when the write began (performance.now()). */
  async function append(file: string, addition: string): Promise<number> {
    const target = path.join(dev!.dir, file);
    const before = await fs.readFile(target, 'utf8');
    const at = performance.now();
    await fs.writeFile(target, before + addition);
    return at;
  }

  const backgroundTarget = () =>
    ext!.browser.targets().find((t) => t.type() === 'service_worker' && t.url() === `${ext!.origin}/background.js`);

  beforeAll(async () => {
    await fake.start();
    dev = await startWxtDev(await copyProject());
    ext = await launchChromium({ extension: dev.chromeBuild, developerMode: true });
    popup = await PopupPage.open(ext);
    await setSettings(popup.page, { apiKey: 'test-key', baseUrl: fake.url, model: 'fake-model' });
  }, 80_000);

  afterAll(async () => {
    if (times.popup !== undefined && times.background !== undefined) {
      console.log(
        `dev session: popup hot reload ${(times.popup / 1000).toFixed(2)} s; background reload to a reply ${(times.background / 1000).toFixed(1)} s ` +
          `(new service worker after ${(times.worker! / 1000).toFixed(1)} s)`,
      );
    }
    if (process.env.SHOW_WXT) console.log(dev?.output());
    await ext?.close().catch(() => {});
    await dev?.stop();
    await fake.stop();
  });

  it('shows a popup component edit in the open popup without reloading it', async () => {
    const token = `dev-edit-${Date.now()}`;
    await popup!.page.evaluate((t) => (window.__devSessionMarker = t), token);
    const written = await append(POPUP_COMPONENT, `\n<p data-dev-edit="${token}">${token}</p>\n`);
    try {
      await popup!.page.waitForFunction((t) => document.querySelector(`[data-dev-edit="${t}"]`)?.textContent === t, { timeout: 15_000 }, token);
    } catch (e) {
      throw new Error(`The popup never showed the edit. wxt printed:\n${dev!.output()}`, { cause: e });
    }
    times.popup = performance.now() - written;
    // The same document: a reload would have dropped the marker set before the edit.
    expect(await popup!.page.evaluate(() => window.__devSessionMarker)).toBe(token);
    expect(await popup!.page.$eval(`[data-dev-edit="${token}"]`, (el) => el.checkVisibility())).toBe(true);
    // The component the edit went into is still whole.
    expect(await popup!.count('textarea[aria-label="Message"]')).toBe(1);
  });

  it('reloads the extension for a background edit, and the reloaded extension answers', async () => {
    fake.reset();
    fake.script(text('Answered before the edit.'), text('Answered after the reload.'));
    popup = await PopupPage.open(ext!);
    await popup.send('Before the edit');
    await popup.waitForAssistantText('Answered before the edit.');
    await popup.idle();
    const before = backgroundTarget();
    expect(before).toBeDefined();

    const token = `dev-edit-${Date.now()}`;
    const written = await append(BACKGROUND, `\n(globalThis as { __pagewrightDevEdit?: string }).__pagewrightDevEdit = '${token}';\n`);
    let reloaded: Target;
    try {
      reloaded = await ext!.browser.waitForTarget((t) => t !== before && t.type() === 'service_worker' && t.url() === `${ext!.origin}/background.js`, {
        timeout: 30_000,
      });
    } catch (e) {
      throw new Error(`No new service worker after the background edit. wxt printed:\n${dev!.output()}`, { cause: e });
    }
    times.worker = performance.now() - written;
    // The extension's pages close when it reloads; the popup opens again, as a user would open it.
    popup = await PopupPage.open(ext!);
    await popup.send('After the reload');
    await popup.waitForAssistantText('Answered after the reload.', 20_000);
    times.background = performance.now() - written;

    // The new worker runs the edited code, not the old build restarted.
    const worker = (await reloaded.worker())!;
    expect(await worker.evaluate(() => (globalThis as { __pagewrightDevEdit?: string }).__pagewrightDevEdit)).toBe(token);
    expect(fake.requests).toHaveLength(2);
    expect(fake.requests[1]!.body.messages.at(-1).content[0].text).toBe('After the reload');
  });
});
