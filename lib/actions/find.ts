/**
 * Finding the one element a page action is for, and whether a person could act on it: the selector
 * get_tab_content gave (">>>" included), else — when the page re-rendered and the selector matches
 * nothing — the control with the role and accessible name recorded when the page was read.
 * Runs inside the page.
 */
import { describeControl, isControl, labelOf, normalize } from '../extract/interactive';
import { innerScope, resolveSelectorAll } from '../extract/selectors';
import { notActionable } from '../extract/visibility';
import type { ActionFailure, RecordedControl } from './types';

export type Found = { el: Element; refound?: string } | ActionFailure;

const fail = (code: string, message: string): ActionFailure => ({ ok: false, code, message });

/** A short name for an element, for messages: `button "Save"`, `div#overlay "We use cookies…"`. */
export function describe(el: Element): string {
  if (isControl(el)) {
    const info = describeControl(el);
    return info.label ? `${info.name} "${info.label}"` : `${info.name} ${tagOf(el)}`;
  }
  const text = normalize(el.textContent ?? '').slice(0, 40);
  return `${tagOf(el)}${text ? ` "${text}${(el.textContent ?? '').trim().length > 40 ? '…' : ''}"` : ''}`;
}

function tagOf(el: Element): string {
  const id = el.id && el.id.length <= 30 ? `#${el.id}` : '';
  const cls = !id && typeof el.className === 'string' ? el.className.trim().split(/\s+/).filter(Boolean)[0] : '';
  return `${el.localName}${id}${cls ? `.${cls}` : ''}`;
}

export function find(selector: string, recorded: RecordedControl | undefined): Found {
  let matches: Element[];
  try {
    matches = resolveSelectorAll(document, selector);
  } catch (e) {
    return fail('invalid_selector', e instanceof Error ? e.message : String(e));
  }
  if (matches.length === 1) return { el: matches[0]! };
  if (matches.length > 1) {
    const shown = matches.slice(0, 3).map(describe).join('; ');
    return fail(
      'ambiguous',
      `The selector ${JSON.stringify(selector)} matches ${matches.length} elements (${shown}${matches.length > 3 ? '; …' : ''}); ` +
        'use one that names a single element, such as the {selector} get_tab_content gives for it.',
    );
  }
  const stale = `No element matches ${JSON.stringify(selector)} now`;
  if (!recorded) return fail('no_match', `${stale}. If the page changed, read it again with get_tab_content for current selectors.`);
  const same = allControls(document).filter((c) => !notActionable(c) && describeControl(c).name === recorded.role && labelOf(c) === recorded.name && rendered(c));
  const what = `${recorded.role}${recorded.name ? ` "${recorded.name}"` : ''}`;
  if (same.length === 1) {
    return { el: same[0]!, refound: `${stale} (the page re-rendered): acted on the ${what} it named when the page was read, found again by its role and name.` };
  }
  if (same.length > 1) {
    return fail('ambiguous', `${stale} (the page re-rendered), and ${same.length} elements are a ${what} as it was when read: read the page again with get_tab_content and use the new selector.`);
  }
  return fail('no_match', `${stale} (the page re-rendered), and there is no ${what} any more: read the page again with get_tab_content.`);
}

/** Every control in the document, its open shadow roots and same-origin frames. */
export function allControls(doc: Document): Element[] {
  const out: Element[] = [];
  const walk = (root: Document | ShadowRoot) => {
    for (const el of Array.from(root.querySelectorAll('*'))) {
      if (isControl(el)) out.push(el);
      const inner = el.shadowRoot || el.localName === 'iframe' ? innerScope(el) : null;
      if (inner) walk(inner);
    }
  };
  walk(doc);
  return out;
}

/** Laid out and not hidden by CSS (opacity does not count: styled checkboxes are transparent inputs). */
export function rendered(el: Element): boolean {
  const check = (el as Element & { checkVisibility?: (o?: object) => boolean }).checkVisibility;
  if (check && !check.call(el, { visibilityProperty: true })) return false;
  const r = el.getBoundingClientRect();
  return r.width > 0 && r.height > 0;
}

export function isDisabled(el: Element): boolean {
  return (el as HTMLInputElement).disabled === true || el.getAttribute('aria-disabled') === 'true' || !!el.closest('fieldset:disabled');
}

/** `inner` is `outer` or inside it, across shadow boundaries. */
export function composedContains(outer: Element, inner: Node | null): boolean {
  for (let n: Node | null = inner; n; n = n.parentNode ?? (n as ShadowRoot).host ?? null) if (n === outer) return true;
  return false;
}

/** The frames between `el`'s document and the top one, innermost first. */
function frameChain(el: Element): HTMLIFrameElement[] {
  const chain: HTMLIFrameElement[] = [];
  for (let w: Window | null = el.ownerDocument.defaultView; w && w !== w.parent; w = w.parent as Window) {
    const frame = w.frameElement as HTMLIFrameElement | null;
    if (!frame) break;
    chain.push(frame);
  }
  return chain;
}

export interface Target {
  /** The element the events go to: what is on top at the centre (the element or a child of it). */
  hit: Element;
  /** The centre in the element's own document, and in the top-level viewport (DevTools input). */
  x: number;
  y: number;
  topX: number;
  topY: number;
}

/**
 * Scrolls `el` into view and checks that a person could click it: shown, enabled, and on top at its
 * centre. The refusal names what is in the way.
 */
export function reachable(el: Element, what: string, allowDisabled = false): Target | ActionFailure {
  if (notActionable(el)) return fail('hidden', `The ${describe(el)} is hidden from the user (aria-hidden or inert): it cannot be ${what}.`);
  if (!rendered(el)) return fail('hidden', `The ${describe(el)} is not visible (hidden or has no size): it cannot be ${what}. Something may have to be opened first.`);
  if (!allowDisabled && isDisabled(el)) return fail('disabled', `The ${describe(el)} is disabled: it cannot be ${what} until the page enables it.`);
  el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' as ScrollBehavior });
  const r = el.getBoundingClientRect();
  const x = r.left + r.width / 2;
  const y = r.top + r.height / 2;
  const root = el.getRootNode() as Document | ShadowRoot;
  const hit = (root.elementFromPoint?.(x, y) ?? el.ownerDocument.elementFromPoint(x, y)) as Element | null;
  if (!hit) return fail('hidden', `The ${describe(el)} is outside the visible area even after scrolling: it cannot be ${what}.`);
  if (!composedContains(el, hit) && !labels(el, hit)) {
    return fail('covered', `The ${describe(el)} is covered by ${describe(hit)} at its centre: close or move that first (it may be a dialog, a banner or an overlay).`);
  }
  // Frames: the point must also reach the frame through the documents above it.
  let topX = x;
  let topY = y;
  for (const frame of frameChain(el)) {
    const fr = frame.getBoundingClientRect();
    topX += fr.left + frame.clientLeft;
    topY += fr.top + frame.clientTop;
    const over = frame.ownerDocument.elementFromPoint(topX, topY);
    if (over && over !== frame) return fail('covered', `The frame holding the ${describe(el)} is covered by ${describe(over)}: close or move that first.`);
  }
  return { hit: composedContains(el, hit) ? hit : el, x, y, topX, topY };
}

/** `hit` is a label of `el` (a styled checkbox: the label is what shows, the input is transparent). */
function labels(el: Element, hit: Element): boolean {
  const list = (el as HTMLInputElement).labels;
  return !!list && Array.from(list).some((l) => composedContains(l, hit));
}
