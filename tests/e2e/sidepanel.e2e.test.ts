import { describe, expect, it } from 'vitest';
import type { BrowserName } from '../harness/browsers';
import { gate, text, toolCall } from '../harness/fake-anthropic';
import { PopupPage } from '../harness/popup';
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
});
