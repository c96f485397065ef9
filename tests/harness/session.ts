import { afterAll, beforeAll, beforeEach } from 'vitest';
import type { BrowserName, ExtensionBrowser } from './browsers';
import { FakeAnthropic, lastToolResult, text, toolCall } from './fake-anthropic';
import { FixtureServer } from './fixture-server';
import type { Page } from 'puppeteer-core';
import { PopupPage, setPermissions, setSettings, TEST_PERMISSIONS } from './popup';
import { sharedBrowser, type SharedBrowser } from './shared-browser';
import { until } from './until';

export interface TabInfo {
  id: number;
  windowId: number;
  url: string;
  title: string;
  status: string;
}

export interface AgentSession {
  readonly fake: FakeAnthropic;
  readonly fixtures: FixtureServer;
  readonly ext: ExtensionBrowser;
  readonly popup: PopupPage;
  /** What earlier tests of the describe would leave, made once per browser (see sharedBrowser). */
  once: SharedBrowser['once'];
  made: SharedBrowser['made'];
  /** The test's own hands open a tab (not the agent's) and wait for it to load (and for `title`, when given). */
  openTab(path: string, title?: string): Promise<number>;
  /**
   * The test's own hands open a browser page no extension may script (chrome://version,
   * Firefox's about:robots: extensions may not open about: pages themselves) and wait until it is
   * loaded — a tab still on its way there has another URL to refuse. Returns its tab id and a close.
   */
  openRestrictedTab(): Promise<{ id: number; close(): Promise<void> }>;
  /** Every tab as the extension sees it (tabs.query), asked from the popup. */
  tabs(): Promise<TabInfo[]>;
  /** The test's own handle on the tab showing `url`, to look inside the page. */
  pageShowing(url: string): Promise<Page>;
  /**
   * One user message whose model reply runs `calls` in order (each may use the previous result),
   * then ends with `finalText`; returns the tool results the model was sent.
   */
  agentRuns(calls: ((prev: any) => { name: string; input: unknown })[], finalText?: string): Promise<any[]>;
}

/**
 * The set-up every tool e2e shares, registered as vitest hooks inside a describe: a fake model,
 * the fixture server and the browser for the whole describe (a fresh one for a retried test:
 * sharedBrowser); before each test a fresh popup with these settings (and no others) and these
 * permissions, and a new chat.
 */
export function agentSession(
  name: BrowserName,
  settings: Record<string, unknown> = {},
  permissions: unknown = TEST_PERMISSIONS,
  /** A fake model set up otherwise (one that refuses foreign Origins, say). */
  fake = new FakeAnthropic(),
): AgentSession {
  const fixtures = new FixtureServer();
  let popup: PopupPage | undefined;
  let runs = 0;

  // Registered first: the servers are up before the browser, and stop after it has closed.
  beforeAll(async () => {
    await Promise.all([fake.start(), fixtures.start()]);
  });
  afterAll(async () => {
    await Promise.all([fake.stop(), fixtures.stop()]);
  });
  const shared = sharedBrowser(name);
  const ext = () => shared.ext;
  beforeEach(async () => {
    fake.reset();
    if (popup && !popup.page.isClosed()) await popup.close().catch(() => {});
    popup = await PopupPage.open(ext());
    // Replaced, not merged: a setting an earlier test changed (an engine, a time limit) is not this test's.
    await setSettings(popup.page, { apiKey: 'test-key', baseUrl: fake.url, ...settings }, { replace: true });
    await setPermissions(popup.page, permissions);
    await popup.newChat();
  });

  const session: AgentSession = {
    fake,
    fixtures,
    get ext() {
      return ext();
    },
    once: (key, setup) => shared.once(key, setup),
    made: (key, value) => shared.made(key, value),
    get popup() {
      return popup!;
    },
    async openTab(path, title) {
      const url = `${fixtures.url}${path}`;
      const id = await popup!.page.evaluate(async (url) => {
        const api = (globalThis as any).browser ?? (globalThis as any).chrome;
        return (await api.tabs.create({ url, active: false })).id as number;
      }, url);
      // The URL too: a Firefox tab can say "complete" for the about:blank it starts on.
      await until(async () => (await session.tabs()).some((t) => t.id === id && t.url === url && t.status === 'complete' && (!title || t.title === title)), {
        timeout: 20_000,
        what: `tab ${id} to load ${url}${title ? ` and be titled "${title}"` : ''}`,
      });
      return id;
    },
    async openRestrictedTab() {
      const url = name === 'chromium' ? 'chrome://version/' : 'about:robots';
      const other = await ext().browser.newPage();
      void other.goto(url).catch(() => {});
      const { id } = await until(async () => (await session.tabs()).find((t) => t.url === url && t.status === 'complete'), {
        timeout: 10_000,
        what: `a tab showing ${url}`,
      });
      return { id, close: () => other.close().catch(() => {}) };
    },
    tabs() {
      return popup!.page.evaluate(async () => {
        const api = (globalThis as any).browser ?? (globalThis as any).chrome;
        return (await api.tabs.query({})).map((t: any) => ({ id: t.id, windowId: t.windowId, url: t.url ?? '', title: t.title ?? '', status: t.status ?? '' }));
      });
    },
    pageShowing(url) {
      return until(async () => (await ext().browser.pages()).find((p) => p.url() === url), { timeout: 10_000, what: `a page showing ${url}` });
    },
    // Each run ends with its own text: waiting for "All done." would find the previous run's answer.
    async agentRuns(calls, finalText = `All done (${++runs}).`) {
      const start = fake.requests.length;
      fake.script(
        ...calls.map((make, i) => (body: any) => {
          const prev = i === 0 ? undefined : lastToolResult(body);
          const { name, input } = make(prev);
          return toolCall(name, input);
        }),
        text(finalText),
      );
      await popup!.send('Do the work');
      await popup!.waitForAssistantText(finalText, 40_000);
      return fake.requests.slice(start + 1).map((r) => lastToolResult(r.body));
    },
  };
  return session;
}
