/**
 * Key names and chords for page_action's `press` ("Enter", "Control+A", "Shift+Tab"): parsed in the
 * background before anything is injected, so an unknown name is refused with the list of valid
 * ones instead of sending a key no page listens for. Pure: the page module and the DevTools input
 * path both take the parsed form.
 */

export interface KeySpec {
  /** KeyboardEvent.key: "Enter", "a", "A", "ArrowDown". */
  key: string;
  /** KeyboardEvent.code: "Enter", "KeyA", "ArrowDown". */
  code: string;
  /** The legacy keyCode many widgets still read (and DevTools' windowsVirtualKeyCode). */
  keyCode: number;
  /** The character the key types, when it types one (and no Control/Alt/Meta is held). */
  text?: string;
}

export interface Chord extends KeySpec {
  ctrl: boolean;
  shift: boolean;
  alt: boolean;
  meta: boolean;
}

/** Named keys (not characters), by their KeyboardEvent.key, with their code and keyCode. */
const NAMED: Record<string, [code: string, keyCode: number, text?: string]> = {
  Enter: ['Enter', 13, '\r'],
  Tab: ['Tab', 9],
  Escape: ['Escape', 27],
  Backspace: ['Backspace', 8],
  Delete: ['Delete', 46],
  Space: ['Space', 32, ' '],
  ArrowUp: ['ArrowUp', 38],
  ArrowDown: ['ArrowDown', 40],
  ArrowLeft: ['ArrowLeft', 37],
  ArrowRight: ['ArrowRight', 39],
  Home: ['Home', 36],
  End: ['End', 35],
  PageUp: ['PageUp', 33],
  PageDown: ['PageDown', 34],
  Insert: ['Insert', 45],
  ContextMenu: ['ContextMenu', 93],
  ...Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`F${i + 1}`, [`F${i + 1}`, 112 + i] as [string, number]])),
};

/** What people and models also write for those keys. */
const ALIASES: Record<string, string> = {
  return: 'Enter', esc: 'Escape', del: 'Delete', up: 'ArrowUp', down: 'ArrowDown', left: 'ArrowLeft', right: 'ArrowRight',
  pgup: 'PageUp', pgdn: 'PageDown', pagedown: 'PageDown', pageup: 'PageUp', spacebar: 'Space', ' ': 'Space',
};

const MODIFIERS: Record<string, 'ctrl' | 'shift' | 'alt' | 'meta'> = {
  control: 'ctrl', ctrl: 'ctrl', shift: 'shift', alt: 'alt', option: 'alt', meta: 'meta', cmd: 'meta', command: 'meta', super: 'meta',
};

/** US-layout punctuation: its code and keyCode (the shifted character shares the key). */
const PUNCTUATION: Record<string, [string, number]> = {
  '-': ['Minus', 189], '_': ['Minus', 189], '=': ['Equal', 187], '+': ['Equal', 187], '[': ['BracketLeft', 219], '{': ['BracketLeft', 219],
  ']': ['BracketRight', 221], '}': ['BracketRight', 221], '\\': ['Backslash', 220], '|': ['Backslash', 220], ';': ['Semicolon', 186],
  ':': ['Semicolon', 186], "'": ['Quote', 222], '"': ['Quote', 222], ',': ['Comma', 188], '<': ['Comma', 188], '.': ['Period', 190],
  '>': ['Period', 190], '/': ['Slash', 191], '?': ['Slash', 191], '`': ['Backquote', 192], '~': ['Backquote', 192],
  '!': ['Digit1', 49], '@': ['Digit2', 50], '#': ['Digit3', 51], '$': ['Digit4', 52], '%': ['Digit5', 53], '^': ['Digit6', 54],
  '&': ['Digit7', 55], '*': ['Digit8', 56], '(': ['Digit9', 57], ')': ['Digit0', 48],
};

/** The valid key names, for the error message (characters are valid too: "a", "7", "/"). */
export const KEY_NAMES = [...Object.keys(NAMED), 'Control', 'Shift', 'Alt', 'Meta'];

export class KeyError extends Error {
  override name = 'KeyError';
}

/** The key one character types (for `type`): letters, digits, punctuation; anything else has no code. */
export function keyForChar(ch: string): KeySpec {
  if (ch === '\n' || ch === '\r') return { key: 'Enter', code: 'Enter', keyCode: 13, text: '\r' };
  if (ch === '\t') return { key: 'Tab', code: 'Tab', keyCode: 9, text: '\t' };
  if (ch === ' ') return { key: ' ', code: 'Space', keyCode: 32, text: ' ' };
  if (/^[a-z]$/i.test(ch)) return { key: ch, code: `Key${ch.toUpperCase()}`, keyCode: ch.toUpperCase().charCodeAt(0), text: ch };
  if (/^[0-9]$/.test(ch)) return { key: ch, code: `Digit${ch}`, keyCode: ch.charCodeAt(0), text: ch };
  const p = PUNCTUATION[ch];
  if (p) return { key: ch, code: p[0], keyCode: p[1], text: ch };
  // Other characters (é, 字, emoji) come from an input method or a layout we do not model.
  return { key: ch, code: '', keyCode: 0, text: ch };
}

/**
 * "Enter", "Control+A", "Shift+Tab", "Meta+Shift+z", "a", "+" (the plus key alone), "Control++".
 * Throws KeyError naming the valid keys.
 */
export function parseChord(input: string): Chord {
  const raw = input.trim();
  if (!raw) throw new KeyError(`An empty key. ${validKeys()}`);
  // "+" separates parts, but a trailing "+" after a separator is the plus key itself ("Control++").
  const parts = raw === '+' ? ['+'] : raw.endsWith('++') ? [...raw.slice(0, -2).split('+'), '+'] : raw.split('+');
  const chord: Chord = { key: '', code: '', keyCode: 0, ctrl: false, shift: false, alt: false, meta: false };
  const main = parts.pop()!.trim();
  for (const part of parts) {
    const mod = MODIFIERS[part.trim().toLowerCase()];
    if (!mod) throw new KeyError(`"${part.trim()}" in "${raw}" is not a modifier (Control, Shift, Alt, Meta). ${validKeys()}`);
    chord[mod] = true;
  }
  const spec = mainKey(main, raw);
  Object.assign(chord, spec);
  if (spec.text !== undefined && spec.key.length === 1 && /[a-z]/i.test(spec.key)) {
    // Shift+a types "A"; Control+A is the same chord as Control+a (key is lower case unless shifted).
    chord.key = chord.shift ? spec.key.toUpperCase() : spec.key.toLowerCase();
    chord.text = chord.key;
  }
  // Only a plain (or shifted) key types its character: Control+A selects, it does not type "a".
  if (chord.ctrl || chord.alt || chord.meta) delete chord.text;
  return chord;
}

function mainKey(name: string, whole: string): KeySpec {
  if (!name) throw new KeyError(`"${whole}" has no key after its modifiers. ${validKeys()}`);
  if ([...name].length === 1) return keyForChar(name);
  const lower = name.toLowerCase();
  if (MODIFIERS[lower]) {
    const key = { ctrl: 'Control', shift: 'Shift', alt: 'Alt', meta: 'Meta' }[MODIFIERS[lower]!];
    const keyCode = ({ Control: 17, Shift: 16, Alt: 18, Meta: 91 } as Record<string, number>)[key]!;
    return { key, code: `${key}Left`, keyCode };
  }
  const named = Object.keys(NAMED).find((k) => k.toLowerCase() === lower) ?? ALIASES[lower];
  if (!named) throw new KeyError(`Unknown key "${name}"${name === whole ? '' : ` in "${whole}"`}. ${validKeys()}`);
  const [code, keyCode, text] = NAMED[named]!;
  // "Space" is the name people write; the key itself is " ".
  return named === 'Space' ? { key: ' ', code, keyCode, text } : { key: named, code, keyCode, ...(text ? { text } : {}) };
}

function validKeys(): string {
  return `Valid keys: a single character (a, 7, /), or ${KEY_NAMES.join(', ')}; combine with "+" (Control+A, Shift+Tab).`;
}
