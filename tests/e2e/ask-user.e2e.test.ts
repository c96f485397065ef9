import type { Page } from 'puppeteer-core';
import { describe, expect, it } from 'vitest';
import type { BrowserName } from '../harness/browsers';
import { lastToolResult, text, toolCall } from '../harness/fake-anthropic';
import { PopupPage, setSettings } from '../harness/popup';
import { agentSession } from '../harness/session';

const browsers: BrowserName[] = ['chromium', 'firefox'];

/** The toolbar badge, read from an extension page (Chrome's action, Firefox MV2's browserAction). */
const badge = (page: Page) =>
  page.evaluate(async () => {
    const api = (globalThis as any).browser ?? (globalThis as any).chrome;
    return (api.action ?? api.browserAction).getBadgeText({});
  });

describe.each(browsers)('ask_user in %s', (name) => {
  const session = agentSession(name);
  const { fake } = session;
  const panel = '[data-question]';

  /** The model asks `input`, then ends with `finalText`; resolves once the question shows. */
  async function ask(input: Record<string, unknown>, finalText: string) {
    fake.script(toolCall('ask_user', input), text(finalText));
    await session.popup.send('Ask me something');
    await session.popup.waitFor(panel);
  }

  it('asks in writing; the answer goes back to the model and stays in the history', async () => {
    const { popup } = session;
    await ask({ question: 'Which city should the trip start from?' }, 'Starting from Izmir.');
    expect(await popup.text(panel)).toContain('Which city should the trip start from?');
    await popup.page.type(`${panel} textarea`, 'Izmir');
    await popup.page.keyboard.press('Enter');
    await popup.waitForAssistantText('Starting from Izmir.');
    await popup.waitForGone(panel);
    expect(lastToolResult(fake.requests[1]!.body)).toEqual({ isError: false, content: { answer: 'Izmir' } });
    expect(await popup.text('[data-tool="ask_user"] [data-qa]')).toMatch(/Asked: Which city should the trip start from\?\s*Answer: Izmir/);
  });

  it('offers a single choice and a multiple choice', async () => {
    const { popup } = session;
    await ask({ question: 'Which plan?', options: ['Free', 'Pro', 'Team'] }, 'Pro chosen.');
    await popup.page.click(`${panel} input[value="Pro"]`);
    await popup.page.click(`${panel} button[type="submit"]`);
    await popup.waitForAssistantText('Pro chosen.');
    expect(lastToolResult(fake.requests[1]!.body).content).toEqual({ answer: 'Pro' });

    fake.reset();
    await ask({ question: 'Which extras?', options: ['Breakfast', 'Parking', 'Late checkout'], multiple: true }, 'Extras noted.');
    await popup.page.click(`${panel} input[value="Late checkout"]`);
    await popup.page.click(`${panel} input[value="Breakfast"]`);
    await popup.page.click(`${panel} button[type="submit"]`);
    await popup.waitForAssistantText('Extras noted.');
    expect(lastToolResult(fake.requests[1]!.body).content).toEqual({ answer: 'Breakfast, Late checkout', selected: ['Breakfast', 'Late checkout'] });
  });

  it('gives up after the time limit with answer null, reason timeout', async () => {
    const { popup } = session;
    await setSettings(popup.page, { askUserTimeoutSec: 2 });
    await ask({ question: 'Are you still there?' }, 'No answer, going on.');
    await popup.waitForAssistantText('No answer, going on.', 20_000);
    await popup.waitForGone(panel);
    expect(lastToolResult(fake.requests[1]!.body)).toEqual({ isError: false, content: { answer: null, reason: 'timeout' } });
    expect(await popup.text('[data-tool="ask_user"] [data-qa]')).toMatch(/No answer \(timeout\)/);
    await setSettings(popup.page, { askUserTimeoutSec: 300 });
  });

  it('waits while the popup is closed, with a badge; the reopened popup shows the question and answers it', async () => {
    await ask({ question: 'Shall I book the 9:40 train?', options: ['Yes', 'No'] }, 'Booking it.');
    await session.popup.close();

    // Another extension page stands in for the toolbar: the badge says a question waits.
    const other = await session.ext.open('options.html');
    await expect.poll(() => badge(other), { timeout: 5_000 }).toBe('?');

    const reopened = await PopupPage.open(session.ext);
    await reopened.waitFor(panel);
    expect(await reopened.text(panel)).toContain('Shall I book the 9:40 train?');
    await reopened.page.click(`${panel} input[value="Yes"]`);
    await reopened.page.click(`${panel} button[type="submit"]`);
    await reopened.waitForAssistantText('Booking it.');
    expect(lastToolResult(fake.requests[1]!.body).content).toEqual({ answer: 'Yes' });
    await expect.poll(() => badge(other), { timeout: 5_000 }).toBe('');
    await other.close();
    await reopened.close();
  });

  it('refuses bad questions with a clear error, and the conversation goes on', async () => {
    const [noOptions, oneOption] = await session.agentRuns([
      () => ({ name: 'ask_user', input: { question: 'Pick any', multiple: true } }),
      () => ({ name: 'ask_user', input: { question: 'Pick', options: ['Only'] } }),
    ]);
    expect(noOptions).toMatchObject({ isError: true, content: expect.stringMatching(/multiple.*needs options/) });
    expect(oneOption).toMatchObject({ isError: true, content: expect.stringMatching(/at least 2/) });
  });
});
