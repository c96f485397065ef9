import * as v from 'valibot';
import { createAnthropicClient } from '../../lib/agent/providers/anthropic-messages';
import type { LoopHooks, LoopOptions } from '../../lib/agent/loop';
import type { StoredMessage, ToolCallStatus, TokenUsage } from '../../lib/contracts/conversation';
import type { ToolKindFacts } from '../../lib/contracts/tools';
import { defineTool, ToolRegistry } from '../../lib/tools/registry';
import { defaultSettings } from '../../lib/settings';
import { detachedEnv } from '../../lib/tools/env';
import { TaskBoard } from '../../lib/tools/task-board';
import { taskTools } from '../../lib/tools/tasks';

/** The facts of a test stand-in tool: harmless, and a general sub-agent's too. */
export const STUB_FACTS: ToolKindFacts = { risk: 'read_local', subAgents: ['general'] };

export const sleepTool = defineTool({
  name: 'sleep',
  ...STUB_FACTS,
  description: 'Waits ms milliseconds (tests only).',
  input: v.strictObject({ ms: v.number() }),
  async run({ ms }, ctx) {
    await new Promise((r) => setTimeout(r, ms));
    return `slept ${ms} ${ctx.signal.aborted ? 'aborted' : ''}`.trim();
  },
});

/** A tool that summarises its text the way get_tab_content does with a prompt (through env.summarize). */
export const summarizeTool = defineTool({
  name: 'summarize_text',
  ...STUB_FACTS,
  description: 'Summarises text (tests only).',
  input: v.strictObject({ text: v.string() }),
  run: ({ text }, ctx) => ctx.env.summarize(text, 'Summarise it.', ctx.signal),
});

export const testRegistry = () => new ToolRegistry([...taskTools, sleepTool]);

export interface Recorder extends LoopHooks {
  events: string[];
  committed: StoredMessage[];
  statuses: [string, ToolCallStatus][];
  usages: TokenUsage[];
  retries: unknown[];
}

export function recorder(): Recorder {
  const r: Recorder = {
    events: [],
    committed: [],
    statuses: [],
    usages: [],
    retries: [],
    draftReset: () => r.events.push('reset'),
    draftBlock: (i, b) => r.events.push(`block:${i}:${b.type}`),
    draftText: (_i, t) => r.events.push(`text:${t}`),
    draftInput: (_i, j) => r.events.push(`input:${j}`),
    commit: async (m) => void r.committed.push(m),
    toolStatus: (id, s) => void r.statuses.push([id, s]),
    usage: (u) => void r.usages.push(u),
    round: (n) => r.events.push(`round:${n}`),
    retrying: (info) => void r.retries.push(info),
  };
  return r;
}

export function loopOptions(baseUrl: string, messages: StoredMessage[], extra: Partial<LoopOptions> = {}): LoopOptions {
  return {
    client: createAnthropicClient({ apiKey: 'test-key', baseUrl }),
    registry: testRegistry(),
    toolContext: { conversationId: 'c1', tasks: new TaskBoard(), env: detachedEnv(defaultSettings()) },
    system: 'You are a test.',
    model: 'fake-model',
    maxTokens: 1024,
    roundCap: 50,
    messages,
    signal: new AbortController().signal,
    sleep: async () => {},
    ...extra,
  };
}

export const userText = (text: string): StoredMessage => ({ role: 'user', content: [{ type: 'text', text }], at: Date.now() });
