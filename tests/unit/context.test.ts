import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import * as v from 'valibot';
import { exactTokens as countTokens } from '../harness/tokens';
import { ContextManager, contextWindowFor, isPromptTooLong, reportedTokens } from '../../lib/agent/context';
import { runLoop } from '../../lib/agent/loop';
import type { ContextView, StoredMessage } from '../../lib/contracts/conversation';
import { defineTool, ToolRegistry } from '../../lib/tools/registry';
import { taskTools } from '../../lib/tools/tasks';
import { createAnthropicClient } from '../../lib/agent/providers/anthropic-messages';
import { FakeAnthropic, text, toolCall, type ReplyFn } from '../harness/fake-anthropic';
import { loopOptions, recorder, STUB_FACTS, userText } from './helpers';

const fake = new FakeAnthropic();
beforeAll(() => fake.start());
afterAll(() => fake.stop());
beforeEach(() => fake.reset());

/** Deterministic prose of about `tokens` tokens (counted by the fake's tokenizer). */
function prose(tokens: number, seed: number): string {
  const words = ['browser', 'page', 'agent', 'reads', 'the', 'table', 'of', 'prices', 'and', 'writes', 'a', 'summary', 'for', 'user', 'with', 'links', 'numbers', '2026', 'selector', 'button'];
  let x = seed;
  const out: string[] = [];
  while (out.length < tokens * 0.8) {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    out.push(words[x % words.length]!);
  }
  let s = out.join(' ');
  for (let n = countTokens(s); n < tokens; n = countTokens(s)) {
    for (let i = 0; i < tokens - n; i++) s += ` ${words[(x = (x * 69069 + 1) % 2 ** 31) % words.length]}`;
  }
  return s;
}

const BIG = prose(8_000, 7);
const readBig = defineTool({
  name: 'read_big',
  ...STUB_FACTS,
  description: 'Returns a long document (tests only).',
  input: v.strictObject({ n: v.number() }),
  async run({ n }) {
    return `document ${n}\n${BIG}`;
  },
});

const isNoteRequest = (body: any) => JSON.stringify(body.system ?? '').includes('You distil documents');
const mainRequests = () => fake.requests.filter((r) => !r.path.includes('count_tokens') && !isNoteRequest(r.body));

/** The parent reads two long documents per turn, then answers; the note writer answers notes. */
const scripted: ReplyFn = (body) => {
  if (isNoteRequest(body)) return text(`NOTE ${fake.requests.length}: the user asked for documents; read_big was called; answers were given.`);
  const msgs: any[] = body.messages;
  let results = 0;
  let turn: string | undefined;
  for (let i = msgs.length - 1; i >= 0 && !turn; i--) {
    const blocks = msgs[i].content as any[];
    if (msgs[i].role !== 'user') continue;
    turn = blocks.map((b) => (b.type === 'text' ? /^turn (\d+):/.exec(b.text)?.[1] : undefined)).find(Boolean);
    if (!turn) results += blocks.filter((b) => b.type === 'tool_result').length;
  }
  return results < 2 ? toolCall('read_big', { n: results }) : text(`answer to turn ${turn}`);
};

async function conversation(turns: number, managerWindow: number) {
  const messages: StoredMessage[] = [];
  let stored: ContextView | undefined;
  const views: ContextView[] = [];
  const outcomes: string[] = [];
  fake.script(...Array<ReplyFn>(turns * 8).fill(scripted));
  for (let t = 1; t <= turns; t++) {
    messages.push(userText(`turn ${t}: ${prose(700, t)}`));
    const opts = loopOptions(fake.url, messages, { registry: new ToolRegistry([...taskTools, readBig]) });
    // A new manager per run, from the stored view, as the run manager does.
    const context = new ContextManager({
      client: opts.client,
      window: managerWindow,
      threshold: 0.75,
      maxTokens: opts.maxTokens,
      model: opts.model,
      noteModel: opts.model,
      ...(stored ? { view: stored } : {}),
      changed: async (view) => void views.push((stored = view)),
    });
    const outcome = await runLoop({ ...opts, context }, recorder());
    outcomes.push(outcome.kind === 'error' ? `error: ${outcome.error.message}` : outcome.kind);
  }
  return { messages, view: stored, views, outcomes };
}

const refusals = () => fake.requests.filter((r) => !r.path.includes('count_tokens') && !isNoteRequest(r.body)).length;
void refusals;

describe('context management against a fake that enforces a 30,000-token window', () => {
  it('answers every turn of 40 rounds of 8,000-token tool results, eliding and then compacting', async () => {
    fake.contextWindow = 30_000;
    const { messages, view, views, outcomes } = await conversation(20, 30_000);
    expect(outcomes).toEqual(Array(20).fill('done'));
    // 20 turns × (question, 2 calls, 2 results, answer): storage keeps every message, whole.
    expect(messages).toHaveLength(120);
    expect(messages.filter((m) => m.role === 'assistant' && m.content.some((b) => b.type === 'text' && /^answer to turn \d+$/.test(b.text)))).toHaveLength(20);
    const results = messages.flatMap((m) => m.content.filter((b) => b.type === 'tool_result')) as { content: string }[];
    expect(results).toHaveLength(40);
    for (const r of results) expect(r.content.length).toBeGreaterThan(BIG.length);

    // The elision and the compaction are in the stored view.
    expect(view!.elidedBefore).toBeGreaterThan(50);
    expect(view!.compaction?.through).toBeGreaterThan(10);
    expect(view!.compaction?.note).toMatch(/^NOTE \d+/);
    expect(views.some((v) => !v.compaction && v.elidedBefore > 0)).toBe(true);

    const main = mainRequests();
    expect(main.some((r) => JSON.stringify(r.body.messages).includes('characters of this older read_big result were elided'))).toBe(true);
    expect(fake.requests.some((r) => r.path.includes('count_tokens'))).toBe(true);
    const notes = fake.requests.filter((r) => isNoteRequest(r.body)).length;
    console.log(`context: 20 turns, 40 results of 8,000 tokens in a 30,000 window: ${main.length} model requests, ${notes} compaction notes, ${fake.requests.filter((r) => r.path.includes('count_tokens')).length} token counts; view ${JSON.stringify({ elidedBefore: view!.elidedBefore, through: view!.compaction?.through })}`);

    // After compaction the breakpoints moved: system, tools, the note, the latest turn — four.
    const last = main.at(-1)!.body;
    expect(last.system.at(-1).cache_control).toEqual({ type: 'ephemeral' });
    expect(last.tools.at(-1).cache_control).toEqual({ type: 'ephemeral' });
    expect(last.messages[0].content[0].text).toMatch(/^<conversation-summary>/);
    expect(last.messages[0].content[0].cache_control).toEqual({ type: 'ephemeral' });
    expect(last.messages.at(-1).content.at(-1).cache_control).toEqual({ type: 'ephemeral' });
    const marks = JSON.stringify(last).split('"cache_control"').length - 1;
    expect(marks).toBe(4);
  }, 180_000);

  it('a 400 "prompt is too long" compacts and retries once: the turn is answered', async () => {
    // The manager believes in a 200,000-token window (a wrong setting); the fake has 30,000.
    fake.contextWindow = 30_000;
    const { outcomes, view } = await conversation(4, 200_000);
    expect(outcomes).toEqual(Array(4).fill('done'));
    const refused = fake.requests.filter((r) => !r.path.includes('count_tokens') && !isNoteRequest(r.body)).length;
    expect(refused).toBeGreaterThan(0);
    expect(view?.compaction?.note).toMatch(/^NOTE/);
  }, 120_000);
});

describe('context manager: pure parts', () => {
  it('knows windows per model and takes the setting first', () => {
    expect(contextWindowFor('claude-sonnet-4-5')).toBe(200_000);
    expect(contextWindowFor('some-local-model')).toBe(200_000);
    expect(contextWindowFor('claude-sonnet-4-5', 50_000)).toBe(50_000);
  });

  it('recognises a prompt that is too long, in Anthropic and OpenAI wording', () => {
    expect(isPromptTooLong('prompt is too long: 212345 tokens > 200000 maximum')).toBe(true);
    expect(isPromptTooLong("This model's maximum context length is 128000 tokens (context_length_exceeded)")).toBe(true);
    expect(isPromptTooLong('max_tokens: Field required')).toBe(false);
    expect(reportedTokens('prompt is too long: 212,345 tokens > 200000 maximum')).toEqual({ tokens: 212_345, maximum: 200_000 });
    expect(reportedTokens('something else')).toBeUndefined();
  });

  it.each([
    ['OpenAI', "This model's maximum context length is 128000 tokens. However, your messages resulted in 130532 tokens. Please reduce the length of the messages.", { tokens: 130_532, maximum: 128_000 }],
    ['OpenAI, older', "This model's maximum context length is 4097 tokens. However, you requested 4120 tokens (3120 in the messages, 1000 in the completion).", { tokens: 3120, maximum: 4097 }],
    ['vLLM', "This model's maximum context length is 32768 tokens. However, your request has 33000 input tokens. Please reduce the length of the input messages.", { tokens: 33_000, maximum: 32_768 }],
    ['vLLM, decoder prompt', 'The decoder prompt (length 40960) is longer than the maximum model length of 32768. Make sure that `max_model_len` is no smaller than the number of text tokens.', { tokens: 40_960, maximum: 32_768 }],
    ['llama.cpp, counts added from its body', 'the request exceeds the available context size, try increasing it (14429 tokens > 8192 maximum)', { tokens: 14_429, maximum: 8192 }],
    ['llama.cpp, older', 'the request exceeds the available context size. try increasing the context size or enable context shift', undefined],
    ['Ollama', 'the input length exceeds the context length', undefined],
    ['an OpenAI-compatible gateway', 'Input is too long: too many input tokens for the context window (context_length_exceeded)', undefined],
  ])('recognises %s wording of a context overflow, with the counts it gives', (_who, message, report) => {
    expect(isPromptTooLong(message)).toBe(true);
    expect(reportedTokens(message)).toEqual(report);
  });

  it('does not mistake other errors for a context overflow', () => {
    for (const message of ['registry.ollama.ai/library/gemma:2b does not support tools', 'Incorrect API key provided', 'max_tokens must be at least 1', 'Rate limit reached for requests']) {
      expect(isPromptTooLong(message), message).toBe(false);
    }
  });

  it('elides old tool results deterministically, keeping their start and saying how to read them again', () => {
    const client = createAnthropicClient({ apiKey: 'k', baseUrl: fake.url });
    const m = new ContextManager({ client, window: 30_000, threshold: 0.75, maxTokens: 1000, model: 'm', noteModel: 'm', view: { elidedBefore: 3 }, changed: async () => {} });
    const messages: StoredMessage[] = [
      userText('read it'),
      { role: 'assistant', at: 1, content: [{ type: 'tool_use', id: 't1', name: 'web_fetch', input: { url: 'https://a.example' } }] },
      { role: 'user', at: 2, content: [{ type: 'tool_result', tool_use_id: 't1', content: 'x'.repeat(10_000) }] },
      { role: 'assistant', at: 3, content: [{ type: 'tool_use', id: 't2', name: 'web_fetch', input: { url: 'https://b.example' } }] },
      { role: 'user', at: 4, content: [{ type: 'tool_result', tool_use_id: 't2', content: 'y'.repeat(10_000) }] },
    ];
    const a = m.viewOf(messages);
    const b = m.viewOf(messages);
    expect(a[2]).toBe(b[2]);
    const elided = (a[2]!.content[0] as { content: string }).content;
    expect(elided.startsWith('x'.repeat(500))).toBe(true);
    expect(elided).toContain('9,500 more characters of this older web_fetch result were elided');
    expect(elided).toContain('Call web_fetch again with the same arguments');
    expect((a[4]!.content[0] as { content: string }).content).toBe('y'.repeat(10_000));
    expect(messages[2]!.content[0]).toMatchObject({ content: 'x'.repeat(10_000) });
  });
});
