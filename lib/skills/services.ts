import type { ResultWithImages } from '../images';
import type { TaskSupport } from './mcp-tasks';
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
  /** How the server lets it run: "required" tools run as MCP tasks (lib/skills/mcp-tasks.ts). */
  execution?: { taskSupport?: TaskSupport };
  /** Why it is not offered to the model (it could only fail), when it is not. */
  unusable?: string;
}

export interface McpServers {
  /**
   * The server's tools, from the cache or (when none is cached, or `refresh`) from tools/list
   * over a session that is opened on first use and kept.
   */
  listTools(skill: SkillRecord, options?: { refresh?: boolean; signal?: AbortSignal; askSignIn?: SignInConsent }): Promise<McpRemoteTool[]>;
  /** tools/call on the skill's server; returns what the model gets. */
  callTool(skill: SkillRecord, tool: string, args: Record<string, unknown>, call: McpCall): Promise<string | ResultWithImages>;
  /**
   * The server's instructions from initialize, fenced as third-party text, once its tools have
   * been listed; undefined when it sent none.
   */
  instructions?(skill: SkillRecord): string | undefined;
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

/**
 * One skill type's tools for a record whose config has been checked. `leftOut` reports a tool of
 * the skill that is not offered (and why), for the run's "skills unavailable" notice.
 */
export type SkillToolFactory<C> = (skill: SkillRecord, config: C, services: SkillServices, leftOut?: (message: string) => void) => Promise<ToolDefinition<any>[]> | ToolDefinition<any>[];
