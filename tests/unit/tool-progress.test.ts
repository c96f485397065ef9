import * as v from 'valibot';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { runLoop } from '../../lib/agent/loop';
import { cleanProgress, PROGRESS_MESSAGE_MAX, throttledProgress } from '../../lib/agent/tool-progress';
import type { ToolProgress } from '../../lib/contracts/run-events';
import { defineTool, ToolRegistry } from '../../lib/tools/registry';
import { FakeAnthropic, text, toolCall } from '../harness/fake-anthropic';
import { loopOptions, recorder, userText } from './helpers';

describe('cleanProgress', () => {
  it('keeps finite non-negative numbers and a one-line message, cut', () => {
    expect(cleanProgress({ progress: 3, total: 4, message: ' Step\n three ' })).toEqual({ progress: 3, total: 4, message: 'Step three' });
    expect(cleanProgress({ progress: Number.NaN, total: 4 })).toBeUndefined();
    expect(cleanProgress({ progress: -1, message: 'x' })).toEqual({ message: 'x' });
    expect(cleanProgress({ progress: 1, total: Infinity })).toEqual({ progress: 1 });
    expect(cleanProgress({ message: 'y'.repeat(1000) })!.message).toHaveLength(PROGRESS_MESSAGE_MAX);
    expect(cleanProgress({ message: 42 as unknown as string })).toBeUndefined();
    expect(cleanProgress({})).toBeUndefined();
  });
});

describe('throttledProgress', () => {
  afterEach(() => vi.useRealTimers());

  it('sends the first update at once, then the latest of each burst once per interval; nothing after close', () => {
    vi.useFakeTimers();
    const sent: ToolProgress[] = [];
    const reporter = throttledProgress((p) => sent.push(p), 250);
    for (let i = 1; i <= 1000; i++) reporter.report({ progress: i, total: 1000 });
    expect(sent).toEqual([{ progress: 1, total: 1000 }]);
    vi.advanceTimersByTime(250);
    expect(sent).toEqual([{ progress: 1, total: 1000 }, { progress: 1000, total: 1000 }]);
    reporter.report({ message: 'Working' });
    reporter.close();
    vi.advanceTimersByTime(1000);
    expect(sent).toHaveLength(2);
  });

  it('a numbers-only update keeps the message waiting with it', () => {
    vi.useFakeTimers();
    const sent: ToolProgress[] = [];
    const reporter = throttledProgress((p) => sent.push(p), 250);
    reporter.report({ message: 'first' });
    reporter.report({ message: 'Analyzing' });
    reporter.report({ progress: 2, total: 4 });
    vi.advanceTimersByTime(250);
    expect(sent).toEqual([{ message: 'first' }, { progress: 2, total: 4, message: 'Analyzing' }]);
  });
});

describe('the agent loop gives each call a progress reporter', () => {
  const fake = new FakeAnthropic();
  beforeAll(() => fake.start());
  afterAll(() => fake.stop());

  it('a chatty tool reaches the hook throttled, under its own call id, and not after it ends', async () => {
    const chatty = defineTool({
      name: 'chatty',
      description: 'Reports progress a thousand times.',
      risk: 'read_local',
      subAgents: [],
      input: v.object({}),
      run: (_input, ctx) => {
        for (let i = 1; i <= 1000; i++) ctx.progress?.({ progress: i, total: 1000, message: `step ${i}` });
        return 'done';
      },
    });
    fake.script(toolCall('chatty', {}), text('ok'));
    const hooks = recorder();
    const seen: [string, ToolProgress][] = [];
    await runLoop(loopOptions(fake.url, [userText('go')], { registry: new ToolRegistry([chatty]) }), { ...hooks, toolProgress: (id, p) => void seen.push([id, p]) });
    await new Promise((r) => setTimeout(r, 400));
    expect(seen).toHaveLength(1);
    expect(seen[0]).toEqual([expect.stringMatching(/^toolu_/), { progress: 1, total: 1000, message: 'step 1' }]);
    expect(hooks.statuses.map(([id]) => id)).toContain(seen[0]![0]);
  });
});
