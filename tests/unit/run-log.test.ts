/**
 * The run log's recording side: redaction (field and header names, URL query keys, the user's
 * stored keys anywhere), the recording client against the fake Messages API (events passed
 * through unchanged and in order, the request as sent, errors with their status and body,
 * broken and aborted streams), and the background's wiring through a real RunManager.
 */
import 'fake-indexeddb/auto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLoggedClient } from '../../lib/background/run-log';
import { ConversationStore } from '../../lib/agent/conversation-store';
import type { ModelClient, ModelRequest } from '../../lib/agent/model';
import { createAnthropicClient } from '../../lib/agent/providers/anthropic-messages';
import { makeRedactor, REDACTED, redactDeltas, redactUrl, settingsSecrets } from '../../lib/agent/redact';
import { assembleMessage, recordedResponse, recordingClient, requestBody, type RunRecorder } from '../../lib/agent/run-log';
import { RunManager } from '../../lib/agent/run-manager';
import type { RunLogExchange } from '../../lib/contracts/run-log';
import { defaultSettings, type Settings } from '../../lib/settings';
import { RunLogStore } from '../../lib/storage/run-log-store';
import { ToolRegistry } from '../../lib/tools/registry';
import { taskTools } from '../../lib/tools/tasks';
import { FakeAnthropic, text, toolCall } from '../harness/fake-anthropic';
import { FakeOpenAI, text as openaiText } from '../harness/fake-openai';
import { summarizeTool, testRegistry } from './helpers';

const KEY = 'sk-ant-api03-unit-test-key-0123456789';

describe('redaction', () => {
  const redact = makeRedactor([KEY, 'bing-secret-42', 'abc']);

  it('hides the values of secret-looking headers and fields, at any depth, and keeps the rest', () => {
    const out = redact({
      headers: { 'x-api-key': 'k1', Authorization: 'Bearer k2', 'set-cookie': ['a=1', 'b=2'], 'Ocp-Apim-Subscription-Key': 'k3', 'content-type': 'application/json' },
      body: { apiKey: 'k4', nested: [{ access_token: 'k5', client_secret: 'k6', password: 'k7', refreshToken: 'k8', auth: 'k9', author: 'Ada' }] },
      usage: { input_tokens: 12, output_tokens: 3, max_tokens: 1024 },
      // The press-key tool's input: bare `key` is not a secret.
      input: { key: 'Enter' },
      // A tool schema that describes an api_key parameter keeps its description.
      input_schema: { properties: { api_key: { type: 'string', description: 'The service key' } } },
    });
    expect(out).toEqual({
      headers: { 'x-api-key': REDACTED, Authorization: REDACTED, 'set-cookie': [REDACTED, REDACTED], 'Ocp-Apim-Subscription-Key': REDACTED, 'content-type': 'application/json' },
      body: { apiKey: REDACTED, nested: [{ access_token: REDACTED, client_secret: REDACTED, password: REDACTED, refreshToken: REDACTED, auth: REDACTED, author: 'Ada' }] },
      usage: { input_tokens: 12, output_tokens: 3, max_tokens: 1024 },
      input: { key: 'Enter' },
      input_schema: { properties: { api_key: { type: 'string', description: 'The service key' } } },
    });
  });

  it('takes the stored keys, bearer credentials and Anthropic keys out of free text; short stored values are not searched for', () => {
    const out = redact({
      text: `my key is ${KEY}, the bing one bing-secret-42; header Authorization: Bearer abcdefghijk123; another sk-ant-zzzzzzzzzzzz; abc stays`,
    });
    expect(out.text).toBe(`my key is ${REDACTED}, the bing one ${REDACTED}; header Authorization: Bearer ${REDACTED}; another ${REDACTED}; abc stays`);
  });

  it('hides secret query parameters and passwords in URLs, wherever a string holds one', () => {
    expect(redactUrl('https://www.googleapis.com/customsearch/v1?key=AIzaXYZ&cx=123&q=cats')).toBe(`https://www.googleapis.com/customsearch/v1?key=${REDACTED}&cx=123&q=cats`);
    expect(redactUrl('https://graph.facebook.com/v21.0/me?access_token=EAAB&fields=id')).toBe(`https://graph.facebook.com/v21.0/me?access_token=${REDACTED}&fields=id`);
    expect(redactUrl('https://user:hunter2@example.com/x')).toBe(`https://user:${REDACTED}@example.com/x`);
    // A URL without a secret is left exactly as written.
    expect(redactUrl('https://example.com/a b?q=1&q=2')).toBe('https://example.com/a b?q=1&q=2');
    expect(redactUrl('not a url')).toBe('not a url');
    const out = redact({ content: 'fetched https://api.example.com/v1/search?q=x&api_key=s3cr3t&page=2 and http://x.test/?sig=zz.' });
    expect(out.content).toBe(`fetched https://api.example.com/v1/search?q=x&api_key=${REDACTED}&page=2 and http://x.test/?sig=${REDACTED}.`);
  });

  it('finds every secret the settings hold, and nothing else', () => {
    const s: Settings = {
      ...defaultSettings(),
      apiKey: KEY,
      bingApiKey: 'b-key',
      googleApiKey: 'g-key',
      googleCx: 'cx-not-secret',
      instagramAccessToken: 'ig-token',
      whatsappAccessToken: 'wa-token',
      model: 'claude-x',
      // Another provider's saved key is as secret as the main one; its URL is not.
      providerConfigs: { openai: { baseUrl: 'https://api.openai.com/v1', apiKey: 'sk-openai', authHeader: 'bearer' } },
    };
    expect(settingsSecrets(s).sort()).toEqual([KEY, 'b-key', 'g-key', 'ig-token', 'wa-token', 'sk-openai'].sort());
  });
});

describe('redacting stream deltas', () => {
  const delta = (index: number, type: string, field: string, value: string) => ({ type: 'content_block_delta', index, delta: { type, [field]: value } });
  const joined = (events: any[], index: number, field: string) => events.filter((e) => e.index === index && e.delta?.[field] !== undefined).map((e) => e.delta[field]).join('');

  it('takes out a secret that arrives split over several deltas, per block, leaving other events alone', () => {
    const events = [
      { type: 'message_start', message: { content: [] } },
      delta(0, 'text_delta', 'text', 'the key is sk-12'),
      delta(1, 'input_json_delta', 'partial_json', '{"k":"sk-1'),
      delta(0, 'text_delta', 'text', '3456'),
      delta(0, 'text_delta', 'text', '78 and again sk-12345678'),
      delta(1, 'input_json_delta', 'partial_json', '2345678"}'),
      { type: 'message_stop' },
    ];
    const out = redactDeltas(events, ['sk-12345678']) as any[];
    expect(joined(out, 0, 'text')).toBe(`the key is ${REDACTED} and again ${REDACTED}`);
    expect(JSON.parse(joined(out, 1, 'partial_json'))).toEqual({ k: REDACTED });
    expect(out).toHaveLength(events.length);
    expect(out[0]).toBe(events[0]);
    expect(out.at(-1)).toBe(events.at(-1));
    expect(JSON.stringify(out)).not.toContain('sk-12345678');
    // The input is never changed.
    expect((events[3] as any).delta.text).toBe('3456');
  });

  it('leaves the events as they are when no secret occurs', () => {
    const events = [delta(0, 'text_delta', 'text', 'plain'), delta(0, 'text_delta', 'text', ' text')];
    expect(redactDeltas(events, ['sk-12345678'])).toEqual(events);
  });
});

describe('assembling a reply', () => {
  it('applies text, tool-input and thinking deltas to their blocks, and message_delta to the message', () => {
    const message = assembleMessage([
      { type: 'message_start', message: { id: 'm1', role: 'assistant', content: [], usage: { input_tokens: 5, output_tokens: 1 } } },
      { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'hm' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'sig' } },
      { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'Hel' } },
      { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'lo' } },
      { type: 'content_block_start', index: 2, content_block: { type: 'tool_use', id: 't1', name: 'x', input: {} } },
      { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '{"a":' } },
      { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '1}' } },
      { type: 'content_block_start', index: 3, content_block: { type: 'tool_use', id: 't2', name: 'y', input: {} } },
      { type: 'content_block_delta', index: 3, delta: { type: 'input_json_delta', partial_json: '{"cut' } },
      { type: 'message_delta', delta: { stop_reason: 'max_tokens' }, usage: { output_tokens: 9 } },
      { type: 'message_stop' },
    ]);
    expect(message).toEqual({
      id: 'm1',
      role: 'assistant',
      stop_reason: 'max_tokens',
      usage: { input_tokens: 5, output_tokens: 9 },
      content: [
        { type: 'thinking', thinking: 'hm', signature: 'sig' },
        { type: 'text', text: 'Hello' },
        { type: 'tool_use', id: 't1', name: 'x', input: { a: 1 } },
        // Unfinished JSON is kept as received.
        { type: 'tool_use', id: 't2', name: 'y', input: {}, input_json: '{"cut' },
      ],
    });
  });

  it('keeps events within the budget, dropping only content deltas past it (counted), the reply still whole', () => {
    const events = [
      { t: 0, event: { type: 'message_start', message: { content: [] } } },
      { t: 1, event: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } } },
      ...Array.from({ length: 100 }, (_, i) => ({ t: 2 + i, event: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'x'.repeat(50) } } })),
      { t: 200, event: { type: 'content_block_stop', index: 0 } },
      { t: 201, event: { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 100 } } },
      { t: 202, event: { type: 'message_stop' } },
    ];
    const r = recordedResponse(events, 2_000);
    expect(r.eventCount).toBe(105);
    expect(r.eventsDropped).toBeGreaterThan(80);
    expect(r.events.length + r.eventsDropped).toBe(105);
    expect(r.events.map((e) => (e.event as any).type).filter((t) => t !== 'content_block_delta')).toEqual(['message_start', 'content_block_start', 'content_block_stop', 'message_delta', 'message_stop']);
    expect((r.message as any).content[0].text).toBe('x'.repeat(5000));
  });
});

const fake = new FakeAnthropic();
beforeAll(() => fake.start());
afterAll(() => fake.stop());
beforeEach(() => fake.reset());

/** A recorder that keeps what it is handed, running the deferred work at once. */
function memoryRecorder(secrets: string[] = [KEY]) {
  const exchanges: RunLogExchange[] = [];
  const recorder: RunRecorder = { secrets, record: (e) => void exchanges.push(e) };
  return { exchanges, recorder };
}

const request = (text: string): ModelRequest => ({
  model: 'fake-model',
  maxTokens: 256,
  system: [{ type: 'text', text: 'You are a test.' }],
  tools: [{ name: 'noop', description: 'Does nothing.', input_schema: { type: 'object', properties: {} } }],
  messages: [{ role: 'user', content: text }],
});

async function drain(client: ModelClient, req: ModelRequest, signal = new AbortController().signal) {
  const seen: unknown[] = [];
  for await (const ev of await client.stream(req, signal)) seen.push(ev);
  return seen;
}

const settle = () => new Promise((r) => setTimeout(r, 5));

describe('recordingClient against the fake Messages API', () => {
  const real = () => createAnthropicClient({ apiKey: KEY, baseUrl: fake.url });

  it('passes every event through unchanged and in order, and records the request as sent with its events and timings', async () => {
    const { exchanges, recorder } = memoryRecorder();
    fake.script({ ...text('Hello there, in pieces.'), chunk: 3 }, toolCall('noop', { n: 1 }));
    const wrapped = recordingClient(real(), recorder, { defer: (w) => w() });
    const seen = await drain(wrapped, request('hi'));
    const seenTypes = seen.map((e: any) => e.type);
    expect(seenTypes[0]).toBe('message_start');
    expect(seenTypes.at(-1)).toBe('message_stop');
    expect(seen.filter((e: any) => e.type === 'content_block_delta').map((e: any) => e.delta.text).join('')).toBe('Hello there, in pieces.');

    expect(exchanges).toHaveLength(1);
    const [ex] = exchanges;
    expect(ex!.outcome).toBe('ok');
    expect(ex!.index).toBe(0);
    expect(ex!.request).toEqual(fake.requests[0]!.body);
    // The very objects the consumer saw, in the same order.
    expect(ex!.response!.events.map((e) => e.event)).toEqual(seen);
    expect(ex!.response!.eventCount).toBe(seen.length);
    expect((ex!.response!.message as any).content).toEqual([{ type: 'text', text: 'Hello there, in pieces.' }]);
    expect(ex!.firstEventMs).toBeGreaterThanOrEqual(0);
    expect(ex!.durationMs).toBeGreaterThanOrEqual(ex!.firstEventMs!);
    expect(JSON.stringify(exchanges)).not.toContain(KEY);

    const second = await drain(wrapped, request('again'));
    expect(exchanges[1]!.index).toBe(1);
    expect((exchanges[1]!.response!.message as any).content[0]).toMatchObject({ type: 'tool_use', name: 'noop', input: { n: 1 } });
    expect(second.length).toBeGreaterThan(4);
  });

  it('never holds the stream up: the recorder gets the exchange only after the last event was handed on', async () => {
    const order: string[] = [];
    const recorder: RunRecorder = { secrets: [], record: () => void order.push('recorded') };
    fake.script(text('ok'));
    const wrapped = recordingClient(real(), recorder);
    for await (const ev of await wrapped.stream(request('x'), new AbortController().signal)) order.push((ev as any).type);
    order.push('consumer done');
    await settle();
    expect(order.at(-1)).toBe('recorded');
    expect(order.at(-2)).toBe('consumer done');
  });

  it('records an HTTP error with its status, body and headers (secret-looking ones redacted), and rethrows it unchanged', async () => {
    const { exchanges, recorder } = memoryRecorder();
    fake.script({ error: { status: 529, type: 'overloaded_error', message: 'Overloaded', headers: { 'set-cookie': 'session=s3cr3t', 'request-id': 'req_123' } } });
    const wrapped = recordingClient(real(), recorder, { defer: (w) => w() });
    const thrown = await drain(wrapped, request('x')).catch((e: unknown) => e);
    expect((thrown as any).status).toBe(529);
    expect(exchanges).toHaveLength(1);
    const ex = exchanges[0]!;
    expect(ex.outcome).toBe('error');
    expect(ex.response).toBeUndefined();
    expect(ex.error).toMatchObject({ status: 529, body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }, requestId: 'req_123' });
    expect(ex.error!.headers!['set-cookie']).toBe(REDACTED);
    expect(ex.error!.message).toContain('Overloaded');
    expect(ex.request).toEqual(fake.requests[0]!.body);
  });

  it('records a stream that breaks mid-reply as an error, with the events that came', async () => {
    const { exchanges, recorder } = memoryRecorder();
    fake.script({ ...text('a long reply that breaks'), chunk: 2, breakAfter: 5, delayMs: 5 });
    const wrapped = recordingClient(real(), recorder, { defer: (w) => w() });
    const thrown = await drain(wrapped, request('x')).catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(Error);
    expect(exchanges[0]!.outcome).toBe('error');
    expect(exchanges[0]!.response!.eventCount).toBe(5);
    expect(exchanges[0]!.error!.message).toBeTruthy();
  });

  it('records an aborted request as aborted', async () => {
    const { exchanges, recorder } = memoryRecorder();
    fake.script({ ...text('slow reply '.repeat(20)), chunk: 5, delayMs: 30 });
    const wrapped = recordingClient(real(), recorder, { defer: (w) => w() });
    const controller = new AbortController();
    const seen: unknown[] = [];
    // The SDK ends the iteration quietly on an abort (the loop tells by the signal).
    await (async () => {
      for await (const ev of await wrapped.stream(request('x'), controller.signal)) {
        seen.push(ev);
        if (seen.length === 3) controller.abort();
      }
    })().catch(() => {});
    expect(exchanges[0]!.outcome).toBe('aborted');
    expect(exchanges[0]!.response!.eventCount).toBeGreaterThanOrEqual(3);
  });

  it('records a consumer that stops early (before message_stop) as an error', async () => {
    const { exchanges, recorder } = memoryRecorder();
    fake.script({ ...text('one two three four'), chunk: 2 });
    const wrapped = recordingClient(real(), recorder, { defer: (w) => w() });
    for await (const ev of await wrapped.stream(request('x'), new AbortController().signal)) {
      if ((ev as any).type === 'content_block_delta') break;
    }
    expect(exchanges[0]!.outcome).toBe('error');
    expect(exchanges[0]!.error!.message).toBe('The stream ended before message_stop.');
  });

  it('passes the client through untouched when the recorder settles to undefined, and forwards other members', async () => {
    const inner = { stream: real().stream, countTokens: async () => 42 } as ModelClient & { countTokens(): Promise<number> };
    const wrapped = recordingClient(inner, Promise.resolve(undefined)) as typeof inner;
    fake.script(text('plain'));
    const seen = await drain(wrapped, request('x'));
    expect(seen.at(-1)).toMatchObject({ type: 'message_stop' });
    expect(await wrapped.countTokens()).toBe(42);
  });

  it('serialises the request when it is sent, so a later change to the messages is not recorded', async () => {
    const { exchanges, recorder } = memoryRecorder();
    let deferred: (() => void) | undefined;
    fake.script(text('ok'));
    const req = request('original');
    const wrapped = recordingClient(real(), recorder, { defer: (w) => (deferred = w) });
    await drain(wrapped, req);
    (req.messages as any[]).push({ role: 'assistant', content: 'added later' });
    deferred!();
    expect(exchanges[0]!.request).toEqual(requestBody(request('original')));
  });
});

describe('the background wiring through a real RunManager', () => {
  const stores: { close(): void }[] = [];
  afterEach(() => {
    for (const s of stores.splice(0)) s.close();
  });

  async function run(runLog: boolean) {
    const settings: Settings = { ...defaultSettings(), apiKey: 'test-key', bingApiKey: 'bing-key-1234', baseUrl: fake.url, model: 'fake-model', maxTokens: 512, runLog };
    const conversations = await ConversationStore.open(`rl-conv-${crypto.randomUUID()}`);
    const log = await RunLogStore.open(indexedDB, { name: `rl-${crypto.randomUUID()}` });
    stores.push(conversations, log);
    const manager = new RunManager({
      store: conversations,
      registry: testRegistry(),
      loadSettings: async () => settings,
      createClient: createLoggedClient({ log: Promise.resolve(log), loadSettings: async () => settings }),
    });
    // The model echoes a key in small pieces: no single event holds it whole.
    fake.script({ ...toolCall('create_task', { subject: 'Look up bing-key-1234' }), chunk: 1 }, text('Done.'));
    const id = await manager.send(undefined, 'Plan it with test-key');
    await manager.settled(id);
    await settle();
    await log.flushed();
    return { id, log };
  }

  it('with the run log on, keeps the run: its requests exactly as the fake received them, the keys nowhere', async () => {
    const { id, log } = await run(true);
    const { items: runs } = await log.runs();
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ conversationId: id, title: `Plan it with ${REDACTED}`, endpoint: fake.url, models: ['fake-model'], requests: 2, failed: 0, status: 'ok', dropped: 0 });
    const { items } = await log.exchanges(runs[0]!.id);
    expect(items).toHaveLength(2);
    // The second request repeats the first's system, tools and message: stored once, read back whole.
    const redacted = (body: unknown) => JSON.parse(JSON.stringify(body).replaceAll('bing-key-1234', REDACTED).replaceAll('test-key', REDACTED));
    expect(items[0]!.request).toEqual(redacted(fake.requests[0]!.body));
    expect(items[1]!.request).toEqual(redacted(fake.requests[1]!.body));
    expect((items[0]!.response!.message as any).content[0].input).toEqual({ subject: `Look up ${REDACTED}` });
    expect(items[0]!.response!.eventCount).toBeGreaterThan(10);
    const file = JSON.stringify(await log.file());
    expect(file).not.toContain('test-key');
    expect(file).not.toContain('bing-key-1234');
    expect(file).toContain('Done.');
  });

  it("keeps a run whose summaries go to another provider as one entry, its requests numbered in order", async () => {
    const summaries = new FakeOpenAI();
    await summaries.start();
    try {
      const settings: Settings = {
        ...defaultSettings(),
        apiKey: 'test-key',
        baseUrl: fake.url,
        model: 'fake-model',
        maxTokens: 512,
        runLog: true,
        summaryProvider: 'other-openai',
        summaryModel: 'local-summariser',
        providerConfigs: { 'other-openai': { baseUrl: summaries.url, apiKey: 'sk-local-secret', authHeader: 'bearer' } },
      };
      const conversations = await ConversationStore.open(`rl-conv-${crypto.randomUUID()}`);
      const log = await RunLogStore.open(indexedDB, { name: `rl-${crypto.randomUUID()}` });
      stores.push(conversations, log);
      const manager = new RunManager({
        store: conversations,
        registry: new ToolRegistry([...taskTools, summarizeTool]),
        loadSettings: async () => settings,
        createClient: createLoggedClient({ log: Promise.resolve(log), loadSettings: async () => settings }),
      });
      fake.script(toolCall('summarize_text', { text: 'A page.' }), text('Done.'));
      summaries.script(openaiText('The gist.'));
      const id = await manager.send(undefined, 'Summarise');
      await manager.settled(id);
      await settle();
      await log.flushed();
      const { items: runs } = await log.runs();
      expect(runs).toHaveLength(1);
      expect(runs[0]).toMatchObject({ conversationId: id, endpoint: fake.url, requests: 3 });
      const { items } = await log.exchanges(runs[0]!.id);
      expect(items.map((e) => e.index)).toEqual([0, 1, 2]);
      expect(items.map((e) => (e.request as { model: string }).model)).toEqual(['fake-model', 'local-summariser', 'fake-model']);
      // The other provider's saved key is redacted like the main one.
      expect(JSON.stringify(await log.file())).not.toContain('sk-local-secret');
    } finally {
      await summaries.stop();
    }
  });

  it('with the run log off, records nothing', async () => {
    const { log } = await run(false);
    expect((await log.runs()).items).toEqual([]);
    expect(fake.requests).toHaveLength(2);
  });
});
