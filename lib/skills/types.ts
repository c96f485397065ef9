/**
 * Skills: tools the user defines beside the built-in ones (the contract: docs/spec/skill-types.md).
 * Field names follow the contract's record (skill_type, config_json, is_active, name, description).
 */

export const SKILL_TYPES = ['builtin', 'mcp', 'http', 'function', 'database'] as const;
export type SkillType = (typeof SKILL_TYPES)[number];

export interface SkillRecord {
  id: string;
  /** The tool name the model calls it by (the model's tool-name rules; unique among all tools). */
  name: string;
  /** What the model is told the tool does. */
  description: string;
  skill_type: SkillType;
  /** The type's configuration as JSON text, kept as the user wrote it. */
  config_json: string;
  /** Inactive skills never reach the model's tool list. */
  is_active: boolean;
  created_at: number;
  updated_at: number;
  /**
   * Function skills run code, so their code runs only once the user has read it: this is the
   * config_json the user last approved. While config_json differs, the skill waits for review
   * and stays inactive (the change-request flow).
   */
  approved_config_json?: string;
  /** Who wrote the config_json that waits for review. */
  proposed_by?: 'user' | 'model';
}

/** A function skill whose code has not been approved as it is now. */
export const needsReview = (s: Pick<SkillRecord, 'skill_type' | 'config_json' | 'approved_config_json'>) =>
  s.skill_type === 'function' && s.config_json !== s.approved_config_json;

/** What a user edits: a record without its bookkeeping. */
export type SkillDraft = Pick<SkillRecord, 'name' | 'description' | 'skill_type' | 'config_json' | 'is_active'>;

/**
 * A saved agent for delegate_to_agent: runs as a sub-agent with its own prompt, model and tools,
 * or — with `a2a_url` — is a remote A2A agent that receives the task over JSON-RPC.
 */
export interface AgentProfile {
  id: string;
  name: string;
  /** How the model names it (to_agent_slug). */
  slug: string;
  system_prompt: string;
  /** Empty: the conversation's model. */
  model: string;
  /** The provider preset the model is on; empty or absent (profiles saved before providers): the conversation's. */
  provider?: string;
  /** Built-in tool names it may use; empty: the general sub-agent's set. */
  tools: string[];
  /** A remote A2A agent's JSON-RPC endpoint; when set, the task goes there instead. */
  a2a_url: string;
  created_at: number;
  updated_at: number;
}

export type AgentProfileDraft = Omit<AgentProfile, 'id' | 'created_at' | 'updated_at'>;
