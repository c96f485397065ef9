import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { SubAgentRequest, SubAgentResult } from '../../lib/contracts/sub-agents';
import { defaultSettings } from '../../lib/settings';
import { builtinSkillTools } from '../../lib/skills/builtin';
import { a2aMessageSend, partsText } from '../../lib/skills/builtin/delegate';
import type { BuiltinConfig } from '../../lib/skills/config';
import type { SkillServices } from '../../lib/skills/services';
import type { AgentProfile, SkillRecord } from '../../lib/skills/types';
import { detachedEnv } from '../../lib/tools/env';
import { ToolRegistry, type ToolContext } from '../../lib/tools/registry';
import { TaskBoard } from '../../lib/tools/task-board';
import { startA2aServer, type A2aServer } from '../harness/a2a-server';

const profile = (slug: string, extra: Partial<AgentProfile> = {}): AgentProfile => ({
  id: `id-${slug}`,
  name: `${slug[0]!.toUpperCase()}${slug.slice(1)} agent`,
  slug,
  system_prompt: `You are the ${slug} agent.`,
  model: '',
  tools: [],
  a2a_url: '',
  created_at: 0,
  updated_at: 0,
  ...extra,
});

const skill: SkillRecord = {
  id: 's1',
  name: 'delegate',
  description: 'Hand work to a specialist.',
  skill_type: 'builtin',
  config_json: '{"function_name":"delegate_to_agent"}',
  is_active: true,
  created_at: 0,
  updated_at: 0,
};

let a2a: A2aServer;
let profiles: AgentProfile[];
beforeAll(async () => {
  a2a = await startA2aServer();
});
afterAll(() => a2a.close());
beforeEach(() => {
  a2a.requests.length = 0;
  a2a.reply((req) => ({ kind: 'task', state: 'completed', artifacts: [`Echo: ${req.text ?? ''}`] }));
  profiles = [
    profile('writer', { model: 'claude-haiku-4-5', tools: ['web_search', 'web_fetch'] }),
    profile('coder'),
    profile('remote', { a2a_url: a2a.url }),
  ];
});

const services = (): SkillServices => ({ profiles: async () => profiles, mcp: {} as SkillServices['mcp'] });

async function harness(config: BuiltinConfig = { function_name: 'delegate_to_agent' }, options: { toolUseId?: string; signal?: AbortSignal } = {}) {
  const subAgentCalls: { request: SubAgentRequest; toolUseId: string }[] = [];
  const subAgent = async (request: SubAgentRequest, toolUseId: string): Promise<SubAgentResult> => {
    subAgentCalls.push({ request, toolUseId });
    return { answer: `done: ${request.prompt}`, tools_used: [{ name: 'web_search', calls: 2 }] };
  };
  const [tool] = await builtinSkillTools(skill, config, services());
  const registry = new ToolRegistry([tool!]);
  const ctx: ToolContext = {
    conversationId: 'c',
    ...(options.toolUseId ? { toolUseId: options.toolUseId } : {}),
    signal: options.signal ?? new AbortController().signal,
    tasks: new TaskBoard(),
    env: { ...detachedEnv(defaultSettings()), fetch: globalThis.fetch, subAgent },
  };
  const call = async (input: unknown) => {
    const out = await registry.call('delegate', input, ctx);
    return out.isError ? { error: out.content } : { result: JSON.parse(out.content) };
  };
  return { call, tool: tool!, registry, subAgentCalls };
}

describe('delegate_to_agent: the tool the model sees', () => {
  it('lists the saved agents and requires to_agent_slug', async () => {
    const { tool, registry } = await harness();
    expect(tool.description).toMatch(/^Hand work to a specialist\. Delegates task .* Agents: writer \("Writer agent"\), coder \("Coder agent"\), remote \("Remote agent", remote\)\.$/);
    expect(registry.modelTools()[0]!.input_schema).toMatchObject({ required: ['to_agent_slug', 'task'] });
  });

  it('with to_agent_id names the fixed agent and makes to_agent_slug optional', async () => {
    const { tool, registry } = await harness({ function_name: 'delegate_to_agent', to_agent_id: 'id-coder' });
    expect(tool.description).toMatch(/to the agent "Coder agent" \(coder\).*to_agent_slug is not needed and is ignored/);
    expect(registry.modelTools()[0]!.input_schema).toMatchObject({ required: ['task'] });
  });
});

describe('delegate_to_agent: local profiles run as sub-agents', () => {
  it('runs the profile with its prompt, model and tools, under the call id, and returns the answer', async () => {
    const { call, subAgentCalls } = await harness(undefined, { toolUseId: 'toolu_1' });
    const out = await call({ to_agent_slug: 'writer', task: 'Write a haiku', context: 'About autumn.' });
    expect(out).toEqual({ result: { agent: 'writer', answer: 'done: Write a haiku\n\nContext:\nAbout autumn.', tools_used: [{ name: 'web_search', calls: 2 }] } });
    expect(subAgentCalls).toEqual([
      {
        toolUseId: 'toolu_1',
        request: {
          prompt: 'Write a haiku\n\nContext:\nAbout autumn.',
          description: 'Writer agent',
          type: 'general',
          profile: { name: 'Writer agent', system: 'You are the writer agent.', model: 'claude-haiku-4-5', tools: ['web_search', 'web_fetch'] },
        },
      },
    ]);
  });

  it("passes the profile's provider with its model", async () => {
    profiles.push(profile('local', { model: 'qwen3:8b', provider: 'ollama' }));
    const { call, subAgentCalls } = await harness();
    await call({ to_agent_slug: 'local', task: 'x' });
    expect(subAgentCalls[0]!.request.profile).toEqual({ name: 'Local agent', system: 'You are the local agent.', model: 'qwen3:8b', provider: 'ollama' });
  });

  it('leaves model and tools out when the profile has none, and finds a slug whatever its case', async () => {
    const { call, subAgentCalls } = await harness();
    await call({ to_agent_slug: 'CODER', task: 'x' });
    expect(subAgentCalls[0]!.request.profile).toEqual({ name: 'Coder agent', system: 'You are the coder agent.' });
    expect(subAgentCalls[0]!.toolUseId).toMatch(/^delegate-[0-9a-f-]{36}$/);
  });

  it('goes to the fixed agent whatever to_agent_slug says', async () => {
    const { call, subAgentCalls } = await harness({ function_name: 'delegate_to_agent', to_agent_id: 'coder' });
    await call({ task: 'a' });
    await call({ task: 'b', to_agent_slug: 'writer' });
    expect(subAgentCalls.map((c) => c.request.profile!.name)).toEqual(['Coder agent', 'Coder agent']);
  });

  it('names the known agents when the slug is unknown', async () => {
    const { call, subAgentCalls } = await harness();
    expect(await call({ to_agent_slug: 'poet', task: 'x' })).toEqual({ error: 'Unknown agent "poet". Known agents: writer, coder, remote.' });
    expect(subAgentCalls).toHaveLength(0);
  });

  it('says when the fixed agent was deleted, and when there are no agents at all', async () => {
    const fixed = await harness({ function_name: 'delegate_to_agent', to_agent_id: 'id-gone' });
    expect((await fixed.call({ task: 'x' })).error).toMatch(/set to delegate to the agent "id-gone", which no longer exists\. Known agents: writer, coder, remote\./);
    profiles = [];
    const none = await harness();
    expect((await none.call({ to_agent_slug: 'writer', task: 'x' })).error).toMatch(/No agent profiles are saved/);
  });

  it.each<[string, unknown, RegExp]>([
    ['no task', { to_agent_slug: 'writer' }, /"task" is required/],
    ['a blank task', { to_agent_slug: 'writer', task: '  ' }, /task.*must not be empty/],
    ['no slug', { task: 'x' }, /"to_agent_slug" is required/],
    ['a number as slug', { to_agent_slug: 3, task: 'x' }, /to_agent_slug.*string/],
    ['context as an object', { to_agent_slug: 'writer', task: 'x', context: { a: 1 } }, /context.*string/],
    ['an unknown argument', { to_agent_slug: 'writer', task: 'x', agent: 'y' }, /unknown argument "agent"/],
  ])('refuses %s', async (_name, input, message) => {
    const { call, subAgentCalls } = await harness();
    expect((await call(input)).error).toMatch(message);
    expect(subAgentCalls).toHaveLength(0);
  });
});

describe('delegate_to_agent: remote A2A agents', () => {
  it('sends message/send with the task as a text part and returns the completed task\'s artifacts', async () => {
    const { call, subAgentCalls } = await harness();
    const out = await call({ to_agent_slug: 'remote', task: 'Summarise X', context: 'X is a thing.' });
    expect(out).toEqual({ result: { agent: 'remote', remote: true, state: 'completed', task_id: expect.stringMatching(/^task-/), answer: 'Echo: Summarise X\n\nContext:\nX is a thing.' } });
    expect(subAgentCalls).toHaveLength(0);
    const [req] = a2a.requests;
    expect(req!.method).toBe('POST');
    expect(req!.headers['content-type']).toBe('application/json');
    expect(req!.body).toEqual({
      jsonrpc: '2.0',
      id: expect.any(String),
      method: 'message/send',
      params: { message: { role: 'user', parts: [{ kind: 'text', text: 'Summarise X\n\nContext:\nX is a thing.' }], messageId: expect.stringMatching(/^[0-9a-f-]{36}$/), kind: 'message' } },
    });
    expect(req!.headers.cookie).toBeUndefined();
  });

  it('returns a direct Message', async () => {
    a2a.reply({ kind: 'message', text: 'Short answer.' });
    expect((await (await harness()).call({ to_agent_slug: 'remote', task: 'q' })).result).toEqual({ agent: 'remote', remote: true, answer: 'Short answer.' });
  });

  it('joins several named artifacts, and falls back to the status message', async () => {
    a2a.reply({ kind: 'task', artifacts: [{ name: 'summary', text: 'S' }, { name: 'details', text: 'D' }] });
    const { call } = await harness();
    expect((await call({ to_agent_slug: 'remote', task: 'q' })).result.answer).toBe('## summary\n\nS\n\n## details\n\nD');
    a2a.reply({ kind: 'task', statusText: 'All done, nothing to attach.' });
    expect((await call({ to_agent_slug: 'remote', task: 'q' })).result.answer).toBe('All done, nothing to attach.');
  });

  it('says when the task needs input, with the agent\'s question', async () => {
    a2a.reply({ kind: 'task', state: 'input-required', statusText: 'Which city?' });
    const out = (await (await harness()).call({ to_agent_slug: 'remote', task: 'weather' })).result;
    expect(out).toMatchObject({ state: 'input-required', answer: 'Which city?', note: expect.stringMatching(/needs more input.*ask the user/) });
  });

  it('says when the task is still working', async () => {
    a2a.reply({ kind: 'task', state: 'working', statusText: 'Crunching…' });
    const out = (await (await harness()).call({ to_agent_slug: 'remote', task: 'x' })).result;
    expect(out).toMatchObject({ state: 'working', answer: 'Crunching…', note: expect.stringMatching(/before finishing \(task state "working"\)/) });
  });

  it('reports a failed or rejected task as an error with its state and reason', async () => {
    const { call } = await harness();
    a2a.reply({ kind: 'task', state: 'failed', statusText: 'Upstream API down.' });
    expect((await call({ to_agent_slug: 'remote', task: 'x' })).error).toMatch(/^The remote agent "Remote agent" \(http:\/\/127\.0\.0\.1:\d+\) failed at the task \(task state "failed"\): Upstream API down\.$/);
    a2a.reply({ kind: 'task', state: 'rejected' });
    expect((await call({ to_agent_slug: 'remote', task: 'x' })).error).toMatch(/rejected the task \(task state "rejected"\)\./);
  });

  it('reads A2A 1.0 results too (wrapped, no kind, TASK_STATE_ enums)', async () => {
    a2a.reply({ kind: 'result', result: { task: { id: 't9', status: { state: 'TASK_STATE_COMPLETED' }, artifacts: [{ artifactId: 'a', parts: [{ text: 'v1 answer' }, { data: { n: 1 } }] }] } } });
    const { call } = await harness();
    expect((await call({ to_agent_slug: 'remote', task: 'x' })).result).toEqual({ agent: 'remote', remote: true, state: 'completed', task_id: 't9', answer: 'v1 answer\n{\n  "n": 1\n}' });
    a2a.reply({ kind: 'result', result: { message: { role: 'ROLE_AGENT', parts: [{ text: 'hello' }] } } });
    expect((await call({ to_agent_slug: 'remote', task: 'x' })).result.answer).toBe('hello');
  });

  it('shows JSON-RPC errors with code, message and data', async () => {
    a2a.reply({ kind: 'error', code: -32603, message: 'Internal error', data: { detail: 'model overloaded' } });
    const { call } = await harness();
    expect((await call({ to_agent_slug: 'remote', task: 'x' })).error).toMatch(/answered with JSON-RPC error -32603: Internal error \("\{"detail":"model overloaded"\}"\)\./);
    a2a.reply({ kind: 'error', code: -32601, message: 'Method not found' });
    expect((await call({ to_agent_slug: 'remote', task: 'x' })).error).toMatch(/-32601: Method not found\. The endpoint does not offer message\/send/);
  });

  it('refuses non-JSON, non-JSON-RPC and odd results clearly', async () => {
    const { call } = await harness();
    a2a.reply({ kind: 'raw', body: '<html><body>Welcome to nginx!</body></html>', contentType: 'text/html' });
    expect((await call({ to_agent_slug: 'remote', task: 'x' })).error).toMatch(/answered with something that is not JSON: "<html><body>Welcome to nginx!/);
    a2a.reply({ kind: 'raw', body: '{"hello": "world"}', contentType: 'application/json' });
    expect((await call({ to_agent_slug: 'remote', task: 'x' })).error).toMatch(/not a JSON-RPC 2\.0 response/);
    a2a.reply({ kind: 'result', result: 42 });
    expect((await call({ to_agent_slug: 'remote', task: 'x' })).error).toMatch(/neither an A2A Message nor a Task/);
  });

  it('reports HTTP errors with status and the start of the body', async () => {
    const { call } = await harness();
    a2a.reply({ kind: 'raw', status: 502, body: 'Bad gateway: upstream closed' });
    expect((await call({ to_agent_slug: 'remote', task: 'x' })).error).toMatch(/answered HTTP 502: "Bad gateway: upstream closed"\. The agent failed/);
    profiles[2]!.a2a_url = `${a2a.origin}/wrong-path`;
    expect((await call({ to_agent_slug: 'remote', task: 'x' })).error).toMatch(/answered HTTP 404: .*must be the JSON-RPC endpoint/);
  });

  it('says when the agent cannot be reached', async () => {
    const closed = await startA2aServer();
    const url = closed.url;
    await closed.close();
    profiles[2]!.a2a_url = url;
    expect((await (await harness()).call({ to_agent_slug: 'remote', task: 'x' })).error).toMatch(/^Could not reach the remote agent "Remote agent" \(http:\/\/127\.0\.0\.1:\d+\): the request failed/);
  });

  it('stops waiting when the user stops the run', async () => {
    a2a.reply({ kind: 'hang' });
    const stop = new AbortController();
    const { call } = await harness(undefined, { signal: stop.signal });
    const pending = call({ to_agent_slug: 'remote', task: 'x' });
    setTimeout(() => stop.abort(), 50);
    const started = Date.now();
    expect((await pending).error).toMatch(/Stopped by the user/);
    expect(Date.now() - started).toBeLessThan(3000);
  });
});

describe('A2A helpers', () => {
  it('builds the v0.3 message/send request', () => {
    expect(a2aMessageSend('hi', { request: 'r', message: 'm' })).toEqual({
      jsonrpc: '2.0',
      id: 'r',
      method: 'message/send',
      params: { message: { role: 'user', parts: [{ kind: 'text', text: 'hi' }], messageId: 'm', kind: 'message' } },
    });
  });

  it('reads text, data and file parts of both versions', () => {
    expect(
      partsText([
        { kind: 'text', text: 'a' },
        { kind: 'data', data: [1] },
        { kind: 'file', file: { name: 'r.pdf', uri: 'https://x/r.pdf' } },
        { url: 'https://x/y.png', filename: 'y.png' },
        { text: 'b' },
        null,
      ]),
    ).toBe('a\n[\n  1\n]\n[file: r.pdf https://x/r.pdf]\n[file: y.png https://x/y.png]\nb');
  });
});
