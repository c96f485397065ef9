import 'fake-indexeddb/auto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConversationStore } from '../../lib/agent/conversation-store';
import { createAnthropicClient } from '../../lib/agent/providers/anthropic-messages';
import { MAX_USER_MESSAGE_CHARS, RunManager } from '../../lib/agent/run-manager';
import { idleRun, type RunState, type StoredMessage, type Task } from '../../lib/contracts/conversation';
import type { RunEvent } from '../../lib/contracts/run-events';
import { defaultSettings, type Settings } from '../../lib/settings';
import { FakeAnthropic, gate, text, toolCall } from '../harness/fake-anthropic';
import { FakeOpenAI, text as openaiText } from '../harness/fake-openai';
import { defineTool, ToolRegistry } from '../../lib/tools/registry';
import { taskTools } from '../../lib/tools/tasks';
import { createModelClient } from '../../lib/agent/providers';
import { STUB_FACTS, summarizeTool, testRegistry, userText } from './helpers';
import * as v from 'valibot';

const fake = new FakeAnthropic();
beforeAll(() => fake.start());
afterAll(() => fake.stop());
beforeEach(() => fake.reset());

const stores: ConversationStore[] = [];
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
});

interface Setup {
  store: ConversationStore;
  dbName: string;
  manager: RunManager;
  settings: Settings;
  keepAlive: { acquired: number; released: number };
}

async function setup(overrides: Partial<Settings> = {}, dbName = `rm-${crypto.randomUUID()}`): Promise<Setup> {
  const store = await ConversationStore.open(dbName);
  stores.push(store);
  const settings: Settings = {
    ...defaultSettings(),
    apiKey: 'test-key',
    baseUrl: fake.url,
    model: 'fake-model',
    maxTokens: 1024,
    ...overrides,
  };
  const keepAlive = { acquired: 0, released: 0 };
  const manager = new RunManager({
    store,
    registry: testRegistry(),
    loadSettings: async () => settings,
    createClient: createAnthropicClient,
    keepAlive: { acquire: () => void keepAlive.acquired++, release: () => void keepAlive.released++ },
    now: () => new Date('2025-03-04T05:06:07Z'),
  });
  return { store, dbName, manager, settings, keepAlive };
}

/** Everything one conversation's subscribers receive. */
function collect(manager: RunManager, id: string) {
  const events: RunEvent[] = [];
  const unsubscribe = manager.subscribe(id, (ev) => events.push(ev));
  const of = <T extends RunEvent['type']>(type: T) => events.filter((e): e is Extract<RunEvent, { type: T }> => e.type === type);
  return { events, of, unsubscribe };
}

type Block = StoredMessage['content'][number];
const blocks = (m: StoredMessage | undefined) => (m?.content ?? []) as (Block & Record<string, any>)[];
const shape = (messages: StoredMessage[]) => messages.map((m) => `${m.role}:${m.content.map((b) => b.type).join('+')}`);

describe('RunManager against the fake Messages API and IndexedDB', () => {
  it('send() creates and titles a conversation and persists every step of the run', async () => {
    const { store, dbName, manager, keepAlive } = await setup();
    fake.script(toolCall('create_task', { subject: 'Step 1' }), text('Done.'));

    const id = await manager.send(undefined, '  Plan it\nwith   all the details  ');
    expect(manager.isRunning(id)).toBe(true);
    await manager.settled(id);
    expect(manager.isRunning(id)).toBe(false);

    // Read back through a fresh connection: what a restarted worker would see.
    store.close();
    const reopened = await ConversationStore.open(dbName);
    stores.push(reopened);
    const conv = (await reopened.get(id))!;
    expect(conv.title).toBe('Plan it');
    expect(shape(conv.messages)).toEqual(['user:text', 'assistant:tool_use', 'user:tool_result', 'assistant:text']);
    expect(blocks(conv.messages[0])[0]).toEqual({ type: 'text', text: 'Plan it\nwith   all the details' });
    const [use] = blocks(conv.messages[1]);
    expect(use).toMatchObject({ type: 'tool_use', name: 'create_task', input: { subject: 'Step 1' } });
    const [result] = blocks(conv.messages[2]);
    expect(result).toMatchObject({ type: 'tool_result', tool_use_id: use!.id });
    expect(result!.is_error).toBeUndefined();
    expect(JSON.parse(result!.content)).toEqual({ task_id: '1', subject: 'Step 1', status: 'pending' });
    expect(blocks(conv.messages[3])).toEqual([{ type: 'text', text: 'Done.' }]);

    expect(conv.run).toMatchObject({ status: 'done', round: 2, roundCap: 50 });
    expect(conv.run.usage.output).toBeGreaterThan(0);
    expect(conv.run.endedAt).toBeGreaterThanOrEqual(conv.run.startedAt!);
    expect(await reopened.list()).toEqual([{ id, title: 'Plan it', updatedAt: conv.updatedAt, status: 'done' }]);

    // The model got the settings and the system prompt with the injected date.
    const first = fake.requests[0]!.body;
    expect(first.model).toBe('fake-model');
    expect(first.max_tokens).toBe(1024);
    expect(first.system[0].text).toContain('2025-03-04');
    expect(fake.requests).toHaveLength(2);
    expect(keepAlive).toEqual({ acquired: 1, released: 1 });
  });

  it('subscribe() receives title, draft, message, tool, task and run events; each message is stored before it is announced', async () => {
    const { store, manager } = await setup();
    const { id } = await store.create(50);
    const sub = collect(manager, id);
    const storedAtEmit: Promise<[number, number]>[] = [];
    manager.subscribe(id, (ev) => {
      if (ev.type !== 'message') return;
      const expected = sub.of('message').length;
      storedAtEmit.push(store.get(id).then((c) => [c!.messages.length, expected]));
    });
    fake.script(
      toolCall('create_task', { subject: 'Book train' }),
      toolCall('update_task', { task_id: '1', status: 'completed' }),
      text('All set, the train is booked.'),
    );

    expect(await manager.send(id, 'Plan the trip')).toBe(id);
    await manager.settled(id);

    const types = new Set(sub.events.map((e) => e.type));
    for (const t of ['title', 'message', 'run', 'draft_reset', 'draft_block', 'draft_text', 'draft_input', 'tool_status', 'tasks'] as const) {
      expect(types, t).toContain(t);
    }
    expect(sub.of('title')).toEqual([{ type: 'title', title: 'Plan the trip' }]);
    expect(sub.of('message').map((e) => e.message.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user', 'assistant']);
    expect(sub.of('draft_text').map((e) => e.text).join('')).toBe('All set, the train is booked.');
    // The first tool call's arguments, as streamed before its message was committed.
    const firstCommit = sub.events.findIndex((e) => e.type === 'message' && e.message.role === 'assistant');
    const streamedJson = sub.events.slice(0, firstCommit).flatMap((e) => (e.type === 'draft_input' ? [e.json] : []));
    expect(JSON.parse(streamedJson.join(''))).toEqual({ subject: 'Book train' });
    expect(sub.of('tool_status').map((e) => e.status)).toEqual(['running', 'done', 'running', 'done']);

    const tasks: Task[][] = sub.of('tasks').map((e) => e.tasks);
    expect(tasks).toEqual([
      [{ task_id: '1', subject: 'Book train', status: 'pending' }],
      [{ task_id: '1', subject: 'Book train', status: 'completed' }],
    ]);
    expect(manager.tasks.peek(id)).toEqual(tasks[1]);
    expect((await manager.snapshot(id))!.tasks).toEqual(tasks[1]);

    const runs = sub.of('run').map((e) => e.run);
    expect(runs[0]!.status).toBe('running');
    expect(runs.at(-1)).toMatchObject({ status: 'done', round: 3 });
    expect(Math.max(...runs.map((r) => r.round))).toBe(3);
    // The draft is cleared when the run ends.
    expect(sub.events.at(-2)).toEqual({ type: 'draft_reset' });
    expect((await manager.snapshot(id))!.draft).toBeNull();

    for (const [stored, announced] of await Promise.all(storedAtEmit)) expect(stored).toBe(announced);

    // After unsubscribing nothing more arrives.
    sub.unsubscribe();
    const count = sub.events.length;
    fake.script(text('again'));
    await manager.send(id, 'one more');
    await manager.settled(id);
    expect(sub.events).toHaveLength(count);
  });

  it('stop() ends a streaming run with status stopped and keeps the text shown so far', async () => {
    const { store, manager } = await setup();
    const { id } = await store.create(50);
    const sub = collect(manager, id);
    const g = gate();
    fake.script({ ...text('Partial words here and more after the pause'), chunk: 5, pause: { afterEvents: 4, gate: g } });

    await manager.send(id, 'tell me');
    await fake.waitForRequests(1);
    while (!sub.of('draft_text').length) await new Promise((r) => setTimeout(r, 5));
    await expect(manager.send(id, 'and also')).rejects.toThrow(/already active/);

    const t0 = Date.now();
    manager.stop(id);
    await manager.settled(id);
    expect(Date.now() - t0).toBeLessThan(1000);
    g.open();

    const conv = (await store.get(id))!;
    expect(conv.run.status).toBe('stopped');
    expect(conv.messages.map((m) => blocks(m)[0]!.text)).toEqual(['tell me', 'Partial wo']);
    expect(sub.of('run').at(-1)!.run.status).toBe('stopped');
    expect(manager.isRunning(id)).toBe(false);
  });

  it('stop() during a tool call records the tool as stopped', async () => {
    const { store, manager } = await setup();
    const { id } = await store.create(50);
    fake.script(toolCall('sleep', { ms: 300 }));
    const sub = collect(manager, id);
    await manager.send(id, 'wait a bit');
    while (!sub.of('tool_status').length) await new Promise((r) => setTimeout(r, 5));
    manager.stop(id);
    await manager.settled(id);

    const conv = (await store.get(id))!;
    expect(conv.run.status).toBe('stopped');
    expect(shape(conv.messages)).toEqual(['user:text', 'assistant:tool_use', 'user:tool_result']);
    expect(blocks(conv.messages[2])[0]).toMatchObject({ is_error: true, content: expect.stringMatching(/Stopped by the user/) });
    expect(fake.requests).toHaveLength(1);
  });

  it('pauses at the round cap with awaiting_continue, and continueRun() finishes the work', async () => {
    const { store, manager } = await setup({ roundCap: 2 });
    fake.script(toolCall('list_tasks', {}), toolCall('list_tasks', {}));
    const id = await manager.send(undefined, 'keep going');
    await manager.settled(id);

    let conv = (await store.get(id))!;
    expect(conv.run).toMatchObject({ status: 'awaiting_continue', round: 2, roundCap: 2 });
    expect(fake.requests).toHaveLength(2);
    expect(conv.messages.at(-1)!.role).toBe('user');

    fake.script(text('Finished after the pause.'));
    await manager.continueRun(id);
    await manager.settled(id);
    conv = (await store.get(id))!;
    expect(conv.run.status).toBe('done');
    expect(blocks(conv.messages.at(-1))).toEqual([{ type: 'text', text: 'Finished after the pause.' }]);
    expect(fake.requests).toHaveLength(3);
    // The continued request carries the whole conversation, ending with the tool results.
    const body = fake.requests[2]!.body;
    expect(body.messages).toHaveLength(5);
    expect(body.messages.at(-1).content[0].type).toBe('tool_result');
  });

  it('regenerate() drops the last answer, tool rounds included, and answers again', async () => {
    const { store, manager } = await setup();
    fake.script(toolCall('create_task', { subject: 'Draft' }), text('First answer.'));
    const id = await manager.send(undefined, 'write something');
    await manager.settled(id);
    expect((await store.get(id))!.messages).toHaveLength(4);

    const sub = collect(manager, id);
    fake.script(text('Second answer.'));
    await manager.regenerate(id);
    await manager.settled(id);

    const conv = (await store.get(id))!;
    expect(shape(conv.messages)).toEqual(['user:text', 'assistant:text']);
    expect(blocks(conv.messages[1])).toEqual([{ type: 'text', text: 'Second answer.' }]);
    expect(conv.run.status).toBe('done');
    expect(sub.of('messages_replaced')[0]!.messages).toHaveLength(1);
    // The model was asked with only the user's message.
    const body = fake.requests.at(-1)!.body;
    expect(body.messages).toHaveLength(1);
    expect(body.messages[0].content[0].text).toBe('write something');
  });

  it('recovers a run cut off mid tool call: interrupted, then continueRun() adds an error result and asks the model again', async () => {
    const { store } = await setup();
    const conv = await store.create(50, 'Interrupted work');
    const wasRunning: RunState = { ...idleRun(50), status: 'running', round: 1, startedAt: 1 };
    await store.append(conv.id, 0, userText('count the links'), { run: wasRunning });
    await store.append(
      conv.id,
      1,
      {
        role: 'assistant',
        at: Date.now(),
        content: [
          { type: 'text', text: 'Counting now.' },
          { type: 'tool_use', id: 'toolu_cut', name: 'sleep', input: { ms: 10 } },
        ],
      },
      { run: wasRunning },
    );
    // Another one that was waiting for a retry, and one that had finished.
    const retrying = await store.create(50, 'Retrying');
    await store.append(retrying.id, 0, userText('hi'), {
      run: { ...wasRunning, status: 'retrying', retry: { at: 1, attempt: 1, maxAttempts: 5, reason: '529' } },
    });
    const finished = await store.create(50, 'Finished');
    await store.setRun(finished.id, { ...wasRunning, status: 'done' });

    // The worker restarts: a new manager over the same store.
    const restarted = new RunManager({
      store,
      registry: testRegistry(),
      loadSettings: async () => ({ ...defaultSettings(), apiKey: 'test-key', baseUrl: fake.url, model: 'fake-model' }),
      createClient: createAnthropicClient,
    });

    expect((await restarted.recoverInterrupted()).sort()).toEqual([conv.id, retrying.id].sort());
    expect((await store.get(conv.id))!.run.status).toBe('interrupted');
    const retryRun = (await store.get(retrying.id))!.run;
    expect(retryRun.status).toBe('interrupted');
    expect(retryRun.retry).toBeUndefined();
    expect((await store.get(finished.id))!.run.status).toBe('done');
    expect(fake.requests).toHaveLength(0);

    fake.script(text('Picked up again: 12 links.'));
    await restarted.continueRun(conv.id);
    await restarted.settled(conv.id);

    expect(fake.requests).toHaveLength(1);
    const sent = fake.requests[0]!.body.messages;
    expect(sent.map((m: any) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(sent[2].content).toHaveLength(1);
    expect(sent[2].content[0]).toMatchObject({
      type: 'tool_result',
      tool_use_id: 'toolu_cut',
      is_error: true,
      content: expect.stringMatching(/interrupted/),
    });

    const after = (await store.get(conv.id))!;
    expect(shape(after.messages)).toEqual(['user:text', 'assistant:text+tool_use', 'user:tool_result', 'assistant:text']);
    expect(blocks(after.messages[2])[0]).toMatchObject({ tool_use_id: 'toolu_cut', is_error: true });
    expect(after.run.status).toBe('done');
  });

  it('without an API key the run ends in a config error and no request is sent', async () => {
    const { store, manager } = await setup({ apiKey: '' });
    const id = await manager.send(undefined, 'hello?');
    await manager.settled(id);
    const conv = (await store.get(id))!;
    expect(conv.run.status).toBe('error');
    expect(conv.run.error).toMatchObject({ kind: 'config' });
    expect(conv.run.error!.message).toMatch(/API key/);
    expect(conv.messages).toHaveLength(1);
    expect(fake.requests).toHaveLength(0);
  });

  it('a local server needs no key, sends none, and its tokens cost nothing', async () => {
    const { store, manager } = await setup({ provider: 'ollama', apiKey: '', authHeader: 'none', model: 'qwen3:8b' });
    fake.script(text('Hi from the local model.', { usage: { input_tokens: 1200, output_tokens: 30 } }));
    const id = await manager.send(undefined, 'hello?');
    await manager.settled(id);
    const conv = (await store.get(id))!;
    expect(conv.run.status).toBe('done');
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]!.headers['x-api-key']).toBeUndefined();
    expect(fake.requests[0]!.headers.authorization).toBeUndefined();
    expect(conv.run.cost).toBe(0);
    expect(conv.totals).toMatchObject({ cost: 0, unpricedTokens: 0 });
  });

  it('send() rejects an empty or over-long message before creating anything', async () => {
    const { store, manager } = await setup();
    await expect(manager.send(undefined, '')).rejects.toThrow('The message is empty.');
    await expect(manager.send(undefined, ' \n\t ')).rejects.toThrow('The message is empty.');
    await expect(manager.send(undefined, 'x'.repeat(MAX_USER_MESSAGE_CHARS + 1))).rejects.toThrow(
      `The message is too long (${MAX_USER_MESSAGE_CHARS + 1} characters; the limit is ${MAX_USER_MESSAGE_CHARS}).`,
    );
    await expect(manager.send('missing-id', 'hi')).rejects.toThrow(/no longer exists/);
    expect(await store.list()).toEqual([]);
    expect(fake.requests).toHaveLength(0);

    // Exactly at the limit is fine (surrounding whitespace does not count).
    fake.script(text('ok'));
    const id = await manager.send(undefined, `  ${'y'.repeat(MAX_USER_MESSAGE_CHARS)}  `);
    await manager.settled(id);
    expect((await store.get(id))!.run.status).toBe('done');
  });
});

describe('RunManager with skills', () => {
  it("adds the active skills' tools to each run and tells the user which were left out", async () => {
    const store = await ConversationStore.open(`rm-${crypto.randomUUID()}`);
    stores.push(store);
    const settings: Settings = { ...defaultSettings(), apiKey: 'test-key', baseUrl: fake.url, model: 'fake-model', maxTokens: 1024 };
    const { defineTool } = await import('../../lib/tools/registry');
    const v = await import('valibot');
    let loads = 0;
    const shout = defineTool({
      name: 'shout',
      risk: 'read_local',
      subAgents: ['general'],
      description: 'Upper-cases text.',
      input: v.strictObject({ text: v.string() }),
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      run: ({ text }) => text.toUpperCase(),
    });
    const manager = new RunManager({
      store,
      registry: testRegistry(),
      loadSettings: async () => settings,
      createClient: createAnthropicClient,
      skills: async () => {
        loads++;
        return { tools: [shout], problems: [{ skill: 'files', message: 'The MCP server at http://127.0.0.1:9 did not answer.' }] };
      },
    });
    fake.script(toolCall('shout', { text: 'hi' }), text('Done.'));
    const id = await manager.send(undefined, 'Shout hi');
    const { of } = collect(manager, id);
    await manager.settled(id);

    const tools = fake.requests[0]!.body.tools as { name: string; input_schema: unknown }[];
    expect(tools.at(-1)).toMatchObject({ name: 'shout', description: 'Upper-cases text.', input_schema: shout.inputSchema });
    expect(JSON.stringify(fake.requests[1]!.body.messages.at(-1))).toContain('HI');
    expect(of('notice')).toEqual([{ type: 'notice', notice: { kind: 'skills_unavailable', problems: [{ skill: 'files', message: expect.stringContaining('did not answer') }] } }]);
    expect(loads).toBe(1);
  });
});

describe('RunManager with the summary model on another provider', () => {
  const openai = new FakeOpenAI();
  beforeAll(() => openai.start());
  afterAll(() => openai.stop());
  beforeEach(() => openai.reset());

  it('a running call\'s latest progress is in the snapshot (a popup opened mid-call shows it), and gone when it ends', async () => {
    const store = await ConversationStore.open(`rm-${crypto.randomUUID()}`);
    stores.push(store);
    const settings: Settings = { ...defaultSettings(), apiKey: 'test-key', baseUrl: fake.url, model: 'fake-model', maxTokens: 1024 };
    let finish!: () => void;
    const finished = new Promise<void>((r) => (finish = r));
    const reported = { done: false };
    const slowTool = defineTool({
      name: 'slow_job',
      ...STUB_FACTS,
      description: 'Reports progress, then waits (tests only).',
      input: v.strictObject({}),
      async run(_input, ctx) {
        ctx.progress?.({ progress: 1, total: 3, message: 'Stage 1' });
        reported.done = true;
        await finished;
        return 'finished';
      },
    });
    const manager = new RunManager({ store, registry: new ToolRegistry([slowTool]), loadSettings: async () => settings, createClient: createAnthropicClient });
    fake.script(toolCall('slow_job', {}), text('Done.'));
    const id = await manager.send(undefined, 'Run the job');
    await expect.poll(() => reported.done).toBe(true);
    const during = (await manager.snapshot(id))!;
    const [callId] = Object.keys(during.toolStatus);
    expect(during.toolStatus[callId!]).toBe('running');
    // The first report of a call goes out at once (later ones are throttled).
    await expect.poll(async () => (await manager.snapshot(id))!.toolProgress[callId!]).toEqual({ progress: 1, total: 3, message: 'Stage 1' });
    finish();
    await manager.settled(id);
    expect((await manager.snapshot(id))!.toolProgress).toEqual({});
  });

  async function managerWith(overrides: Partial<Settings>) {
    const store = await ConversationStore.open(`rm-${crypto.randomUUID()}`);
    stores.push(store);
    const settings: Settings = { ...defaultSettings(), apiKey: 'test-key', baseUrl: fake.url, model: 'fake-model', maxTokens: 1024, ...overrides };
    const endpoints: string[] = [];
    const manager = new RunManager({
      store,
      registry: new ToolRegistry([...taskTools, summarizeTool]),
      loadSettings: async () => settings,
      createClient: (endpoint) => (endpoints.push(`${endpoint.kind} ${endpoint.baseUrl}`), createModelClient(endpoint)),
    });
    return { store, manager, endpoints };
  }

  it("sends summaries to the summary provider's endpoint in its API, the run to the main one", async () => {
    const { store, manager, endpoints } = await managerWith({
      summaryProvider: 'other-openai',
      summaryModel: 'local-summariser',
      providerConfigs: { 'other-openai': { baseUrl: openai.url, apiKey: '', authHeader: 'bearer' } },
    });
    fake.script(toolCall('summarize_text', { text: 'A long page about tides.' }), text('Here is the gist.'));
    openai.script(openaiText('Tides rise and fall twice a day.'));
    const id = await manager.send(undefined, 'Summarise the page');
    await manager.settled(id);
    const conv = (await store.get(id))!;
    expect(conv.run.status).toBe('done');
    // One client per provider the run used, each made once.
    expect(endpoints).toEqual([`anthropic ${fake.url}`, `openai ${openai.url}`]);
    expect(openai.requests).toHaveLength(1);
    expect(openai.requests[0]!.body.model).toBe('local-summariser');
    expect(openai.requests[0]!.headers.authorization).toBeUndefined();
    expect(JSON.stringify(fake.requests[1]!.body.messages.at(-1))).toContain('Tides rise and fall twice a day.');
    expect(fake.requests.every((r) => r.body.model === 'fake-model')).toBe(true);
  });

  it('a summary provider that is not set up fails the summary as a tool error saying what to do, not the run', async () => {
    const { store, manager } = await managerWith({ summaryProvider: 'groq', summaryModel: 'llama-3.3-70b-versatile' });
    fake.script(toolCall('summarize_text', { text: 'Some text.' }), text('The summary failed, so here is the text.'));
    const id = await manager.send(undefined, 'Summarise it');
    await manager.settled(id);
    const conv = (await store.get(id))!;
    expect(conv.run.status).toBe('done');
    const result = conv.messages[2]!.content[0] as { type: string; is_error?: boolean; content: unknown };
    expect(result).toMatchObject({ type: 'tool_result', is_error: true });
    expect(JSON.stringify(result.content)).toMatch(/Groq is not set up: choose it in Settings/);
    expect(openai.requests).toHaveLength(0);
  });
});
