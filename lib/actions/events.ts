/**
 * Input as a person makes it, in synthetic events: the pointer and mouse sequence at a point, keys
 * per character, and values set through the element's native setter so that framework-controlled
 * inputs (React's value tracker, Preact, Vue's v-model) see the change. Runs inside the page.
 */
import type { KeySpec } from './keys';

type Mods = { ctrl?: boolean; shift?: boolean; alt?: boolean; meta?: boolean };

const viewOf = (el: Element) => el.ownerDocument.defaultView ?? window;

function mouse(el: Element, type: string, x: number, y: number, extra: MouseEventInit = {}): boolean {
  const view = viewOf(el);
  const init: PointerEventInit = {
    bubbles: !type.endsWith('enter') && !type.endsWith('leave'),
    cancelable: true,
    composed: true,
    clientX: x,
    clientY: y,
    screenX: x,
    screenY: y,
    view,
    button: 0,
    ...extra,
  };
  const event = type.startsWith('pointer')
    ? new view.PointerEvent(type, { pointerId: 1, pointerType: 'mouse', isPrimary: true, ...init })
    : new view.MouseEvent(type, init);
  return el.dispatchEvent(event);
}

export function hover(el: Element, x: number, y: number): void {
  for (const type of ['pointerover', 'pointerenter', 'mouseover', 'mouseenter', 'pointermove', 'mousemove']) mouse(el, type, x, y);
}

const FOCUSABLE = 'a[href], button, input, select, textarea, summary, iframe, [tabindex], [contenteditable]:not([contenteditable="false"])';

/** What a press at `el` focuses: it or its nearest focusable ancestor (across shadow roots). */
function focusTarget(el: Element): HTMLElement | null {
  for (let n: Element | null = el; n; n = n.parentElement ?? ((n.getRootNode() as ShadowRoot).host ?? null)) {
    if (n.matches(FOCUSABLE)) return n as HTMLElement;
  }
  return null;
}

/** One click (or `count` clicks, then dblclick when 2): pointer down/up with the mouse events between. */
export function click(el: Element, x: number, y: number, count = 1): void {
  hover(el, x, y);
  for (let detail = 1; detail <= count; detail++) {
    const down = mouse(el, 'pointerdown', x, y, { buttons: 1 }) && mouse(el, 'mousedown', x, y, { buttons: 1, detail });
    if (down && detail === 1) {
      const target = focusTarget(el);
      if (target && target !== deepActive(el.ownerDocument)) target.focus({ preventScroll: true });
      else if (!target) (deepActive(el.ownerDocument) as HTMLElement | null)?.blur?.();
    }
    mouse(el, 'pointerup', x, y);
    mouse(el, 'mouseup', x, y, { detail });
    mouse(el, 'click', x, y, { detail });
  }
  if (count === 2) mouse(el, 'dblclick', x, y, { detail: 2 });
}

/** The focused element, looking into shadow roots. */
export function deepActive(doc: Document): Element | null {
  let a: Element | null = doc.activeElement;
  while (a?.shadowRoot?.activeElement) a = a.shadowRoot.activeElement;
  return a;
}

function keyEvent(el: Element, type: string, key: KeySpec, mods: Mods): boolean {
  const view = viewOf(el);
  const event = new view.KeyboardEvent(type, {
    key: key.key,
    code: key.code,
    bubbles: true,
    cancelable: true,
    composed: true,
    view,
    ctrlKey: !!mods.ctrl,
    shiftKey: !!mods.shift,
    altKey: !!mods.alt,
    metaKey: !!mods.meta,
  });
  // keyCode/which cannot be given to the constructor; older widgets (and jQuery plugins) still read them.
  const code = type === 'keypress' ? (key.text ?? key.key).charCodeAt(0) : key.keyCode;
  Object.defineProperty(event, 'keyCode', { get: () => code });
  Object.defineProperty(event, 'which', { get: () => code });
  if (type === 'keypress') Object.defineProperty(event, 'charCode', { get: () => code });
  return el.dispatchEvent(event);
}

export type TextField = HTMLInputElement | HTMLTextAreaElement;

const TEXT_INPUT_TYPES = new Set(['', 'text', 'search', 'email', 'url', 'tel', 'password', 'number', 'date', 'time', 'datetime-local', 'month', 'week', 'color']);

export function isTextField(el: Element): el is TextField {
  if (el.localName === 'textarea') return true;
  return el.localName === 'input' && TEXT_INPUT_TYPES.has((el.getAttribute('type') ?? '').toLowerCase());
}

export function isEditable(el: Element): boolean {
  return isTextField(el) || (el as HTMLElement).isContentEditable;
}

/** Sets `.value` with the prototype's setter: a framework's own setter on the element would swallow it. */
export function setNativeValue(el: HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement, value: string): void {
  const proto = Object.getPrototypeOf(el) as object;
  const setter = Object.getOwnPropertyDescriptor(proto, 'value')?.set ?? Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')?.set;
  if (setter) setter.call(el, value);
  else el.value = value;
}

function inputEvent(el: Element, type: 'beforeinput' | 'input', inputType: string, data: string | null): boolean {
  const view = viewOf(el);
  return el.dispatchEvent(new view.InputEvent(type, { bubbles: true, cancelable: type === 'beforeinput', composed: true, inputType, data }));
}

export function change(el: Element): void {
  el.dispatchEvent(new (viewOf(el).Event)('change', { bubbles: true }));
}

function selection(el: TextField): [number, number] | null {
  try {
    return el.selectionStart === null || el.selectionEnd === null ? null : [el.selectionStart, el.selectionEnd];
  } catch {
    return null; // email, number: no selection API
  }
}

function setCaret(el: TextField, at: number): void {
  try {
    el.setSelectionRange(at, at);
  } catch {
    // types without a selection
  }
}

/** Inserts `text` at the caret as typing does (replacing the selection), with beforeinput/input. */
function insert(el: Element, text: string, inputType = 'insertText'): void {
  if (!isTextField(el)) {
    // contenteditable: the browser's own editing command fires beforeinput/input itself.
    el.ownerDocument.execCommand(inputType === 'deleteContentBackward' ? 'delete' : 'insertText', false, text);
    return;
  }
  if (!inputEvent(el, 'beforeinput', inputType, text || null)) return;
  const v = el.value;
  const sel = selection(el);
  if (inputType === 'deleteContentBackward') {
    const [s, e] = sel ?? [v.length, v.length];
    const from = s === e ? Math.max(0, s - 1) : s;
    setNativeValue(el, v.slice(0, from) + v.slice(e));
    setCaret(el, from);
  } else if (sel) {
    setNativeValue(el, v.slice(0, sel[0]) + text + v.slice(sel[1]));
    setCaret(el, sel[0] + text.length);
  } else {
    setNativeValue(el, v + text);
  }
  inputEvent(el, 'input', inputType, text || null);
}

/** Puts the caret at the end: `type` appends to what the field holds. */
export function caretToEnd(el: Element): void {
  if (isTextField(el)) setCaret(el, el.value.length);
  else {
    const range = el.ownerDocument.createRange();
    range.selectNodeContents(el);
    range.collapse(false);
    const sel = el.ownerDocument.getSelection();
    sel?.removeAllRanges();
    sel?.addRange(range);
  }
}

/** One key, down and up, with what a browser does by default when the page lets it (typing, Enter, Tab…). */
export function pressKey(el: Element, key: KeySpec, mods: Mods = {}): void {
  const modifiers: [keyof Mods, KeySpec][] = [
    ['ctrl', { key: 'Control', code: 'ControlLeft', keyCode: 17 }],
    ['shift', { key: 'Shift', code: 'ShiftLeft', keyCode: 16 }],
    ['alt', { key: 'Alt', code: 'AltLeft', keyCode: 18 }],
    ['meta', { key: 'Meta', code: 'MetaLeft', keyCode: 91 }],
  ];
  const held = modifiers.filter(([m, k]) => mods[m] && k.key !== key.key);
  for (const [, k] of held) keyEvent(el, 'keydown', k, mods);
  const allowed = keyEvent(el, 'keydown', key, mods);
  if (allowed) {
    const typing = key.text !== undefined && !mods.ctrl && !mods.alt && !mods.meta;
    if (typing && keyEvent(el, 'keypress', key, mods)) defaultAction(el, key, mods, true);
    else if (!typing) defaultAction(el, key, mods, false);
  }
  keyEvent(el, 'keyup', key, mods);
  for (const [, k] of held.reverse()) keyEvent(el, 'keyup', k, {});
}

function defaultAction(el: Element, key: KeySpec, mods: Mods, typing: boolean): void {
  const editable = isEditable(el);
  if (key.key === 'Enter') {
    if (el.localName === 'textarea' || (editable && !isTextField(el))) return insert(el, '\n', 'insertLineBreak');
    // Implicit submission: Enter in a form's field submits it (through its submit button when there is one).
    if (el.localName === 'input' && (el as HTMLInputElement).form) return void (el as HTMLInputElement).form!.requestSubmit();
    if (el.localName === 'button' || el.localName === 'a' || el.getAttribute('role') === 'button') (el as HTMLElement).click();
    return;
  }
  if (key.key === ' ' && !editable && (el.localName === 'button' || el.getAttribute('role') === 'button' || (el as HTMLInputElement).type === 'checkbox')) {
    (el as HTMLElement).click();
    return;
  }
  if (key.key === 'Tab') return moveFocus(el, mods.shift ? -1 : 1);
  if (!editable) return;
  if (key.key === 'Backspace') return insert(el, '', 'deleteContentBackward');
  if (mods.ctrl || mods.meta) {
    if (key.key.toLowerCase() === 'a') {
      if (isTextField(el)) el.select();
      else el.ownerDocument.execCommand('selectAll');
    }
    return;
  }
  if (typing && key.text) insert(el, key.text);
}

/** Tab: the next (or previous) focusable element in document order (tabindex order is not modelled). */
function moveFocus(from: Element, step: number): void {
  const doc = from.ownerDocument;
  const all = Array.from(doc.querySelectorAll<HTMLElement>(FOCUSABLE)).filter(
    (e) => e.tabIndex >= 0 && !(e as HTMLInputElement).disabled && e.getClientRects().length > 0,
  );
  const i = all.indexOf(from as HTMLElement);
  const next = all[(i + step + all.length) % all.length];
  next?.focus();
}

/** Types `text` character by character: keydown, keypress, beforeinput, the insertion, input, keyup. */
export function typeText(el: Element, text: string, key: (ch: string) => KeySpec): void {
  for (const ch of text) {
    const spec = key(ch);
    if (ch === '\n' && el.localName === 'input') pressKey(el, spec);
    else pressKey(el, spec, { shift: /^[A-Z]$/.test(ch) });
  }
}

/** Replaces the field's value as a paste would: native setter, then input and change. */
export function fillValue(el: Element, value: string): void {
  if (isTextField(el)) {
    setNativeValue(el, value);
    inputEvent(el, 'input', value ? 'insertReplacementText' : 'deleteContentBackward', value || null);
    change(el);
    return;
  }
  // contenteditable: select everything, then the browser's editing command replaces it.
  const range = el.ownerDocument.createRange();
  range.selectNodeContents(el);
  const sel = el.ownerDocument.getSelection();
  sel?.removeAllRanges();
  sel?.addRange(range);
  if (value) el.ownerDocument.execCommand('insertText', false, value);
  else el.ownerDocument.execCommand('delete');
}
