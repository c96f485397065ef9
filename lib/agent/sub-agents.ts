/**
 * The agent tool's sub-agents: an independent conversation on the same model, with a tool set
 * cut to its type — by each tool's facts (subAgents, spawnsAgent) — and enforced where calls are
 * dispatched (not only described in a prompt), a budget of rounds and time, and its events
 * streamed to the parent conversation.
 */
import { FENCE_RULE } from '../policy/fence';
import type Anthropic from '@anthropic-ai/sdk';
import type { ToolDispatcher, ToolContext, ToolOutcome } from '../tools/registry';
import { TaskBoard } from '../tools/task-board';
import { runLoop, type LoopHooks } from './loop';
import type { ModelClient } from './model';
import type { StoredMessage, TokenUsage } from '../contracts/conversation';
import type { SubAgentEvent, SubAgentRequest, SubAgentResult, SubAgentType } from '../contracts/sub-agents';
import { availableTo, type RiskClass, type ToolFacts } from '../contracts/tools';

export const SUB_AGENT_LIMITS = { rounds: 25, ms: 10 * 60_000 };

/**
 * The parent's tools as a sub-agent of `type` may use them: the model sees only the allowed
 * ones, a call to any other is refused with the reason, and with a tab handed over the page
 * tools default to it — a page_operator may touch no other tab except the ones it opened.
 */
export class ScopedTools implements ToolDispatcher {
  private readonly tabs = new Set<number>();
  readonly used = new Map<string, number>();
  private readonly only: ReadonlySet<string> | undefined;

  constructor(
    private readonly parent: ToolDispatcher,
    private readonly type: SubAgentType,
    private readonly tabId?: number,
    only?: readonly string[],
  ) {
    if (tabId !== undefined) this.tabs.add(tabId);
    if (only?.length) this.only = new Set(only);
  }

  private allows(name: string): boolean {
    const facts = this.parent.facts(name);
    return !!facts && availableTo(facts, this.type) && (!this.only || this.only.has(name));
  }

  modelTools(): Anthropic.Tool[] {
    return this.parent.modelTools().filter((t) => this.allows(t.name));
  }

  facts(name: string): ToolFacts | undefined {
    return this.allows(name) ? this.parent.facts(name) : undefined;
  }

  async riskOf(name: string, rawInput: unknown): Promise<RiskClass | undefined> {
    return this.allows(name) ? this.parent.riskOf(name, this.withTab(name, rawInput)) : undefined;
  }

  async call(name: string, rawInput: unknown, ctx: ToolContext): Promise<ToolOutcome> {
    if (!this.allows(name)) {
      const may = this.modelTools().map((t) => t.name).join(', ');
      return { isError: true, content: `${name} is not available to a ${this.type} sub-agent. Its tools are: ${may}.` };
    }
    const input = this.withTab(name, rawInput);
    const tab = input && typeof input === 'object' ? (input as { tab_id?: unknown }).tab_id : undefined;
    if (this.type === 'page_operator' && this.tabId !== undefined && typeof tab === 'number' && !this.tabs.has(tab)) {
      return {
        isError: true,
        content: `Tab ${tab} is not this sub-agent's: it works in tab ${this.tabId} and the tabs it opens (${[...this.tabs].join(', ')}).`,
      };
    }
    this.used.set(name, (this.used.get(name) ?? 0) + 1);
    const outcome = await this.parent.call(name, input, ctx);
    if (name === 'open_tab' && !outcome.isError) {
      try {
        const opened = (JSON.parse(outcome.content) as { id?: unknown }).id;
        if (typeof opened === 'number') this.tabs.add(opened);
      } catch {}
    }
    return outcome;
  }

  /** The input as the call gets it: page tools default to the tab handed over. */
  private withTab(name: string, input: unknown): unknown {
    if (this.tabId === undefined || !input || typeof input !== 'object' || !this.takesTab(name) || 'tab_id' in input) return input;
    return { ...input, tab_id: this.tabId };
  }

  private takesTab(name: string): boolean {
    const schema = this.parent.modelTools().find((t) => t.name === name)?.input_schema as { properties?: Record<string, unknown> } | undefined;
    return !!schema?.properties && 'tab_id' in schema.properties && name !== 'list_tabs' && name !== 'open_tab';
  }
}

export interface SubAgentDeps {
  client: ModelClient;
  tools: ToolDispatcher;
  /** The parent's context: the same browser and model helpers, a conversation id for logging. */
  context: Omit<ToolContext, 'signal' | 'tasks' | 'toolUseId'>;
  model: string;
  maxTokens: number;
  /** The parent's signal: stopping the parent stops the sub-agent at once. */
  signal: AbortSignal;
  emit(event: SubAgentEvent): void;
  usage?(u: TokenUsage): void;
  limits?: { rounds: number; ms: number };
  now?: () => Date;
}

export function subAgentSystemPrompt(req: SubAgentRequest, now: Date): string {
  const role = req.profile
    ? `You are "${req.profile.name}", an agent the main assistant delegated a task to.\n\n${req.profile.system}`.trim()
    : req.type === 'researcher'
      ? 'You are a research sub-agent: find and read information (web search, web pages, open tabs) and report what you found, with sources. You cannot change pages.'
      : req.type === 'page_operator'
        ? 'You are a browser-automation sub-agent: you operate web pages (read them, click, type, choose and press keys with page_action, run scripts, open and switch tabs) to carry out the task.'
        : 'You are a sub-agent carrying out one task for the main assistant with the tools you have.';
  return [
    role,
    'You work on your own: you cannot ask the user anything. When the task is done, or cannot be done, end with a complete, self-contained answer for the main assistant — it sees only your final message.',
    req.tabId !== undefined ? `The tab handed to you is ${req.tabId}; page tools use it when you give no tab_id.` : '',
    // Sub-agents read the same fenced page text as the main agent, and are as open to it.
    FENCE_RULE,
    `Today is ${now.toISOString().slice(0, 10)}.`,
  ]
    .filter(Boolean)
    .join('\n\n');
}

/** Runs one sub-agent to its end (answer, budget, stop or error). */
export async function runSubAgent(req: SubAgentRequest, deps: SubAgentDeps): Promise<SubAgentResult> {
  const limits = deps.limits ?? SUB_AGENT_LIMITS;
  const scoped = new ScopedTools(deps.tools, req.type, req.tabId, req.profile?.tools);
  const budget = new AbortController();
  const timer = setTimeout(() => budget.abort(), limits.ms);
  const signal = AbortSignal.any([deps.signal, budget.signal]);
  const messages: StoredMessage[] = [{ role: 'user', content: [{ type: 'text', text: req.prompt }], at: Date.now() }];
  let streamedIndex = -1;
  const hooks: LoopHooks = {
    draftReset: () => {},
    draftBlock: (index, block) => {
      if (block.type === 'text') {
        streamedIndex = index;
        deps.emit({ kind: 'text_start' });
      }
    },
    draftText: (index, text) => {
      if (index === streamedIndex) deps.emit({ kind: 'text', text });
    },
    draftInput: () => {},
    commit: async (message) => {
      for (const b of message.content) if (b.type === 'tool_use') deps.emit({ kind: 'tool', id: b.id, name: b.name, input: b.input });
    },
    toolStatus: (id, status) => deps.emit({ kind: 'tool_status', id, status }),
    usage: (u) => deps.usage?.(u),
    round: () => {},
    retrying: () => {},
  };
  deps.emit({ kind: 'status', status: 'running' });
  try {
    const outcome = await runLoop(
      {
        client: deps.client,
        registry: scoped,
        toolContext: { ...deps.context, tasks: new TaskBoard(), subAgent: req.profile?.name ?? req.type },
        system: subAgentSystemPrompt(req, deps.now?.() ?? new Date()),
        model: req.profile?.model || deps.model,
        maxTokens: deps.maxTokens,
        roundCap: limits.rounds,
        messages,
        signal,
      },
      hooks,
    );
    const answer = finalAnswer(messages);
    const tools_used = [...scoped.used].map(([name, calls]) => ({ name, calls }));
    if (outcome.kind === 'done') {
      deps.emit({ kind: 'status', status: 'done' });
      return { answer, tools_used };
    }
    if (outcome.kind === 'error') {
      deps.emit({ kind: 'status', status: 'error' });
      throw new Error(`The sub-agent failed: ${outcome.error.message}`);
    }
    if (deps.signal.aborted) {
      deps.emit({ kind: 'status', status: 'stopped' });
      return { answer, tools_used, partial: true, reason: 'stopped by the user' };
    }
    const reason =
      outcome.kind === 'round_cap'
        ? `it used its budget of ${limits.rounds} rounds`
        : `it used its time budget of ${Math.round(limits.ms / 1000)} s`;
    deps.emit({ kind: 'status', status: 'partial' });
    return { answer: answer || '(The sub-agent had not written an answer yet.)', tools_used, partial: true, reason };
  } finally {
    clearTimeout(timer);
  }
}

/** The sub-agent's last assistant text: what it says when it ends its turn. */
function finalAnswer(messages: StoredMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== 'assistant') continue;
    const text = m.content
      .filter((b): b is Anthropic.TextBlockParam => b.type === 'text')
      .map((b) => b.text)
      .join('\n')
      .trim();
    if (text) return text;
  }
  return '';
}
