import { defineExtensionMessaging } from '@webext-core/messaging';
import type { UserReply } from './contracts/questions';
import type { ConversationSummary } from './contracts/conversation';
import type { ConversationMatch, ExportFile, ExportFormat, ImportResult } from './contracts/conversation-file';
import type { RunEvent } from './contracts/run-events';
import type { SearchResult } from './search-engines/types';
import type { ModelListResult, ProviderForm, TestResult } from './agent/providers/presets';
import type { SearchEngineId } from './settings';

/** Every request the UI pages can make of the background, in one place. */
export interface ProtocolMap {
  listConversations(): ConversationSummary[];
  renameConversation(data: { conversationId: string; title: string }): void;
  deleteConversation(data: { conversationId: string }): void;
  /** The management page's list: every conversation, or those whose title or text has `query`. */
  searchConversations(data: { query: string }): ConversationMatch[];
  exportConversation(data: { conversationId: string; format: ExportFormat }): ExportFile;
  /**
   * "Export all", as JSON files each small enough to import again: the page asks for part 1 from 0,
   * then for the next part from `next`, until `next` is absent.
   */
  exportAllConversations(data: { from: number; part: number }): { file: ExportFile; next?: number };
  /** A file's text (lib/contracts/conversation-file.ts says how large); each conversation gets a new id. */
  importConversations(data: { text: string }): ImportResult;
  /** The management page's "Continue in the chat": the next chat that opens without naming one shows this conversation. */
  continueInChat(data: { conversationId: string }): void;
  /** Creates the conversation when conversationId is absent; answers with its id. */
  sendUserMessage(data: { conversationId?: string; text: string }): { conversationId: string };
  stopRun(data: { conversationId: string }): void;
  regenerate(data: { conversationId: string }): void;
  continueRun(data: { conversationId: string }): void;
  /** A popup's answer to a question ask_user put (any popup attached to the conversation may answer). */
  answerQuestion(data: { conversationId: string; questionId: string; reply: UserReply }): void;
  /** The settings page's Test button: one real query with `engine` and the form's (unsaved) values. */
  testSearchEngine(data: { engine: SearchEngineId; settings: unknown }): { ok: true; results: SearchResult[] } | { ok: false; error: string };
  /** Settings' model picker: the model list of the endpoint the form describes (saved or not). */
  listModels(data: ProviderForm): ModelListResult;
  /** Settings' Test button for the model provider: one tiny request with one tool, with the form's values. */
  testProvider(data: ProviderForm): TestResult;
  /**
   * The management page's "Refresh tools" for an MCP skill: lists the server's tools again over the
   * background's session (the one runs use), so the next run sees the new list.
   */
  refreshSkillTools(data: { skillId: string }): { ok: true; tools: { name: string; description: string; leftOut?: 'task_only' }[] } | { ok: false; error: string };
  /** An MCP skill's OAuth sign-in (the Skills page). */
  mcpSignInStatus(data: { skillId: string }): 'none' | 'signed_out' | 'signed_in';
  mcpSignIn(data: { skillId: string }): { ok: true } | { ok: false; error: string };
  mcpSignOut(data: { skillId: string }): { ok: true; revoked: boolean; problem?: string } | { ok: false; error: string };
}

export const { sendMessage, onMessage } = defineExtensionMessaging<ProtocolMap>();

/** The long-lived port that streams run events to an attached popup (or side panel).
 *  public/preattach.js opens it by this name before the popup's code loads. */
export const RUN_EVENTS_PORT = 'pagewright:run-events';

/** `conversationId: null` attaches to the most recently updated conversation. */
export type PortRequest = { type: 'attach'; conversationId: string | null } | { type: 'detach' };
export type PortEvent =
  | { conversationId: string; event: RunEvent }
  | { type: 'missing'; conversationId: string }
  /** The answer to attaching to the latest conversation when there is none. */
  | { type: 'empty' };
