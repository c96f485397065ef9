/**
 * Settings' Test button and model list against real HTTP on 127.0.0.1: the Anthropic fake for the
 * Messages API, the OpenAI fake for Chat Completions (each through the client a run uses), tiny
 * servers for an Ollama that refuses the Origin and for the other list shapes.
 */
import Anthropic from '@anthropic-ai/sdk';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import type { ModelEndpoint } from '../../lib/agent/model';
import { createAnthropicClient } from '../../lib/agent/providers/anthropic-messages';
import { createOpenAIChatClient } from '../../lib/agent/providers/openai-chat';
import { isLocalUrl } from '../../lib/agent/providers/hosts';
import { modelListUrl, PROVIDER_IDS, PROVIDER_PRESETS, PRESETS_CHECKED } from '../../lib/agent/providers/presets';
import { listModels, problemOf, testEndpoint, TEST_TOOL } from '../../lib/agent/providers/probe';
import { listProviderModels, testProvider } from '../../lib/background/provider-probe';
import { apiKeyOf, FakeAnthropic, text, toolCall } from '../harness/fake-anthropic';
import { FakeOpenAI, text as openaiText, toolCall as openaiToolCall } from '../harness/fake-openai';

const fake = new FakeAnthropic();
const openai = new FakeOpenAI();
const fetchFn = globalThis.fetch.bind(globalThis);
const signal = () => AbortSignal.timeout(10_000);

beforeAll(async () => {
  await Promise.all([fake.start(), openai.start()]);
});
afterAll(() => Promise.all([fake.stop(), openai.stop()]));
afterEach(() => {
  fake.reset();
  openai.reset();
});

const endpoint = (over: Partial<ModelEndpoint> = {}): ModelEndpoint => ({ apiKey: 'sk-test', baseUrl: fake.url, kind: 'anthropic', authHeader: 'x-api-key', ...over });
const test1 = (e: ModelEndpoint = endpoint(), model = 'test-model') => testEndpoint(e, model, createAnthropicClient(e), signal());

/** A local HTTP server answering every request with `handler`; closed after the test. */
async function tinyServer(handler: http.RequestListener) {
  const server = http.createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const requests: http.IncomingMessage[] = [];
  server.on('request', (req) => requests.push(req));
  return { url, requests, close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))) };
}

describe('testEndpoint', () => {
  test('ok with a tool call: one small streamed request with one tool, and the model the API reported', async () => {
    fake.script(toolCall('report_ok', { ok: true }));
    expect(await test1()).toEqual({ ok: true, model: 'test-model', calledTool: true });
    expect(fake.requests).toHaveLength(1);
    const body = fake.requests[0]!.body;
    expect(body.stream).toBe(true);
    expect(body.max_tokens).toBeLessThanOrEqual(64);
    expect(body.tools).toEqual([TEST_TOOL]);
    expect(JSON.stringify(body.messages)).toContain('report_ok');
  });

  test('ok without a tool call: the model answered in text', async () => {
    fake.script(text('Everything is fine.'));
    expect(await test1()).toEqual({ ok: true, model: 'test-model', calledTool: false });
  });

  test('a reply cut off at the small limit is tried once more with room to think (Anthropic kind too)', async () => {
    fake.script(text('Thinking', { stopReason: 'max_tokens' }), toolCall('report_ok', { ok: true }));
    expect(await test1()).toEqual({ ok: true, model: 'test-model', calledTool: true });
    expect(fake.requests.map((r) => r.body.max_tokens)).toEqual([64, 1024]);
  });

  test('bad key: the 401 and its message', async () => {
    expect(await test1(endpoint({ apiKey: 'bad-key' }))).toEqual({ ok: false, problem: { kind: 'bad_key', status: 401, message: 'invalid x-api-key' } });
  });

  test('unknown model: a 404', async () => {
    fake.script({ error: { status: 404, type: 'not_found_error', message: 'model: claude-nope' } });
    expect(await test1(endpoint(), 'claude-nope')).toEqual({ ok: false, problem: { kind: 'unknown_model', status: 404, message: 'model: claude-nope' } });
  });

  test('unknown model: a 400 that names the model', async () => {
    fake.script({ error: { status: 400, type: 'invalid_request_error', message: 'Model Not Exist: deepseek-v9' } });
    const r = await test1(endpoint(), 'deepseek-v9');
    expect(r).toMatchObject({ ok: false, problem: { kind: 'unknown_model', status: 400 } });
  });

  test.each([
    ['Ollama', 'registry.ollama.ai/library/gemma3:4b does not support tools'],
    ['llama.cpp', 'tools param requires --jinja flag'],
    ['vLLM', '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set'],
    ['a chat template without tools', 'The loaded model chat template does not support tools'],
  ])('no tools: %s wording', async (_server, message) => {
    fake.script({ error: { status: 400, type: 'invalid_request_error', message } });
    expect(await test1(endpoint(), 'gemma3:4b')).toEqual({ ok: false, problem: { kind: 'no_tools', status: 400, message } });
  });

  test('a 400 about something else stays "other" with the server\'s message', async () => {
    fake.script({ error: { status: 400, type: 'invalid_request_error', message: 'max_tokens: must be positive' } });
    expect(await test1()).toEqual({ ok: false, problem: { kind: 'other', status: 400, message: 'max_tokens: must be positive' } });
  });

  test('unreachable: a closed port', async () => {
    const s = await tinyServer(() => {});
    await s.close();
    const r = await test1(endpoint({ baseUrl: s.url }));
    expect(r).toEqual({ ok: false, problem: { kind: 'unreachable', message: expect.stringContaining('ECONNREFUSED') } });
  });

  test('origin refused: a local server answering 403 with an empty body, as Ollama does for an Origin it does not allow', async () => {
    const s = await tinyServer((_req, res) => void res.writeHead(403, { 'content-length': '0' }).end());
    try {
      expect(await test1(endpoint({ baseUrl: s.url }))).toEqual({ ok: false, problem: { kind: 'origin_refused', status: 403 } });
      expect(await listModels(endpoint({ baseUrl: s.url }), fetchFn, signal(), PROVIDER_PRESETS.ollama.models)).toEqual({
        ok: false,
        problem: { kind: 'origin_refused', status: 403 },
      });
      expect(s.requests.map((r) => r.url)).toEqual(['/v1/messages', '/api/tags']);
    } finally {
      await s.close();
    }
  });

  test('an empty 403 from a server that is not local is not an Origin problem', () => {
    for (const e of [new Anthropic.APIError(403, undefined, undefined, new Headers()), new OpenAI.APIError(403, undefined, undefined, new Headers())]) {
      const p = problemOf(e, endpoint({ baseUrl: 'https://api.example.com' }), 'm', new AbortController().signal);
      expect(p).toEqual({ kind: 'other', status: 403, message: 'status code (no body)' });
    }
  });
});

describe('testEndpoint, OpenAI kind (Chat Completions through the openai SDK)', () => {
  const oaEndpoint = (over: Partial<ModelEndpoint> = {}): ModelEndpoint => ({ apiKey: 'sk-test', baseUrl: openai.url, kind: 'openai', authHeader: 'bearer', ...over });
  const oaTest = (e: ModelEndpoint = oaEndpoint(), model = 'fake-model') => testEndpoint(e, model, createOpenAIChatClient(e), signal());

  test('ok with a tool call: one small streamed request with one tool in function form, asking for usage', async () => {
    openai.script(openaiToolCall('report_ok', { ok: true }));
    expect(await oaTest()).toEqual({ ok: true, model: 'fake-model', calledTool: true });
    expect(openai.requests).toHaveLength(1);
    const req = openai.requests[0]!;
    expect(req.path).toBe('/v1/chat/completions');
    expect(req.headers.authorization).toBe('Bearer sk-test');
    const body = req.body;
    expect(body.stream).toBe(true);
    expect(body.stream_options).toEqual({ include_usage: true });
    // A local server gets the old name; only api.openai.com gets max_completion_tokens.
    expect(body.max_tokens).toBeLessThanOrEqual(64);
    expect(body.max_completion_tokens).toBeUndefined();
    expect(body.tools).toEqual([{ type: 'function', function: { name: TEST_TOOL.name, description: TEST_TOOL.description, parameters: TEST_TOOL.input_schema } }]);
    expect(body.tool_choice).toBeUndefined();
    expect(body.messages.map((m: { role: string }) => m.role)).toEqual(['system', 'user']);
    expect(body.messages[1].content).toContain('report_ok');
  });

  test('ok without a tool call: the model answered in text', async () => {
    openai.script(openaiText('Everything is fine.'));
    expect(await oaTest()).toEqual({ ok: true, model: 'fake-model', calledTool: false });
  });

  test("bad key: the 401 with OpenAI's message", async () => {
    expect(await oaTest(oaEndpoint({ apiKey: 'bad-key' }))).toEqual({
      ok: false,
      problem: {
        kind: 'bad_key',
        status: 401,
        message: 'Incorrect API key provided: bad-key. You can find your API key at https://platform.openai.com/account/api-keys.',
      },
    });
  });

  test('unknown model: the 404 model_not_found OpenAI sends', async () => {
    const message = 'The model `gpt-nope` does not exist or you do not have access to it.';
    openai.script({ error: { status: 404, type: 'invalid_request_error', code: 'model_not_found', message } });
    expect(await oaTest(oaEndpoint(), 'gpt-nope')).toEqual({ ok: false, problem: { kind: 'unknown_model', status: 404, message } });
  });

  test.each([
    // Mistral puts its error at the top level of the body.
    ['Mistral', 'mistral-nope', { object: 'error', message: 'Invalid model: mistral-nope', type: 'invalid_model', param: null, code: '1500' }, 'Invalid model: mistral-nope'],
    ['DeepSeek', 'deepseek-v9', { error: { message: 'Model Not Exist', type: 'invalid_request_error', param: null, code: 'invalid_request_error' } }, 'Model Not Exist'],
  ])('unknown model: a 400 naming the model, as %s sends it', async (_server, model, body, message) => {
    openai.script({ error: { status: 400, message: '', body } });
    expect(await oaTest(oaEndpoint(), model)).toEqual({ ok: false, problem: { kind: 'unknown_model', status: 400, message } });
  });

  test("no tools: the fake's no-tools mode (Ollama's OpenAI endpoint)", async () => {
    openai.noTools = true;
    expect(await oaTest(oaEndpoint(), 'gemma3:4b')).toEqual({
      ok: false,
      problem: { kind: 'no_tools', status: 400, message: 'registry.ollama.ai/library/gemma3:4b does not support tools' },
    });
  });

  test.each([
    // llama-server without --jinja: a 500 whose body carries a numeric code.
    ['llama.cpp', 500, { error: { code: 500, message: 'tools param requires --jinja flag', type: 'server_error' } }, 'tools param requires --jinja flag'],
    [
      'vLLM (top-level error body)',
      400,
      { object: 'error', message: '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set', type: 'BadRequestError', param: null, code: 400 },
      '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set',
    ],
    [
      'vLLM (nested error body)',
      400,
      { error: { message: '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set', type: 'BadRequestError', param: null, code: 400 } },
      '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set',
    ],
    ['Groq', 400, { error: { message: 'tool calling is not supported with this model', type: 'invalid_request_error', param: 'tool calling' } }, 'tool calling is not supported with this model'],
    ['a chat template without tools (LM Studio)', 400, { error: 'The loaded model chat template does not support tools' }, 'The loaded model chat template does not support tools'],
  ])('no tools: %s wording', async (_server, status, body, message) => {
    openai.script({ error: { status, message: '', body } });
    expect(await oaTest(oaEndpoint(), 'some-model')).toEqual({ ok: false, problem: { kind: 'no_tools', status, message } });
  });

  test("a 400 about something else stays \"other\" with the server's words, unquoted when the body's error is a string", async () => {
    openai.script({ error: { status: 400, message: '', body: { error: "Invalid tool_choice type: 'object'. Supported string values: none, auto, required" } } });
    expect(await oaTest()).toEqual({
      ok: false,
      problem: { kind: 'other', status: 400, message: "Invalid tool_choice type: 'object'. Supported string values: none, auto, required" },
    });
  });

  test('unreachable: a closed port', async () => {
    const s = await tinyServer(() => {});
    await s.close();
    const r = await oaTest(oaEndpoint({ baseUrl: `${s.url}/v1` }));
    expect(r).toEqual({ ok: false, problem: { kind: 'unreachable', message: expect.stringContaining('ECONNREFUSED') } });
  });

  test('origin refused: a local OpenAI-compatible server answering an empty 403, on the test and on the list', async () => {
    const s = await tinyServer((_req, res) => void res.writeHead(403, { 'content-length': '0' }).end());
    try {
      const e = oaEndpoint({ baseUrl: `${s.url}/v1` });
      expect(await oaTest(e)).toEqual({ ok: false, problem: { kind: 'origin_refused', status: 403 } });
      expect(await listModels(e, fetchFn, signal())).toEqual({ ok: false, problem: { kind: 'origin_refused', status: 403 } });
      expect(s.requests.map((r) => r.url)).toEqual(['/v1/chat/completions', '/v1/models']);
    } finally {
      await s.close();
    }
  });

  test('a 403 with a body is a refused key, not the Origin', async () => {
    openai.script({ error: { status: 403, type: 'permission_error', message: 'Project does not have access to model fake-model' } });
    expect(await oaTest()).toEqual({ ok: false, problem: { kind: 'bad_key', status: 403, message: 'Project does not have access to model fake-model' } });
  });

  test('a reasoning model that spends the small limit thinking gets one more try with room to think, not "no tools"', async () => {
    // OpenAI's reasoning models count their thinking against the limit: an empty reply, "length".
    openai.script({ content: [], finishReason: 'length' }, openaiToolCall('report_ok', { ok: true }));
    expect(await oaTest()).toEqual({ ok: true, model: 'fake-model', calledTool: true });
    expect(openai.requests.map((r) => r.body.max_tokens)).toEqual([64, 1024]);
  });

  test('a reply that runs out of tokens twice says so', async () => {
    openai.script(openaiText('Let me think about', { finishReason: 'length' }), openaiText('Let me think about this', { finishReason: 'length' }));
    expect(await oaTest()).toEqual({ ok: false, problem: { kind: 'other', message: "The reply reached the test's limit of 1024 tokens before it called the tool or finished." } });
    expect(openai.requests).toHaveLength(2);
  });

  test('a text answer that finished is not tried again', async () => {
    openai.script(openaiText('Fine.'));
    expect(await oaTest()).toEqual({ ok: true, model: 'fake-model', calledTool: false });
    expect(openai.requests).toHaveLength(1);
  });

  test('a stream that breaks off mid-reply is "other", never OK', async () => {
    // The pause lets the client read the answer's head first: a reset that arrives with it may
    // discard it, and that is a server that never answered.
    openai.script(openaiToolCall('report_ok', { ok: true }, { breakAfter: 3, delayMs: 30 }));
    expect(await oaTest()).toEqual({ ok: false, problem: { kind: 'other', message: expect.stringMatching(/^The reply stream broke off: /) } });
  });

  test('a stream that ends without a finish_reason is "other", never OK', async () => {
    openai.script(openaiToolCall('report_ok', { ok: true }, { noFinish: true }));
    expect(await oaTest()).toEqual({ ok: false, problem: { kind: 'other', message: 'The reply stream broke off before the reply was complete.' } });
  });

  test("an error sent inside the stream is \"other\" with the server's message", async () => {
    openai.script(openaiText('Working on it', { sseErrorAfter: { chunks: 2, message: 'The server had an error while processing your request.' } }));
    expect(await oaTest()).toEqual({ ok: false, problem: { kind: 'other', message: 'The server had an error while processing your request.' } });
  });
});

describe('listModels', () => {
  test('the Anthropic shape: GET /v1/models with x-api-key and anthropic-version', async () => {
    fake.models = ['claude-sonnet-5-5', 'claude-haiku-5-5'];
    expect(await listModels(endpoint(), fetchFn, signal())).toEqual({ ok: true, models: ['claude-haiku-5-5', 'claude-sonnet-5-5'] });
    expect(fake.requests).toEqual([]);
    const req = fake.modelListRequests[0]!;
    expect(req.path).toBe('/v1/models?limit=1000');
    expect(req.headers['x-api-key']).toBe('sk-test');
    expect(req.headers['anthropic-version']).toBe('2023-06-01');
    expect(req.headers.authorization).toBeUndefined();
  });

  test('a gateway documented with Bearer gets the key as Bearer on its Anthropic-shape list too', async () => {
    fake.models = ['MiniMax-M3'];
    expect(await listModels(endpoint({ authHeader: 'bearer' }), fetchFn, signal())).toEqual({ ok: true, models: ['MiniMax-M3'] });
    expect(fake.modelListRequests[0]!.headers.authorization).toBe('Bearer sk-test');
    expect(fake.modelListRequests[0]!.headers['x-api-key']).toBeUndefined();
  });

  test('a bad key on the list is a bad key', async () => {
    expect(await listModels(endpoint({ apiKey: 'bad-key' }), fetchFn, signal())).toEqual({ ok: false, problem: { kind: 'bad_key', status: 401, message: 'invalid x-api-key' } });
  });

  test('an OpenAI-shaped /models, with Bearer', async () => {
    const s = await tinyServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [{ id: 'gpt-x', object: 'model' }, { id: 'models/gemini-3.5-flash', object: 'model' }, { id: 'gpt-x', object: 'model' }] }));
    });
    try {
      const r = await listModels({ apiKey: 'k', baseUrl: `${s.url}/v1`, kind: 'openai' }, fetchFn, signal());
      expect(r).toEqual({ ok: true, models: ['gpt-x', 'models/gemini-3.5-flash'] });
      expect(s.requests[0]!.url).toBe('/v1/models');
      expect(s.requests[0]!.headers.authorization).toBe('Bearer k');
    } finally {
      await s.close();
    }
  });

  test("the OpenAI kind's own list: GET {base}/models from the OpenAI fake, the key as Bearer", async () => {
    openai.models = ['gpt-b', 'gpt-a'];
    const r = await listModels({ apiKey: 'sk-list', baseUrl: openai.url, kind: 'openai', authHeader: 'bearer' }, fetchFn, signal());
    expect(r).toEqual({ ok: true, models: ['gpt-a', 'gpt-b'] });
    const [req] = openai.requests;
    expect(req!.method).toBe('GET');
    expect(req!.path).toBe('/v1/models');
    expect(req!.headers.authorization).toBe('Bearer sk-list');
    expect(req!.headers['anthropic-version']).toBeUndefined();
  });

  test('the OpenAI kind with an empty key (a local server): no Authorization header at all', async () => {
    openai.models = ['local-model'];
    const r = await listModels({ apiKey: '  ', baseUrl: openai.url, kind: 'openai', authHeader: 'bearer' }, fetchFn, signal());
    expect(r).toEqual({ ok: true, models: ['local-model'] });
    expect(openai.requests[0]!.headers.authorization).toBeUndefined();
    expect(openai.requests[0]!.headers['x-api-key']).toBeUndefined();
  });

  test("a bad key on the OpenAI list is a bad key with OpenAI's message", async () => {
    const r = await listModels({ apiKey: 'bad-key', baseUrl: openai.url, kind: 'openai', authHeader: 'bearer' }, fetchFn, signal());
    expect(r).toEqual({ ok: false, problem: { kind: 'bad_key', status: 401, message: expect.stringMatching(/^Incorrect API key provided: bad-key\./) } });
  });

  test("Ollama's /api/tags, without a key", async () => {
    const s = await tinyServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ models: [{ name: 'qwen3-coder:latest', model: 'qwen3-coder:latest' }, { name: 'gpt-oss:20b', model: 'gpt-oss:20b' }] }));
    });
    try {
      const r = await listModels({ apiKey: '', baseUrl: s.url, kind: 'anthropic', authHeader: 'bearer' }, fetchFn, signal(), PROVIDER_PRESETS.ollama.models);
      expect(r).toEqual({ ok: true, models: ['gpt-oss:20b', 'qwen3-coder:latest'] });
      expect(s.requests[0]!.url).toBe('/api/tags');
      expect(s.requests[0]!.headers.authorization).toBeUndefined();
    } finally {
      await s.close();
    }
  });

  test('an answer that is not a list, and one that is not JSON, are "other"', async () => {
    const s = await tinyServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(req.url === '/models' ? '{"hello": 1}' : '<html>hi</html>');
    });
    try {
      const notList = await listModels({ apiKey: '', baseUrl: s.url, kind: 'openai' }, fetchFn, signal());
      expect(notList).toMatchObject({ ok: false, problem: { kind: 'other' } });
      const notJson = await listModels({ apiKey: '', baseUrl: s.url, kind: 'anthropic' }, fetchFn, signal());
      expect(notJson).toMatchObject({ ok: false, problem: { kind: 'other', message: expect.stringContaining('not JSON') } });
    } finally {
      await s.close();
    }
  });

  test('unreachable: a closed port', async () => {
    const s = await tinyServer(() => {});
    await s.close();
    const r = await listModels(endpoint({ baseUrl: s.url }), fetchFn, signal());
    expect(r).toEqual({ ok: false, problem: { kind: 'unreachable', message: 'fetch failed (ECONNREFUSED)' } });
  });
});

describe("the background's listModels / testProvider", () => {
  const form = (over: Record<string, unknown> = {}) => ({ provider: 'other-anthropic', baseUrl: fake.url, apiKey: 'sk-form', authHeader: 'x-api-key', model: 'm-1', ...over });

  test('the form is validated: a bad provider or base URL is a clear problem, no request', async () => {
    expect(await listProviderModels(form({ provider: 'nope' }))).toEqual({ ok: false, problem: { kind: 'other', message: 'Unknown provider.' } });
    expect(await testProvider(form({ baseUrl: 'ftp://x' }))).toEqual({ ok: false, problem: { kind: 'other', message: 'The base URL must be an http(s) address.' } });
    expect(await testProvider(form({ model: '  ' }))).toEqual({ ok: false, problem: { kind: 'other', message: 'Enter a model first.' } });
    expect(await testProvider(null)).toMatchObject({ ok: false, problem: { kind: 'other' } });
    expect(fake.requests).toEqual([]);
  });

  test("the form's unsaved values reach the endpoint: the test's key and model, the list's key", async () => {
    fake.script(toolCall('report_ok', { ok: true }));
    expect(await testProvider(form())).toEqual({ ok: true, model: 'm-1', calledTool: true });
    expect(apiKeyOf(fake.requests[0]!.headers)).toBe('sk-form');
    fake.models = ['m-1'];
    expect(await listProviderModels(form())).toEqual({ ok: true, models: ['m-1'] });
    expect(fake.modelListRequests[0]!.headers['x-api-key']).toBe('sk-form');
  });

  test('a keyless local preset is tested without the user inventing a key', async () => {
    fake.script(text('hi'));
    expect(await testProvider(form({ provider: 'lmstudio', apiKey: '', authHeader: 'bearer' }))).toEqual({ ok: true, model: 'm-1', calledTool: false });
  });

  test('the Other — OpenAI-compatible preset tests and lists through Chat Completions with the form\'s Bearer key', async () => {
    const oaForm = form({ provider: 'other-openai', baseUrl: openai.url, authHeader: 'bearer', model: 'fake-model' });
    openai.script(openaiToolCall('report_ok', { ok: true }));
    openai.models = ['fake-model'];
    expect(await testProvider(oaForm)).toEqual({ ok: true, model: 'fake-model', calledTool: true });
    expect(await listProviderModels(oaForm)).toEqual({ ok: true, models: ['fake-model'] });
    expect(openai.requests.map((r) => `${r.method} ${r.path} ${r.headers.authorization}`)).toEqual([
      'POST /v1/chat/completions Bearer sk-form',
      'GET /v1/models Bearer sk-form',
    ]);
    expect(fake.requests).toEqual([]);
  });

  test('a preset without a documented model list says so', async () => {
    const r = await listProviderModels(form({ provider: 'zhipu', baseUrl: 'https://api.z.ai/api/anthropic' }));
    expect(r).toEqual({ ok: false, problem: { kind: 'other', message: "Zhipu (Z.ai) documents no model list: type the model's name." } });
  });
});

describe('presets', () => {
  test('every provider has a preset whose base URL, where set, is an http(s) URL without a trailing slash', () => {
    expect(Object.keys(PROVIDER_PRESETS).sort()).toEqual([...PROVIDER_IDS].sort());
    for (const id of PROVIDER_IDS) {
      const p = PROVIDER_PRESETS[id];
      expect(p.docs, id).toMatch(/^https:\/\//);
      if (id.startsWith('other-')) expect(p.baseUrl).toBe('');
      else expect(p.baseUrl, id).toMatch(/^https?:\/\/[^/]+(\/.*[^/])?$/);
      // Local servers never require a key; every cloud one does.
      expect(p.needsKey, id).toBe(!p.local && !id.startsWith('other-'));
      expect(isLocalUrl(p.baseUrl), id).toBe(p.local);
    }
    expect(PRESETS_CHECKED).toBe('2026-12-02');
  });

  test('model list paths resolve against the base URL, climbing out of an /anthropic path', () => {
    expect(modelListUrl('https://api.deepseek.com/anthropic', PROVIDER_PRESETS.deepseek.models!)).toBe('https://api.deepseek.com/models');
    expect(modelListUrl('https://api.moonshot.cn/anthropic/', PROVIDER_PRESETS.moonshot.models!)).toBe('https://api.moonshot.cn/v1/models');
    expect(modelListUrl('https://openrouter.ai/api', PROVIDER_PRESETS.openrouter.models!)).toBe('https://openrouter.ai/api/v1/models');
    expect(modelListUrl('https://generativelanguage.googleapis.com/v1beta/openai', PROVIDER_PRESETS.gemini.models!)).toBe(
      'https://generativelanguage.googleapis.com/v1beta/openai/models',
    );
    expect(modelListUrl('http://localhost:11434', PROVIDER_PRESETS.ollama.models!)).toBe('http://localhost:11434/api/tags');
  });

  test('local addresses: loopback, private ranges and .local; not public hosts', () => {
    for (const u of ['http://localhost:1234', 'http://127.0.0.1:8080', 'http://[::1]:11434', 'http://192.168.1.20:11434', 'http://10.0.0.5', 'http://172.20.0.2', 'http://box.local:8000']) {
      expect(isLocalUrl(u), u).toBe(true);
    }
    for (const u of ['https://api.openai.com/v1', 'http://172.32.0.1', 'http://8.8.8.8', 'not a url']) expect(isLocalUrl(u), u).toBe(false);
  });
});
