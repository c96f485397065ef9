/**
 * A contract: what the background pushes to every UI attached to a conversation (the port's
 * run events) and the snapshot a UI starts from.
 */
import type { ContextView, Conversation, ConversationTotals, DraftBlock, RunState, StoredMessage, Task, ToolCallStatus } from './conversation';
import type { Notice } from './notices';
import type { PendingQuestion } from './questions';
import type { SubAgentEvent, SubAgentView } from './sub-agents';

export interface ConversationSnapshot {
  conversation: Conversation;
  draft: DraftBlock[] | null;
  toolStatus: Record<string, ToolCallStatus>;
  /** The latest progress of each tool call still running. */
  toolProgress: Record<string, ToolProgress>;
  tasks: Task[];
  questions: PendingQuestion[];
  /** Sub-agents of this conversation's runs, by the agent call's tool_use id. */
  subAgents: Record<string, SubAgentView>;
}

/** How far a running tool has got, as its server or handler says (shown in its card). */
export interface ToolProgress {
  progress?: number;
  total?: number;
  message?: string;
}

/** What the background pushes to every UI attached to a conversation. */
export type RunEvent =
  | { type: 'snapshot'; snapshot: ConversationSnapshot }
  | { type: 'draft_reset' }
  | { type: 'draft_block'; index: number; block: DraftBlock }
  | { type: 'draft_text'; index: number; text: string }
  | { type: 'draft_input'; index: number; json: string }
  | { type: 'message'; message: StoredMessage }
  | { type: 'messages_replaced'; messages: StoredMessage[] }
  | { type: 'tool_status'; id: string; status: ToolCallStatus }
  /** The latest progress of a running tool call (throttled: lib/agent/tool-progress.ts). */
  | { type: 'tool_progress'; id: string; progress: ToolProgress }
  | { type: 'run'; run: RunState }
  | { type: 'tasks'; tasks: Task[] }
  | { type: 'title'; title: string }
  | { type: 'notice'; notice: Notice }
  | { type: 'question'; question: PendingQuestion }
  | { type: 'question_closed'; id: string }
  | { type: 'sub_agent_event'; toolUseId: string; event: SubAgentEvent }
  /** The model's view of the conversation changed: old tool results elided, or turns compacted. */
  | { type: 'context'; context: ContextView }
  | { type: 'totals'; totals: ConversationTotals };
