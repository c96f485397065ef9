/**
 * The core chat, once per API kind: the same popup, run manager and loop against a local fake of
 * the Anthropic Messages API and one of OpenAI Chat Completions, each reached through an "Other —
 * …-compatible" provider at the fake's URL. What differs is only on the wire, so each scenario
 * checks the wire too.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { BrowserName, ExtensionBrowser } from '../harness/browsers';
import { sharedBrowser } from '../harness/shared-browser';
import { FakeAnthropic, gate, text as anthropicText, type Gate } from '../harness/fake-anthropic';
import { FakeOpenAI, text as openaiText, toolCalls as openaiToolCalls } from '../harness/fake-openai';
import { PopupPage, setSettings } from '../harness/popup';

const browsers: BrowserName[] = ['chromium', 'firefox'];

/** What a scenario needs from a fake model, whichever protocol it speaks. */
interface Kind {
  name: 'anthropic' | 'openai';
  settings(url: string): Record<string, unknown>;
  start(): Promise<string>;
  stop(): Promise<void>;
  reset(): void;
  readonly requests: { body: any; headers: Record<string, unknown>; aborted: boolean }[];
  text(t: string, extra?: { chunk?: number; delayMs?: number; pause?: { afterEvents: number; gate: Gate } }): void;
  /** One reply with several tool calls, streamed interleaved where the protocol allows it. */
  toolCalls(calls: { name: string; input: unknown }[]): void;
  tooManyRequests(): void;
  /** The tool results the latest request carried, in order, as [call id, text]. */
  toolResults(body: any): [string, string][];
  /** The call ids the reply before them gave, as the latest request echoes them back. */
  callIds(body: any): string[];
  badKeyBanner: RegExp;
}

function anthropicKind(): Kind {
  const fake = new FakeAnthropic();
  return {
    name: 'anthropic',
    settings: (url) => ({ provider: 'other-anthropic', baseUrl: url, authHeader: 'x-api-key' }),
    start: () => fake.start(),
    stop: () => fake.stop(),
    reset: () => fake.reset(),
    get requests() {
      return fake.requests as Kind['requests'];
    },
    text: (t, extra = {}) => void fake.script(anthropicText(t, extra)),
    toolCalls: (calls) => void fake.script({ content: calls.map((c) => ({ type: 'tool_use' as const, ...c })), chunk: 3 }),
    tooManyRequests: () =>
      void fake.script({ error: { status: 429, type: 'rate_limit_error', message: 'Number of requests has exceeded your rate limit', headers: { 'retry-after': '1' } } }),
    toolResults: (body) => body.messages.at(-1).content.filter((b: any) => b.type === 'tool_result').map((b: any) => [b.tool_use_id, typeof b.content === 'string' ? b.content : b.content.map((c: any) => c.text).join('')]),
    callIds: (body) => body.messages.at(-2).content.filter((b: any) => b.type === 'tool_use').map((b: any) => b.id),
    badKeyBanner: /API key was rejected \(401\): invalid x-api-key/,
  };
}

function openaiKind(): Kind {
  const fake = new FakeOpenAI();
  return {
    name: 'openai',
    settings: (url) => ({ provider: 'other-openai', baseUrl: url, authHeader: 'bearer' }),
    start: () => fake.start(),
    stop: () => fake.stop(),
    reset: () => fake.reset(),
    get requests() {
      return fake.requests as Kind['requests'];
    },
    text: (t, { pause, ...extra } = {}) => void fake.script(openaiText(t, { ...extra, ...(pause ? { pause: { afterChunks: pause.afterEvents, gate: pause.gate } } : {}) })),
    // Argument pieces round-robin across the calls: the deltas interleave by index.
    toolCalls: (calls) => void fake.script(openaiToolCalls(calls, { chunk: 3, order: 'interleaved' })),
    tooManyRequests: () =>
      void fake.script({ error: { status: 429, type: 'requests', code: 'rate_limit_exceeded', message: 'Rate limit reached for requests', headers: { 'retry-after': '1' } } }),
    toolResults: (body) => {
      const msgs: any[] = body.messages;
      let i = msgs.length;
      while (i > 0 && msgs[i - 1].role === 'tool') i--;
      return msgs.slice(i).map((m) => [m.tool_call_id, typeof m.content === 'string' ? m.content : m.content.map((c: any) => c.text).join('')]);
    },
    callIds: (body) => {
      const assistant = body.messages.findLast((m: any) => m.role === 'assistant' && m.tool_calls);
      return assistant.tool_calls.map((c: any) => c.id);
    },
    badKeyBanner: /API key was rejected \(401\): Incorrect API key provided/,
  };
}

describe.each(browsers)('providers in %s', (browserName) => {
  describe.each([
    { api: 'Anthropic Messages', make: anthropicKind },
    { api: 'OpenAI Chat Completions', make: openaiKind },
  ])('$api', ({ make }) => {
    const kind = make();
    let ext: ExtensionBrowser;
    let popup: PopupPage;
    let url = '';

    beforeAll(async () => {
      url = await kind.start();
    });
    afterAll(async () => {
      await kind.stop();
    });
    sharedBrowser(browserName, { onLaunch: async (e) => void (ext = e) });
    beforeEach(async () => {
      kind.reset();
      if (popup && !popup.page.isClosed()) await popup.close().catch(() => {});
      popup = await PopupPage.open(ext);
      await setSettings(popup.page, { apiKey: 'test-key', model: 'fake-model', roundCap: 50, ...kind.settings(url) });
      await popup.newChat();
    });

    it(`${kind.name}: streams an answer`, async () => {
      kind.text('Hello from the **other** side of the wire.', { chunk: 4, delayMs: 5 });
      await popup.send('Say hello');
      await popup.waitForAssistantText('side of the wire.');
      await popup.idle();
      expect(await popup.page.$eval('[data-role="assistant"] strong', (el) => el.textContent)).toBe('other');
      const [req] = kind.requests;
      expect(req!.body.stream).toBe(true);
      if (kind.name === 'openai') {
        expect(req!.headers.authorization).toBe('Bearer test-key');
        expect(req!.body.stream_options).toEqual({ include_usage: true });
        expect(req!.body.messages[0].role).toBe('system');
        expect(req!.body.messages.at(-1)).toMatchObject({ role: 'user' });
        expect(JSON.stringify(req!.body)).not.toContain('cache_control');
      } else {
        expect(req!.headers['x-api-key']).toBe('test-key');
        expect(req!.body.system[0].cache_control).toEqual({ type: 'ephemeral' });
      }
      // Usage arrived (the OpenAI fake sends it in the last chunk, as include_usage asks).
      expect(await popup.text('[data-usage]')).toMatch(/Tokens: [1-9]\d* in/);
    });

    it(`${kind.name}: runs two parallel tool calls and sends both results back in order`, async () => {
      kind.toolCalls([
        { name: 'create_task', input: { subject: 'First of two' } },
        { name: 'create_task', input: { subject: 'Second of two' } },
      ]);
      kind.text('Both tasks are on the list.');
      await popup.send('Make two tasks');
      await popup.waitForAssistantText('Both tasks are on the list.');
      await popup.idle();
      const cards = await popup.page.$$eval('details[data-tool]', (els) => els.map((el) => `${el.getAttribute('data-tool')} ${el.getAttribute('data-status')}`));
      expect(cards).toEqual(['create_task done', 'create_task done']);
      expect(await popup.text('section[aria-label="Tasks"]')).toMatch(/First of two[\s\S]*Second of two/);
      const second = kind.requests[1]!.body;
      const results = kind.toolResults(second);
      expect(results.map(([id]) => id)).toEqual(kind.callIds(second));
      expect(results.map(([, t]) => t).join('\n')).toMatch(/First of two[\s\S]*Second of two/);
    });

    it(`${kind.name}: stops a run at once`, async () => {
      const g = gate();
      kind.text('Streaming until you press stop, and never further.', { chunk: 5, pause: { afterEvents: 5, gate: g } });
      await popup.send('Go on forever');
      await popup.waitForAssistantText('Streaming');
      await popup.page.click('button[aria-label="Stop"]');
      await popup.waitFor('[data-banner="stopped"]', 5000);
      await popup.idle();
      expect(kind.requests[0]!.aborted).toBe(true);
      expect(await popup.text('[data-role="assistant"]')).toContain('Streaming');
      g.open();
    });

    it(`${kind.name}: retries after a 429 with the server's retry-after`, async () => {
      kind.tooManyRequests();
      kind.text('Served after the retry.');
      await popup.send('Are you there?');
      await popup.waitFor('[data-banner="retrying"]');
      expect(await popup.text('[data-banner="retrying"]')).toMatch(/429.*Retrying in 1 s \(attempt 1 of 5\)/);
      await popup.waitForAssistantText('Served after the retry.');
      expect(kind.requests).toHaveLength(2);
    });

    it(`${kind.name}: shows the bad-key banner and does not retry`, async () => {
      await setSettings(popup.page, { apiKey: 'bad-key' });
      await popup.send('Hello?');
      await popup.waitFor('[data-banner="error-auth"]');
      expect(await popup.text('[data-banner="error-auth"]')).toMatch(kind.badKeyBanner);
      // backoffMs (lib/agent/errors.ts) puts a first retry at most 1.2 s after the error.
      await new Promise((r) => setTimeout(r, 1500));
      expect(kind.requests).toHaveLength(1);
    });
  });
});
