import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runLoop } from '../../lib/agent/loop';
import type { StoredMessage } from '../../lib/contracts/conversation';
import { apiKeyOf, FakeAnthropic, gate, text, toolCall } from '../harness/fake-anthropic';
import { loopOptions, recorder, userText } from './helpers';

const fake = new FakeAnthropic();
beforeAll(() => fake.start());
afterAll(() => fake.stop());
beforeEach(() => fake.reset());

const toolResults = (m: StoredMessage | undefined) =>
  (m?.content ?? []).filter((b) => b.type === 'tool_result') as { content: string; is_error?: boolean; tool_use_id: string }[];

describe('agent loop against the fake Messages API', () => {
  it('streams a text reply and ends the turn', async () => {
    fake.script(text('Hello from the **fake** model.'));
    const messages = [userText('hi')];
    const hooks = recorder();
    const outcome = await runLoop(loopOptions(fake.url, messages), hooks);
    expect(outcome).toEqual({ kind: 'done' });
    expect(messages).toHaveLength(2);
    expect(messages[1]!.content).toEqual([{ type: 'text', text: 'Hello from the **fake** model.' }]);
    expect(hooks.events.filter((e) => e.startsWith('text:')).length).toBeGreaterThan(1);
    expect(hooks.committed).toHaveLength(1);
    expect(hooks.usages[0]!.output).toBeGreaterThan(0);
    const req = fake.requests[0]!;
    expect(apiKeyOf(req.headers)).toBe('test-key');
    expect(req.body.stream).toBe(true);
  });

  it('runs a tool call, sends the result back and marks cache breakpoints', async () => {
    fake.script(toolCall('create_task', { subject: 'Read the page' }), text('Task added.'));
    const messages = [userText('plan it')];
    const opts = loopOptions(fake.url, messages);
    const outcome = await runLoop(opts, recorder());
    expect(outcome.kind).toBe('done');
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    const [result] = toolResults(messages[2]);
    expect(result!.is_error).toBeUndefined();
    expect(JSON.parse(result!.content)).toMatchObject({ task_id: '1', subject: 'Read the page', status: 'pending' });
    expect(opts.toolContext.tasks.list()).toHaveLength(1);

    const second = fake.requests[1]!.body;
    expect(second.system.at(-1).cache_control).toEqual({ type: 'ephemeral' });
    expect(second.tools.at(-1).cache_control).toEqual({ type: 'ephemeral' });
    expect(second.tools.map((t: any) => t.name)).toEqual(['create_task', 'update_task', 'list_tasks', 'sleep']);
    expect(second.messages.at(-1).content.at(-1)).toMatchObject({ type: 'tool_result', cache_control: { type: 'ephemeral' } });
    // Only the latest turn carries a breakpoint; earlier turns are sent as stored.
    expect(second.messages[0].content[0].cache_control).toBeUndefined();
  });

  it('runs several tool calls of one reply in parallel', async () => {
    fake.script(
      {
        content: [
          { type: 'tool_use', name: 'sleep', input: { ms: 400 } },
          { type: 'tool_use', name: 'sleep', input: { ms: 400 } },
          { type: 'tool_use', name: 'sleep', input: { ms: 400 } },
        ],
      },
      text('done'),
    );
    const messages = [userText('wait')];
    const metrics = { modelMs: 0, toolMs: 0, rounds: 0 };
    await runLoop(loopOptions(fake.url, messages, { metrics }), recorder());
    expect(toolResults(messages[2]).map((r) => r.content)).toEqual(['slept 400', 'slept 400', 'slept 400']);
    expect(metrics.toolMs).toBeLessThan(1000);
  });

  it.each([
    ['wrong type', { subject: 42 }, /"subject".*Expected string/],
    ['missing required', {}, /"subject" is required/],
    ['unknown argument', { subject: 'a', colour: 'red' }, /unknown argument "colour"; accepted arguments: subject, description/],
    ['1 MB string', { subject: 'x'.repeat(1_000_000) }, /"subject": must be at most 200 characters/],
  ])('refuses a malformed call (%s) with an is_error result naming the problem', async (_name, input, message) => {
    fake.script(toolCall('create_task', input), text('ok'));
    const messages = [userText('go')];
    await runLoop(loopOptions(fake.url, messages), recorder());
    const [result] = toolResults(messages[2]);
    expect(result!.is_error).toBe(true);
    expect(result!.content).toMatch(/^Invalid arguments for create_task: /);
    expect(result!.content).toMatch(message);
  });

  it('refuses an unknown tool and arguments that are not JSON', async () => {
    fake.script(
      {
        content: [
          { type: 'tool_use', name: 'launch_rockets', input: {} },
          { type: 'tool_use', name: 'create_task', input: null, rawJson: '{"subject": "unterminated' },
        ],
      },
      text('ok'),
    );
    const messages = [userText('go')];
    const hooks = recorder();
    await runLoop(loopOptions(fake.url, messages), hooks);
    const [unknown, broken] = toolResults(messages[2]);
    expect(unknown!.content).toMatch(/^Unknown tool "launch_rockets"\. Available tools: create_task, update_task, list_tasks, sleep\.$/);
    expect(broken!.is_error).toBe(true);
    expect(broken!.content).toMatch(/not valid JSON/);
    // The stored call keeps a valid (empty) input so the conversation stays acceptable to the API.
    expect(messages[1]!.content[1]).toMatchObject({ type: 'tool_use', input: {} });
    expect(hooks.statuses.filter(([, s]) => s === 'error')).toHaveLength(2);
  });

  it('retries 529 overloaded with backoff and reports the wait', async () => {
    fake.script(
      { error: { status: 529, type: 'overloaded_error', message: 'Overloaded' } },
      { error: { status: 503, type: 'api_error', message: 'unavailable', headers: { 'retry-after': '2' } } },
      text('finally'),
    );
    const messages = [userText('hi')];
    const hooks = recorder();
    const waits: number[] = [];
    const outcome = await runLoop(loopOptions(fake.url, messages, { sleep: async (ms) => void waits.push(ms) }), hooks);
    expect(outcome.kind).toBe('done');
    expect(fake.requests).toHaveLength(3);
    expect(waits[0]).toBeGreaterThanOrEqual(800);
    expect(waits[1]).toBe(2000);
    const shown = hooks.retries.filter(Boolean) as { attempt: number; reason: string }[];
    expect(shown.map((s) => s.attempt)).toEqual([1, 2]);
    expect(shown[0]!.reason).toMatch(/529/);
  });

  it('retries an overloaded error that arrives inside the stream', async () => {
    fake.script({ ...text('partial answer that will be dropped'), sseErrorAfter: { events: 3, type: 'overloaded_error', message: 'Overloaded' } }, text('clean'));
    const messages = [userText('hi')];
    const outcome = await runLoop(loopOptions(fake.url, messages), recorder());
    expect(outcome.kind).toBe('done');
    expect(messages.at(-1)!.content).toEqual([{ type: 'text', text: 'clean' }]);
  });

  it('gives up on 401 at once with an auth error', async () => {
    fake.script({ error: { status: 401, type: 'authentication_error', message: 'invalid x-api-key' } });
    const outcome = await runLoop(loopOptions(fake.url, [userText('hi')]), recorder());
    expect(outcome).toEqual({ kind: 'error', error: { kind: 'auth', status: 401, message: 'invalid x-api-key' } });
    expect(fake.requests).toHaveLength(1);
  });

  it('reports a 404 model as not_found without retrying', async () => {
    fake.script({ error: { status: 404, type: 'not_found_error', message: 'model: claude-nope' } });
    const outcome = await runLoop(loopOptions(fake.url, [userText('hi')]), recorder());
    expect(outcome).toMatchObject({ kind: 'error', error: { kind: 'not_found', message: 'model: claude-nope' } });
    expect(fake.requests).toHaveLength(1);
  });

  it('keeps the conversation when the stream breaks mid-reply, and a retry works', async () => {
    fake.script({ ...text('This reply will be cut off somewhere in the middle'), breakAfter: 4, delayMs: 20 }, text('Second try.'));
    const messages = [userText('hi')];
    const outcome = await runLoop(loopOptions(fake.url, messages), recorder());
    expect(outcome).toMatchObject({ kind: 'error', error: { kind: 'stream' } });
    expect(messages).toHaveLength(1);
    const again = await runLoop(loopOptions(fake.url, messages), recorder());
    expect(again.kind).toBe('done');
    expect(messages.at(-1)!.content).toEqual([{ type: 'text', text: 'Second try.' }]);
  });

  it('stops mid-stream at once and keeps the text already shown', async () => {
    const g = gate();
    fake.script({ ...text('Partial words here and more after the pause'), chunk: 5, pause: { afterEvents: 4, gate: g } });
    const controller = new AbortController();
    const messages = [userText('hi')];
    const hooks = recorder();
    const done = runLoop(loopOptions(fake.url, messages, { signal: controller.signal }), hooks);
    await fake.waitForRequests(1);
    await new Promise((r) => setTimeout(r, 100));
    const t0 = Date.now();
    controller.abort();
    expect(await done).toEqual({ kind: 'stopped' });
    expect(Date.now() - t0).toBeLessThan(500);
    expect(messages[1]!.content).toEqual([{ type: 'text', text: 'Partial wo' }]);
    g.open();
  });

  it('stops running tools at once and records them as stopped', async () => {
    fake.script(toolCall('sleep', { ms: 5000 }));
    const controller = new AbortController();
    const messages = [userText('hi')];
    const done = runLoop(loopOptions(fake.url, messages, { signal: controller.signal }), recorder());
    await fake.waitForRequests(1);
    await new Promise((r) => setTimeout(r, 200));
    const t0 = Date.now();
    controller.abort();
    expect(await done).toEqual({ kind: 'stopped' });
    expect(Date.now() - t0).toBeLessThan(300);
    const [result] = toolResults(messages[2]);
    expect(result).toMatchObject({ is_error: true, content: expect.stringMatching(/Stopped by the user/) });
  });

  it('pauses at the round cap instead of failing', async () => {
    fake.script(toolCall('list_tasks', {}), toolCall('list_tasks', {}), toolCall('list_tasks', {}));
    const messages = [userText('loop')];
    const outcome = await runLoop(loopOptions(fake.url, messages, { roundCap: 2 }), recorder());
    expect(outcome).toEqual({ kind: 'round_cap' });
    expect(fake.requests).toHaveLength(2);
    expect(messages.at(-1)!.role).toBe('user');
  });
});
