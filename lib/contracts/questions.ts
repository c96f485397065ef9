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
  /** Present: not the model's question but an MCP server's request for input (elicitation/create). */
  elicitation?: ElicitationRequest;
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

/** What a popup sends back: free text, the chosen option(s), "skip", an approval's button, a sign-in card's, or an elicitation form's. */
export type UserReply = { text: string } | { selected: string[] } | { decline: true } | { approval: ApprovalChoice } | { signIn: boolean } | ElicitationReply;

/** An approval's outcome: the user's click, or why none came. */
export type ApprovalAnswer = { choice: ApprovalChoice } | { choice: null; reason: 'timeout' | 'stopped' };

// ---------------------------------------------------------------------------------------------
// Elicitation: an MCP server asks the user (never the model) for input during a tool call
// ---------------------------------------------------------------------------------------------

/** A value a form field gives: text, a number, a tick, or the chosen options of a multi-select. */
export type ElicitationValue = string | number | boolean | string[];

export interface ElicitationOption {
  /** What the server gets. */
  value: string;
  /** What the user reads (the value itself when the server gave no title). */
  label: string;
}

interface ElicitationFieldBase {
  /** The property's name in the server's schema (and in the answer). */
  name: string;
  title?: string;
  description?: string;
  required: boolean;
}

/** One control of the form, from one property of the server's requestedSchema (the spec's flat subset). */
export type ElicitationField =
  | (ElicitationFieldBase & { type: 'string'; format?: 'email' | 'uri' | 'date' | 'date-time'; minLength?: number; maxLength?: number; default?: string })
  | (ElicitationFieldBase & { type: 'number' | 'integer'; minimum?: number; maximum?: number; default?: number })
  | (ElicitationFieldBase & { type: 'boolean'; default?: boolean })
  /** One of the options (a string enum). */
  | (ElicitationFieldBase & { type: 'choice'; options: ElicitationOption[]; default?: string })
  /** Any number of the options (an array of a string enum). */
  | (ElicitationFieldBase & { type: 'choices'; options: ElicitationOption[]; minItems?: number; maxItems?: number; default?: string[] });

/** What a server asks: a form to fill, or a page to open (URL mode). `server` is the skill's name. */
export type ElicitationRequest =
  | { mode: 'form'; server: string; message: string; fields: ElicitationField[] }
  | { mode: 'url'; server: string; message: string; url: string };

/** The buttons of an elicitation card; `content` only with accept on a form (already checked by the card). */
export type ElicitationReply = { elicitation: 'accept'; content?: Record<string, ElicitationValue> } | { elicitation: 'decline' | 'cancel' };

/** The user's answer to a server, or why none came (cancel then, as the spec wants for a dismissed request). */
export type ElicitationAnswer =
  | { action: 'accept'; content?: Record<string, ElicitationValue> }
  | { action: 'decline' }
  | { action: 'cancel'; reason: 'cancelled' | 'timeout' | 'stopped' };

/** Why a field's value was refused, for the message by the field. */
export type ElicitationProblem =
  | { code: 'required' | 'type' | 'email' | 'uri' | 'date' | 'date_time' | 'integer' | 'option' }
  | { code: 'too_short' | 'too_long' | 'too_small' | 'too_large' | 'too_few' | 'too_many'; limit: number };
