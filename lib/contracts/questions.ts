/**
 * A contract: ask_user's questions and the policy's approval requests, as the agent puts them,
 * the UI answers them and the browser draws the user's eye to them.
 */
import type { ApprovalChoice, ApprovalDetails } from './permissions';

/** A question ask_user put to the user, waiting for an answer. */
export interface PendingQuestion {
  id: string;
  conversationId: string;
  question: string;
  /** Present: a choice among these; absent: a written answer. */
  options?: string[];
  multiple: boolean;
  /** Present: not a question but an approval the policy asks for (Allow once / Always / Deny). */
  approval?: ApprovalDetails;
  /** Present: not a question but an MCP server asking the user to sign in (Sign in / Not now). */
  signIn?: SignInServer;
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

/** The MCP server a sign-in card is about (the skill's name and the server's origin). */
export interface SignInServer {
  skillId: string;
  name: string;
  origin: string;
}

/** What a popup sends back: free text, the chosen option(s), "skip", an approval's button, or a sign-in card's. */
export type UserReply = { text: string } | { selected: string[] } | { decline: true } | { approval: ApprovalChoice } | { signIn: boolean };

/** An approval's outcome: the user's click, or why none came. */
export type ApprovalAnswer = { choice: ApprovalChoice } | { choice: null; reason: 'timeout' | 'stopped' };
