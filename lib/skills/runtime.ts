/**
 * The background's side of skills: reads the active ones for each run, and keeps the standard MCP
 * servers' sessions (and tool lists) between runs.
 */
import { BUILTIN_TOOL_NAMES } from '../tools/catalog';
import type { McpServers, SkillServices } from './services';
import type { SkillStore } from './store';
import { buildSkillTools, type SkillTools } from './tools';
import { parseSkillConfig, type McpConfig } from './config';
import { SIGN_IN_WINDOW_MS, type McpSignIns, type SignInConsent } from './mcp-oauth';
import type { SkillRecord } from './types';

export interface SkillRuntime {
  /** The active skills' tools for a run starting now. */
  /** `askSignIn`: the run's sign-in card, for an MCP server that needs a sign-in to list its tools. */
  tools(signal: AbortSignal, askSignIn?: SignInConsent): Promise<SkillTools>;
  /** Lists an MCP skill's tools again (the management page's "Refresh tools"). */
  refresh(skillId: string): Promise<{ name: string; description: string; leftOut?: 'task_only' }[]>;
  /** OAuth sign-in of an MCP skill (the Skills page): its state, Sign in, Sign out. */
  signIn: {
    status(skillId: string): Promise<SignInStatus>;
    signIn(skillId: string): Promise<void>;
    signOut(skillId: string): Promise<{ revoked: boolean; problem?: string }>;
  };
}

/** none: the skill does not sign in; signed_out / signed_in: it does. */
export type SignInStatus = 'none' | 'signed_out' | 'signed_in';


export function createSkillRuntime(store: SkillStore, mcp: McpServers, signIns?: McpSignIns): SkillRuntime {
  const services: SkillServices = { profiles: () => store.profiles(), mcp };
  const builtin = new Set<string>(BUILTIN_TOOL_NAMES);
  return {
    async tools(_signal, askSignIn) {
      return buildSkillTools(await store.list(), askSignIn ? { ...services, askSignIn } : services, builtin);
    },
    async refresh(skillId) {
      const skill = (await store.list()).find((s) => s.id === skillId);
      if (!skill) throw new Error('This skill no longer exists.');
      if (skill.skill_type !== 'mcp') throw new Error('Only MCP skills have a tool list to refresh.');
      const tools = await mcp.listTools(skill, { refresh: true, signal: AbortSignal.timeout(30_000) });
      // A tool runs leave out is named with the reason; a code, so the page says it in the user's language
      // (the only reason today: a task-only tool on a server that declares no tasks).
      return tools.map((t) => ({ name: t.name, description: t.description ?? '', ...(t.unusable ? { leftOut: 'task_only' as const } : {}) }));
    },
    signIn: {
      async status(skillId) {
        const found = await mcpSkill(skillId);
        if (!found || !signIns?.provider(skillId, found.config)) return 'none';
        return (await signIns.signedIn(skillId, found.config)) ? 'signed_in' : 'signed_out';
      },
      async signIn(skillId) {
        const found = await mcpSkill(skillId);
        if (!found || !signIns) throw new Error('This skill does not sign in.');
        await signIns.signInNow(skillId, found.config, AbortSignal.timeout(SIGN_IN_WINDOW_MS));
        // The session opened before may hold a server's memory of the refused requests.
        await mcp.forget(skillId);
      },
      async signOut(skillId) {
        const found = await mcpSkill(skillId);
        if (!found || !signIns) return { revoked: false };
        const result = await signIns.signOut(skillId, found.config);
        await mcp.forget(skillId);
        return result;
      },
    },
  };

  async function mcpSkill(skillId: string): Promise<{ skill: SkillRecord; config: McpConfig } | undefined> {
    const skill = (await store.list()).find((s) => s.id === skillId);
    if (!skill || skill.skill_type !== 'mcp') return undefined;
    const parsed = parseSkillConfig('mcp', skill.config_json);
    return parsed.ok ? { skill, config: parsed.config } : undefined;
  }
}
