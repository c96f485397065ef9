/**
 * "Page controls": the forms, fields and buttons the article extraction left out (Defuddle drops
 * forms, navigation and asides), so a login form or a search box still reaches the model. The
 * section follows a `---` after the content, under the line CONTROLS_HEADER.
 * Capped, fields first: on an article page these lines are overhead the reader did not ask for.
 */
import { formatControl, formatRegion } from './annotate';
import { describeControl, isControl, labelOf, normalize, widgetRole, type ControlInfo } from './interactive';
import type { RenderContext } from './markdown';
import { notActionable } from './visibility';

export const CONTROLS_CAP = 10;
/** Buttons outside any form (menus, share, log in…): a few say what the page offers, more are noise. */
export const LOOSE_BUTTONS_CAP = 2;
export const CONTROLS_HEADER = '[page controls]';

/** The section to append (or '' when nothing was left out). `candidates`: live, visible elements. */
export function pageControls(candidates: readonly Element[], ctx: RenderContext, cap = CONTROLS_CAP): string {
  // Cheap tests first over every element; labels, layout and state only for the few kept.
  const found: { el: Element; rank: number; index: number }[] = [];
  candidates.forEach((el, index) => {
    if (!isControl(el) || ctx.emitted.has(el)) return;
    const tag = el.localName;
    if ((tag === 'a' && !widgetRole(el)) || tag === 'summary') return; // links: the page's navigation, not its controls
    found.push({ el, rank: isField(el) ? 0 : formOf(el) ? 1 : 2, index });
  });
  if (!found.length) return '';
  found.sort((a, b) => a.rank - b.rank || a.index - b.index);
  const kept: { el: Element; index: number; info: ControlInfo }[] = [];
  let loose = 0;
  let more = 0;
  for (const f of found) {
    if (notActionable(f.el) || offPage(f.el)) continue;
    const info = describeControl(f.el);
    if (info.states.includes('disabled')) continue;
    if (kept.length >= cap || (f.rank === 2 && loose >= LOOSE_BUTTONS_CAP)) {
      more++;
      continue;
    }
    if (f.rank === 2) loose++;
    kept.push({ el: f.el, index: f.index, info });
  }
  kept.sort((a, b) => a.index - b.index);

  const lines = [CONTROLS_HEADER];
  let currentForm: Element | null = null;
  for (const { el, info } of kept) {
    const form = formOf(el);
    if (form && form !== currentForm) lines.push(formatRegion('form', formLabel(form), ctx.builder.selectorFor(form)));
    currentForm = form;
    ctx.emitted.add(el);
    lines.push(formatControl(info, ctx.builder.selectorFor(el)));
  }
  if (more) lines.push(`[+${more} more controls]`);
  return lines.join('\n');
}

/** Something to type into or choose from (vs a button to press). */
function isField(el: Element): boolean {
  const tag = el.localName;
  if (tag === 'select' || tag === 'textarea') return true;
  if (tag === 'input') return !['submit', 'button', 'reset', 'image'].includes((el as HTMLInputElement).type);
  const role = widgetRole(el);
  return role ? ['checkbox', 'radio', 'switch', 'combobox', 'textbox', 'searchbox', 'slider', 'spinbutton', 'menuitemcheckbox', 'menuitemradio'].includes(role) : el.hasAttribute('contenteditable');
}

function formOf(el: Element): HTMLFormElement | null {
  return (el as HTMLInputElement).form ?? el.closest('form');
}

function formLabel(form: Element): string {
  if (form.hasAttribute('aria-label') || form.hasAttribute('aria-labelledby')) return labelOf(form);
  return normalize(form.getAttribute('title') ?? form.getAttribute('name') ?? '');
}

/** Placed where no one can scroll to it (left: -5000px): a honeypot for bots, not a control. */
function offPage(el: Element): boolean {
  const view = el.ownerDocument.defaultView;
  if (!view || typeof el.getBoundingClientRect !== 'function') return false;
  const r = el.getBoundingClientRect();
  if (r.width === 0 && r.height === 0 && r.x === 0 && r.y === 0) return false; // not laid out (jsdom)
  return r.right + view.scrollX <= 0 || r.bottom + view.scrollY <= 0;
}
