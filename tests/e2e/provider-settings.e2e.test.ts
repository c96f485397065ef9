/**
 * Settings' model provider group in the built extension: the model list and the Test button go
 * through the background (lib/protocol.ts listModels / testProvider) to a fake on 127.0.0.1 with
 * the form's unsaved values, and each outcome reads as one plain line — for both API kinds, an
 * "Other" preset at the Anthropic fake and one at the OpenAI fake, in one browser per engine.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'puppeteer-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { BrowserName, ExtensionBrowser } from '../harness/browsers';
import { sharedBrowser } from '../harness/shared-browser';
import { apiKeyOf, FakeAnthropic, toolCall } from '../harness/fake-anthropic';
import { bearerOf, FakeOpenAI, toolCall as openaiToolCall } from '../harness/fake-openai';

const browsers: BrowserName[] = ['chromium', 'firefox'];

/** What differs between the kinds: the preset, the fake, and how each fake is told and read. */
interface Kind {
  /** For the test names; the preset says which Other it is. */
  label: string;
  provider: 'other-anthropic' | 'other-openai';
  fake: FakeAnthropic | FakeOpenAI;
  /** Scripts one reply that calls the test's tool. */
  scriptToolCall(): void;
  /** Makes the next request fail as a model without tool support does on this API. */
  refuseTools(model: string): string;
  /** The request bodies and keys of the model calls and of the model lists, oldest first. */
  calls(): { body: any; key: string | undefined }[];
  lists(): { key: string | undefined }[];
  badKeyMessage: string;
}

const anthropic = new FakeAnthropic();
const openai = new FakeOpenAI();
const kinds: Kind[] = [
  {
    label: 'the Anthropic kind',
    provider: 'other-anthropic',
    fake: anthropic,
    scriptToolCall: () => void anthropic.script(toolCall('report_ok', { ok: true })),
    refuseTools(model) {
      const message = `registry.ollama.ai/library/${model} does not support tools`;
      anthropic.script({ error: { status: 400, type: 'invalid_request_error', message } });
      return message;
    },
    calls: () => anthropic.requests.map((r) => ({ body: r.body, key: apiKeyOf(r.headers) })),
    lists: () => anthropic.modelListRequests.map((r) => ({ key: apiKeyOf(r.headers) })),
    badKeyMessage: 'invalid x-api-key',
  },
  {
    label: 'the OpenAI kind',
    provider: 'other-openai',
    fake: openai,
    scriptToolCall: () => void openai.script(openaiToolCall('report_ok', { ok: true })),
    // The fake's own mode: Ollama's OpenAI endpoint refusing a request with tools.
    refuseTools(model) {
      openai.noTools = true;
      return `registry.ollama.ai/library/${model} does not support tools`;
    },
    // One fake records both routes; typing a key also fetches the list.
    calls: () => openai.requests.filter((r) => r.method === 'POST').map((r) => ({ body: r.body, key: bearerOf(r.headers) })),
    lists: () => openai.requests.filter((r) => r.method === 'GET').map((r) => ({ key: bearerOf(r.headers) })),
    badKeyMessage: 'Incorrect API key provided: bad-key. You can find your API key at https://platform.openai.com/account/api-keys.',
  },
];

async function fill(page: Page, selector: string, value: string) {
  await page.$eval(selector, (el) => ((el as HTMLInputElement).value = ''));
  await page.type(selector, value);
}

/** Clicks Test and returns the result line once the test has finished. */
async function runTest(page: Page): Promise<string> {
  await page.click('[data-test-provider]');
  await page.waitForFunction(() => ['ok', 'failed'].includes(document.querySelector('[data-provider-test-result]')?.getAttribute('data-state') ?? ''), { polling: 100 });
  return page.$eval('[data-provider-test-result]', (el) => el.textContent?.trim() ?? '');
}

describe.each(browsers)('the model provider settings in %s', (name) => {
  /** A local server that refuses every request as Ollama refuses an Origin it does not allow. */
  const refusing = http.createServer((_req, res) => void res.writeHead(403, { 'content-length': '0' }).end());
  /** A default Ollama: it refuses an extension's Origin, takes its own. */
  const ollama = new FakeAnthropic({ rejectForeignOrigins: true });
  let refusingUrl = '';
  let closedUrl = '';
  let ext: ExtensionBrowser;
  let options: Page;

  beforeAll(async () => {
    await Promise.all([anthropic.start(), openai.start(), ollama.start()]);
    await new Promise<void>((r) => refusing.listen(0, '127.0.0.1', r));
    refusingUrl = `http://127.0.0.1:${(refusing.address() as AddressInfo).port}`;
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    closedUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise<void>((r) => closed.close(() => r()));
  });

  afterAll(async () => {
    refusing.closeAllConnections();
    await new Promise<void>((r) => refusing.close(() => r()));
    await Promise.all([anthropic.stop(), openai.stop(), ollama.stop()]);
  });

  // One browser for every case of both kinds: a launch is the slow part.
  sharedBrowser(name, {
    async onLaunch(e) {
      ext = e;
      options = await ext.open('options.html', { width: 900, height: 800 });
      await options.waitForSelector('#provider');
    },
  });

  beforeEach(() => {
    anthropic.reset();
    openai.reset();
  });

  describe.each(kinds)('for $label', (kind) => {
    // Before each test, not once: a retry's fresh browser starts on the default provider.
    beforeEach(async () => {
      await options.select('#provider', kind.provider);
    });

    it("lists the endpoint's models as the key is typed, and the Test reports a tool call", async () => {
      kind.fake.models = ['fake-model-a', 'fake-model-b'];
      await fill(options, '#baseUrl', kind.fake.url);
      await fill(options, '#apiKey', 'sk-e2e');
      await options.waitForFunction(() => document.querySelector('[data-model-list]')?.getAttribute('data-model-list') === 'done', { polling: 100 });
      expect(await options.$eval('#model-list', (el) => el.textContent?.trim())).toBe('2 models listed by the server: pick one or type a name.');
      expect(await options.$$eval('#model-options option', (os) => os.map((o) => (o as HTMLOptionElement).value))).toEqual(['fake-model-a', 'fake-model-b']);
      expect(kind.lists().at(-1)!.key).toBe('sk-e2e');

      await fill(options, '#model', 'fake-model-a');
      kind.scriptToolCall();
      expect(await runTest(options)).toBe('OK — fake-model-a answered and called the tool.');
      const [call, ...more] = kind.calls();
      expect(more).toEqual([]);
      expect(call!.key).toBe('sk-e2e');
      expect(call!.body).toMatchObject({ model: 'fake-model-a', stream: true });
      // The one test tool, in the kind's own form.
      expect(call!.body.tools.map((t: any) => t.name ?? t.function?.name)).toEqual(['report_ok']);
      // Nothing was saved: the test used the form's values.
      expect(await options.evaluate(async () => ((await ((globalThis as any).browser ?? (globalThis as any).chrome).storage.local.get('settings')).settings ?? null))).toBeNull();
    });

    it('says when the key is refused, and when the model does not call tools', async () => {
      await fill(options, '#baseUrl', kind.fake.url);
      await fill(options, '#model', 'fake-model-a');
      await fill(options, '#apiKey', 'bad-key');
      expect(await runTest(options)).toBe(`The key was refused (HTTP 401): ${kind.badKeyMessage}`);

      await fill(options, '#apiKey', 'sk-e2e');
      const said = kind.refuseTools('fake-model-a');
      expect(await runTest(options)).toBe(`This model does not call tools; Pagewright needs one that does. The server said: ${said}`);
    });

    it('says when the server cannot be reached, and what to allow when a local server refuses the origin', async () => {
      // A model and a key of its own: the form would otherwise hold what an earlier test typed, or nothing.
      await fill(options, '#model', 'fake-model-a');
      await fill(options, '#apiKey', 'sk-e2e');
      await fill(options, '#baseUrl', closedUrl);
      expect(await runTest(options)).toMatch(new RegExp(`^Could not reach ${closedUrl.replace(/[.]/g, '\\.')}: `));

      await fill(options, '#baseUrl', refusingUrl);
      expect(await runTest(options)).toBe(
        `The server at ${refusingUrl} refused the extension's origin (HTTP 403). Allow the origins chrome-extension://* and moz-extension://* in its settings.`,
      );
    });
  });

  it('tests an unsaved local URL as a run will meet it: with the Origin fix, which goes again after', async () => {
    ollama.reset();
    await options.select('#provider', 'ollama');
    await fill(options, '#baseUrl', ollama.url);
    await fill(options, '#model', 'qwen3:8b');
    // The model list the new URL asked for is over (this fake has no /api/tags): its rule too.
    await options.waitForFunction(() => ['done', 'failed'].includes(document.querySelector('[data-model-list]')?.getAttribute('data-model-list') ?? ''), { polling: 100 });
    ollama.script(toolCall('report_ok', { ok: true }));
    expect(await runTest(options)).toBe('OK — qwen3:8b answered and called the tool.');
    const test = ollama.requests.find((r) => r.method === 'POST')!;
    expect(test.refusedOrigin).toBeUndefined();
    expect(test.headers.origin).toBe(ollama.url);
    // Nothing saved names the server, so once the test is over its rule is gone.
    expect(await options.evaluate(async (u) => (await fetch(`${u}/v1/messages`, { method: 'POST', body: '{}' })).status, ollama.url)).toBe(403);
    expect(ollama.requests.at(-1)!.refusedOrigin).toBe(true);
  });
});
