/**
 * The background's side of skills: reads the active ones for each run, and keeps the standard MCP
 * servers' sessions (and tool lists) between runs.
 */
import { BUILTIN_TOOL_NAMES } from '../tools/catalog';
import type { McpServers, SkillServices } from './services';
import type { SkillStore } from './store';
import { buildSkillTools, type SkillTools } from './tools';

export interface SkillRuntime {
  /** The active skills' tools for a run starting now. */
  tools(signal: AbortSignal): Promise<SkillTools>;
  /** Lists an MCP skill's tools again (the management page's "Refresh tools"). */
  refresh(skillId: string): Promise<{ name: string; description: string }[]>;
}

export function createSkillRuntime(store: SkillStore, mcp: McpServers): SkillRuntime {
  const services: SkillServices = { profiles: () => store.profiles(), mcp };
  const builtin = new Set<string>(BUILTIN_TOOL_NAMES);
  return {
    async tools() {
      return buildSkillTools(await store.list(), services, builtin);
    },
    async refresh(skillId) {
      const skill = (await store.list()).find((s) => s.id === skillId);
      if (!skill) throw new Error('This skill no longer exists.');
      if (skill.skill_type !== 'mcp') throw new Error('Only MCP skills have a tool list to refresh.');
      const tools = await mcp.listTools(skill, { refresh: true, signal: AbortSignal.timeout(30_000) });
      return tools.map((t) => ({ name: t.name, description: t.description ?? '' }));
    },
  };
}
