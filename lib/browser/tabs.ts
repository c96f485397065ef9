import { browser, type Browser } from 'wxt/browser';
import { ModelFacingError } from '../errors';

/** A tab as the tools report it (the contract's field names). */
export interface TabInfo {
  id: number;
  window_id: number;
  url: string;
  title: string;
  active: boolean;
  audible: boolean;
  status: 'loading' | 'complete' | 'unloaded';
  discarded?: boolean;
}

export type TabErrorCode =
  /** Closed, or never existed. */
  | 'not_found'
  /** Closed while the call waited for it to load. */
  | 'closed'
  | 'stopped';

export class TabError extends ModelFacingError<TabErrorCode> {
  override name = 'TabError';
}

export interface TabsAdapter {
  query(filter: { active?: boolean; windowId?: number; audible?: boolean }): Promise<TabInfo[]>;
  /** Throws a TabError naming the id when the tab does not exist (closed, never existed). */
  get(tabId: number): Promise<TabInfo>;
  create(options: { url: string; active: boolean; windowId?: number }): Promise<TabInfo>;
  navigate(tabId: number, url: string, active: boolean): Promise<TabInfo>;
  close(tabId: number): Promise<void>;
  /** Makes the tab the active one in its window and focuses that window. */
  activate(tabId: number): Promise<TabInfo>;
  /**
   * Resolves when the tab has finished loading `url`, or with false after `timeoutMs`. The
   * initial about:blank of a new tab (already "complete" in Firefox) does not count.
   */
  waitForLoad(tabId: number, timeoutMs: number, signal: AbortSignal, target?: { url: string; newTab: boolean }): Promise<boolean>;
  windowExists(windowId: number): Promise<boolean>;
  /** Whether the user allowed this extension on file:// URLs. */
  fileAccessAllowed(): Promise<boolean>;
  /** The page the user is looking at: the active tab of the window they used last (never Pagewright's own pages). */
  userTab(): Promise<TabInfo | undefined>;
}

export function toTabInfo(tab: Browser.tabs.Tab): TabInfo {
  const info: TabInfo = {
    id: tab.id ?? -1,
    window_id: tab.windowId ?? -1,
    url: tab.url ?? tab.pendingUrl ?? '',
    title: tab.title ?? '',
    active: !!tab.active,
    audible: !!tab.audible,
    status: tab.discarded ? 'unloaded' : ((tab.status as TabInfo['status'] | undefined) ?? 'complete'),
  };
  if (tab.discarded) info.discarded = true;
  return info;
}

/** Chrome MV3 and Firefox share the tabs/windows API shape, so one implementation serves both. */
export function createTabsAdapter(): TabsAdapter {
  const get = async (tabId: number) => {
    try {
      return await browser.tabs.get(tabId);
    } catch {
      throw new TabError('not_found', `No tab with id ${tabId}: it was closed or never existed. Call list_tabs to see the open tabs.`);
    }
  };
  return {
    async userTab() {
      const own = browser.runtime.getURL('/');
      const [tab] = (await browser.tabs.query({ active: true, lastFocusedWindow: true })).map(toTabInfo).filter((t) => t.id >= 0 && !t.url.startsWith(own));
      return tab;
    },
    async query({ active, windowId, audible }) {
      const q: Browser.tabs.QueryInfo = {};
      if (active !== undefined) q.active = active;
      if (windowId !== undefined) q.windowId = windowId;
      if (audible !== undefined) q.audible = audible;
      return (await browser.tabs.query(q)).map(toTabInfo);
    },
    get: async (tabId) => toTabInfo(await get(tabId)),
    async create({ url, active, windowId }) {
      const props: Browser.tabs.CreateProperties = { url, active };
      if (windowId !== undefined) props.windowId = windowId;
      return toTabInfo(await browser.tabs.create(props));
    },
    async navigate(tabId, url, active) {
      await get(tabId);
      const tab = await browser.tabs.update(tabId, { url, ...(active ? { active: true } : {}) });
      return toTabInfo(tab!);
    },
    async close(tabId) {
      await get(tabId);
      await browser.tabs.remove(tabId);
    },
    async activate(tabId) {
      const tab = await get(tabId);
      await browser.tabs.update(tabId, { active: true });
      if (tab.windowId !== undefined) await browser.windows.update(tab.windowId, { focused: true });
      return toTabInfo(await get(tabId));
    },
    waitForLoad(tabId, timeoutMs, signal, target) {
      // A tab that was just created or told to navigate may still report the page it had
      // (about:blank, or the old page in Firefox) as complete: only a load that started after
      // the call, or the target URL itself, counts.
      let started = false;
      // A new tab had nothing but about:blank before, so any other page in it is the new one.
      const isTarget = (t: Browser.tabs.Tab) =>
        !target || t.url === target.url || (target.newTab && !!t.url && t.url !== 'about:blank');
      const arrived = (t: Browser.tabs.Tab) => t.status === 'complete' && !t.pendingUrl && (started || isTarget(t));
      return new Promise<boolean>((resolve, reject) => {
        let done = false;
        const finish = (value: boolean | Error) => {
          if (done) return;
          done = true;
          clearTimeout(timer);
          browser.tabs.onUpdated.removeListener(onUpdated);
          browser.tabs.onRemoved.removeListener(onRemoved);
          signal.removeEventListener('abort', onAbort);
          if (value instanceof Error) reject(value);
          else resolve(value);
        };
        const onUpdated = (id: number, change: Browser.tabs.OnUpdatedInfo, tab: Browser.tabs.Tab) => {
          if (id !== tabId) return;
          if (change.status === 'loading' && tab.url !== 'about:blank') started = true;
          if (change.status === 'complete' && arrived(tab)) finish(true);
        };
        const onRemoved = (id: number) => {
          if (id === tabId) finish(new TabError('closed', `Tab ${tabId} was closed while it was loading.`));
        };
        const onAbort = () => finish(new TabError('stopped', 'Stopped by the user.'));
        const timer = setTimeout(() => finish(false), timeoutMs);
        browser.tabs.onUpdated.addListener(onUpdated);
        browser.tabs.onRemoved.addListener(onRemoved);
        signal.addEventListener('abort', onAbort, { once: true });
        // The load may already be over (or over before the listener was added).
        void get(tabId).then(
          (t) => arrived(t) && finish(true),
          (e: Error) => finish(e),
        );
      });
    },
    async windowExists(windowId) {
      try {
        await browser.windows.get(windowId);
        return true;
      } catch {
        return false;
      }
    },
    fileAccessAllowed: () => browser.extension.isAllowedFileSchemeAccess(),
  };
}
