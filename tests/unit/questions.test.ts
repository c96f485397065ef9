import 'fake-indexeddb/auto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ConversationStore } from '../../lib/agent/conversation-store';
import { createAnthropicClient } from '../../lib/agent/providers/anthropic-messages';
import { QuestionBoard } from '../../lib/agent/questions';
import type { Attention } from '../../lib/contracts/ports';
import { RunManager } from '../../lib/agent/run-manager';
import type { PendingQuestion } from '../../lib/contracts/questions';
import type { RunEvent } from '../../lib/contracts/run-events';
import { defaultSettings } from '../../lib/settings';
import { ToolRegistry } from '../../lib/tools/registry';
import { userTools } from '../../lib/tools/ask-user';
import { FakeAnthropic, lastToolResult, text, toolCall } from '../harness/fake-anthropic';

function board({ viewer = true } = {}) {
  const events: [string, RunEvent][] = [];
  const attention = { waiting: vi.fn<Attention['waiting']>(), notify: vi.fn<Attention['notify']>(), settled: vi.fn<Attention['settled']>() };
  const b = new QuestionBoard((id, ev) => events.push([id, ev]), () => viewer, attention);
  const asked = () => (events.find(([, e]) => e.type === 'question')![1] as { question: PendingQuestion }).question;
  return { b, events, attention, asked };
}

const never = () => new AbortController().signal;

describe('QuestionBoard', () => {
  afterEach(() => vi.useRealTimers());

  it('an approval takes its buttons only; the first answer wins and a second popup is told it came too late', async () => {
    const { b, asked } = board();
    const details = { tool: 'web_fetch', reason: 'exfiltration' as const, canAlways: true, host: 'evil.example', url: 'https://evil.example/?d=1' };
    const pending = b.approve('c1', details, 'Pagewright wants to send data to evil.example.', 60_000, never());
    const q = asked();
    expect(q).toMatchObject({ approval: details, question: 'Pagewright wants to send data to evil.example.' });
    expect(() => b.answer('c1', q.id, { text: 'yes' })).toThrow(/Allow once, Always or Deny/);
    for (const bad of [null, {}, { approval: 'sure' }, { approval: 'once', extra: 1 }, 'once']) expect(() => b.answer('c1', q.id, bad as never)).toThrow(/not one this card takes/);
    b.answer('c1', q.id, { approval: 'deny' });
    expect(() => b.answer('c1', q.id, { approval: 'once' })).toThrow(/no longer waiting/);
    await expect(pending).resolves.toEqual({ choice: 'deny' });
  });

  it('an approval that offers no "Always" refuses it; a question refuses an approval; a stop settles the approval', async () => {
    const { b, asked } = board();
    const ctrl = new AbortController();
    const pending = b.approve('c1', { tool: 'instagram_post', reason: 'irreversible', canAlways: false }, 'x', 60_000, ctrl.signal);
    expect(() => b.answer('c1', asked().id, { approval: 'always' })).toThrow(/only be allowed once/);
    ctrl.abort();
    await expect(pending).resolves.toEqual({ choice: null, reason: 'stopped' });
    // Answered after the run was stopped: the card is gone, the answer is refused with a reason.
    expect(() => b.answer('c1', asked().id, { approval: 'once' })).toThrow(/no longer waiting/);
    const q2 = b.ask('c2', { question: 'Why?', multiple: false }, 60_000, never());
    const id2 = b.pending('c2')[0]!.id;
    expect(() => b.answer('c2', id2, { approval: 'once' })).toThrow(/not an approval/);
    b.answer('c2', id2, { decline: true });
    await expect(q2).resolves.toEqual({ answer: null, reason: 'declined' });
  });

  it('a sign-in card takes Sign in or Not now only, notifies like the others, and a stop or timeout is a no', async () => {
    const { b, asked, attention } = board({ viewer: false });
    const server = { skillId: 's1', name: 'docs', origin: 'https://mcp.example' };
    const pending = b.signIn('c1', server, 'Sign in to docs (https://mcp.example)', 60_000, never());
    const q = asked();
    expect(q).toMatchObject({ signIn: server, question: 'Sign in to docs (https://mcp.example)' });
    expect(attention.notify).toHaveBeenCalledWith(q);
    expect(() => b.answer('c1', q.id, { approval: 'once' })).toThrow(/Sign in or Not now/);
    expect(() => b.answer('c1', q.id, { signIn: 'yes' } as never)).toThrow(/not one this card takes/);
    b.answer('c1', q.id, { signIn: true });
    await expect(pending).resolves.toBe(true);

    const declined = b.signIn('c1', server, 'Sign in to docs', 60_000, never());
    b.answer('c1', b.pending('c1')[0]!.id, { signIn: false });
    await expect(declined).resolves.toBe(false);
    const stop = new AbortController();
    const stopped = b.signIn('c1', server, 'Sign in to docs', 60_000, stop.signal);
    stop.abort();
    await expect(stopped).resolves.toBe(false);
    // A question refuses a sign-in reply.
    const question = b.ask('c1', { question: 'Which?', multiple: false }, 60_000, never());
    const qid = b.pending('c1')[0]!.id;
    expect(() => b.answer('c1', qid, { signIn: true })).toThrow(/not a sign-in/);
    b.answer('c1', qid, { decline: true });
    await question;
  });

  it('an unanswered approval times out as a denial', async () => {
    vi.useFakeTimers();
    const { b } = board();
    const pending = b.approve('c1', { tool: 'open_tab', reason: 'site', canAlways: true }, 'x', 5_000, never());
    vi.advanceTimersByTime(5_001);
    await expect(pending).resolves.toEqual({ choice: null, reason: 'timeout' });
  });

  it('a written answer resolves the question, closes it everywhere and clears the badge', async () => {
    const { b, events, attention, asked } = board();
    const pending = b.ask('c1', { question: 'Which city?', multiple: false }, 60_000, never());
    const q = asked();
    expect(b.pending('c1')).toEqual([q]);
    expect(attention.waiting).toHaveBeenLastCalledWith(1);
    expect(attention.notify).not.toHaveBeenCalled(); // a popup shows the conversation
    b.answer('c1', q.id, { text: '  Ankara ' });
    await expect(pending).resolves.toEqual({ answer: 'Ankara' });
    expect(events.at(-1)).toEqual(['c1', { type: 'question_closed', id: q.id }]);
    expect(attention.waiting).toHaveBeenLastCalledWith(0);
    expect(attention.settled).toHaveBeenCalledWith(q.id);
    expect(b.pending('c1')).toEqual([]);
  });

  it('single and multiple choices: only listed options, in the options\' order', async () => {
    const { b, asked, events } = board();
    const one = b.ask('c1', { question: 'Pick', options: ['A', 'B', 'C'], multiple: false }, 60_000, never());
    const q1 = asked();
    expect(() => b.answer('c1', q1.id, { selected: ['A', 'B'] })).toThrow('Choose only one option.');
    expect(() => b.answer('c1', q1.id, { selected: ['Z'] })).toThrow('"Z" is not one of the options.');
    expect(() => b.answer('c1', q1.id, { selected: [] })).toThrow('Choose an option.');
    expect(() => b.answer('c1', q1.id, { text: 'A' })).toThrow('takes one of its options');
    b.answer('c1', q1.id, { selected: ['B'] });
    await expect(one).resolves.toEqual({ answer: 'B' });

    events.length = 0;
    const many = b.ask('c1', { question: 'Pick some', options: ['A', 'B', 'C'], multiple: true }, 60_000, never());
    b.answer('c1', asked().id, { selected: ['C', 'A', 'C'] });
    await expect(many).resolves.toEqual({ answer: 'A, C', selected: ['A', 'C'] });
  });

  it('refuses an answer to a question that is gone or belongs to another conversation', async () => {
    const { b, asked } = board();
    void b.ask('c1', { question: 'Q', multiple: false }, 60_000, never());
    const q = asked();
    expect(() => b.answer('c2', q.id, { text: 'x' })).toThrow('no longer waiting');
    expect(() => b.answer('c1', 'nope', { text: 'x' })).toThrow('no longer waiting');
    expect(() => b.answer('c1', q.id, { text: '   ' })).toThrow('The answer is empty.');
    b.answer('c1', q.id, { decline: true });
    expect(() => b.answer('c1', q.id, { text: 'late' })).toThrow('no longer waiting');
  });

  it('times out with answer null and reason timeout', async () => {
    vi.useFakeTimers();
    const { b } = board();
    const pending = b.ask('c1', { question: 'Still there?', multiple: false }, 300_000, never());
    vi.advanceTimersByTime(299_999);
    expect(b.pending('c1')).toHaveLength(1);
    vi.advanceTimersByTime(1);
    await expect(pending).resolves.toEqual({ answer: null, reason: 'timeout' });
    expect(b.pending('c1')).toEqual([]);
  });

  it('stopping the run answers null with reason stopped', async () => {
    const { b } = board();
    const stop = new AbortController();
    const pending = b.ask('c1', { question: 'Q', multiple: false }, 60_000, stop.signal);
    stop.abort();
    await expect(pending).resolves.toEqual({ answer: null, reason: 'stopped' });
  });

  it('notifies when nobody is looking, and again when the last popup closes', async () => {
    const { b, attention, asked } = board({ viewer: false });
    void b.ask('c1', { question: 'Q', multiple: false }, 60_000, never());
    expect(attention.notify).toHaveBeenCalledWith(asked());
    b.viewerLeft('c1');
    expect(attention.notify).toHaveBeenCalledTimes(2);
    b.viewerLeft('c2');
    expect(attention.notify).toHaveBeenCalledTimes(2);
    expect(b.oldestWaiting()).toBe('c1');
  });
});

describe('ask_user through the run manager', () => {
  const fake = new FakeAnthropic();
  beforeAll(() => fake.start());
  afterAll(() => fake.stop());
  beforeEach(() => fake.reset());

  async function manager(askUserTimeoutSec = 300) {
    const store = await ConversationStore.open(`q-${crypto.randomUUID()}`);
    const settings = { ...defaultSettings(), apiKey: 'k', baseUrl: fake.url, model: 'fake-model', askUserTimeoutSec };
    return new RunManager({ store, registry: new ToolRegistry(userTools), loadSettings: async () => settings, createClient: createAnthropicClient });
  }

  it('the run waits for the answer, which any attached UI may give; the model gets it as the tool result', async () => {
    const runs = await manager();
    fake.script(toolCall('ask_user', { question: 'Which plan?', options: ['Free', 'Pro'] }), text('Pro it is.'));
    const id = await runs.send(undefined, 'Choose for me');
    const question = await new Promise<PendingQuestion>((resolve) => {
      const off = runs.subscribe(id, (ev) => ev.type === 'question' && (off(), resolve(ev.question)));
    });
    expect(await runs.latestId()).toBe(id);
    expect((await runs.snapshot(id))!.questions).toEqual([question]);
    runs.answer(id, question.id, { selected: ['Pro'] });
    await runs.settled(id);
    expect(lastToolResult(fake.requests[1]!.body)).toEqual({ isError: false, content: { answer: 'Pro' } });
  });

  it('an unanswered question times out and the run goes on', async () => {
    const runs = await manager(1);
    fake.script(toolCall('ask_user', { question: 'Anyone?' }), text('Nobody answered.'));
    const id = await runs.send(undefined, 'Ask me');
    await runs.settled(id);
    expect(lastToolResult(fake.requests[1]!.body)).toEqual({ isError: false, content: { answer: null, reason: 'timeout' } });
  });

  it.each<[string, unknown, RegExp]>([
    ['no question', {}, /question/],
    ['an empty question', { question: '  ' }, /question.*empty/],
    ['one option', { question: 'Q', options: ['Only'] }, /options.*at least 2/],
    ['repeated options', { question: 'Q', options: ['A', 'A'] }, /options.*repeat/],
    ['multiple without options', { question: 'Q', multiple: true }, /multiple.*needs options/],
    ['multiple as text', { question: 'Q', options: ['A', 'B'], multiple: 'yes' }, /multiple.*true or false/],
    ['options not a list', { question: 'Q', options: 'A,B' }, /options.*list/],
  ])('refuses %s with a clear error', async (_name, input, message) => {
    const registry = new ToolRegistry(userTools);
    const out = await registry.call('ask_user', input, { conversationId: 'c', signal: never(), tasks: undefined as never, env: undefined as never });
    expect(out.isError).toBe(true);
    expect(out.content).toMatch(message);
  });
});
