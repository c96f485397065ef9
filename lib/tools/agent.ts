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
    'Hand a self-contained sub-task to a sub-agent, which sees only prompt and cannot ask the user. type "researcher": ' +
    `search, fetch, read; "page_operator": tabs, pages, page actions, scripts; "general": all. Budget ${SUB_AGENT_LIMITS.rounds} rounds, ` +
    `${SUB_AGENT_LIMITS.ms / 60_000} min. Returns {answer, tools_used} (partial: true past it)`,
  input: v.strictObject({
    prompt: v.pipe(v.string('must be a string'), v.trim(), v.nonEmpty('must not be empty'), v.maxLength(50_000, 'must be at most 50000 characters')),
    description: v.optional(v.pipe(v.string('must be a string'), v.trim(), v.maxLength(100, 'must be at most 100 characters'), v.description('A few words, for the UI'))),
    type: v.optional(v.pipe(v.picklist(SUB_AGENT_TYPES, `must be one of ${SUB_AGENT_TYPES.join(', ')}`), v.description('Default "general"')), 'general'),
    tab_id: v.optional(v.pipe(tabId, v.description('The tab to work in'))),
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
