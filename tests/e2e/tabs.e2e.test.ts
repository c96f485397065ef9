import { describe, expect, it } from 'vitest';
import type { BrowserName } from '../harness/browsers';
import { lastToolResult, text, toolCall } from '../harness/fake-anthropic';
import { agentSession } from '../harness/session';
import { until } from '../harness/until';

const browsers: BrowserName[] = ['chromium', 'firefox'];

describe.each(browsers)('tab tools in %s', (name) => {
  const session = agentSession(name, { scriptTimeoutSec: 30 });
  const { fake, fixtures } = session;

  /** Opens tabs from an extension page, as the test's own hands (not the agent's). */
  async function openTabs(urls: string[], newWindow = false): Promise<{ windowId: number; tabIds: number[] }> {
    return session.popup.page.evaluate(
      async (urls, newWindow) => {
        const api = (globalThis as any).browser ?? (globalThis as any).chrome;
        if (newWindow) {
          const win = await api.windows.create({ url: urls, focused: false });
          const tabs = await api.tabs.query({ windowId: win.id });
          return { windowId: win.id, tabIds: tabs.map((t: any) => t.id) };
        }
        const tabs = [];
        for (const url of urls) tabs.push(await api.tabs.create({ url, active: false }));
        return { windowId: tabs[0].windowId, tabIds: tabs.map((t: any) => t.id) };
      },
      urls,
      newWindow,
    );
  }

  it('lists tabs with every filter across two windows', async () => {
    const a = await openTabs([`${fixtures.url}/form.html`, `${fixtures.url}/spa.html`]);
    const b = await openTabs([`${fixtures.url}/shadow.html`, `${fixtures.url}/index.html`], true);
    // The filters match titles and URLs: every tab must show its fixture, loaded, before the listing.
    const opened = [...a.tabIds, ...b.tabIds];
    await until(async () => {
      const tabs = await session.tabs();
      return opened.every((id) => tabs.some((t) => t.id === id && t.url.startsWith(fixtures.url) && t.status === 'complete'));
    }, { timeout: 20_000, what: 'the four fixture tabs to load' });
    fake.script(
      {
        content: [
          { type: 'tool_use', name: 'list_tabs', input: {} },
          { type: 'tool_use', name: 'list_tabs', input: { url_pattern: 'FORM\\.html$' } },
          { type: 'tool_use', name: 'list_tabs', input: { title_pattern: '^shadow' } },
          { type: 'tool_use', name: 'list_tabs', input: { window_id: b.windowId } },
          { type: 'tool_use', name: 'list_tabs', input: { active: true, window_id: b.windowId } },
          { type: 'tool_use', name: 'list_tabs', input: { audible: true, url_pattern: '127\\.0\\.0\\.1' } },
          { type: 'tool_use', name: 'list_tabs', input: { url_pattern: '([unclosed' } },
        ],
      },
      text('Listed.'),
    );
    await session.popup.send('Which tabs are open?');
    await session.popup.waitForAssistantText('Listed.');
    const results = fake.requests[1]!.body.messages.at(-1).content.map((b: any) => ({ text: b.content, error: !!b.is_error }));
    const all = JSON.parse(results[0].text);
    expect(all.length).toBeGreaterThanOrEqual(5);
    expect(Object.keys(all[0])).toEqual(['id', 'window_id', 'url', 'title', 'active', 'audible', 'status']);
    expect(JSON.parse(results[1].text).map((t: any) => t.id)).toEqual([a.tabIds[0]]);
    expect(JSON.parse(results[2].text).map((t: any) => t.title)).toEqual(['Shadow and frame fixture']);
    expect(JSON.parse(results[3].text).map((t: any) => t.id).sort()).toEqual([...b.tabIds].sort());
    const activeInB = JSON.parse(results[4].text);
    expect(activeInB).toHaveLength(1);
    expect(activeInB[0].window_id).toBe(b.windowId);
    expect(JSON.parse(results[5].text)).toEqual([]);
    expect(results[6]).toEqual({ text: expect.stringMatching(/^url_pattern is not a valid regular expression: /), error: true });
  });

  it('opens, navigates, activates and closes tabs, and refuses bad ids and URLs', async () => {
    let opened = -1;
    let windowFocused: boolean | undefined;
    fake.script(
      toolCall('open_tab', { url: `${fixtures.url}/form.html`, active: false }),
      (body) => {
        opened = lastToolResult(body).content.id;
        return toolCall('open_tab', { url: `${fixtures.url}/spa.html`, tab_id: opened, active: false });
      },
      () => toolCall('activate_tab', { tab_id: opened }),
      async () => {
        windowFocused = await session.popup.page.evaluate(async (id) => {
          const api = (globalThis as any).browser ?? (globalThis as any).chrome;
          const tab = await api.tabs.get(id);
          return (await api.windows.get(tab.windowId)).focused;
        }, opened);
        return {
        content: [
          { type: 'tool_use', name: 'close_tab', input: { tab_id: opened } },
          { type: 'tool_use', name: 'open_tab', input: { url: 'javascript:alert(1)' } },
          { type: 'tool_use', name: 'open_tab', input: { url: 'data:text/html,<script>alert(1)</script>' } },
          { type: 'tool_use', name: 'open_tab', input: { url: 'chrome://settings' } },
          { type: 'tool_use', name: 'open_tab', input: { url: 'view-source:https://example.com/' } },
          { type: 'tool_use', name: 'activate_tab', input: { tab_id: 987654 } },
        ],
      };
      },
      () => toolCall('close_tab', { tab_id: opened }),
      text('Tabs done.'),
    );
    await session.popup.send('Work with tabs');
    await session.popup.waitForAssistantText('Tabs done.', 30_000);

    const first = JSON.parse(fake.requests[1]!.body.messages.at(-1).content[0].content);
    expect(first).toMatchObject({ url: `${fixtures.url}/form.html`, title: 'Sign up', active: false, status: 'complete', loaded: true });
    const navigated = JSON.parse(fake.requests[2]!.body.messages.at(-1).content[0].content);
    expect(navigated).toMatchObject({ id: opened, url: `${fixtures.url}/spa.html`, loaded: true });
    const activated = JSON.parse(fake.requests[3]!.body.messages.at(-1).content[0].content);
    expect(activated).toMatchObject({ id: opened, active: true });
    expect(windowFocused).toBe(true);

    const batch = fake.requests[4]!.body.messages.at(-1).content.map((b: any) => ({ text: b.content, error: !!b.is_error }));
    expect(JSON.parse(batch[0].text)).toEqual({ closed: true, tab_id: opened });
    expect(batch[1]).toEqual({ text: expect.stringMatching(/javascript: URLs are refused/), error: true });
    expect(batch[2]).toEqual({ text: expect.stringMatching(/data: URLs that can carry script/), error: true });
    expect(batch[3]).toEqual({ text: expect.stringMatching(/browser's own internal pages/), error: true });
    expect(batch[4]).toEqual({ text: expect.stringMatching(/view-source: pages are the browser's own internal pages/), error: true });
    expect(batch[5]).toEqual({ text: expect.stringMatching(/No tab with id 987654/), error: true });
    // Closing the same tab again: it is gone, and the model is told so.
    const again = lastToolResult(fake.requests[5]!.body);
    expect(again).toEqual({ content: expect.stringMatching(/No tab with id \d+: it was closed/), isError: true });
  });

  // The bound is 30 s: waited out once, in one browser, to prove the call never hangs.
  it.runIf(name === 'chromium')('returns from a page that never finishes loading with a still-loading note', async () => {
    fake.script(toolCall('open_tab', { url: `${fixtures.url}/slow.html`, active: false }), text('Gave up waiting.'));
    await session.popup.send('Open the slow page');
    await session.popup.waitForAssistantText('Gave up waiting.', 45_000);
    const result = lastToolResult(fake.requests[1]!.body).content;
    expect(result).toMatchObject({ loaded: false, status: 'loading', note: expect.stringMatching(/^still loading after 30 s/) });
  }, 60_000);
});
