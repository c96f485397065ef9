/** A contract: notices, what a tool wants the user to know beside its result. */

/** Something a tool wants the user to know beside its result (shown as a popup banner). */
export type Notice =
  | { kind: 'user_scripts_needed' }
  /** Active skills a run had to leave out (a config that no longer checks out, an MCP server down). */
  | { kind: 'skills_unavailable'; problems: { skill: string; message: string }[] }
  /** The model proposed a function skill; it waits for the user's review. */
  | { kind: 'skill_review'; name: string }
  /** An MCP server asked the user for input with a form Pagewright cannot show (it was refused). */
  | { kind: 'elicitation_refused'; server: string; problem: string };
