/** The sub-agent family: agent. */
import * as v from 'valibot';
import { SUB_AGENT_LIMITS } from '../agent/sub-agents';
import { SUB_AGENT_TYPES } from '../contracts/sub-agents';
import { builtinFacts } from './catalog';
import { defineTool, ToolError } from './registry';
import { tabId } from './tabs';

export const agent = defineTool({
  ...builtinFacts('agent'),
  description:
    'Start an independent sub-agent for a self-contained sub-task; it has its own conversation (it sees only prompt, so put everything ' +
    'it needs there) and returns its final answer and the tools it used. Several agent calls in one reply run in parallel. ' +
    'type: "researcher" (web_search, web_fetch, reading tabs; read-only), "page_operator" (tabs, reading pages, execute_script) or ' +
    '"general" (all tools; the default). None can ask the user or start agents. tab_id hands it a tab: page tools default to it, ' +
    `and a page_operator may touch no other tab except those it opens. Budget: ${SUB_AGENT_LIMITS.rounds} rounds and ` +
    `${SUB_AGENT_LIMITS.ms / 60_000} minutes; past it the answer so far comes back with partial: true.`,
  input: v.strictObject({
    prompt: v.pipe(v.string('must be a string'), v.trim(), v.nonEmpty('must not be empty'), v.maxLength(50_000, 'must be at most 50000 characters'), v.description('The sub-task')),
    description: v.optional(v.pipe(v.string('must be a string'), v.trim(), v.maxLength(100, 'must be at most 100 characters'), v.description('A short label (a few words, for the UI)'))),
    type: v.optional(v.pipe(v.picklist(SUB_AGENT_TYPES, `must be one of ${SUB_AGENT_TYPES.join(', ')}`), v.description('Sub-agent type (default "general")')), 'general'),
    tab_id: v.optional(v.pipe(tabId, v.description('Tab handed to the sub-agent; it works in that tab'))),
  }),
  riskOf: ({ type }, scope) => scope.subAgentRisk(type),
  async run(input, ctx) {
    if (!ctx.toolUseId) throw new ToolError('agent needs a tool call id to report under.');
    if (input.tab_id !== undefined) await ctx.env.tabs.get(input.tab_id).catch(() => {
      throw new ToolError(`No tab with id ${input.tab_id}: it was closed or never existed. Call list_tabs to see the open tabs.`);
    });
    return ctx.env.subAgent(
      { prompt: input.prompt, type: input.type, ...(input.description ? { description: input.description } : {}), ...(input.tab_id !== undefined ? { tabId: input.tab_id } : {}) },
      ctx.toolUseId,
      ctx.signal,
    );
  },
});

export const agentTools = [agent];
