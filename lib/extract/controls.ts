/**
 * "Page controls": the forms, fields and buttons the article extraction left out (Defuddle drops
 * forms, navigation and asides), so a login form or a search box still reaches the model. The
 * section follows a `---` after the content, under the line CONTROLS_HEADER.
 * Capped, fields first: on an article page these lines are overhead the reader did not ask for.
 */
import { formatControl, formatRegion } from './annotate';
import { describeControl, isControl, labelOf, normalize, widgetRole } from './interactive';
import type { RenderContext } from './markdown';
import { notActionable } from './visibility';

export const CONTROLS_CAP = 10;
/** Buttons outside any form (menus, share, log in…): a few say what the page offers, more are noise. */
export const LOOSE_BUTTONS_CAP = 2;
export const CONTROLS_HEADER = '[page controls]';

/** The section to append (or '' when nothing was left out). `candidates`: live, visible elements. */
export function pageControls(candidates: readonly Element[], ctx: RenderContext, cap = CONTROLS_CAP): string {
  const found: { el: Element; rank: number; index: number }[] = [];
  candidates.forEach((el, index) => {
    if (!isControl(el) || ctx.emitted.has(el)) return;
    if (el.localName === 'a' && !widgetRole(el)) return; // links: the page's navigation, not its controls
    if (el.localName === 'summary' || notActionable(el) || offPage(el)) return;
    const info = describeControl(el);
    if (info.states.includes('disabled')) return;
    const form = formOf(el);
    const rank = info.kind === 'field' || info.kind === 'select' || info.kind === 'checkbox' || info.kind === 'radio' ? 0
      : form ? 1 : 2;
    found.push({ el, rank, index });
  });
  if (!found.length) return '';
  let loose = 0;
  const kept = [...found]
    .sort((a, b) => a.rank - b.rank || a.index - b.index)
    .filter((f) => f.rank < 2 || loose++ < LOOSE_BUTTONS_CAP)
    .slice(0, cap)
    .sort((a, b) => a.index - b.index);

  const lines = [CONTROLS_HEADER];
  let currentForm: Element | null = null;
  for (const { el } of kept) {
    const form = formOf(el);
    if (form && form !== currentForm) lines.push(formatRegion('form', formLabel(form), ctx.builder.selectorFor(form)));
    currentForm = form;
    ctx.emitted.add(el);
    lines.push(formatControl(describeControl(el), ctx.builder.selectorFor(el)));
  }
  if (found.length > kept.length) lines.push(`[+${found.length - kept.length} more controls]`);
  return lines.join('\n');
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
