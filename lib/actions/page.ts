/**
 * page_action inside the page (the MAIN world, so that the page's own alert/confirm/prompt can be
 * answered). One action is two calls from the background:
 *
 *   act(request)  find the element, check it, watch for dialogs, mutations and navigation, act
 *                 (or, for trusted input, only say where: the background sends DevTools input)
 *   finish()      once the page has been quiet for a moment: the element's new state, the dialogs,
 *                 the text that appeared or went, a same-document navigation; the watchers removed
 *
 * The waiting happens in the background, between calls: a background tab's timers are throttled
 * to one wake-up a second, the background's are not. wait_for is check() called until it holds.
 */
import { describeControl, labelOf, normalize, PASSWORD_MASK } from '../extract/interactive';
import { resolveSelectorAll } from '../extract/selectors';
import { caretToEnd, change, click, deepActive, fillValue, hover, isEditable, isTextField, pressKey, setNativeValue, typeText } from './events';
import { describe, find, isDisabled, reachable, rendered, type Target } from './find';
import { keyForChar } from './keys';
import type { ActionFailure, ActionOutcome, ActionReply, ActionRequest, DialogSeen, ElementState } from './types';

const fail = (code: string, message: string): ActionFailure => ({ ok: false, code, message });

const MAX_LINES = 6;
const MAX_LINE = 120;
/** Past this many elements, the text compared before and after is the element's surroundings, not the page. */
const WHOLE_PAGE_ELEMENTS = 5000;

interface Pending {
  el: Element | null;
  refound?: string;
  href: string;
  before: string[];
  textRoot: () => Element;
  dialogs: DialogSeen[];
  lastMutation: number;
  navigating: boolean;
  note?: string;
  cleanup: () => void;
}

let pending: Pending | null = null;

/**
 * The watchers (the page's confirm() answered for it, above all) never outlive an action by long,
 * even when the background never comes back for the result (stopped, restarted).
 */
const ABANDONED_MS = 15_000;

/** Visible text as lines: the page's, or around the element on a huge page. */
function lines(root: Element): string[] {
  const text = (root as HTMLElement).innerText ?? root.textContent ?? '';
  return text.split('\n').map((l) => normalize(l)).filter(Boolean);
}

/** Lines in `a` and not in `b`, counting repeats, in `a`'s order. */
function minus(a: string[], b: string[]): string[] {
  const left = new Map<string, number>();
  for (const l of b) left.set(l, (left.get(l) ?? 0) + 1);
  const out: string[] = [];
  for (const l of a) {
    const n = left.get(l) ?? 0;
    if (n > 0) left.set(l, n - 1);
    else out.push(l.length > MAX_LINE ? `${l.slice(0, MAX_LINE - 1)}…` : l);
  }
  return out.length > MAX_LINES ? [...out.slice(0, MAX_LINES), `(+${out.length - MAX_LINES} more lines)`] : out;
}

function textRootFor(el: Element | null): () => Element {
  if (document.getElementsByTagName('*').length <= WHOLE_PAGE_ELEMENTS || !el) return () => document.body ?? document.documentElement;
  const near = el.closest('form, dialog, [role="dialog"], main, section, article') ?? el.parentElement ?? el;
  return () => (near.isConnected ? near : document.body);
}

/** Answers the page's alert/confirm/prompt as the request says, and records them. */
function watchDialogs(request: ActionRequest, wins: Window[], seen: DialogSeen[]): () => void {
  const restore: (() => void)[] = [];
  const accept = request.dialog === 'accept';
  const answer = accept ? 'accepted' : 'dismissed';
  for (const w of new Set(wins)) {
    const saved = { alert: w.alert, confirm: w.confirm, prompt: w.prompt };
    w.alert = (message?: unknown) => void seen.push({ type: 'alert', message: String(message ?? ''), answer: 'accepted' });
    w.confirm = (message?: string) => (seen.push({ type: 'confirm', message: String(message ?? ''), answer }), accept);
    w.prompt = (message?: string, defaultValue?: string) => {
      seen.push({ type: 'prompt', message: String(message ?? ''), answer });
      return accept ? (request.value ?? defaultValue ?? '') : null;
    };
    restore.push(() => Object.assign(w, saved));
  }
  return () => restore.forEach((r) => r());
}

export function stateOf(el: Element): ElementState {
  const info = describeControl(el);
  const states = [...info.states];
  if (deepActive(el.ownerDocument) === el) states.push('focused');
  let value = info.value;
  // The value as it is, not clipped for reading: the model checks what it typed.
  if (isTextField(el)) value = (el as HTMLInputElement).type === 'password' ? (el.value ? PASSWORD_MASK : '') : el.value;
  // A button-like combobox shows its choice as its text (its .value is the button's, empty).
  else if (value === undefined && info.name === 'combobox') value = normalize(el.textContent ?? '').slice(0, 200) || undefined;
  return { role: info.name, name: info.label, ...(value !== undefined ? { value } : {}), states };
}

const ACTED: Record<string, string> = {
  click: 'clicked', double_click: 'double-clicked', hover: 'hovered', focus: 'focused', type: 'typed into', fill: 'filled',
  clear: 'cleared', select: 'used to choose', check: 'checked', uncheck: 'unchecked', press: 'given keys',
};

/** The element the request names (null when it names none, as a page scroll), or why there is none. */
function located(request: ActionRequest): { el: Element | null; refound?: string } | ActionFailure {
  if (!request.selector) return { el: null };
  return find(request.selector, request.recorded);
}

export async function act(request: ActionRequest): Promise<ActionReply> {
  pending?.cleanup();
  pending = null;
  const target = located(request);
  if ('ok' in target) return target;
  const { el, refound } = target;
  const seen: DialogSeen[] = [];
  const wins = [window, ...(el?.ownerDocument.defaultView ? [el.ownerDocument.defaultView] : [])];
  const textRoot = textRootFor(el);
  const state: Pending = {
    el, ...(refound ? { refound } : {}), href: location.href, before: lines(textRoot()), textRoot, dialogs: seen,
    lastMutation: performance.now(), navigating: false, cleanup: () => {},
  };
  const observer = new MutationObserver(() => (state.lastMutation = performance.now()));
  observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  const frameObserver = el && el.ownerDocument !== document ? new MutationObserver(() => (state.lastMutation = performance.now())) : null;
  frameObserver?.observe(el!.ownerDocument, { subtree: true, childList: true, attributes: true, characterData: true });
  const onHide = () => (state.navigating = true);
  window.addEventListener('pagehide', onHide);
  const unwatch = watchDialogs(request, wins, seen);
  const abandoned = setTimeout(() => {
    if (pending === state) pending = null;
    state.cleanup();
  }, ABANDONED_MS);
  state.cleanup = () => {
    clearTimeout(abandoned);
    observer.disconnect();
    frameObserver?.disconnect();
    window.removeEventListener('pagehide', onHide);
    unwatch();
  };
  pending = state;
  let out: ActionReply | { point?: { x: number; y: number }; note?: string; focused?: boolean };
  try {
    out = await perform(request, el);
  } catch (e) {
    out = fail('internal', `The action failed in the page: ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`);
  }
  if ('ok' in out && !out.ok) {
    state.cleanup();
    pending = null;
    return out;
  }
  const extra = out as { point?: { x: number; y: number }; note?: string; focused?: boolean };
  if (extra.note) state.note = extra.note;
  return { ok: true, ...(extra.point ? { point: extra.point } : {}), ...(extra.focused ? { focused: true } : {}) };
}

type Performed = ActionFailure | { point?: { x: number; y: number }; note?: string; focused?: boolean };

function perform(request: ActionRequest, el: Element | null): Performed | Promise<Performed> {
  const trusted = request.mode === 'locate';
  const needEl = (): Element | ActionFailure => el ?? fail('bad_input', `${request.action} needs a selector.`);
  const target = (e: Element, what = ACTED[request.action] ?? request.action): Target | ActionFailure => reachable(e, what);
  const pointAt = (t: Target) => ({ point: { x: t.topX, y: t.topY } });
  switch (request.action) {
    case 'click':
    case 'double_click':
    case 'hover': {
      const e = needEl();
      if ('ok' in e) return e;
      const t = target(e);
      if ('ok' in t) return t;
      if (trusted) return pointAt(t);
      if (request.action === 'hover') hover(t.hit, t.x, t.y);
      else click(t.hit, t.x, t.y, request.action === 'double_click' ? 2 : 1);
      return {};
    }
    case 'focus': {
      const e = needEl();
      if ('ok' in e) return e;
      if (!rendered(e)) return fail('hidden', `The ${describe(e)} is not visible: it cannot be focused.`);
      (e as HTMLElement).focus();
      return deepActive(e.ownerDocument) === e ? {} : { note: 'The element did not take the focus (it is not focusable).' };
    }
    case 'type':
    case 'fill':
    case 'clear': {
      const e = needEl();
      if ('ok' in e) return e;
      if (!isEditable(e)) {
        const hint = e.localName === 'select' || e.getAttribute('role') === 'combobox' ? ' Use action "select".' : (e as HTMLInputElement).type === 'checkbox' || (e as HTMLInputElement).type === 'radio' ? ' Use "check" or "uncheck".' : ' Use "click", or find the text field (its {selector} in get_tab_content).';
        return fail('wrong_kind', `The ${describe(e)} is not a text field: it cannot be ${ACTED[request.action]}.${hint}`);
      }
      if ((e as HTMLInputElement).readOnly) return fail('disabled', `The ${describe(e)} is read-only.`);
      const t = target(e);
      if ('ok' in t) return t;
      (e as HTMLElement).focus({ preventScroll: true });
      if (request.action === 'type') {
        caretToEnd(e);
        if (trusted) return { focused: true };
        typeText(e, request.text ?? '', keyForChar);
        if (isTextField(e)) change(e);
      } else {
        fillValue(e, request.action === 'clear' ? '' : (request.text ?? ''));
        const now = isTextField(e) ? e.value : normalize(e.textContent ?? '');
        if (request.action === 'fill' && now !== (request.text ?? '') && isTextField(e)) {
          return { note: `The field did not take the value as given: it holds ${JSON.stringify(now)} (a ${(e as HTMLInputElement).type || 'text'} field accepts only its own format).` };
        }
      }
      return {};
    }
    case 'select':
      return select(needEl(), request);
    case 'check':
    case 'uncheck':
      return check(needEl(), request.action === 'check', trusted);
    case 'press': {
      const e = el ?? deepActive(document) ?? document.body;
      if (el) {
        if (isDisabled(el)) return fail('disabled', `The ${describe(el)} is disabled.`);
        if (deepActive(el.ownerDocument) !== el) (el as HTMLElement).focus();
      }
      if (trusted) return { focused: true };
      pressKey(e, request.chord!, request.chord!);
      return {};
    }
    default:
      return fail('bad_input', `"${request.action}" is not handled here.`);
  }
}

/**
 * Lets the page's own work run (a framework renders on a microtask, React's scheduler on a
 * MessageChannel message), then waits for a DOM change for up to `ms`. MessageChannel, not
 * setTimeout: a background tab's timers wake once a second.
 */
async function nextChange<T>(probe: () => T | undefined, ms = 1000): Promise<T | undefined> {
  const tick = () => new Promise<void>((r) => {
    const ch = new MessageChannel();
    ch.port1.onmessage = () => r();
    ch.port2.postMessage(0);
  });
  for (let i = 0; i < 3; i++) {
    const found = probe();
    if (found !== undefined) return found;
    await tick();
  }
  return new Promise<T | undefined>((resolve) => {
    const done = (v: T | undefined) => (observer.disconnect(), clearTimeout(timer), resolve(v));
    const observer = new MutationObserver(() => {
      const found = probe();
      if (found !== undefined) done(found);
    });
    observer.observe(document, { subtree: true, childList: true, attributes: true });
    const timer = setTimeout(() => done(probe()), ms);
  });
}

async function select(e: Element | ActionFailure, request: ActionRequest): Promise<Performed> {
  if ('ok' in e) return e;
  const wanted = (request.value ?? request.text ?? '').trim();
  const same = (a: string) => normalize(a).toLowerCase() === wanted.toLowerCase();
  if (e.localName === 'select') {
    const sel = e as HTMLSelectElement;
    if (isDisabled(sel)) return fail('disabled', `The ${describe(sel)} is disabled.`);
    const options = Array.from(sel.options);
    const option = options.find((o) => normalize(o.label || o.text) === wanted) ?? options.find((o) => o.value === wanted) ?? options.find((o) => same(o.label || o.text) || same(o.value));
    if (!option) {
      const list = options.slice(0, 20).map((o) => JSON.stringify(normalize(o.label || o.text))).join(', ');
      return fail('not_found', `The ${describe(sel)} has no option ${JSON.stringify(wanted)}. Its options: ${list}${options.length > 20 ? `, +${options.length - 20} more` : ''}.`);
    }
    if (option.disabled) return fail('disabled', `The option ${JSON.stringify(normalize(option.text))} is disabled.`);
    sel.focus({ preventScroll: true });
    if (sel.multiple) option.selected = true;
    else setNativeValue(sel, option.value);
    sel.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
    change(sel);
    return {};
  }
  const role = e.getAttribute('role');
  const popup = e.getAttribute('aria-haspopup');
  if (role !== 'combobox' && role !== 'listbox' && popup !== 'listbox' && popup !== 'true') {
    return fail('wrong_kind', `The ${describe(e)} is not a <select>, a combobox or a listbox: "select" cannot choose in it. Use "click" on the option you want, or "fill" for a text field.`);
  }
  if (role !== 'listbox' && e.getAttribute('aria-expanded') !== 'true') {
    const t = reachable(e, 'opened');
    if ('ok' in t) return t;
    click(t.hit, t.x, t.y);
  }
  const some = () => {
    const o = optionsFor(e);
    return o.length ? o : undefined;
  };
  let options = (await nextChange(some)) ?? [];
  if (!options.length && isTextField(e)) {
    // An autocomplete: typing what is wanted makes its options appear.
    fillValue(e, wanted);
    options = (await nextChange(some)) ?? [];
  }
  if (!options.length) return fail('not_found', `The ${describe(e)} showed no options (role="option") after it was opened.`);
  const option = options.find((o) => labelOf(o) === wanted) ?? options.find((o) => same(labelOf(o)) || same(o.getAttribute('data-value') ?? o.id));
  if (!option) {
    const list = options.slice(0, 20).map((o) => JSON.stringify(labelOf(o))).join(', ');
    return fail('not_found', `The ${describe(e)} has no option ${JSON.stringify(wanted)}. Its options: ${list}${options.length > 20 ? `, +${options.length - 20} more` : ''}.`);
  }
  if (option.getAttribute('aria-disabled') === 'true') return fail('disabled', `The option ${JSON.stringify(labelOf(option))} is disabled.`);
  const t = reachable(option, 'chosen');
  if ('ok' in t) return t;
  click(t.hit, t.x, t.y);
  return {};
}

/** The options the combobox or listbox `e` controls: aria-controls / aria-owns, inside it, or the one open listbox. */
function optionsFor(e: Element): Element[] {
  const root = e.getRootNode() as Document | ShadowRoot;
  const ids = `${e.getAttribute('aria-controls') ?? ''} ${e.getAttribute('aria-owns') ?? ''}`.split(/\s+/).filter(Boolean);
  const lists = ids.map((id) => root.getElementById?.(id) ?? document.getElementById(id)).filter((x): x is HTMLElement => !!x);
  if (e.getAttribute('role') === 'listbox') lists.push(e as HTMLElement);
  if (!lists.length) lists.push(...Array.from(root.querySelectorAll<HTMLElement>('[role="listbox"]')).filter(rendered));
  return lists.flatMap((l) => Array.from(l.querySelectorAll('[role="option"]'))).filter(rendered);
}

function check(e: Element | ActionFailure, on: boolean, trusted: boolean): Performed {
  if ('ok' in e) return e;
  const input = e.localName === 'input' ? (e as HTMLInputElement) : null;
  const role = e.getAttribute('role');
  const checkable = input ? input.type === 'checkbox' || input.type === 'radio' : role === 'checkbox' || role === 'switch' || role === 'radio' || role === 'menuitemcheckbox' || role === 'menuitemradio';
  if (!checkable) return fail('wrong_kind', `The ${describe(e)} is not a checkbox, radio button or switch: use "click".`);
  const isOn = () => (input ? input.checked : e.getAttribute('aria-checked') === 'true');
  if ((input?.type === 'radio' || role === 'radio' || role === 'menuitemradio') && !on) {
    return fail('wrong_kind', `The ${describe(e)} is a radio button: it is unchecked by checking another one of its group.`);
  }
  if (isOn() === on) return { note: `It was already ${on ? 'checked' : 'unchecked'}; nothing was done.` };
  // A styled checkbox: the input is visually hidden and its label is what a person clicks.
  let clickOn = e;
  if (input && !rendered(input) && input.labels?.length) clickOn = Array.from(input.labels).find(rendered) ?? e;
  const t = reachable(clickOn, on ? 'checked' : 'unchecked');
  if ('ok' in t) return t;
  if (trusted) return { point: { x: t.topX, y: t.topY } };
  click(t.hit, t.x, t.y);
  return isOn() === on ? {} : { note: `After the click it is still ${on ? 'unchecked' : 'checked'}: the page did not take it.` };
}

/** How long ago the page last changed, for the background to decide whether it has settled. */
export function quietFor(): number {
  return pending ? performance.now() - pending.lastMutation : Infinity;
}

export function finish(): ActionOutcome {
  const state = pending;
  pending = null;
  if (!state) return { ok: true, note: 'The page was replaced before the result could be read.' };
  state.cleanup();
  const { el } = state;
  const out: ActionOutcome = { ok: true };
  if (el) out.element = el.isConnected ? stateOf(el) : 'removed';
  if (state.refound) out.refound = state.refound;
  if (location.href !== state.href) out.url = location.href;
  if (state.navigating) out.navigating = true;
  if (state.dialogs.length) out.dialogs = state.dialogs;
  if (!state.navigating) {
    const after = lines(state.textRoot());
    const appeared = minus(after, state.before);
    const gone = minus(state.before, after);
    if (appeared.length) out.appeared = appeared;
    if (gone.length) out.gone = gone;
  }
  if (state.note) out.note = state.note;
  return out;
}

/** scroll: the page or an element, by a direction, or an element into view. */
export function scroll(request: ActionRequest): ActionReply {
  const target = located(request);
  if ('ok' in target) return target;
  const { el, refound } = target;
  const box = !el || !request.direction ? (document.scrollingElement ?? document.documentElement) : el;
  const before = { x: box.scrollLeft, y: box.scrollTop };
  if (el && !request.direction) {
    if (!rendered(el)) return fail('hidden', `The ${describe(el)} is not visible: it cannot be scrolled to.`);
    el.scrollIntoView({ block: 'center', inline: 'nearest', behavior: 'instant' as ScrollBehavior });
  } else {
    const page = box === document.scrollingElement || box === document.documentElement;
    const stepY = Math.max(40, Math.round((page ? window.innerHeight : box.clientHeight) * 0.8));
    const stepX = Math.max(40, Math.round((page ? window.innerWidth : box.clientWidth) * 0.8));
    const opts = { behavior: 'instant' as ScrollBehavior };
    switch (request.direction) {
      case 'up': box.scrollBy({ top: -stepY, ...opts }); break;
      case 'left': box.scrollBy({ left: -stepX, ...opts }); break;
      case 'right': box.scrollBy({ left: stepX, ...opts }); break;
      case 'top': box.scrollTo({ top: 0, ...opts }); break;
      case 'bottom': box.scrollTo({ top: box.scrollHeight, ...opts }); break;
      default: box.scrollBy({ top: stepY, ...opts });
    }
  }
  const x = Math.round(box.scrollLeft);
  const y = Math.round(box.scrollTop);
  const atEnd = box.scrollTop + box.clientHeight >= box.scrollHeight - 1;
  const moved = x !== Math.round(before.x) || y !== Math.round(before.y);
  return {
    ok: true,
    scroll: { x, y, moved, atEnd },
    ...(refound ? { refound } : {}),
    ...(el && !request.direction ? { element: stateOf(el) } : {}),
    ...(!moved && el && request.direction ? { note: `The ${describe(el)} did not scroll (it may not be scrollable; scroll the page without a selector).` } : {}),
  };
}

/** wait_for, once: whether the selector (or text) is there now, and what is there. */
export function waitCheck(request: ActionRequest): { met: boolean; detail: string } | ActionFailure {
  const appears = request.until !== 'disappears';
  if (request.selector) {
    let matches: Element[];
    try {
      matches = resolveSelectorAll(document, request.selector);
    } catch (e) {
      return fail('invalid_selector', e instanceof Error ? e.message : String(e));
    }
    const shown = matches.filter(rendered);
    const detail = shown.length ? `${shown.length} visible (${describe(shown[0]!)})` : matches.length ? `${matches.length} present but hidden` : 'no match';
    return { met: appears ? shown.length > 0 : shown.length === 0, detail };
  }
  const text = normalize(request.text ?? '');
  const has = normalize(document.body?.innerText ?? '').includes(text);
  return { met: appears ? has : !has, detail: has ? 'the text is on the page' : 'the text is not on the page' };
}
