import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeBrowser } from 'wxt/testing';
import { MENU_IDS, registerAskMenu, TOGGLE_PANEL_COMMAND } from '../../lib/browser/ask-menu';
import { createPanelAdapter, HANDOFF_KEY, serveToolbarButton, type PanelAdapter } from '../../lib/browser/panel';
import { setMessageLookup } from '../../lib/i18n';
import { lookupMessage } from '../component/setup';

/**
 * How the background wires the panel, the menu and the shortcuts to the browser (lib/browser/
 * ask-menu.ts, panel.ts), on the fake browser WxtVitest gives (wxt/browser): what the e2e suite
 * cannot see, as neither browser lists an extension's menu items, nor lets the driver click the
 * toolbar button, press a shortcut, or give Chrome's background a user gesture.
 */

beforeAll(() => setMessageLookup(lookupMessage));

/** The parts of the fake browser a test replaces, put back after it (fakeBrowser.reset() keeps replacements). */
const replaced: [object, string, unknown][] = [];
function replace<T extends object>(target: T, key: string, value: unknown) {
  replaced.push([target, key, (target as Record<string, unknown>)[key]]);
  (target as Record<string, unknown>)[key] = value;
}
beforeEach(() => fakeBrowser.reset());
afterEach(() => {
  for (const [target, key, value] of replaced.splice(0).reverse()) (target as Record<string, unknown>)[key] = value;
});

/** What the browser's menus API was asked, and its click listener (as the browser would call it). */
function fakeMenus() {
  const created: { id: string; title: string; contexts: string[] }[] = [];
  const listeners: ((click: object, tab?: object) => void)[] = [];
  const menus = {
    removeAll: vi.fn(async () => void created.splice(0)),
    create: vi.fn((item: { id: string; title: string; contexts: string[] }) => void created.push(item)),
    onClicked: { addListener: (l: (click: object, tab?: object) => void) => listeners.push(l) },
  };
  const commands: ((name: string, tab?: object) => void)[] = [];
  replace(fakeBrowser, 'menus', menus);
  replace(fakeBrowser, 'commands', { onCommand: { addListener: (l: (name: string, tab?: object) => void) => commands.push(l) } });
  return { created, click: (click: object, tab?: object) => listeners.forEach((l) => l(click, tab)), command: (name: string, tab?: object) => commands.forEach((l) => l(name, tab)) };
}

/** A panel adapter that records calls and says whether it was called before anything was awaited. */
function recordingPanel(open: () => Promise<void> = async () => {}) {
  const calls: string[] = [];
  const panel: PanelAdapter = {
    open: vi.fn((windowId?: number) => (calls.push(`open ${windowId}`), open())),
    toggle: vi.fn(async (windowId?: number) => void calls.push(`toggle ${windowId}`)),
    setToolbarOpens: vi.fn(async () => {}),
  };
  return { panel, calls };
}

const tab = { id: 7, windowId: 3, url: 'https://news.example/story', title: 'The story' };

describe('the context menu (registerAskMenu)', () => {
  it('registers the four items, named in the user\'s language, each for its own context', async () => {
    const menus = fakeMenus();
    registerAskMenu(recordingPanel().panel);
    await vi.waitFor(() => expect(menus.created).toHaveLength(4));
    expect(menus.created.map(({ id, title, contexts }) => ({ id, title, contexts }))).toEqual([
      { id: 'ask-page', title: 'Ask Pagewright about this page', contexts: ['page'] },
      { id: 'ask-selection', title: 'Ask Pagewright about the selection', contexts: ['selection'] },
      { id: 'ask-link', title: 'Ask Pagewright about this link', contexts: ['link'] },
      { id: 'ask-image', title: 'Ask Pagewright about this image', contexts: ['image'] },
    ]);
    expect(menus.created.map((m) => m.id)).toEqual([...MENU_IDS]);
  });

  it('a click, as the browser calls the listener, opens the panel in that very turn and leaves the message for that window\'s panel', async () => {
    const menus = fakeMenus();
    const { panel, calls } = recordingPanel();
    registerAskMenu(panel);
    menus.click({ menuItemId: 'ask-link', pageUrl: tab.url, linkUrl: 'https://other.example/a' }, tab);
    // Synchronously: Firefox opens a sidebar only before the listener awaits anything.
    expect(calls).toEqual(['open 3']);
    await vi.waitFor(async () => expect((await fakeBrowser.storage.session.get(HANDOFF_KEY))[HANDOFF_KEY]).toBeDefined());
    expect((await fakeBrowser.storage.session.get(HANDOFF_KEY))[HANDOFF_KEY]).toMatchObject({
      windowId: 3,
      draft: 'About this link: https://other.example/a (on The story — https://news.example/story)\n\n',
    });
    expect((await fakeBrowser.storage.session.get(HANDOFF_KEY))[HANDOFF_KEY]).not.toHaveProperty('conversationId');
  });

  it('opens the popup where the panel cannot open (no gesture, no panel)', async () => {
    const menus = fakeMenus();
    const openPopup = vi.fn(async () => {});
    replace(fakeBrowser.action, 'openPopup', openPopup);
    registerAskMenu(recordingPanel(() => Promise.reject(new Error('`sidePanel.open()` may only be called in response to a user gesture.'))).panel);
    menus.click({ menuItemId: 'ask-page', pageUrl: tab.url }, tab);
    await vi.waitFor(() => expect(openPopup).toHaveBeenCalledTimes(1));
  });

  it('leaves other menus\' items alone', async () => {
    const menus = fakeMenus();
    const { panel, calls } = recordingPanel();
    const handlers = registerAskMenu(panel);
    menus.click({ menuItemId: 'someone-else', pageUrl: tab.url }, tab);
    expect(await handlers.menuClicked({ menuItemId: 'someone-else' }, tab)).toBeUndefined();
    expect(calls).toEqual([]);
    expect(await fakeBrowser.storage.session.get(HANDOFF_KEY)).toEqual({});
  });

  it('the panel shortcut toggles the panel of the window it was pressed in; other commands are the browser\'s', () => {
    const menus = fakeMenus();
    const { panel, calls } = recordingPanel();
    registerAskMenu(panel);
    menus.command(TOGGLE_PANEL_COMMAND, tab);
    menus.command('_execute_action', tab);
    expect(calls).toEqual(['toggle 3']);
  });
});

describe('the panel adapter', () => {
  it('Chrome: opens the side panel of the given window, and the toggle command opens it where none is open', async () => {
    const sidePanel = { open: vi.fn(async () => {}), setPanelBehavior: vi.fn(async () => {}) };
    replace(fakeBrowser, 'sidebarAction', undefined);
    replace(globalThis, 'chrome', { sidePanel });
    const adapter = createPanelAdapter({ has: () => false, close: vi.fn() } as never);
    await adapter.toggle(5);
    expect(sidePanel.open).toHaveBeenCalledWith({ windowId: 5 });
    await expect(adapter.open(undefined)).rejects.toThrow(/which window/i);
  });

  it('Chrome: the toggle command closes the panel that window shows', async () => {
    const sidePanel = { open: vi.fn(async () => {}), setPanelBehavior: vi.fn(async () => {}) };
    replace(fakeBrowser, 'sidebarAction', undefined);
    replace(globalThis, 'chrome', { sidePanel });
    const close = vi.fn();
    await createPanelAdapter({ has: (w: number) => w === 5, close } as never).toggle(5);
    expect(close).toHaveBeenCalledWith(5);
    expect(sidePanel.open).not.toHaveBeenCalled();
  });

  it('Chrome: "Toolbar button opens: side panel" takes the popup off the button and lets the panel open on a click', async () => {
    const sidePanel = { open: vi.fn(async () => {}), setPanelBehavior: vi.fn(async () => {}) };
    const setPopup = vi.fn(async () => {});
    replace(fakeBrowser, 'sidebarAction', undefined);
    replace(globalThis, 'chrome', { sidePanel });
    replace(fakeBrowser.action, 'setPopup', setPopup);
    const adapter = createPanelAdapter();
    await adapter.setToolbarOpens('panel');
    expect(setPopup).toHaveBeenLastCalledWith({ popup: '' });
    expect(sidePanel.setPanelBehavior).toHaveBeenLastCalledWith({ openPanelOnActionClick: true });
    await adapter.setToolbarOpens('popup');
    expect(setPopup).toHaveBeenLastCalledWith({ popup: 'popup.html' });
    expect(sidePanel.setPanelBehavior).toHaveBeenLastCalledWith({ openPanelOnActionClick: false });
  });

  it('Firefox: the toolbar button, once it has no popup, toggles the sidebar; the setting is applied at start and on change', async () => {
    const sidebarAction = { open: vi.fn(async () => {}), toggle: vi.fn(async () => {}) };
    const setPopup = vi.fn(async () => {});
    replace(fakeBrowser, 'sidebarAction', sidebarAction);
    replace(fakeBrowser.action, 'setPopup', setPopup);
    let mode: 'popup' | 'panel' = 'panel';
    serveToolbarButton(createPanelAdapter(), async () => ({ toolbarOpens: mode }));
    await vi.waitFor(() => expect(setPopup).toHaveBeenLastCalledWith({ popup: '' }));
    await fakeBrowser.action.onClicked.trigger(tab as never, undefined as never);
    expect(sidebarAction.toggle).toHaveBeenCalledTimes(1);
    mode = 'popup';
    await fakeBrowser.storage.local.set({ settings: { toolbarOpens: 'popup' } });
    await vi.waitFor(() => expect(setPopup).toHaveBeenLastCalledWith({ popup: 'popup.html' }));
  });
});
