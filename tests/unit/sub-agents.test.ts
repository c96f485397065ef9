import 'fake-indexeddb/auto';
import * as v from 'valibot';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConversationStore } from '../../lib/agent/conversation-store';
import { createAnthropicClient } from '../../lib/agent/providers/anthropic-messages';
import { RunManager } from '../../lib/agent/run-manager';
import { ScopedTools, subAgentSystemPrompt } from '../../lib/agent/sub-agents';
import type { RunEvent } from '../../lib/contracts/run-events';
import { SUB_AGENT_TYPES, type SubAgentEvent } from '../../lib/contracts/sub-agents';
import { defaultSettings } from '../../lib/settings';
import { agentTools } from '../../lib/tools/agent';
import { userTools } from '../../lib/tools/ask-user';
import { BUILTIN_TOOL_NAMES, builtinFacts, type BuiltinToolName } from '../../lib/tools/catalog';
import { detachedEnv } from '../../lib/tools/env';
import { defineTool, ToolRegistry, type ToolContext } from '../../lib/tools/registry';
import { TaskBoard } from '../../lib/tools/task-board';
import { FakeAnthropic, lastToolResult, routed, text, toolCall } from '../harness/fake-anthropic';
import { STUB_FACTS } from './helpers';

/** Stand-ins with the real names and facts: what matters here is who may call them, and with which tab. */
const seen: { name: string; input: unknown }[] = [];
const isBuiltin = (name: string): name is BuiltinToolName => (BUILTIN_TOOL_NAMES as string[]).includes(name);
const stub = (name: string, input: v.GenericSchema, reply: (i: any) => unknown = () => ({ ok: true })) =>
  defineTool({
    name,
    ...(isBuiltin(name) ? builtinFacts(name) : STUB_FACTS),
    description: `${name} (a test stand-in of the real tool)`,
    input,
    async run(i, ctx) {
      seen.push({ name, input: i });
      if (name === 'slow_task') await new Promise((r) => ctx.signal.addEventListener('abort', r, { once: true }));
      return reply(i);
    },
  });
const tools = [
  stub('web_search', v.strictObject({ query: v.string() }), (i) => [{ title: `About ${i.query}`, url: 'https://example.com/', snippet: '…' }]),
  stub('get_tab_content', v.strictObject({ tab_id: v.number() }), (i) => ({ tab_id: i.tab_id, content: `Page of tab ${i.tab_id}` })),
  stub('open_tab', v.strictObject({ url: v.string() }), () => ({ id: 77, url: 'https://opened.example/' })),
  stub('execute_script', v.strictObject({ code: v.string(), target: v.string(), tab_id: v.optional(v.number()) })),
  stub('slow_task', v.strictObject({})),
  ...userTools,
  ...agentTools,
];

describe('ScopedTools (enforced where calls are dispatched)', () => {
  const registry = new ToolRegistry(tools);
  const ctx: ToolContext = { conversationId: 'c', signal: new AbortController().signal, tasks: new TaskBoard(), env: detachedEnv(defaultSettings()) };

  it('shows each type only its tools, never ask_user or agent', () => {
    expect(new ScopedTools(registry, 'researcher').modelTools().map((t) => t.name)).toEqual(['web_search', 'get_tab_content']);
    expect(new ScopedTools(registry, 'page_operator').modelTools().map((t) => t.name)).toEqual(['get_tab_content', 'open_tab', 'execute_script']);
    expect(new ScopedTools(registry, 'general').modelTools().map((t) => t.name)).toEqual(['web_search', 'get_tab_content', 'open_tab', 'execute_script', 'slow_task']);
    for (const type of SUB_AGENT_TYPES) {
      const scoped = new ScopedTools(registry, type);
      expect(scoped.facts('ask_user')).toBeUndefined();
      expect(scoped.facts('agent')).toBeUndefined();
    }
  });

  it("an agent profile's tool list narrows the type's, and still never reaches ask_user", async () => {
    const scoped = new ScopedTools(registry, 'general', undefined, ['web_search', 'ask_user']);
    expect(scoped.modelTools().map((t) => t.name)).toEqual(['web_search']);
    expect(await scoped.call('open_tab', { url: 'https://x.example/' }, ctx)).toEqual({ isError: true, content: 'open_tab is not available to a general sub-agent. Its tools are: web_search.' });
    expect(new ScopedTools(registry, 'general', undefined, []).modelTools()).toHaveLength(5);
  });

  it('hides tools that start agents themselves (a delegate skill) so delegation cannot nest', async () => {
    const delegate = { ...stub('delegate', v.strictObject({ task: v.string() })), spawnsAgent: true };
    const withDelegate = new ToolRegistry([...tools, delegate]);
    const scoped = new ScopedTools(withDelegate, 'general');
    expect(scoped.modelTools().map((t) => t.name)).not.toContain('delegate');
    expect(await scoped.call('delegate', { task: 'again' }, ctx)).toMatchObject({ isError: true, content: /delegate is not available/ });
  });

  it("an agent profile's prompt leads the sub-agent's, with the rules every sub-agent keeps", () => {
    const prompt = subAgentSystemPrompt({ prompt: 't', type: 'general', profile: { name: 'Editor', system: 'You edit prose tersely.' } }, new Date('2026-01-02T00:00:00Z'));
    expect(prompt).toMatch(/^You are "Editor", an agent the main assistant delegated a task to\.\n\nYou edit prose tersely\./);
    expect(prompt).toContain('you cannot ask the user anything');
    expect(prompt).toContain('Today is 2026-01-02.');
  });

  it('refuses a call outside the type even when the model names it anyway', async () => {
    seen.length = 0;
    const out = await new ScopedTools(registry, 'researcher').call('execute_script', { code: '1', target: 'page' }, ctx);
    expect(out).toEqual({ isError: true, content: 'execute_script is not available to a researcher sub-agent. Its tools are: web_search, get_tab_content.' });
    expect(await new ScopedTools(registry, 'general').call('ask_user', { question: 'Hi?' }, ctx)).toMatchObject({ isError: true, content: /ask_user is not available/ });
    expect(seen).toEqual([]);
  });

  it('a handed tab is the default; a page_operator keeps to it and to the tabs it opened', async () => {
    seen.length = 0;
    const scoped = new ScopedTools(registry, 'page_operator', 5);
    expect(await scoped.call('get_tab_content', {}, ctx)).toMatchObject({ isError: false, content: expect.stringContaining('Page of tab 5') });
    expect(await scoped.call('get_tab_content', { tab_id: 9 }, ctx)).toMatchObject({ isError: true, content: expect.stringMatching(/^Tab 9 is not this sub-agent's: it works in tab 5/) });
    await scoped.call('open_tab', { url: 'https://opened.example/' }, ctx);
    expect(await scoped.call('execute_script', { code: '1', target: 'page', tab_id: 77 }, ctx)).toMatchObject({ isError: false });
    expect(seen.map((s) => s.input)).toEqual([{ tab_id: 5 }, { url: 'https://opened.example/' }, { code: '1', target: 'page', tab_id: 77 }]);
    expect([...scoped.used]).toEqual([['get_tab_content', 1], ['open_tab', 1], ['execute_script', 1]]);
  });
});

describe('agent through the run manager', () => {
  const fake = new FakeAnthropic();
  beforeAll(() => fake.start());
  afterAll(() => fake.stop());
  beforeEach(() => {
    fake.reset();
    seen.length = 0;
  });

  async function manager(limits?: { rounds: number; ms: number }) {
    const store = await ConversationStore.open(`sa-${crypto.randomUUID()}`);
    const settings = { ...defaultSettings(), apiKey: 'k', baseUrl: fake.url, model: 'fake-model' };
    return new RunManager({
      store,
      registry: new ToolRegistry(tools),
      loadSettings: async () => settings,
      createClient: createAnthropicClient,
      ...(limits ? { subAgentLimits: limits } : {}),
    });
  }

  function events(runs: RunManager, id: string) {
    const out: { toolUseId: string; event: SubAgentEvent }[] = [];
    runs.subscribe(id, (ev: RunEvent) => ev.type === 'sub_agent_event' && out.push({ toolUseId: ev.toolUseId, event: ev.event }));
    return out;
  }

  it('a researcher that tries execute_script is refused, finishes, and the parent gets its answer and tools', async () => {
    const runs = await manager();
    const route = routed(
      [toolCall('agent', { prompt: 'RESEARCH lighthouses', description: 'Lighthouse facts', type: 'researcher' }), text('Thanks.')],
      {
        RESEARCH: [
          toolCall('execute_script', { code: 'document.title', target: 'page' }),
          toolCall('web_search', { query: 'lighthouses' }),
          text('Lighthouses guide ships. Source: example.com'),
        ],
      },
    );
    fake.script(...Array.from({ length: 5 }, () => route));
    const id = await runs.send(undefined, 'Find facts');
    const log = events(runs, id);
    await runs.settled(id);
    // The sub-agent's second request carried the refusal of execute_script.
    const subRequests = fake.requests.filter((r) => JSON.stringify(r.body.messages[0].content).includes('RESEARCH'));
    expect(subRequests[0]!.body.tools.map((t: { name: string }) => t.name)).toEqual(['web_search', 'get_tab_content']);
    expect(lastToolResult(subRequests[1]!.body)).toMatchObject({ isError: true, content: expect.stringMatching(/execute_script is not available to a researcher/) });
    expect(seen.map((s) => s.name)).toEqual(['web_search']);
    const parentResult = lastToolResult(fake.requests.at(-1)!.body);
    expect(parentResult).toEqual({ isError: false, content: { answer: 'Lighthouses guide ships. Source: example.com', tools_used: [{ name: 'web_search', calls: 1 }] } });
    expect(log.map((e) => e.event.kind)).toContain('tool');
    expect(log.at(-1)!.event).toEqual({ kind: 'status', status: 'done' });
    const view = Object.values((await runs.snapshot(id))!.subAgents)[0]!;
    expect(view).toMatchObject({ status: 'done', texts: ['Lighthouses guide ships. Source: example.com'] });
    expect(view.tools.map((t) => [t.name, t.status])).toEqual([['execute_script', 'error'], ['web_search', 'done']]);
  });

  it('runs two sub-agents in parallel; stopping the parent stops both', async () => {
    const runs = await manager();
    const route = routed(
      [{ content: [
        { type: 'tool_use', name: 'agent', input: { prompt: 'ALPHA wait', type: 'general' } },
        { type: 'tool_use', name: 'agent', input: { prompt: 'BETA wait', type: 'general' } },
      ] }],
      { ALPHA: [toolCall('slow_task', {})], BETA: [toolCall('slow_task', {})] },
    );
    fake.script(route, route, route);
    const id = await runs.send(undefined, 'Do two things');
    const log = events(runs, id);
    await expect.poll(() => seen.filter((s) => s.name === 'slow_task').length, { timeout: 5000 }).toBe(2);
    runs.stop(id);
    await runs.settled(id);
    const finals = log.filter((e) => e.event.kind === 'status' && e.event.status !== 'running');
    expect(new Set(finals.map((e) => e.toolUseId)).size).toBe(2);
    for (const f of finals) expect(f.event).toEqual({ kind: 'status', status: 'stopped' });
    expect((await runs.snapshot(id))!.conversation.run.status).toBe('stopped');
  });

  it('past its budget the answer so far comes back marked partial', async () => {
    const runs = await manager({ rounds: 2, ms: 60_000 });
    const route = routed([toolCall('agent', { prompt: 'LOOP forever' }), text('Partial is fine.')], {
      LOOP: [
        { content: [{ type: 'text', text: 'Still searching.' }, { type: 'tool_use', name: 'web_search', input: { query: 'a' } }] },
        toolCall('web_search', { query: 'b' }),
      ],
    });
    fake.script(route, route, route, route);
    const id = await runs.send(undefined, 'Go');
    await runs.settled(id);
    expect(lastToolResult(fake.requests.at(-1)!.body).content).toEqual({
      answer: 'Still searching.',
      tools_used: [{ name: 'web_search', calls: 2 }],
      partial: true,
      reason: 'it used its budget of 2 rounds',
    });
  });

  it.each<[string, unknown, RegExp]>([
    ['no prompt', {}, /prompt/],
    ['an unknown type', { prompt: 'x', type: 'hacker' }, /type.*researcher, page_operator, general/],
    ['a tab id that is not a number', { prompt: 'x', tab_id: 'first' }, /tab_id/],
  ])('refuses %s with a clear error', async (_name, input, message) => {
    const out = await new ToolRegistry(agentTools).call('agent', input, { conversationId: 'c', signal: new AbortController().signal, tasks: new TaskBoard(), env: detachedEnv(defaultSettings()), toolUseId: 't' });
    expect(out).toEqual({ isError: true, content: expect.stringMatching(message) });
  });
});
