/**
 * What the background sends the page-action module and what comes back: plain JSON, because it
 * crosses scripting.executeScript. Types only (the bottom of this family's imports).
 */
import type { Chord } from './keys';

export const ACTIONS = [
  'click', 'double_click', 'hover', 'focus', 'type', 'fill', 'clear', 'select', 'check', 'uncheck', 'press', 'scroll', 'wait_for',
] as const;
export type ActionName = (typeof ACTIONS)[number];

export const DIRECTIONS = ['up', 'down', 'left', 'right', 'top', 'bottom'] as const;
export type Direction = (typeof DIRECTIONS)[number];

/** The role and accessible name get_tab_content gave a selector's element when it read the page. */
export interface RecordedControl {
  role: string;
  name: string;
}

export interface ActionRequest {
  action: ActionName;
  selector?: string;
  text?: string;
  value?: string;
  chord?: Chord;
  direction?: Direction;
  /** wait_for: "appears" (default) or "disappears". */
  until?: 'appears' | 'disappears';
  timeoutMs: number;
  dialog: 'dismiss' | 'accept';
  recorded?: RecordedControl;
  /**
   * "synthetic": the module makes the events itself. "locate": trusted input — the module finds
   * and checks the element and says where to click; the background sends the input (DevTools
   * protocol), then calls finish.
   */
  mode: 'synthetic' | 'locate';
}

export interface ElementState {
  role: string;
  name: string;
  value?: string;
  states: string[];
}

export interface DialogSeen {
  type: 'alert' | 'confirm' | 'prompt';
  message: string;
  answer: 'dismissed' | 'accepted';
}

export interface ActionOutcome {
  ok: true;
  element?: ElementState | 'removed';
  /** Said when the selector was stale and the element was found again by its recorded role and name. */
  refound?: string;
  /** A same-document navigation (client-side routing) or the start of a page load. */
  url?: string;
  navigating?: boolean;
  dialogs?: DialogSeen[];
  appeared?: string[];
  gone?: string[];
  scroll?: { x: number; y: number; moved: boolean; atEnd: boolean };
  note?: string;
  /** locate mode: where to send the pointer, in CSS pixels of the top-level viewport. */
  point?: { x: number; y: number };
  /** locate mode: the element has the focus, ready for keys. */
  focused?: boolean;
  waitedMs?: number;
}

export interface ActionFailure {
  ok: false;
  /** no_match, ambiguous, invalid_selector, hidden, disabled, covered, wrong_kind, not_found, timeout, internal */
  code: string;
  message: string;
}

export type ActionReply = ActionOutcome | ActionFailure;
