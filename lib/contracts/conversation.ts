/**
 * A contract at the bottom of the import graph: what a conversation is, as the store keeps it,
 * the agent writes it and the UI shows it. Imports nothing of Pagewright's above lib/contracts.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { CallDecision } from './permissions';

export type ContentBlock =
  | Anthropic.TextBlockParam
  | Anthropic.ToolUseBlockParam
  | Anthropic.ToolResultBlockParam;

/** One message as sent to the model, plus when it was written. */
export interface StoredMessage {
  role: 'user' | 'assistant';
  content: ContentBlock[];
  at: number;
  /**
   * On an assistant message: the reply broke off (its stream went silent) and this is the text
   * that had arrived; Retry replaces it with a whole reply.
   */
  incomplete?: true;
  /** On a tool-result message: how the policy decided each consequential call, by tool_use id. */
  decisions?: Record<string, CallDecision>;
  /**
   * On the user's message: the tab that was active in their window when they sent it, and the
   * text selected in it (at most MAX_SELECTION_CHARS). The model sees it with the message
   * (lib/agent/messages.ts), the selection inside an untrusted-content fence whose marker is
   * `fence` (drawn when the message was sent, so every request repeats the same bytes); a tab on a
   * site the user blocked is not recorded.
   */
  activeTab?: { id: number; url: string; title: string; selection?: string; fence?: string };
}

export const MAX_SELECTION_CHARS = 10_000;

/**
 * What the model sees of a long conversation (lib/agent/context.ts). Storage and the UI keep
 * every message; only the model's view is shortened.
 */
export interface ContextView {
  /** Tool results in messages before this index reach the model shortened: their start and a note. */
  elidedBefore: number;
  /** Messages before `through` reach the model as this note, which the model wrote. */
  compaction?: { through: number; note: string; at: number };
}

/** Tokens and cost of every run of a conversation, sub-agents and summaries included. */
export interface ConversationTotals {
  usage: TokenUsage;
  /** US dollars for the tokens whose model has a price. */
  cost: number;
  /** Tokens of models without a price (their cost is unknown). */
  unpricedTokens: number;
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

export type RunErrorKind = 'auth' | 'bad_request' | 'not_found' | 'network' | 'stream' | 'config' | 'loop' | 'other';

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
  /** US dollars this run cost so far; absent when no model it used has a price. */
  cost?: number;
  /** Tokens of this run from models without a price. */
  unpricedTokens?: number;
  /** Why an `awaiting_continue` run paused (absent: the round cap). */
  pause?: 'round_cap' | 'token_budget' | 'cost_budget';
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
  /** Absent until the conversation first outgrows its threshold. */
  context?: ContextView;
  /** Absent on conversations from before costs were counted. */
  totals?: ConversationTotals;
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

export const emptyUsage = (): TokenUsage => ({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0 });

export const idleRun = (roundCap: number): RunState => ({
  status: 'idle',
  round: 0,
  roundCap,
  usage: emptyUsage(),
});

export const isToolResultMessage = (m: StoredMessage) =>
  m.role === 'user' && m.content.length > 0 && m.content.every((b) => b.type === 'tool_result');

/** The text a message says (its text blocks), as the UI shows and copies it. */
export function messageText(m: StoredMessage): string {
  return m.content
    .filter((b): b is Anthropic.TextBlockParam => b.type === 'text')
    .map((b) => b.text)
    .join('\n\n');
}
