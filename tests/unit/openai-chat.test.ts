import type Anthropic from '@anthropic-ai/sdk';
import * as v from 'valibot';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isPromptTooLong, reportedTokens } from '../../lib/agent/context';
import { classifyModelError, isAbort } from '../../lib/agent/errors';
import { runLoop } from '../../lib/agent/loop';
import type { ModelEndpoint, ModelRequest } from '../../lib/agent/model';
import { createOpenAIChatClient, dialectOf } from '../../lib/agent/providers/openai-chat';
import type { StoredMessage } from '../../lib/contracts/conversation';
import { defineTool, ToolRegistry } from '../../lib/tools/registry';
import { FakeOpenAI, gate, lastToolResults, text, toolCall, toolCalls, type ScriptedReply } from '../harness/fake-openai';
import { loopOptions, recorder, STUB_FACTS, userText } from './helpers';

const fake = new FakeOpenAI();
beforeAll(() => fake.start());
afterAll(() => fake.stop());
beforeEach(() => fake.reset());

const client = (extra: Partial<ModelEndpoint> = {}) => createOpenAIChatClient({ apiKey: 'test-key', baseUrl: `${fake.url}/`, kind: 'openai', ...extra });

const request = (messages: Anthropic.MessageParam[], extra: Partial<ModelRequest> = {}): ModelRequest => ({
  model: 'fake-model',
  maxTokens: 512,
  system: [{ type: 'text', text: 'You are a test.', cache_control: { type: 'ephemeral' } }],
  tools: [],
  messages,
  ...extra,
});

async function events(req: ModelRequest, endpoint: Partial<ModelEndpoint> = {}, signal = new AbortController().signal) {
  const out: Anthropic.RawMessageStreamEvent[] = [];
  for await (const ev of await client(endpoint).stream(req, signal)) out.push(ev);
  return out;
}

/** What a stream's events build, as the loop reads them: blocks by index, stop reason, usage. */
function assembled(evs: Anthropic.RawMessageStreamEvent[]) {
  const blocks: { type: string; text?: string; id?: string; name?: string; json?: string }[] = [];
  let stop: string | null = null;
  let usage: Anthropic.MessageDeltaUsage | undefined;
  for (const ev of evs) {
    if (ev.type === 'content_block_start') {
      const b = ev.content_block;
      blocks[ev.index] = b.type === 'tool_use' ? { type: 'tool_use', id: b.id, name: b.name, json: '' } : { type: 'text', text: '' };
    } else if (ev.type === 'content_block_delta') {
      if (ev.delta.type === 'text_delta') blocks[ev.index]!.text += ev.delta.text;
      if (ev.delta.type === 'input_json_delta') blocks[ev.index]!.json += ev.delta.partial_json;
    } else if (ev.type === 'message_delta') {
      stop = ev.delta.stop_reason;
      usage = ev.usage;
    }
  }
  return { blocks, stop, usage, types: evs.map((e) => e.type) };
}

async function thrown(reply: ScriptedReply, endpoint: Partial<ModelEndpoint> = {}) {
  fake.script(reply);
  try {
    await events(request([{ role: 'user', content: 'hi' }]), endpoint);
  } catch (e) {
    return e;
  }
  throw new Error('expected the stream to fail');
}

describe('OpenAI Chat Completions client: the request', () => {
  it('translates system, images, tool calls and tool results (in order, as role "tool"), and drops cache_control', async () => {
    fake.script(text('ok'));
    const png = 'iVBORw0KGgo=';
    const tools: Anthropic.Tool[] = [
      { name: 'echo', description: 'Echoes.', input_schema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
      { name: 'shot', description: 'Screenshot.', input_schema: { type: 'object', properties: {} }, cache_control: { type: 'ephemeral' } },
    ];
    await events(
      request(
        [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Look at these.' },
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } },
              { type: 'image', source: { type: 'url', url: 'https://img.example/a.jpg' } },
            ],
          },
          {
            role: 'assistant',
            content: [
              { type: 'text', text: 'Checking.' },
              { type: 'tool_use', id: 'call_1', name: 'echo', input: { text: 'a' } },
              { type: 'tool_use', id: 'call_2', name: 'shot', input: {} },
            ],
          },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 'call_1', content: 'a' },
              {
                type: 'tool_result',
                tool_use_id: 'call_2',
                is_error: false,
                content: [
                  { type: 'text', text: 'Here it is.' },
                  { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: '/9j/' } },
                ],
              },
              { type: 'text', text: 'And now?', cache_control: { type: 'ephemeral' } },
            ],
          },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'call_3', name: 'echo', input: { text: 'b' } }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_3', content: 'Invalid arguments for echo: text is missing.', is_error: true }] },
        ],
        { tools, system: [{ type: 'text', text: 'Part one.' }, { type: 'text', text: 'Part two.', cache_control: { type: 'ephemeral' } }] },
      ),
    );
    const req = fake.requests[0]!;
    expect(req.method).toBe('POST');
    expect(req.path).toBe('/v1/chat/completions');
    const body = req.body;
    expect(JSON.stringify(body)).not.toContain('cache_control');
    expect(body).toMatchObject({ model: 'fake-model', stream: true, stream_options: { include_usage: true }, max_tokens: 512 });
    expect(body).not.toHaveProperty('max_completion_tokens');
    expect(body).not.toHaveProperty('parallel_tool_calls');
    expect(body.tools).toEqual([
      { type: 'function', function: { name: 'echo', description: 'Echoes.', parameters: tools[0]!.input_schema } },
      { type: 'function', function: { name: 'shot', description: 'Screenshot.', parameters: { type: 'object', properties: {} } } },
    ]);
    expect(body.messages).toEqual([
      { role: 'system', content: 'Part one.\n\nPart two.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Look at these.' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } },
          { type: 'image_url', image_url: { url: 'https://img.example/a.jpg' } },
        ],
      },
      {
        role: 'assistant',
        content: 'Checking.',
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'echo', arguments: '{"text":"a"}' } },
          { id: 'call_2', type: 'function', function: { name: 'shot', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'a' },
      { role: 'tool', tool_call_id: 'call_2', content: 'Here it is.\n[This result includes an image: it follows in the next user message.]' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Image from tool call call_2:' },
          { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,/9j/' } },
          { type: 'text', text: 'And now?' },
        ],
      },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_3', type: 'function', function: { name: 'echo', arguments: '{"text":"b"}' } }] },
      // An error result keeps its own words, nothing added.
      { role: 'tool', tool_call_id: 'call_3', content: 'Invalid arguments for echo: text is missing.' },
    ]);
    expect(lastToolResults(body)).toEqual([{ toolCallId: 'call_3', content: 'Invalid arguments for echo: text is missing.' }]);
  });

  it('sends no tools field without tools, and the SDK has no retries of its own', async () => {
    fake.script({ error: { status: 500, message: 'boom', type: 'server_error' } });
    await expect(events(request([{ role: 'user', content: 'hi' }]))).rejects.toThrow(/boom/);
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]!.body).not.toHaveProperty('tools');
    expect(fake.requests[0]!.body.messages).toEqual([
      { role: 'system', content: 'You are a test.' },
      { role: 'user', content: 'hi' },
    ]);
  });

  it("uses max_completion_tokens on OpenAI's own API, and leaves stream_options out for Mistral", () => {
    expect(dialectOf('https://api.openai.com/v1')).toEqual({ tokenLimit: 'max_completion_tokens', streamOptions: true });
    expect(dialectOf('https://api.mistral.ai/v1')).toEqual({ tokenLimit: 'max_tokens', streamOptions: false });
    expect(dialectOf('http://localhost:11434/v1')).toEqual({ tokenLimit: 'max_tokens', streamOptions: true });
  });

  it.each([
    ['bearer', 'k1', { authorization: 'Bearer k1' }, ['x-api-key']],
    ['x-api-key', 'k2', { 'x-api-key': 'k2' }, ['authorization']],
    ['none', 'k3', {}, ['authorization', 'x-api-key']],
    [undefined, 'k4', { authorization: 'Bearer k4' }, ['x-api-key']],
    ['bearer', '', {}, ['authorization', 'x-api-key']],
  ] as const)('auth header style %s sends only what it should', async (style, apiKey, present, absent) => {
    fake.script(text('ok'));
    await events(request([{ role: 'user', content: 'hi' }]), { apiKey, ...(style ? { authHeader: style } : {}) });
    const headers = fake.requests[0]!.headers;
    expect(headers).toMatchObject(present);
    for (const h of absent) expect(headers).not.toHaveProperty(h);
  });
});

describe('OpenAI Chat Completions client: the stream', () => {
  it('streams text as one text block, with message_start first and message_stop last', async () => {
    fake.script(text('Hello from the fake OpenAI model.', { chunk: 5 }));
    const evs = await events(request([{ role: 'user', content: 'hi' }]));
    const { blocks, stop, types } = assembled(evs);
    expect(blocks).toEqual([{ type: 'text', text: 'Hello from the fake OpenAI model.' }]);
    expect(stop).toBe('end_turn');
    expect(types[0]).toBe('message_start');
    expect(types.filter((t) => t === 'content_block_delta').length).toBeGreaterThan(3);
    expect(types.slice(-3)).toEqual(['content_block_stop', 'message_delta', 'message_stop']);
    const start = evs[0] as Anthropic.RawMessageStartEvent;
    expect(start.message.usage).toMatchObject({ input_tokens: 0, output_tokens: 0 });
  });

  it('assembles two parallel tool calls interleaved by index, each its own block after the text', async () => {
    const a = { query: 'first', n: 1, nested: { list: [1, 2, 3], deep: 'x'.repeat(90) } };
    const b = { query: 'second', flags: ['a', 'b'], long: 'y'.repeat(120) };
    fake.script({
      content: [
        { type: 'text', text: 'Two at once.' },
        { type: 'tool_use', name: 'search', input: a, id: 'call_a' },
        { type: 'tool_use', name: 'fetch', input: b, id: 'call_b' },
      ],
      chunk: 4,
    });
    const evs = await events(request([{ role: 'user', content: 'go' }]));
    const { blocks, stop } = assembled(evs);
    expect(blocks.map((x) => x.type)).toEqual(['text', 'tool_use', 'tool_use']);
    expect(blocks[0]!.text).toBe('Two at once.');
    expect(blocks[1]).toMatchObject({ id: 'call_a', name: 'search' });
    expect(blocks[2]).toMatchObject({ id: 'call_b', name: 'fetch' });
    expect(JSON.parse(blocks[1]!.json!)).toEqual(a);
    expect(JSON.parse(blocks[2]!.json!)).toEqual(b);
    expect(stop).toBe('tool_use');
    // The deltas really were interleaved: block 2's first piece came before block 1's last.
    const deltaIndices = evs.flatMap((e) => (e.type === 'content_block_delta' && e.delta.type === 'input_json_delta' ? [e.index] : []));
    expect(deltaIndices.indexOf(2)).toBeLessThan(deltaIndices.lastIndexOf(1));
    // Each block started once and stopped once.
    expect(evs.filter((e) => e.type === 'content_block_start').map((e) => (e as { index: number }).index)).toEqual([0, 1, 2]);
    expect(evs.filter((e) => e.type === 'content_block_stop').map((e) => (e as { index: number }).index)).toEqual([0, 1, 2]);
  });

  it('starts tool blocks at index 0 when no text comes first, and passes malformed arguments through as they are', async () => {
    fake.script(toolCalls([{ name: 'echo', input: { text: 'ok' } }, { name: 'echo', rawArguments: '{"text": "unterminated' }]));
    const { blocks } = assembled(await events(request([{ role: 'user', content: 'go' }])));
    expect(blocks.map((x) => x.type)).toEqual(['tool_use', 'tool_use']);
    expect(blocks[1]!.json).toBe('{"text": "unterminated');
  });

  it('maps usage in the Messages meaning: cached prompt tokens are cache reads, not input', async () => {
    fake.script(text('ok', { usage: { prompt_tokens: 1000, completion_tokens: 42, cached_tokens: 600 } }));
    const { usage } = assembled(await events(request([{ role: 'user', content: 'hi' }])));
    expect(usage).toMatchObject({ input_tokens: 400, cache_read_input_tokens: 600, cache_creation_input_tokens: 0, output_tokens: 42 });
  });

  it.each([
    ['stop', 'end_turn'],
    ['length', 'max_tokens'],
    ['tool_calls', 'tool_use'],
    ['function_call', 'tool_use'],
    ['content_filter', 'refusal'],
  ] as const)('maps finish_reason %s to stop_reason %s', async (finishReason, stopReason) => {
    fake.script(text('x', { finishReason }));
    expect(assembled(await events(request([{ role: 'user', content: 'hi' }]))).stop).toBe(stopReason);
  });

  it('calls a reply with tool calls tool_use even when the server says "stop"', async () => {
    fake.script(toolCall('echo', { text: 'a' }, { finishReason: 'stop' }));
    expect(assembled(await events(request([{ role: 'user', content: 'hi' }]))).stop).toBe('tool_use');
  });

  it('gives a stream that ends without a finish_reason no message_stop', async () => {
    fake.script(text('half a reply', { noFinish: true }));
    const { types } = assembled(await events(request([{ role: 'user', content: 'hi' }])));
    expect(types).toContain('content_block_delta');
    expect(types).not.toContain('message_delta');
    expect(types).not.toContain('message_stop');
  });

  it('fails a stream whose connection breaks, without a message_stop, as a stream error mid-reply', async () => {
    fake.script(text('a long reply that breaks off', { chunk: 2, breakAfter: 4, delayMs: 5 }));
    const seen: string[] = [];
    let error: unknown;
    try {
      for await (const ev of await client().stream(request([{ role: 'user', content: 'hi' }]), new AbortController().signal)) seen.push(ev.type);
    } catch (e) {
      error = e;
    }
    expect(error).toBeDefined();
    expect(seen).toContain('content_block_delta');
    expect(seen).not.toContain('message_stop');
    expect(classifyModelError(error, true).error.kind).toBe('stream');
  });
});

describe('OpenAI Chat Completions client: errors, classified as for Anthropic', () => {
  it('401 for a bad key is auth, with the API own message', async () => {
    const e = await thrown(text('never'), { apiKey: 'bad-key' });
    expect(classifyModelError(e, false)).toEqual({
      retryable: false,
      error: { kind: 'auth', status: 401, message: expect.stringMatching(/^Incorrect API key provided/) },
    });
  });

  it('404 for an unknown model is not_found', async () => {
    const message = 'The model `gpt-nope` does not exist or you do not have access to it.';
    const e = await thrown({ error: { status: 404, message, code: 'model_not_found' } });
    expect(classifyModelError(e, false)).toEqual({ retryable: false, error: { kind: 'not_found', status: 404, message } });
  });

  it('429 is retried after its retry-after; 500 is retried', async () => {
    const limited = await thrown({ error: { status: 429, message: 'Rate limit reached for requests', type: 'requests', code: 'rate_limit_exceeded', headers: { 'retry-after': '3' } } });
    expect(classifyModelError(limited, false)).toEqual({
      retryable: true,
      retryAfterMs: 3000,
      error: { kind: 'other', status: 429, message: 'Rate limit reached for requests' },
    });
    const broken = await thrown({ error: { status: 500, message: 'The server had an error while processing your request.', type: 'server_error' } });
    expect(classifyModelError(broken, false)).toMatchObject({ retryable: true, error: { kind: 'other', status: 500 } });
  });

  it('429 insufficient_quota is final: waiting does not refill a balance', async () => {
    const e = await thrown({ error: { status: 429, message: 'You exceeded your current quota.', type: 'insufficient_quota', code: 'insufficient_quota' } });
    expect(classifyModelError(e, false)).toEqual({ retryable: false, error: { kind: 'other', status: 429, message: 'You exceeded your current quota.' } });
  });

  it('a model without tool support is a bad request saying so', async () => {
    fake.noTools = true;
    fake.script(text('never'));
    let error: unknown;
    try {
      await events(request([{ role: 'user', content: 'hi' }], { tools: [{ name: 'echo', input_schema: { type: 'object', properties: {} } }] }));
    } catch (e) {
      error = e;
    }
    expect(classifyModelError(error, false)).toEqual({
      retryable: false,
      error: { kind: 'bad_request', status: 400, message: 'registry.ollama.ai/library/fake-model does not support tools' },
    });
  });

  it("context overflow: OpenAI's 400 and llama.cpp's (even sent as a 500) are bad requests the context manager reads", async () => {
    const openai = await thrown({
      error: {
        status: 400,
        message: "This model's maximum context length is 128000 tokens. However, your messages resulted in 130532 tokens. Please reduce the length of the messages.",
        param: 'messages',
        code: 'context_length_exceeded',
      },
    });
    const c = classifyModelError(openai, false);
    expect(c).toMatchObject({ retryable: false, error: { kind: 'bad_request', status: 400 } });
    expect(isPromptTooLong(c.error.message)).toBe(true);
    expect(reportedTokens(c.error.message)).toEqual({ tokens: 130_532, maximum: 128_000 });

    const llama = await thrown({
      error: {
        status: 500,
        message: 'the request exceeds the available context size. try increasing the context size or enable context shift',
        type: 'exceed_context_size_error',
        extra: { code: 500, n_prompt_tokens: 1407, n_ctx: 256 },
      },
    });
    const l = classifyModelError(llama, false);
    expect(l).toMatchObject({ retryable: false, error: { kind: 'bad_request', status: 400 } });
    expect(isPromptTooLong(l.error.message)).toBe(true);
    expect(reportedTokens(l.error.message)).toEqual({ tokens: 1407, maximum: 256 });
  });

  it('an error inside the stream is a stream error; a server error there is retried', async () => {
    const bad = await thrown({ content: [{ type: 'text', text: 'partial' }], sseErrorAfter: { chunks: 2, message: 'tool schema rejected', type: 'invalid_request_error' } });
    expect(classifyModelError(bad, true)).toEqual({ retryable: false, error: { kind: 'stream', message: 'tool schema rejected' } });
    const overloaded = await thrown({ content: [{ type: 'text', text: 'partial' }], sseErrorAfter: { chunks: 2, message: 'The server is overloaded', type: 'server_error' } });
    expect(classifyModelError(overloaded, true)).toMatchObject({ retryable: true, error: { kind: 'other', message: 'The server is overloaded' } });
  });

  it('an unreachable server is a retryable network error', async () => {
    const dead = new FakeOpenAI();
    const url = await dead.start();
    await dead.stop();
    let error: unknown;
    try {
      await createOpenAIChatClient({ apiKey: 'k', baseUrl: url, kind: 'openai' }).stream(request([{ role: 'user', content: 'hi' }]), new AbortController().signal);
    } catch (e) {
      error = e;
    }
    expect(classifyModelError(error, false)).toMatchObject({ retryable: true, error: { kind: 'network' } });
  });

  it("a stop aborts the SDK's request and counts as an abort", async () => {
    const g = gate();
    fake.script(text('slow reply', { pause: { afterChunks: 2, gate: g } }));
    const ac = new AbortController();
    const stream = await client().stream(request([{ role: 'user', content: 'hi' }]), ac.signal);
    const it = stream[Symbol.asyncIterator]();
    await it.next();
    ac.abort();
    let error: unknown;
    try {
      while (!(await it.next()).done);
    } catch (e) {
      error = e;
    }
    expect(error).toBeDefined();
    expect(isAbort(error, new AbortController().signal)).toBe(true);
    await expect.poll(() => fake.requests[0]!.aborted).toBe(true);
    g.open();
  });
});

describe('runLoop with the OpenAI client', () => {
  const echo = defineTool({
    name: 'echo',
    ...STUB_FACTS,
    description: 'Echoes its text back (tests only).',
    input: v.strictObject({ text: v.string() }),
    run: ({ text: t }) => `echo: ${t}`,
  });
  const registry = () => new ToolRegistry([echo]);

  it('runs two parallel calls and a malformed one (is_error), sends the results back as tool messages and ends the turn', async () => {
    fake.script(
      toolCalls([
        { name: 'echo', input: { text: 'one' } },
        { name: 'echo', input: { text: 'two' } },
        { name: 'echo', rawArguments: '{"text": "three' },
      ]),
      text('All three answered.', { usage: { prompt_tokens: 900, completion_tokens: 7, cached_tokens: 512 } }),
    );
    const messages: StoredMessage[] = [userText('echo three things')];
    const hooks = recorder();
    const opts = loopOptions(fake.url, messages, { client: client(), registry: registry() });
    const outcome = await runLoop(opts, hooks);
    expect(outcome).toEqual({ kind: 'done' });
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);

    const calls = messages[1]!.content.filter((b) => b.type === 'tool_use') as Anthropic.ToolUseBlockParam[];
    expect(calls.map((c) => c.input)).toEqual([{ text: 'one' }, { text: 'two' }, {}]);
    const results = messages[2]!.content as Anthropic.ToolResultBlockParam[];
    expect(results.map((r) => r.tool_use_id)).toEqual(calls.map((c) => c.id));
    expect(results.map((r) => r.content)).toEqual(['echo: one', 'echo: two', expect.stringMatching(/^Invalid arguments for echo: they are not valid JSON/)]);
    expect(results.map((r) => !!r.is_error)).toEqual([false, false, true]);
    expect(messages[3]!.content).toEqual([{ type: 'text', text: 'All three answered.' }]);

    const second = fake.requests[1]!.body;
    const assistant = second.messages.find((m: any) => m.role === 'assistant');
    expect(assistant.tool_calls.map((c: any) => c.id)).toEqual(calls.map((c) => c.id));
    expect(lastToolResults(second)).toEqual([
      { toolCallId: calls[0]!.id, content: 'echo: one' },
      { toolCallId: calls[1]!.id, content: 'echo: two' },
      { toolCallId: calls[2]!.id, content: expect.stringMatching(/not valid JSON/) },
    ]);
    expect(JSON.stringify(second)).not.toContain('cache_control');
    expect(hooks.usages.at(-1)).toEqual({ input: 388, cacheRead: 512, cacheWrite: 0, output: 7 });
  });

  it('retries a 429 after its retry-after and then answers', async () => {
    fake.script({ error: { status: 429, message: 'Rate limit reached', code: 'rate_limit_exceeded', headers: { 'retry-after': '2' } } }, text('After the wait.'));
    const slept: number[] = [];
    const messages = [userText('hi')];
    const hooks = recorder();
    const outcome = await runLoop(loopOptions(fake.url, messages, { client: client(), registry: registry(), sleep: async (ms) => void slept.push(ms) }), hooks);
    expect(outcome).toEqual({ kind: 'done' });
    expect(slept).toEqual([2000]);
    expect(messages.at(-1)!.content).toEqual([{ type: 'text', text: 'After the wait.' }]);
  });

  it('stops mid-reply at once, keeping the text already shown', async () => {
    const g = gate();
    fake.script(text('The first words, then a long wait.', { chunk: 10, pause: { afterChunks: 3, gate: g } }));
    const ac = new AbortController();
    const messages = [userText('hi')];
    const hooks = recorder();
    const running = runLoop(loopOptions(fake.url, messages, { client: client(), registry: registry(), signal: ac.signal }), hooks);
    await expect.poll(() => hooks.events.filter((e) => e.startsWith('text:')).length).toBeGreaterThan(0);
    ac.abort();
    expect(await running).toEqual({ kind: 'stopped' });
    g.open();
    expect(messages.at(-1)).toMatchObject({ role: 'assistant', content: [{ type: 'text', text: expect.stringMatching(/^The first words/) }] });
  });

  it('shows a reply that ended without finish_reason as a stream error, not a finished turn', async () => {
    fake.script(text('cut short', { noFinish: true }));
    const outcome = await runLoop(loopOptions(fake.url, [userText('hi')], { client: client(), registry: registry() }), recorder());
    expect(outcome).toEqual({ kind: 'error', error: { kind: 'stream', message: 'The reply stream ended before message_stop.' } });
  });
});
