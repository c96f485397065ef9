import type { UserReply } from '../contracts/questions';
import type { ConversationSummary } from '../contracts/conversation';
import type { PortEvent } from '../protocol';
import type { ConversationsRequest } from './conversation-links';

/** What the chat UI needs from the background; the extension and component tests each supply one. */
export interface ChatClient {
  /**
   * Streams a conversation's events (a snapshot first); re-attaches by itself after a
   * disconnect. `null` means the most recently updated conversation, answered with its
   * snapshot, or with `{type: 'empty'}` when there is none.
   */
  attach(conversationId: string | null, onEvent: (e: PortEvent) => void, onConnection?: (connected: boolean) => void): () => void;
  send(conversationId: string | undefined, text: string): Promise<string>;
  stop(conversationId: string): Promise<void>;
  regenerate(conversationId: string): Promise<void>;
  continueRun(conversationId: string): Promise<void>;
  list(): Promise<ConversationSummary[]>;
  rename(conversationId: string, title: string): Promise<void>;
  remove(conversationId: string): Promise<void>;
  answer(conversationId: string, questionId: string, reply: UserReply): Promise<void>;
  openSettings(): void;
  /**
   * True while no model is set up (first run: no key for a provider that needs one): the chat
   * says so and opens Settings instead of letting a first message fail. Calls `onChange` when the
   * settings change; returns the unsubscribe. Absent: never needed.
   */
  watchSetup?(onChange: (needed: boolean) => void): () => void;
  /** The management page's skills, where proposed function skills wait for review. */
  openSkillReview?(): void;
  /** The management page's Conversations section, which exports and imports for the popup. */
  openConversations?(request: ConversationsRequest): void;
}
