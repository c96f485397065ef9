import type { ToolContext, ToolDefinition } from '../tools/registry';
import type { AgentProfile, SkillRecord } from './types';
import type { SignInConsent } from './mcp-oauth';

/**
 * What skill tools need beyond the run's ToolContext (whose env gives fetch, the sandbox, the
 * workspace, settings and sub-agents): state that outlives one run.
 */
export interface SkillServices {
  /** The saved agent profiles, for delegate_to_agent. */
  profiles(): Promise<AgentProfile[]>;
  /** Standard MCP servers (transport "streamable_http"): sessions and tool lists, kept across runs. */
  mcp: McpServers;
  /** The run's "Sign in to <server>" card, when the tools are made for a run. */
  askSignIn?: SignInConsent;
}

export interface McpRemoteTool {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
}

export interface McpServers {
  /**
   * The server's tools, from the cache or (when none is cached, or `refresh`) from tools/list
   * over a session that is opened on first use and kept.
   */
  listTools(skill: SkillRecord, options?: { refresh?: boolean; signal?: AbortSignal; askSignIn?: SignInConsent }): Promise<McpRemoteTool[]>;
  /** tools/call on the skill's server; returns what the model gets. */
  callTool(skill: SkillRecord, tool: string, args: Record<string, unknown>, call: McpCall): Promise<string>;
  /** Ends the session of a skill that was changed or deleted. */
  forget(skillId: string): Promise<void>;
}

/**
 * One tools/call as the run makes it: the user's Stop, and the run's context where there is one
 * (absent in tests and benches) — what the server's requests during the call (elicitation,
 * progress, sign-in) are put to the user through.
 */
export interface McpCall {
  signal: AbortSignal;
  ctx?: ToolContext;
}

/** One skill type's tools for a record whose config has been checked. */
export type SkillToolFactory<C> = (skill: SkillRecord, config: C, services: SkillServices) => Promise<ToolDefinition<any>[]> | ToolDefinition<any>[];
