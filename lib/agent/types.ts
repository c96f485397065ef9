import type Anthropic from '@anthropic-ai/sdk';
import type { Notice } from '../tools/env';

export type ContentBlock =
  | Anthropic.TextBlockParam
  | Anthropic.ToolUseBlockParam
  | Anthropic.ToolResultBlockParam;

/** One message as sent to the model, plus when it was written. */
export interface StoredMessage {
  role: 'user' | 'assistant';
  content: ContentBlock[];
  at: number;
}

export interface TokenUsage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

export type RunStatus =
  | 'idle'
  | 'running'
  | 'retrying'
  | 'awaiting_continue'
  | 'interrupted'
  | 'stopped'
  | 'error'
  | 'done';

export type RunErrorKind = 'auth' | 'bad_request' | 'not_found' | 'network' | 'stream' | 'config' | 'other';

export interface RunError {
  kind: RunErrorKind;
  message: string;
  status?: number;
}

export interface RunState {
  status: RunStatus;
  /** Model rounds in the current run. */
  round: number;
  roundCap: number;
  usage: TokenUsage;
  error?: RunError;
  /** Set while waiting before a retry; `at` is the epoch ms of the next attempt. */
  retry?: { at: number; attempt: number; maxAttempts: number; reason: string };
  startedAt?: number;
  endedAt?: number;
}

export interface Conversation {
  id: string;
  title: string;
  createdAt: number;
  updatedAt: number;
  messages: StoredMessage[];
  run: RunState;
}

export interface ConversationSummary {
  id: string;
  title: string;
  updatedAt: number;
  status: RunStatus;
}

/** The assistant reply being streamed, before it is committed to the conversation. */
export interface DraftBlock {
  type: 'text' | 'tool_use';
  text: string;
  id?: string;
  name?: string;
  /** Raw JSON text of a tool_use input as it streams in. */
  inputJson?: string;
}

export type ToolCallStatus = 'running' | 'done' | 'error';

export interface Task {
  task_id: string;
  subject: string;
  description?: string;
  status: 'pending' | 'in_progress' | 'completed';
}

/** A question ask_user put to the user, waiting for an answer. */
export interface PendingQuestion {
  id: string;
  conversationId: string;
  question: string;
  /** Present: a choice among these; absent: a written answer. */
  options?: string[];
  multiple: boolean;
  askedAt: number;
  /** When it times out (epoch ms). */
  expiresAt: number;
}

/**
 * ask_user's result. `answer` is the text, or the chosen option(s) joined with ", " (then
 * `selected` lists them); null when no answer came, with the reason.
 */
export type QuestionAnswer =
  | { answer: string; selected?: string[] }
  | { answer: null; reason: 'timeout' | 'declined' | 'stopped' };

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

export interface ConversationSnapshot {
  conversation: Conversation;
  draft: DraftBlock[] | null;
  toolStatus: Record<string, ToolCallStatus>;
  tasks: Task[];
  questions: PendingQuestion[];
  /** Sub-agents of this conversation's runs, by the agent call's tool_use id. */
  subAgents: Record<string, SubAgentView>;
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
  | { type: 'run'; run: RunState }
  | { type: 'tasks'; tasks: Task[] }
  | { type: 'title'; title: string }
  | { type: 'notice'; notice: Notice }
  | { type: 'question'; question: PendingQuestion }
  | { type: 'question_closed'; id: string }
  | { type: 'sub_agent_event'; toolUseId: string; event: SubAgentEvent };

export const emptyUsage = (): TokenUsage => ({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0 });

export const idleRun = (roundCap: number): RunState => ({
  status: 'idle',
  round: 0,
  roundCap,
  usage: emptyUsage(),
});
