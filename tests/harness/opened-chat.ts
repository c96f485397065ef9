import type { Page } from 'puppeteer-core';
import { inUserGesture } from './gesture';
import { until } from './until';

/** What a user sees of a chat the browser opened itself. */
export interface ShownChat {
  /** The text in the composer, and whether the composer has the focus. */
  draft: string;
  draftFocused: boolean;
  /** The conversation's title (the heading). */
  title: string;
  /** How many messages the user has sent in it. */
  userMessages: number;
  /** The whole conversation as text. */
  log: string;
}

export type OpenedBy = 'popup' | 'panel';

/**
 * The chats the browser opened by itself: its popup (action.openPopup), its side panel (Chrome)
 * or sidebar (Firefox). The driver cannot reach them as tabs (Firefox's popup and sidebar are not
 * browsing contexts WebDriver BiDi lists), so they are found through extension.getViews from
 * `from`, an extension page in the same process. A side panel page the test opened in a tab of
 * its own is not one of them. `close`: close them instead of reading them.
 */
function inOpenedChats(from: Page, kind: OpenedBy, close: boolean): Promise<ShownChat[]> {
  return from.evaluate(
    (k, closing) => {
      const api = (globalThis as any).browser ?? (globalThis as any).chrome;
      const tabs = new Set(api.extension.getViews({ type: 'tab' }));
      // Chrome lists its side panel under no type of its own; Firefox's sidebar is type "sidebar".
      const views: Window[] =
        k === 'popup'
          ? api.extension.getViews({ type: 'popup' })
          : api.extension.getViews().filter((w: Window) => w.location.pathname === '/sidepanel.html' && !tabs.has(w));
      if (closing) {
        for (const w of views) w.close();
        return [];
      }
      return views.map((w) => {
        const box = w.document.querySelector<HTMLTextAreaElement>('textarea[aria-label]');
        return {
          draft: box?.value ?? '',
          draftFocused: !!box && w.document.activeElement === box,
          title: w.document.querySelector('h1')?.textContent ?? '',
          userMessages: w.document.querySelectorAll('[data-role="user"]').length,
          log: w.document.querySelector('[role="log"]')?.textContent ?? '',
        };
      });
    },
    kind,
    close,
  );
}

export function openedChats(from: Page, kind: OpenedBy): Promise<ShownChat[]> {
  return inOpenedChats(from, kind, false);
}

/**
 * Closes every chat the browser opened itself, from the extension page `from`. Chrome's side panel
 * closes with window.close(), as the panel closes itself (lib/browser/panel.ts). Firefox's sidebar
 * closes only through sidebarAction.close() in a user gesture, and in the window last focused
 * (as it opens: see focusWindow); a sidebar's window.close() would close the browser window
 * around it.
 */
export async function closeOpenedChats(from: Page): Promise<void> {
  await inOpenedChats(from, 'popup', true);
  const sidebars = await from.evaluate(async () => {
    const api = (globalThis as any).browser;
    if (!api?.sidebarAction) return undefined;
    const windows: { id: number }[] = await api.windows.getAll();
    const open = await Promise.all(windows.map((w) => api.sidebarAction.isOpen({ windowId: w.id }) as Promise<boolean>));
    return windows.filter((_, i) => open[i]).map((w) => w.id);
  });
  if (sidebars === undefined) return void (await inOpenedChats(from, 'panel', true));
  for (const windowId of sidebars) {
    await focusWindow(from, windowId);
    await inUserGesture(from, () => (globalThis as any).browser.sidebarAction.close());
    await until(() => from.evaluate((w) => (globalThis as any).browser.sidebarAction.isOpen({ windowId: w }).then((open: boolean) => !open), windowId), {
      timeout: 5000,
      what: `the sidebar of window ${windowId} to close`,
    });
  }
}

/**
 * Brings a window to the front. Firefox's sidebarAction opens and closes the sidebar of the window
 * last focused, whichever page calls it: in use that is the window of the popup or page clicked;
 * a test that opens windows of its own must say which.
 */
export async function focusWindow(from: Page, windowId: number): Promise<void> {
  await from.evaluate((w) => ((globalThis as any).browser ?? (globalThis as any).chrome).windows.update(w, { focused: true }), windowId);
}
