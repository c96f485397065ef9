/**
 * A contract: sub-agents (the agent tool, delegate_to_agent), as a tool asks for one, the agent
 * runs it and the parent conversation's UI follows it.
 */
import type { ToolCallStatus } from './conversation';

export type SubAgentType = 'researcher' | 'page_operator' | 'general';

/** What a sub-agent does, as the parent conversation's UI is told (under the agent call's id). */
export type SubAgentEvent =
  | { kind: 'status'; status: 'running' | 'done' | 'partial' | 'stopped' | 'error' }
  /** A new text block starts (its deltas follow as 'text'). */
  | { kind: 'text_start' }
  | { kind: 'text'; text: string }
  | { kind: 'tool'; id: string; name: string; input: unknown }
  | { kind: 'tool_status'; id: string; status: ToolCallStatus };

/** A sub-agent's activity folded from its events, for the popup and snapshots. */
export interface SubAgentView {
  status: 'running' | 'done' | 'partial' | 'stopped' | 'error';
  /** Its text blocks so far (the last one may still be streaming). */
  texts: string[];
  tools: { id: string; name: string; input: unknown; status: ToolCallStatus }[];
}

export function foldSubAgentEvent(view: SubAgentView | undefined, ev: SubAgentEvent): SubAgentView {
  const v: SubAgentView = view ?? { status: 'running', texts: [], tools: [] };
  switch (ev.kind) {
    case 'status':
      return { ...v, status: ev.status };
    case 'text_start':
      return { ...v, texts: [...v.texts, ''] };
    case 'text': {
      const texts = v.texts.length ? v.texts.slice() : [''];
      texts[texts.length - 1] += ev.text;
      return { ...v, texts };
    }
    case 'tool':
      return { ...v, tools: [...v.tools.filter((t) => t.id !== ev.id), { id: ev.id, name: ev.name, input: ev.input, status: 'running' }] };
    case 'tool_status':
      return { ...v, tools: v.tools.map((t) => (t.id === ev.id ? { ...t, status: ev.status } : t)) };
  }
}

export const SUB_AGENT_TYPES = ['researcher', 'page_operator', 'general'] as const satisfies readonly SubAgentType[];

export interface SubAgentRequest {
  prompt: string;
  description?: string;
  type: SubAgentType;
  tabId?: number;
  /** A saved agent profile (delegate_to_agent): its own prompt, model and tool set. */
  profile?: SubAgentProfile;
}

export interface SubAgentProfile {
  name: string;
  system: string;
  /** Empty or absent: the parent's model. */
  model?: string;
  /** The provider preset the model is on (lib/agent/providers/provider-ids.ts); empty or absent: the parent's. */
  provider?: string;
  /** Tool names it may use (still never ask_user or agent); empty or absent: the type's set. */
  tools?: readonly string[];
}

export interface SubAgentResult {
  /** The sub-agent's final answer (its last words), or what it had said when the budget ran out. */
  answer: string;
  tools_used: { name: string; calls: number }[];
  /** Present when the budget (rounds or time) ran out before the sub-agent finished. */
  partial?: true;
  reason?: string;
}
