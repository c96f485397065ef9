import { afterEach, describe, expect, it } from 'vitest';
import { defaultPermissions } from '../../lib/contracts/permissions';
import { axeViolations } from '../harness/axe';
import type { BrowserName } from '../harness/browsers';
import { askAndAct, waitForCards } from '../harness/chat-cards';
import { gate, toolCall } from '../harness/fake-anthropic';
import { PopupPage } from '../harness/popup';
import { agentSession } from '../harness/session';

const browsers: BrowserName[] = ['chromium', 'firefox'];

/**
 * axe-core on the built popup and side panel pages, as the browser shows them (their HTML, the
 * theme, the real run events), in each state a user meets: empty, streaming with tool cards and
 * the task list, and waiting on a question and an approval. The component suite measures the
 * same states on Chat alone (tests/component/chat.test.ts).
 */
describe.each(browsers)('chat accessibility in %s', (name) => {
  // "Ask first": execute_script on the fixture page asks for approval.
  const session = agentSession(name, {}, defaultPermissions());
  const { fake } = session;
  const opened: PopupPage[] = [];
  afterEach(async () => {
    for (const chat of opened.splice(0)) {
      await chat.stopIfRunning();
      if (!chat.page.isClosed()) await chat.page.close();
    }
  });

  /** Both hosts' violations in one state, labelled, so a failure says where. */
  async function violations(state: string, chats: Record<string, PopupPage>): Promise<string[]> {
    const found: string[] = [];
    for (const [host, chat] of Object.entries(chats)) found.push(...(await axeViolations(chat.page)).map((v) => `${host}, ${state}: ${v}`));
    return found;
  }

  it('axe-core finds 0 violations in the popup and the panel: empty, streaming with tool cards and tasks, with a question and an approval card', async () => {
    const tabId = await session.openTab('/index.html');
    const panel = await PopupPage.on(await session.ext.open('sidepanel.html', { width: 360, height: 700 }, { window: true }));
    opened.push(panel);
    await panel.newChat();
    expect(await violations('empty', { popup: session.popup, panel })).toEqual([]);

    const g = gate();
    fake.script(
      toolCall('create_task', { subject: 'Order from the shop' }),
      askAndAct(tabId, 'Reading the shop page now, then I will ask you which one to order.', { chunk: 6, pause: { afterEvents: 6, gate: g } }),
    );
    await panel.send('Order the usual from the shop');
    // A popup opened now shows the latest conversation: the panel's run.
    const popup = await PopupPage.open(session.ext);
    opened.push(popup);
    for (const chat of [panel, popup]) {
      await chat.waitForAssistantText('Reading the');
      await chat.waitFor('details[data-tool="create_task"]');
      await chat.waitFor('[data-task-id]');
      await chat.waitFor('button[aria-label="Stop"]');
    }
    expect(await violations('streaming with tool cards and tasks', { popup, panel })).toEqual([]);

    g.open();
    await waitForCards(panel);
    await waitForCards(popup);
    expect(await violations('with a question and an approval card', { popup, panel })).toEqual([]);

    // The theme's dark colours (assets/theme.css), in the state that shows the most of them. Only
    // Chromium: puppeteer emulates prefers-color-scheme through CDP, which Firefox does not speak.
    if (name === 'chromium') {
      for (const chat of [popup, panel]) await chat.page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'dark' }]);
      expect(await panel.page.evaluate(() => matchMedia('(prefers-color-scheme: dark)').matches)).toBe(true);
      expect(await violations('dark, with a question and an approval card', { popup, panel })).toEqual([]);
    }
  });
});
