/**
 * A contract: ask_user's questions, as the agent puts them, the UI answers them and the browser
 * draws the user's eye to them.
 */

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

export interface QuestionInput {
  question: string;
  options?: string[];
  multiple: boolean;
}

/** What a popup sends back: free text, the chosen option(s), or "skip". */
export type UserReply = { text: string } | { selected: string[] } | { decline: true };
