/**
 * MCP elicitation end to end: the MCP project's own reference server (server-everything) asks
 * for input during a tool call; the form card shows in the popup, the user (never the model)
 * answers, and the tool result the model gets holds what the user chose to share.
 */
import type { Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserName } from '../harness/browsers';
import { startEverythingServer, type EverythingServer } from '../harness/everything-server';
import { lastToolResult, text, toolCall } from '../harness/fake-anthropic';
import { ELICITING_TOOL, startMcpServer, type McpTestServer } from '../harness/mcp-servers';
import { PopupPage, setSkills } from '../harness/popup';
import { agentSession } from '../harness/session';

const browsers: BrowserName[] = ['chromium', 'firefox'];
const card = '[data-elicitation]';
const TOOL = 'everything__trigger-elicitation-request';

/** The toolbar badge, read from an extension page (Chrome's action, Firefox MV2's browserAction). */
const badge = (page: Page) =>
  page.evaluate(async () => {
    const api = (globalThis as any).browser ?? (globalThis as any).chrome;
    return (api.action ?? api.browserAction).getBadgeText({});
  });

describe.each(browsers)('MCP elicitation in %s', (name) => {
  const session = agentSession(name);
  const { fake } = session;
  let everything: EverythingServer;
  let forms: McpTestServer;

  beforeAll(async () => {
    [everything, forms] = await Promise.all([startEverythingServer(), startMcpServer({ extraTools: [ELICITING_TOOL] })]);
  });
  afterAll(async () => {
    await Promise.all([everything?.close(), forms?.close()]);
  });

  /** The model calls server-everything's elicitation tool, then ends with `finalText`; resolves once the card shows. */
  async function elicit(popup: PopupPage, finalText: string) {
    await setSkills(popup.page, [{ name: 'everything', skill_type: 'mcp', config: { url: everything.url, transport: 'streamable_http' } }]);
    fake.script(toolCall(TOOL, {}), text(finalText));
    await popup.send('Sign me up');
    await popup.waitFor(card, 30_000);
  }

  it("the server's form is a card the user fills in; the values reach the server and the model; a decline too", async () => {
    const { popup } = session;
    await elicit(popup, 'Signed you up.');
    // The tool is listed only to a client that declares elicitation; the model has no way to answer.
    const tools = fake.requests[0]!.body.tools.map((t: { name: string }) => t.name);
    expect(tools).toContain(TOOL);
    expect(tools.filter((t: string) => /elicit/i.test(t) && !t.startsWith('everything__'))).toEqual([]);
    const shown = await popup.text(card);
    expect(shown).toContain('everything asks you');
    expect(shown).toContain('Please provide inputs for the following fields:');
    const value = (field: string) => popup.page.$eval(`${card} [data-field="${field}"] input`, (el) => (el as HTMLInputElement).value);
    expect(await value('firstLine')).toBe('It was a dark and stormy night.');
    expect(await value('integer')).toBe('42');

    // Checked before it is sent: the required name is missing.
    await popup.page.click(`${card} [data-choice="accept"]`);
    await popup.waitFor(`${card} [data-field="name"] [data-problem="required"]`);
    expect(await popup.page.$eval(`${card} [data-field="name"] input`, (el) => el.getAttribute('aria-invalid'))).toBe('true');

    await popup.page.type(`${card} [data-field="name"] input`, 'Ada Lovelace');
    await popup.page.type(`${card} [data-field="email"] input`, 'ada@example.org');
    await popup.page.click(`${card} [data-field="check"] input`);
    await popup.page.click(`${card} [data-field="titledSingleSelectEnum"] input[value="hero-3"]`);
    await popup.page.click(`${card} [data-field="untitledMultipleSelectEnum"] input[value="Piano"]`);
    await popup.page.click(`${card} [data-choice="accept"]`);
    await popup.waitForAssistantText('Signed you up.', 30_000);
    await popup.waitForGone(card);
    const result = lastToolResult(fake.requests[1]!.body);
    expect(result.isError).toBe(false);
    const said = JSON.stringify(result.content);
    for (const part of ['User provided the requested information', 'Name: Ada Lovelace', 'Email: ada@example.org', 'Agreed to terms: true', 'Favorite Integer: 42', 'Favorite Number: 3.14']) expect(said).toContain(part);
    // The raw answer the server got: the user's choices, and the defaults for what they left alone.
    const raw = JSON.parse(/Raw result: (\{[\s\S]*\})/.exec(typeof result.content === 'string' ? result.content : said.replace(/\\n/g, '\n').replace(/\\"/g, '"'))![1]!);
    expect(raw).toEqual({
      action: 'accept',
      content: {
        name: 'Ada Lovelace',
        check: true,
        firstLine: 'It was a dark and stormy night.',
        email: 'ada@example.org',
        integer: 42,
        number: 3.14,
        untitledSingleSelectEnum: 'Monica',
        untitledMultipleSelectEnum: ['Guitar', 'Piano'],
        titledSingleSelectEnum: 'hero-3',
        titledMultipleSelectEnum: ['fish-1'],
        legacyTitledEnum: 'pet-1',
      },
    });

    fake.reset();
    await elicit(popup, 'Fine, not signing you up.');
    await popup.page.click(`${card} [data-choice="decline"]`);
    await popup.waitForAssistantText('Fine, not signing you up.', 30_000);
    expect(JSON.stringify(lastToolResult(fake.requests[1]!.body).content)).toContain('User declined to provide the requested information');
  });

  it('waits while the popup is closed, with a badge; the reopened popup shows the card', async () => {
    await elicit(session.popup, 'Cancelled, then.');
    await session.popup.close();
    const other = await session.ext.open('options.html');
    try {
      await expect.poll(() => badge(other), { timeout: 10_000 }).toBe('?');
      const reopened = await PopupPage.open(session.ext);
      await reopened.waitFor(card);
      expect(await reopened.text(card)).toContain('Please provide inputs for the following fields:');
      await reopened.page.click(`${card} [data-choice="cancel"]`);
      await reopened.waitForAssistantText('Cancelled, then.', 30_000);
      expect(JSON.stringify(lastToolResult(fake.requests[1]!.body).content)).toContain('User cancelled the elicitation dialog');
      await expect.poll(() => badge(other), { timeout: 5_000 }).toBe('');
      await reopened.close();
    } finally {
      await other.close();
    }
  });

  it('a form with unsupported types is refused with -32602: the user is told, the model gets the error, nothing crashes', async () => {
    const { popup } = session;
    await setSkills(popup.page, [{ name: 'forms', skill_type: 'mcp', config: { url: forms.url, transport: 'streamable_http' } }]);
    const schema = { type: 'object', properties: { name: { type: 'string' }, address: { type: 'object', properties: { city: { type: 'string' } } } } };
    const [refused] = await session.agentRuns([() => ({ name: 'forms__ask_form', input: { schema } })]);
    expect(refused).toMatchObject({ isError: true, content: expect.stringMatching(/-32602: Unsupported elicitation schema: the property "address" is a nested object/) });
    await popup.waitFor('[data-notice="elicitation-refused"]');
    const notice = await popup.text('[data-notice="elicitation-refused"]');
    expect(notice).toContain('The MCP server forms asked for input with a form Pagewright cannot show');
    expect(notice).toContain('"address" is a nested object');
    expect(await popup.count(card)).toBe(0);
    // The session still serves the next form.
    fake.reset();
    fake.script(toolCall('forms__ask_form', {}), text('Booked.'));
    await popup.send('Book it');
    await popup.waitFor(card);
    await popup.page.type(`${card} [data-field="name"] input`, 'Ada');
    await popup.page.click(`${card} [data-choice="accept"]`);
    await popup.waitForAssistantText('Booked.', 30_000);
    expect(lastToolResult(fake.requests[1]!.body).content).toEqual({ action: 'accept', content: { name: 'Ada', seats: 2, window: false } });
  });
});
