import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultPermissions } from '../../lib/contracts/permissions';
import { axeViolations } from '../harness/axe';
import type { BrowserName } from '../harness/browsers';
import { askAndAct, waitForCards } from '../harness/chat-cards';
import { gate, lastToolResult, text, toolCall } from '../harness/fake-anthropic';
import { inUserGesture } from '../harness/gesture';
import { closeOpenedChats, focusWindow, openedChats, type OpenedBy, type ShownChat } from '../harness/opened-chat';
import { PopupPage, setPermissions, setSettings } from '../harness/popup';
import { until } from '../harness/until';
import { agentSession } from '../harness/session';

const browsers: BrowserName[] = ['chromium', 'firefox'];
/** A whole long page selected: 5 MB of text. */
const FIVE_MB_SELECTION = 'A whole page selected, sentence after sentence.'.repeat(110_000);

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

  /**
   * The chat the browser opened itself (its popup, its side panel or sidebar), once it shows what
   * `ready` waits for (it opens before the chat is mounted); read from the extension page `from`.
   */
  async function opened(kind: OpenedBy, ready: (chat: ShownChat) => boolean, from = setup().page): Promise<ShownChat> {
    let seen: ShownChat[] = [];
    try {
      return await until(async () => (seen = await openedChats(from, kind)).find(ready), { timeout: 10_000, what: `the browser's ${kind}` });
    } catch (e) {
      throw new Error(`The browser's ${kind} did not show what was expected; it showed ${JSON.stringify(seen)}`, { cause: e });
    }
  }

  // What the browser opened itself would take the next test's handoffs (the panel of the window).
  afterEach(async () => {
    // The popup closes itself once it has opened the panel (puppeteer may not know yet).
    const alive = await setup().page.evaluate(() => true).catch(() => false);
    const from = alive ? setup().page : await ext().open('options.html', undefined, { window: true });
    await closeOpenedChats(from);
    if (from !== setup().page) await from.close();
  });

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

  it('keeps streaming while the agent opens, activates and closes tabs, and a second window\'s panel sees the same run', async () => {
    const tabId = await session.openTab('/index.html');
    const { windowId } = (await session.tabs()).find((t) => t.id === tabId)!;
    const panel = await panelWindow();
    expect(await panel.page.evaluate(() => document.documentElement.dataset.host)).toBe('panel');
    expect(await panel.page.$('button[aria-label="Open in side panel"]')).toBeNull();
    await panel.newChat();

    const g = gate();
    let openedTab: number | undefined;
    fake.script(
      // In the page's window: the test's panel is a window of its own, where a new tab would cover it.
      toolCall('open_tab', { url: `${session.fixtures.url}/index.html?opened-by-the-agent`, window_id: windowId }),
      (body) => {
        openedTab = lastToolResult(body).content.id;
        return toolCall('activate_tab', { tab_id: tabId });
      },
      () => toolCall('close_tab', { tab_id: openedTab }),
      { ...text('The tab is in front now. The rest of this answer streams after a pause.'), chunk: 6, pause: { afterEvents: 9, gate: g } },
    );
    await panel.send('Open a tab, bring the fixture tab to the front, close the new one');
    await panel.waitForAssistantText('The tab is in front');
    expect(panel.page.isClosed()).toBe(false);
    expect(await panel.count('details[data-tool][data-status="done"]')).toBe(3);
    expect((await session.tabs()).some((t) => t.id === openedTab)).toBe(false);

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

  it('panels in two windows on two conversations stream both runs at once, each its own', async () => {
    const first = await panelWindow();
    await first.newChat();
    const second = await panelWindow();
    await second.newChat();
    const g = gate();
    fake.script(
      { ...text('First conversation: it streams, waits, and then ends the first answer.'), chunk: 6, pause: { afterEvents: 6, gate: g } },
      text('Second conversation answered while the first one waits.'),
    );
    await first.send('The first question');
    await first.waitForAssistantText('First conv');
    await second.send('The second question');
    await second.waitForAssistantText('Second conversation answered');
    await second.idle();
    // The first run is still going, in its own panel only.
    expect(await first.page.$('button[aria-label="Stop"]')).not.toBeNull();
    g.open();
    await first.waitForAssistantText('ends the first answer');
    await first.idle();
    expect(await first.text('[role="log"]')).not.toContain('Second conversation');
    expect(await second.text('[role="log"]')).not.toContain('First conversation');
    await Promise.all([first.page.close(), second.page.close()]);
  });

  it('the popup\'s "Open in side panel" opens the panel in its window, on the conversation on screen', async () => {
    // The management page reads what the browser opened (the popup closes itself once the panel is
    // open), from a window of its own: a tab in the popup's window would hide it from the click.
    const reader = await ext().open('options.html', { width: 900, height: 700 }, { window: true });
    // On screen, a conversation older than the latest: the panel must show it, not the latest.
    fake.script(text('Handed over to the panel.'), text('A later conversation.'));
    await setup().send('Show this in the side panel');
    await setup().waitForAssistantText('Handed over to the panel.');
    await setup().idle();
    await setup().newChat();
    await setup().send('Something else');
    await setup().waitForAssistantText('A later conversation.');
    await setup().idle();
    await setup().page.click('button[aria-label="Conversations"]');
    await setup().page.click('nav button[aria-label="Open conversation: Show this in the side panel"]');
    await setup().waitForAssistantText('Handed over to the panel.');
    const title = await setup().text('h1');
    expect(title).toBe('Show this in the side panel');
    const popupWindow = await setup().page.evaluate(async () => (await ((globalThis as any).browser ?? (globalThis as any).chrome).windows.getCurrent()).id as number);
    expect(await openedChats(reader, 'panel')).toEqual([]);
    // The popup's window in front, as it is when the user clicks in the popup (the reader's is newer).
    await focusWindow(reader, popupWindow);
    // A real click: the browser opens a panel only in a user gesture.
    await setup().page.click('button[aria-label="Open in side panel"]');
    // (It shows the latest conversation until it has read the handoff.)
    const panel = await opened('panel', (c) => c.title === title, reader);
    expect(panel).toMatchObject({ title, userMessages: 1 });
    expect(panel.log).toContain('Handed over to the panel.');
    expect(panel.log).not.toContain('A later conversation.');
    // Firefox tells which window shows its sidebar.
    if (name === 'firefox') expect(await reader.evaluate((w) => (globalThis as any).browser.sidebarAction.isOpen({ windowId: w }) as Promise<boolean>, popupWindow)).toBe(true);
    await reader.close();
  });

  it('the real panel, opened mid-run from the popup, stays open and keeps streaming while the agent opens, activates and closes tabs in its window', async () => {
    const reader = await ext().open('options.html', { width: 900, height: 700 }, { window: true });
    const tabId = await session.openTab('/index.html');
    const popupWindow = await setup().page.evaluate(async () => (await ((globalThis as any).browser ?? (globalThis as any).chrome).windows.getCurrent()).id as number);
    const g = gate();
    let openedTab: number | undefined;
    fake.script(
      {
        content: [
          { type: 'text', text: 'Working on the tabs now, beside the page.' },
          { type: 'tool_use', name: 'open_tab', input: { url: `${session.fixtures.url}/index.html?opened-by-the-agent`, window_id: popupWindow } },
        ],
        chunk: 6,
        pause: { afterEvents: 5, gate: g },
      },
      (body) => {
        openedTab = lastToolResult(body).content.id;
        return toolCall('activate_tab', { tab_id: tabId });
      },
      () => toolCall('close_tab', { tab_id: openedTab }),
      text('All three done, and the panel stayed.'),
    );
    await setup().send('Open a tab, bring the fixture tab to the front, close the new one');
    await setup().waitForAssistantText('Working');
    const title = await setup().text('h1');
    await focusWindow(reader, popupWindow);
    await setup().page.click('button[aria-label="Open in side panel"]');
    await opened('panel', (c) => c.title === title, reader);
    g.open();
    const panel = await opened('panel', (c) => c.log.includes('the panel stayed'), reader);
    expect(panel.log).toContain('Working on the tabs now');
    expect(await openedChats(reader, 'panel')).toHaveLength(1);
    const tabs = await reader.evaluate(async () => ((globalThis as any).browser ?? (globalThis as any).chrome).tabs.query({}) as Promise<{ id: number; active: boolean }[]>);
    expect(tabs.some((t) => t.id === openedTab)).toBe(false);
    expect(tabs.find((t) => t.id === tabId)?.active).toBe(true);
    await reader.close();
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

  // Outside a user gesture (the driver's call is none) the browser refuses to open the panel: the
  // handler opens the popup instead, and the popup shows the message.
  const restricted = name === 'chromium' ? 'chrome://settings/' : 'about:addons';
  it.each([
    ['page', { menuItemId: 'ask-page' }, undefined, 'About this page: Pagewright fixture — '],
    ['selection', { menuItemId: 'ask-selection', selectionText: 'A sentence the user selected.' }, undefined, '> A sentence the user selected.'],
    ['selection of 5 MB', { menuItemId: 'ask-selection', selectionText: FIVE_MB_SELECTION }, undefined, `(The first 4000 of ${FIVE_MB_SELECTION.length} selected characters are quoted.)`],
    ['link', { menuItemId: 'ask-link', linkUrl: 'https://example.com/linked' }, undefined, 'About this link: https://example.com/linked (on Pagewright fixture'],
    ['image with a 20 MB data: URL', { menuItemId: 'ask-image', srcUrl: `data:image/png;base64,${'A'.repeat(20 * 1024 * 1024)}`, mediaType: 'image' }, undefined, 'an image embedded in the page (image/png, 20480 KB, not copied here)'],
    ['restricted page', { menuItemId: 'ask-page' }, { url: restricted, title: 'Settings' }, `About this page: Settings — ${restricted}\n\n(Pagewright cannot read this page`],
  ])('the context menu on a %s opens the chat with a new message prefilled, to complete and send', async (_kind, click, page, expected) => {
    const tabId = await session.openTab('/index.html');
    const tab = { ...(await session.tabs()).find((t) => t.id === tabId)!, ...page };
    const requests = fake.requests.length;
    const draft = await background<string>('menuClicked', { ...click, pageUrl: tab.url }, { id: tab.id, windowId: tab.windowId, url: tab.url, title: tab.title });
    expect(draft).toContain(expected);
    expect(draft.length).toBeLessThan(6000);
    expect(await opened('popup', (c) => !!c.draft)).toEqual({ draft, draftFocused: true, title: 'New chat', userMessages: 0, log: expect.any(String) });
    expect(fake.requests.length).toBe(requests);
  });

  it.runIf(name === 'firefox')('the context menu in a user gesture opens the sidebar on the message (Firefox: the driver can give the background that gesture)', async () => {
    const tabId = await session.openTab('/index.html');
    const tab = (await session.tabs()).find((t) => t.id === tabId)!;
    const draft = await inUserGesture(
      setup().page,
      (click, t) => (globalThis as any).browser.extension.getBackgroundPage().pagewrightHandlers.menuClicked(click, t) as Promise<string>,
      { menuItemId: 'ask-selection', selectionText: 'Quoted from the page.', pageUrl: tab.url },
      { id: tab.id, windowId: tab.windowId, url: tab.url, title: tab.title },
    );
    expect(draft).toContain('> Quoted from the page.');
    expect(await opened('panel', (c) => !!c.draft)).toEqual({ draft, draftFocused: true, title: 'New chat', userMessages: 0, log: expect.any(String) });
    expect(await openedChats(setup().page, 'popup')).toEqual([]);
  });

  it('declares its shortcuts, and the panel command closes the panel open in that window', async () => {
    const manifest = await setup().page.evaluate(() => ((globalThis as any).browser ?? (globalThis as any).chrome).runtime.getManifest());
    const commands = Object.keys(manifest.commands).sort();
    expect(commands).toEqual(name === 'chromium' ? ['_execute_action', 'toggle-panel'] : ['_execute_browser_action', '_execute_sidebar_action']);
    for (const c of Object.values(manifest.commands) as { suggested_key: { default: string } }[]) expect(c.suggested_key.default).toMatch(/^Alt\+Shift\+[A-Z]$/);
    if (name !== 'chromium') return; // Firefox toggles its sidebar itself (_execute_sidebar_action)
    const panel = await panelWindow();
    const windowId = await panel.page.evaluate(async () => (await (globalThis as any).chrome.windows.getCurrent()).id as number);
    // In a window with no panel the command opens one: the browser is asked, and refuses only for
    // want of the key press (the driver's call is no gesture).
    const otherWindow = (await session.tabs()).find((t) => t.windowId !== windowId)!.windowId;
    await expect(background('command', 'toggle-panel', { windowId: otherWindow })).rejects.toThrow(/sidePanel\.open\(\)`? may only be called in response to a user gesture/);
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

  /**
   * How the chat lays out in `page`: scrolling of the whole page sideways, elements wider than the
   * panel outside the boxes that scroll on their own (code, tables: Markdown.svelte), and controls
   * of the composer and of the cards a run waits on that a user cannot reach: out of the window,
   * or covered where a click would land, once scrolled to as a user would (the cards scroll when
   * they stack up).
   */
  function measureLayout(page: PopupPage['page']) {
    return page.evaluate(() => {
      const root = document.documentElement;
      const name = (el: Element) => el.tagName.toLowerCase() + (el.className ? `.${String(el.className).split(' ')[0]}` : '');
      const wider = [...document.querySelectorAll<HTMLElement>('main *')]
        .filter((el) => el.getBoundingClientRect().right > root.clientWidth + 1 && !el.closest('pre, table'))
        .map(name);
      const unreachable = [...document.querySelectorAll<HTMLElement>('.composer :is(textarea, button), form[data-question] :is(input, button), [data-approval] button')]
        .filter((el) => {
          // Scrolled to inside the box a user can scroll (never the page: it must not need it).
          let box = el.parentElement;
          while (box && box !== document.body && !(/auto|scroll/.test(getComputedStyle(box).overflowY) && box.scrollHeight > box.clientHeight)) box = box.parentElement;
          if (box && box !== document.body) {
            const [b, e] = [box.getBoundingClientRect(), el.getBoundingClientRect()];
            box.scrollTop += e.bottom > b.bottom ? e.bottom - b.bottom : e.top < b.top ? e.top - b.top : 0;
          }
          const r = el.getBoundingClientRect();
          if (r.width < 1 || r.left < 0 || r.top < 0 || r.right > root.clientWidth + 1 || r.bottom > root.clientHeight + 1) return true;
          const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
          return !hit || !(el === hit || el.contains(hit) || hit.contains(el) || hit.closest('label')?.contains(el));
        })
        .map(name);
      return { scroll: root.scrollWidth - root.clientWidth, body: document.body.scrollWidth - document.body.clientWidth, wider: wider.slice(0, 5), unreachable };
    });
  }
  const fits = { scroll: 0, body: 0, wider: [], unreachable: [] };

  it.each([320, 600])('reflows at %i px wide: no horizontal scrolling, everything in reach, with tool cards, tasks, a long address, code, a table, then a question and an approval card', async (width) => {
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
    expect(await measureLayout(panel.page)).toEqual(fits);
    expect(await axeViolations(panel.page)).toEqual([]);
    if (name === 'chromium') {
      const file = path.resolve(import.meta.dirname, `../../.output/screenshots/panel-${width}.png`);
      await fs.mkdir(path.dirname(file), { recursive: true });
      await panel.page.screenshot({ path: file });
    }

    // The cards a run waits on, at the same width ("Ask first": the script asks for approval).
    const tabId = await session.openTab('/index.html');
    await setPermissions(setup().page, defaultPermissions());
    fake.script(askAndAct(tabId), text('Both cards answered.'));
    await panel.send('Ask me which one to order, then order it');
    await waitForCards(panel);
    expect(await measureLayout(panel.page)).toEqual(fits);
    expect(await axeViolations(panel.page)).toEqual([]);
    // Usable: both answered with the mouse.
    await panel.page.click('form[data-question] input[type="radio"]');
    await panel.page.click('form[data-question] button[type="submit"]');
    await panel.page.click('[data-approval] button[data-choice="deny"]');
    await panel.waitForAssistantText('Both cards answered.');
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
