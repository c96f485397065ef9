/**
 * What an element is to someone using the page: its kind (button, checkbox, select…), its label
 * and its CURRENT state, read from the live element's properties (.value, .checked, selected
 * options), never from attributes: scripts and the user change those after load.
 */

import { hiddenFromName } from './visibility';

export type ControlKind = 'link' | 'button' | 'field' | 'checkbox' | 'radio' | 'select' | 'widget';

export interface ControlInfo {
  kind: ControlKind;
  /** What the annotation calls it: "button", "input email", "checkbox", "tab"… */
  name: string;
  label: string;
  /** Current value, already made safe to show (passwords masked), or undefined. */
  value?: string;
  /** Flags such as checked, selected, expanded, disabled. */
  states: string[];
  /** Select / listbox options (capped) and how many more there are. */
  options?: { labels: string[]; more: number };
}

const WIDGET_ROLES = new Set([
  'button', 'link', 'checkbox', 'radio', 'switch', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio',
  'option', 'combobox', 'textbox', 'searchbox', 'slider', 'spinbutton', 'treeitem',
]);
const FIELD_ROLES = new Set(['combobox', 'textbox', 'searchbox', 'slider', 'spinbutton']);
const BUTTON_INPUTS = new Set(['submit', 'button', 'reset', 'image']);
const MAX_LABEL = 80;
const MAX_VALUE = 200;
export const MAX_OPTIONS = 20;
export const PASSWORD_MASK = '••••';

/** The ARIA widget role that overrides the tag, if any. */
export function widgetRole(el: Element): string | null {
  const role = el.getAttribute('role')?.trim().split(/\s+/)[0]?.toLowerCase();
  return role && WIDGET_ROLES.has(role) ? role : null;
}

/** True for elements the model may want to click, type into or toggle. */
export function isControl(el: Element): boolean {
  switch (el.localName) {
    case 'a':
      return el.hasAttribute('href') || !!widgetRole(el);
    case 'button':
    case 'select':
    case 'textarea':
    case 'summary':
      return true;
    case 'input':
      return (el as HTMLInputElement).type !== 'hidden';
  }
  return !!widgetRole(el) || isEditable(el);
}

function isEditable(el: Element): boolean {
  const v = el.getAttribute('contenteditable');
  if (v === null || v.toLowerCase() === 'false') return false;
  // Only the editing host, not every element inside it.
  const parent = el.parentElement;
  return !parent || !(parent as HTMLElement).isContentEditable || parent.getAttribute('contenteditable') === null;
}

export function describeControl(el: Element): ControlInfo {
  const role = widgetRole(el);
  const states: string[] = [];
  const tag = el.localName;
  let kind: ControlKind;
  let name: string;
  let value: string | undefined;
  let options: ControlInfo['options'];

  if (tag === 'input') {
    const input = el as HTMLInputElement;
    const type = input.type;
    if (type === 'checkbox' || type === 'radio') {
      kind = type;
      name = role && role !== type ? role : type;
      if (input.indeterminate) states.push('mixed');
      else if (input.checked) states.push('checked');
    } else if (BUTTON_INPUTS.has(type)) {
      kind = 'button';
      name = 'button';
    } else {
      kind = 'field';
      name = type === 'text' ? (role && role !== 'textbox' ? role : 'input') : `input ${type}`;
      value = fieldValue(input);
    }
  } else if (tag === 'select') {
    const select = el as HTMLSelectElement;
    kind = 'select';
    name = select.multiple ? 'select multiple' : 'select';
    const chosen = Array.from(select.selectedOptions).map(optionLabel);
    if (chosen.length) value = clip(chosen.join(', '), MAX_VALUE);
    const all = Array.from(select.options);
    options = { labels: all.slice(0, MAX_OPTIONS).map(optionLabel), more: Math.max(0, all.length - MAX_OPTIONS) };
  } else if (tag === 'textarea') {
    kind = 'field';
    name = 'textarea';
    const v = (el as HTMLTextAreaElement).value;
    if (v) value = clip(v, MAX_VALUE);
  } else if (tag === 'a' && !role) {
    kind = 'link';
    name = 'link';
  } else if (role) {
    name = role;
    kind = role === 'checkbox' || role === 'switch' || role === 'menuitemcheckbox' ? 'checkbox'
      : role === 'radio' || role === 'menuitemradio' ? 'radio'
      : role === 'button' ? 'button'
      : role === 'link' ? 'link'
      : FIELD_ROLES.has(role) ? 'field' : 'widget';
    if (kind === 'field') value = widgetValue(el);
  } else if (tag === 'button' || tag === 'summary') {
    kind = 'button';
    name = 'button';
  } else {
    kind = 'field';
    name = 'editable';
    value = clip(textOf(el), MAX_VALUE) || undefined;
  }

  const aria = (a: string) => el.getAttribute(a)?.toLowerCase();
  if (tag !== 'input' || (kind !== 'checkbox' && kind !== 'radio')) {
    const checked = aria('aria-checked');
    if (checked === 'true') states.push('checked');
    else if (checked === 'mixed') states.push('mixed');
  }
  if (aria('aria-selected') === 'true') states.push('selected');
  if (aria('aria-pressed') === 'true') states.push('pressed');
  if (aria('aria-current') && aria('aria-current') !== 'false') states.push('current');
  const expanded = aria('aria-expanded') ?? (tag === 'summary' ? String(!!el.parentElement?.hasAttribute('open')) : undefined);
  if (expanded === 'true') states.push('expanded');
  else if (expanded === 'false') states.push('collapsed');
  if ((el as HTMLInputElement).disabled || aria('aria-disabled') === 'true' || el.closest('fieldset:disabled')) states.push('disabled');
  if ((el as HTMLInputElement).required || aria('aria-required') === 'true') states.push('required');
  if ((el as HTMLInputElement).readOnly && kind === 'field') states.push('readonly');

  return { kind, name, label: labelOf(el), value, states: [...new Set(states)], ...(options ? { options } : {}) };
}

function fieldValue(input: HTMLInputElement): string | undefined {
  if (input.type === 'password') return input.value ? PASSWORD_MASK : undefined;
  if (input.type === 'file') {
    const names = Array.from(input.files ?? []).map((f) => f.name);
    return names.length ? clip(names.join(', '), MAX_VALUE) : undefined;
  }
  return input.value ? clip(input.value, MAX_VALUE) : undefined;
}

function widgetValue(el: Element): string | undefined {
  const v = el.getAttribute('aria-valuetext') ?? el.getAttribute('aria-valuenow');
  if (v) return clip(v, MAX_VALUE);
  if ('value' in el && typeof el.value === 'string') return el.value ? clip(el.value, MAX_VALUE) : undefined;
  const text = textOf(el);
  return text ? clip(text, MAX_VALUE) : undefined;
}

function optionLabel(o: HTMLOptionElement): string {
  return clip(o.label || normalize(o.textContent ?? ''), MAX_LABEL);
}

/**
 * A simplified accessible name: aria-labelledby, aria-label, <label>s (for= and wrapping), then
 * the element's own text / alt / value / title, then placeholder, then the name attribute.
 */
export function labelOf(el: Element): string {
  const byIds = el.getAttribute('aria-labelledby');
  if (byIds) {
    const root = el.getRootNode() as Document | ShadowRoot;
    const text = byIds.split(/\s+/).map((id) => (id && root.getElementById?.(id) ? nameText(root.getElementById(id)!) : '')).filter(Boolean).join(' ');
    if (text) return clip(text, MAX_LABEL);
  }
  const aria = el.getAttribute('aria-label')?.trim();
  if (aria) return clip(normalize(aria), MAX_LABEL);
  const labels = (el as HTMLInputElement).labels;
  if (labels && labels.length) {
    const text = Array.from(labels).map((l) => nameText(l, el)).filter(Boolean).join(' ');
    if (text) return clip(text, MAX_LABEL);
  }
  const tag = el.localName;
  if (tag === 'input') {
    const input = el as HTMLInputElement;
    if (input.type === 'image') {
      const alt = input.alt.trim();
      if (alt) return clip(alt, MAX_LABEL);
    }
    if (BUTTON_INPUTS.has(input.type)) return clip(input.value || (input.type === 'reset' ? 'Reset' : 'Submit'), MAX_LABEL);
  } else if (tag !== 'select' && tag !== 'textarea' && !isEditable(el) && !FIELD_ROLES.has(widgetRole(el) ?? '')) {
    const text = nameText(el);
    if (text) return clip(text, MAX_LABEL);
    const img = el.querySelector('img[alt], svg[aria-label]');
    const alt = img?.getAttribute('alt')?.trim() || img?.getAttribute('aria-label')?.trim();
    if (alt) return clip(alt, MAX_LABEL);
  }
  const title = el.getAttribute('title')?.trim();
  if (title) return clip(normalize(title), MAX_LABEL);
  const placeholder = el.getAttribute('placeholder')?.trim() || el.getAttribute('aria-placeholder')?.trim();
  if (placeholder) return clip(normalize(placeholder), MAX_LABEL);
  return clip(el.getAttribute('name') ?? '', MAX_LABEL);
}

/** Elements whose text never runs into the next one's ("Join the discussion" + "Get only replies"). */
const BLOCK_TEXT = new Set(['div', 'p', 'br', 'li', 'ul', 'ol', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'section', 'article', 'header', 'footer', 'td', 'th', 'tr', 'dt', 'dd', 'label', 'small']);
const SKIP_TEXT = new Set(['script', 'style', 'noscript', 'template', 'select', 'textarea', 'input', 'button']);
/** Never part of a name: code, and ruby readings (furigana), which the Markdown leaves out too. */
const NEVER_TEXT = new Set(['script', 'style', 'template', 'rt', 'rp']);

/** Normalised text of `node`, leaving out scripts, styles and nested form controls (and `except`). */
export function textOf(node: Node, except?: Element): string {
  return collectText(node, except);
}

/**
 * Text for a control's name: as textOf, without aria-hidden parts (an icon font's ligature,
 * "shopping_cart"; a decorative glyph), which assistive tech leaves out of names too.
 * Visually-hidden text is kept: it is often the only name.
 */
function nameText(node: Node, except?: Element): string {
  return collectText(node, except, hiddenFromName);
}

function collectText(node: Node, except?: Element, skip?: (el: Element) => boolean): string {
  let out = '';
  const walk = (n: Node) => {
    for (let c = n.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === 3) out += c.nodeValue;
      else if (c.nodeType === 1) {
        const e = c as Element;
        if (e === except || (SKIP_TEXT.has(e.localName) && node.nodeType === 1 && (node as Element).localName === 'label')) continue;
        if (skip?.(e)) continue;
        if (NEVER_TEXT.has(e.localName)) continue;
        const block = BLOCK_TEXT.has(e.localName);
        if (block) out += ' ';
        walk(e);
        if (block) out += ' ';
      }
    }
  };
  walk(node);
  return normalize(out);
}

export function normalize(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

export function clip(s: string, max: number): string {
  const t = normalize(s);
  return t.length > max ? `${t.slice(0, max - 1).trimEnd()}…` : t;
}
