import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BrowserName } from '../harness/browsers';
import { gate, text, toolCall } from '../harness/fake-anthropic';
import { PopupPage, setSettings } from '../harness/popup';
import { until } from '../harness/until';
import { agentSession } from '../harness/session';

const browsers: BrowserName[] = ['chromium', 'firefox'];

/**
 * The side panel's page (Chrome's side_panel, Firefox's sidebar_action) opened as the extension
 * page it is, in a window of its own beside the page the agent works on: the same Chat as the
 * popup, which must keep streaming while the agent activates tabs.
 */
describe.each(browsers)('side panel in %s', (name) => {
  const session = agentSession(name);
  const { fake } = session;
  const ext = () => session.ext;
  const setup = () => session.popup;

  /** Opens the panel's page in a window of its own, as the browser shows it beside a page. */
  async function panelWindow(): Promise<PopupPage> {
    return PopupPage.on(await ext().open('sidepanel.html', { width: 360, height: 700 }, { window: true }));
  }

  it('is declared for the browser: side_panel in Chrome, sidebar_action in Firefox', async () => {
    const manifest = await setup().page.evaluate(() => ((globalThis as any).browser ?? (globalThis as any).chrome).runtime.getManifest());
    if (name === 'chromium') {
      expect(manifest.side_panel).toEqual({ default_path: 'sidepanel.html' });
      expect(manifest.permissions).toContain('sidePanel');
    } else {
      expect(manifest.sidebar_action.default_panel).toMatch(/\/sidepanel\.html$/);
    }
    // The popup offers it.
    expect(await setup().page.$('button[aria-label="Open in side panel"]')).not.toBeNull();
  });

  it('keeps streaming while the agent activates another tab, and a second window\'s panel sees the same run', async () => {
    const tabId = await session.openTab('/index.html');
    const panel = await panelWindow();
    expect(await panel.page.evaluate(() => document.documentElement.dataset.host)).toBe('panel');
    expect(await panel.page.$('button[aria-label="Open in side panel"]')).toBeNull();
    await panel.newChat();

    const g = gate();
    fake.script(
      toolCall('activate_tab', { tab_id: tabId }),
      { ...text('The tab is in front now. The rest of this answer streams after a pause.'), chunk: 6, pause: { afterEvents: 9, gate: g } },
    );
    await panel.send('Bring the fixture tab to the front');
    await panel.waitForAssistantText('The tab is in front');
    expect(panel.page.isClosed()).toBe(false);

    // Another window, another panel: attached to the latest conversation, the same live run.
    const second = await panelWindow();
    await second.waitForAssistantText('The tab is in front');
    g.open();
    await panel.waitForAssistantText('streams after a pause');
    await second.waitForAssistantText('streams after a pause');
    await panel.idle();
    const active = await setup().page.evaluate(async (id) => {
      const api = (globalThis as any).browser ?? (globalThis as any).chrome;
      return (await api.tabs.get(id)).active as boolean;
    }, tabId);
    expect(active).toBe(true);
    await Promise.all([second.page.close(), panel.page.close()]);
  });

  /** Calls the background's registered listener as the browser would (Chromium: in the service worker; Firefox: the background page). */
  async function background<T>(fn: string, ...args: unknown[]): Promise<T> {
    if (name === 'chromium') {
      const target = await ext().browser.waitForTarget((t) => t.type() === 'service_worker' && t.url().startsWith(ext().origin), { timeout: 10_000 });
      const worker = await target.worker();
      return worker!.evaluate((f, a) => (self as any).pagewrightHandlers[f](...a), fn, args) as Promise<T>;
    }
    return setup().page.evaluate(async (f, a) => {
      const bg = await (globalThis as any).browser.runtime.getBackgroundPage();
      return bg.pagewrightHandlers[f](...a);
    }, fn, args) as Promise<T>;
  }

  it('a message left for a window\'s panel shows there in a new chat, for the user to complete', async () => {
    const panel = await panelWindow();
    const windowId = await panel.page.evaluate(async () => (await ((globalThis as any).browser ?? (globalThis as any).chrome).windows.getCurrent()).id as number);
    const draft = 'About this page: Pagewright fixture — http://127.0.0.1/index.html\n\n';
    // Addressed to this window: any other panel (another window, Firefox's real sidebar) leaves it.
    await setup().page.evaluate(async (d, w) => {
      const api = (globalThis as any).browser ?? (globalThis as any).chrome;
      await api.storage.session.set({ 'pagewright:panel-handoff': { draft: d, windowId: w, at: Date.now() } });
    }, draft, windowId);
    await panel.page.waitForFunction((d) => (document.querySelector('textarea[aria-label="Message"]') as HTMLTextAreaElement | null)?.value === d, { timeout: 5000, polling: 100 }, draft);
    expect(await panel.page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Message');
    expect(await panel.count('[data-role="user"]')).toBe(0);
    await panel.page.close();
  });

  it.each([
    ['page', { menuItemId: 'ask-page' }, 'About this page: Pagewright fixture — '],
    ['selection', { menuItemId: 'ask-selection', selectionText: 'A sentence the user selected.' }, '> A sentence the user selected.'],
    ['link', { menuItemId: 'ask-link', linkUrl: 'https://example.com/linked' }, 'About this link: https://example.com/linked (on Pagewright fixture'],
    ['image', { menuItemId: 'ask-image', srcUrl: `data:image/png;base64,${'A'.repeat(20 * 1024 * 1024)}`, mediaType: 'image' }, 'an image embedded in the page (image/png, 20480 KB, not copied here)'],
  ])('the context menu on a %s leaves a new message to complete, unsent', async (_kind, click, expected) => {
    const tabId = await session.openTab('/index.html');
    const tab = (await session.tabs()).find((t) => t.id === tabId)!;
    const requests = fake.requests.length;
    // Outside a gesture the browser refuses to open the panel: the handler falls back to the popup,
    // or the message waits for the user to open either.
    const draft = await background<string>('menuClicked', { ...click, pageUrl: tab.url }, { id: tab.id, windowId: tab.windowId, url: tab.url, title: tab.title });
    expect(draft).toContain(expected);
    expect(draft.length).toBeLessThan(6000);
    expect(fake.requests.length).toBe(requests);
  });

  it('declares its shortcuts, and the panel command closes the panel open in that window', async () => {
    const manifest = await setup().page.evaluate(() => ((globalThis as any).browser ?? (globalThis as any).chrome).runtime.getManifest());
    const commands = Object.keys(manifest.commands).sort();
    expect(commands).toEqual(name === 'chromium' ? ['_execute_action', 'toggle-panel'] : ['_execute_browser_action', '_execute_sidebar_action']);
    for (const c of Object.values(manifest.commands) as { suggested_key: { default: string } }[]) expect(c.suggested_key.default).toMatch(/^Alt\+Shift\+[A-Z]$/);
    if (name !== 'chromium') return; // Firefox toggles its sidebar itself (_execute_sidebar_action)
    const panel = await panelWindow();
    const windowId = await panel.page.evaluate(async () => (await (globalThis as any).chrome.windows.getCurrent()).id as number);
    // Until the background has heard from the panel (its port), the command would open one instead.
    const deadline = Date.now() + 10_000;
    while (!panel.page.isClosed() && Date.now() < deadline) {
      await background('command', 'toggle-panel', { windowId }).catch(() => {});
      await new Promise((r) => setTimeout(r, 300));
    }
    expect(panel.page.isClosed()).toBe(true);
  });

  it('"Toolbar button opens: side panel" takes the popup off the button, and back', async () => {
    const state = () =>
      setup().page.evaluate(async () => {
        const api = (globalThis as any).browser ?? (globalThis as any).chrome;
        const button = api.action ?? api.browserAction;
        const popup: string = await button.getPopup({});
        const behavior = api.sidePanel ? await api.sidePanel.getPanelBehavior() : undefined;
        return { popup: popup.replace(/^.*\//, ''), panelOnClick: behavior?.openPanelOnActionClick as boolean | undefined };
      });
    const expectState = (popup: string, panelOnClick: boolean) =>
      until(async () => {
        const s = await state();
        return s.popup === popup && (name !== 'chromium' || s.panelOnClick === panelOnClick);
      }, { timeout: 5000, what: `the toolbar button to open ${popup || 'the panel'}` });
    await expectState('popup.html', false);
    await setSettings(setup().page, { toolbarOpens: 'panel' });
    await expectState('', true);
    await setSettings(setup().page, { toolbarOpens: 'popup' });
    await expectState('popup.html', false);
  });

  it.each([320, 600])('reflows at %i px wide: no horizontal scrolling with tool cards, tasks, a long address, code and a table', async (width) => {
    const panel = await panelWindow();
    await panel.page.setViewport({ width, height: 700 });
    await panel.newChat();
    const longWord = `https://example.com/${'a-very-long-path-segment-'.repeat(12)}`;
    fake.script(
      toolCall('create_task', { subject: 'Read the fixture page and report what it says' }),
      toolCall('list_tabs', {}),
      text(`Here is what I found, with a long address ${longWord} and code:\n\n\`\`\`js\nconst answer = ${JSON.stringify('x'.repeat(160))};\n\`\`\`\n\n| Column one | Column two | Column three | Column four |\n| --- | --- | --- | --- |\n| ${'cell '.repeat(12)} | b | c | d |`),
    );
    await panel.send('Read the page and tell me what it says, in detail');
    await panel.waitForAssistantText('Here is what I found');
    await panel.idle();
    await panel.page.click('details[data-tool="create_task"] summary');
    const layout = await panel.page.evaluate(() => {
      const root = document.documentElement;
      const wider = [...document.querySelectorAll<HTMLElement>('main *')]
        .filter((el) => el.getBoundingClientRect().right > root.clientWidth + 1 && !el.closest('pre, .table-wrap, [data-scroll-x]'))
        .map((el) => el.tagName.toLowerCase() + (el.className ? `.${String(el.className).split(' ')[0]}` : ''));
      return { scroll: root.scrollWidth - root.clientWidth, body: document.body.scrollWidth - document.body.clientWidth, wider: wider.slice(0, 5) };
    });
    expect(layout).toEqual({ scroll: 0, body: 0, wider: [] });
    if (name === 'chromium') {
      const file = path.resolve(import.meta.dirname, `../../.output/screenshots/panel-${width}.png`);
      await fs.mkdir(path.dirname(file), { recursive: true });
      await panel.page.screenshot({ path: file });
    }
    await panel.page.close();
  });

  it('opened before any settings are saved, shows the first-run guidance the popup shows', async () => {
    await setup().page.evaluate(async () => {
      const api = (globalThis as any).browser ?? (globalThis as any).chrome;
      await api.storage.local.remove('settings');
    });
    const panel = await panelWindow();
    await panel.waitFor('[data-notice="setup"]');
    expect(await panel.text('[data-notice="setup"]')).toContain('needs a model');
    const popup = await PopupPage.open(ext());
    await popup.waitFor('[data-notice="setup"]');
    // Saving a model takes it away, live.
    await setSettings(setup().page, { apiKey: 'test-key', baseUrl: fake.url });
    await panel.waitForGone('[data-notice="setup"]');
    await popup.waitForGone('[data-notice="setup"]');
    await Promise.all([panel.page.close(), popup.page.close()]);
  });
});
