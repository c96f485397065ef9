import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runLoop } from '../../lib/agent/loop';
import type { StoredMessage } from '../../lib/contracts/conversation';
import { FakeAnthropic, gate, text, toolCall } from '../harness/fake-anthropic';
import { loopOptions, recorder, userText } from './helpers';

const fake = new FakeAnthropic();
beforeAll(() => fake.start());
afterAll(() => fake.stop());
beforeEach(() => fake.reset());

const lastText = (messages: StoredMessage[]) => messages.at(-1)!.content.map((b) => (b.type === 'tool_result' ? b.content : b.type === 'text' ? b.text : '')).join('');

describe('the loop guard', () => {
  it('stops the third identical call in a row, tells the model and ends the run with a loop error', async () => {
    const call = () => toolCall('list_tasks', {});
    fake.script(call(), call(), call(), text('never reached'));
    const messages = [userText('loop')];
    const hooks = recorder();
    const outcome = await runLoop(loopOptions(fake.url, messages, { loopGuard: 3 }), hooks);
    expect(outcome).toMatchObject({ kind: 'error', error: { kind: 'loop', message: expect.stringContaining('list_tasks was called 3 times in a row') } });
    expect(fake.requests).toHaveLength(3);
    // The third call was not run: its result is the guard's message, for the model to read.
    const last = messages.at(-1)!.content[0] as { content: string; is_error?: boolean };
    expect(last.is_error).toBe(true);
    expect(last.content).toMatch(/This call was not run/);
    expect(hooks.statuses.filter(([, s]) => s === 'done')).toHaveLength(2);
  });

  it('counts arguments, not just the tool: different arguments never trip it, key order does not matter', async () => {
    fake.script(
      toolCall('create_task', { subject: 'a', description: 'x' }),
      toolCall('create_task', { description: 'x', subject: 'a' }),
      toolCall('create_task', { subject: 'b', description: 'x' }),
      toolCall('create_task', { subject: 'b', description: 'x' }),
      text('done'),
    );
    const messages = [userText('tasks')];
    expect(await runLoop(loopOptions(fake.url, messages, { loopGuard: 3 }), recorder())).toEqual({ kind: 'done' });
    fake.reset();
    fake.script(toolCall('sleep', { ms: 1, }), toolCall('sleep', { ms: 1 }), toolCall('sleep', { ms: 1 }), text('done'));
    expect(await runLoop(loopOptions(fake.url, [userText('off')], { loopGuard: 0 }), recorder())).toEqual({ kind: 'done' });
  });
});

describe('budgets', () => {
  it('pauses before the next round once a budget is reached, like the round cap', async () => {
    fake.script(toolCall('list_tasks', {}), toolCall('list_tasks', { x: 1 }), text('never'));
    let spent = 0;
    const hooks = recorder();
    const usage = hooks.usage;
    hooks.usage = (u) => ((spent += u.input + u.output), usage(u));
    const outcome = await runLoop(loopOptions(fake.url, [userText('spend')], { budget: () => (spent > 0 ? 'token_budget' : undefined) }), hooks);
    expect(outcome).toEqual({ kind: 'paused', reason: 'token_budget' });
    expect(fake.requests).toHaveLength(1);
  });
});

describe('a stream that goes silent', () => {
  it('is cut after the idle time, retried once with the countdown, then shown as an error with its text kept', async () => {
    const never = gate();
    fake.script(
      { ...text('First words, then silence'), chunk: 6, pause: { afterEvents: 4, gate: never } },
      { ...text('Second try, silent too'), chunk: 6, pause: { afterEvents: 4, gate: never } },
    );
    const messages = [userText('hello')];
    const hooks = recorder();
    const t0 = Date.now();
    const outcome = await runLoop(loopOptions(fake.url, messages, { streamIdleMs: 300 }), hooks);
    expect(outcome).toMatchObject({ kind: 'error', error: { kind: 'stream', message: expect.stringMatching(/stopped arriving/) } });
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect(fake.requests).toHaveLength(2);
    // Both silent requests were aborted, not left hanging.
    await new Promise((r) => setTimeout(r, 50));
    expect(fake.requests.every((r) => r.aborted)).toBe(true);
    expect(hooks.retries.filter(Boolean)).toHaveLength(1);
    expect(hooks.retries[0]).toMatchObject({ attempt: 1, maxAttempts: 1, reason: expect.stringMatching(/stopped arriving/) });
    expect(lastText(messages)).toMatch(/^Second try/);
    never.open();
  });

  it('a retry that streams normally finishes the reply', async () => {
    const never = gate();
    fake.script({ ...text('Silent'), chunk: 3, pause: { afterEvents: 3, gate: never } }, text('Recovered answer'));
    const messages = [userText('hello')];
    expect(await runLoop(loopOptions(fake.url, messages, { streamIdleMs: 300 }), recorder())).toEqual({ kind: 'done' });
    expect(lastText(messages)).toBe('Recovered answer');
    never.open();
  });

  it('a slow but steady stream is never cut', async () => {
    fake.script({ ...text('one two three four five six'), chunk: 4, delayMs: 120 });
    const messages = [userText('slow')];
    expect(await runLoop(loopOptions(fake.url, messages, { streamIdleMs: 400 }), recorder())).toEqual({ kind: 'done' });
    expect(lastText(messages)).toBe('one two three four five six');
  });
});
