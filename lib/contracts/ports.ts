/**
 * A contract: the ports the browser implements for the agent (lib/browser), so the agent and
 * the adapters meet here instead of importing each other.
 */
import type { PendingQuestion } from './questions';

/** Holds the background alive while a run is active (Chrome's service worker is stopped when idle). */
export interface KeepAlive {
  acquire(): void;
  release(): void;
}

/** What the browser does to draw the user's eye (the badge, a system notification). */
export interface Attention {
  /** How many questions wait, over all conversations (0 clears the badge). */
  waiting(count: number): void;
  notify(question: PendingQuestion): void;
  /** The question was settled: its notification, if any, goes away. */
  settled(questionId: string): void;
}
