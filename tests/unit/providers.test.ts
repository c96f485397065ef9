import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ModelEndpoint, ModelRequest } from '../../lib/agent/model';
import { createModelClient } from '../../lib/agent/providers';
import { FakeAnthropic, text as anthropicText } from '../harness/fake-anthropic';
import { FakeOpenAI, text as openaiText } from '../harness/fake-openai';

const anthropic = new FakeAnthropic();
const openai = new FakeOpenAI();
beforeAll(() => Promise.all([anthropic.start(), openai.start()]));
afterAll(() => Promise.all([anthropic.stop(), openai.stop()]));
beforeEach(() => (anthropic.reset(), openai.reset()));

const request: ModelRequest = { model: 'fake-model', maxTokens: 64, system: [{ type: 'text', text: 'Test.' }], tools: [], messages: [{ role: 'user', content: 'hi' }] };

async function drain(endpoint: ModelEndpoint) {
  const types: string[] = [];
  for await (const ev of await createModelClient(endpoint).stream(request, new AbortController().signal)) types.push(ev.type);
  return types;
}

describe('createModelClient', () => {
  it('speaks the Messages API when the kind is absent or anthropic, Chat Completions when it is openai', async () => {
    anthropic.script(anthropicText('a'), anthropicText('b'));
    openai.script(openaiText('c'));
    for (const kind of [undefined, 'anthropic'] as const) {
      expect(await drain({ apiKey: 'k', baseUrl: anthropic.url, ...(kind ? { kind } : {}) })).toContain('message_stop');
    }
    expect(await drain({ apiKey: 'k', baseUrl: openai.url, kind: 'openai' })).toContain('message_stop');
    expect(anthropic.requests.map((r) => r.path)).toEqual(['/v1/messages', '/v1/messages']);
    expect(openai.requests.map((r) => r.path)).toEqual(['/v1/chat/completions']);
  });

  it('has countTokens for the Messages API only', () => {
    expect(createModelClient({ apiKey: 'k', baseUrl: anthropic.url }).countTokens).toBeTypeOf('function');
    expect(createModelClient({ apiKey: 'k', baseUrl: openai.url, kind: 'openai' }).countTokens).toBeUndefined();
  });

  it.each([
    [undefined, 'k1', { 'x-api-key': 'k1' }, ['authorization']],
    ['x-api-key', 'k2', { 'x-api-key': 'k2' }, ['authorization']],
    ['bearer', 'k3', { authorization: 'Bearer k3' }, ['x-api-key']],
    ['none', 'k4', {}, ['authorization', 'x-api-key']],
    [undefined, '', {}, ['authorization', 'x-api-key']],
  ] as const)('sends the Messages API key with auth header style %s as it says', async (style, apiKey, present, absent) => {
    anthropic.script(anthropicText('ok'));
    expect(await drain({ apiKey, baseUrl: anthropic.url, ...(style ? { authHeader: style } : {}) })).toContain('message_stop');
    const headers = anthropic.requests[0]!.headers;
    expect(headers).toMatchObject(present);
    for (const h of absent) expect(headers).not.toHaveProperty(h);
  });
});
