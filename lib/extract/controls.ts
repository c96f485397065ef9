/**
 * "Page controls": the forms, fields, buttons and menus the main content left out (the extractors
 * drop forms, navigation and asides), so a login form or a search box still reaches the model.
 * The section follows a `---` after the content, under the line CONTROLS_HEADER.
 *
 * Two lengths, because the two kinds of page are read for different things:
 * - beside an article, every line is overhead the reader did not ask for (measured: the old
 *   ten-line list cost 3.7 points of precision as sent on the Readability pages). So it is a
 *   summary: the menus on one line, a search box or a one-field form as its field, a sign-in form
 *   in full (the form a model most often has to act on), any other form as one line naming it (a
 *   comment or contact form: reading it with its selector gives its fields), the same form repeated
 *   (mobile and desktop copies) once, buttons only when they open something, and what was left out
 *   counted with the selector that reads it all;
 * - on a page without an article (an app, a dashboard, a form) the controls in its chrome are much
 *   of what the page is for: up to PAGE_CONTROLS_CAP lines, one per control.
 */
import { formatControl, formatRegion } from './annotate';
import { describeControl, isControl, labelOf, normalize, textOf, widgetRole } from './interactive';
import type { RenderContext } from './markdown';
import { notActionable } from './visibility';

/** Lines beside an article (menus, fields, forms); the rest is counted. */
export const ARTICLE_CONTROLS_CAP = 8;
/** Lines on a page without an article, one per control (the "say 40"). */
export const PAGE_CONTROLS_CAP = 40;
/** Buttons outside any form beside an article: only those that open something, and few. */
export const LOOSE_BUTTONS_CAP = 2;
/** Menus named beside an article (header, sections, footer…), on one line. */
export const MAX_MENUS = 2;
/** A menu is a nav with at least this many links (a lone "Home" link is not one). */
const MIN_MENU_LINKS = 3;
/** A sign-in form is shown whole up to this many fields (user, password, a code, "remember me"). */
const MAX_SIGN_IN_FIELDS = 4;
export const CONTROLS_HEADER = '[page controls]';

export interface ControlsOptions {
  /** 'article': the summary beside an article; 'page': the long list of a page without one. */
  mode: 'article' | 'page';
  /** The live element the content was read from: menus inside it are the content's own. */
  contentRoot?: Element | null;
}

interface Found {
  el: Element;
  index: number;
  form: HTMLFormElement | null;
  field: boolean;
}

/** The section to append (or '' when nothing was left out). `candidates`: live, visible elements, in document order. */
export function pageControls(candidates: readonly Element[], ctx: RenderContext, opts: ControlsOptions): string {
  const found = leftOut(candidates, ctx);
  const body = opts.mode === 'page' ? pageList(found, ctx) : articleSummary(found, candidates, ctx, opts.contentRoot ?? null);
  return body.length ? [CONTROLS_HEADER, ...body].join('\n') : '';
}

/** Controls no part of the output wrote, that a person could use. Cheap tests first over every element. */
function leftOut(candidates: readonly Element[], ctx: RenderContext): Found[] {
  const out: Found[] = [];
  candidates.forEach((el, index) => {
    if (!isControl(el) || ctx.emitted.has(el)) return;
    const tag = el.localName;
    if ((tag === 'a' && !widgetRole(el)) || tag === 'summary') return; // links: the page's navigation (menus below), not its controls
    if (notActionable(el) || offPage(el) || isDisabled(el)) return;
    out.push({ el, index, form: formOf(el), field: isField(el) });
  });
  return out;
}

/** Page without an article: fields first, then buttons in forms, then the rest; shown in page order. */
function pageList(found: Found[], ctx: RenderContext): string[] {
  const rank = (f: Found) => (f.field ? 0 : f.form ? 1 : 2);
  const kept = [...found].sort((a, b) => rank(a) - rank(b) || a.index - b.index).slice(0, PAGE_CONTROLS_CAP);
  kept.sort((a, b) => a.index - b.index);
  const lines: string[] = [];
  let currentForm: Element | null = null;
  for (const f of kept) {
    if (f.form && f.form !== currentForm) lines.push(formLine(f.form, ctx));
    currentForm = f.form;
    lines.push(controlLine(f.el, ctx));
  }
  const more = found.length - kept.length;
  if (more) lines.push(moreLine(more));
  return lines;
}

/** Beside an article: see the header comment. */
function articleSummary(found: Found[], candidates: readonly Element[], ctx: RenderContext, contentRoot: Element | null): string[] {
  const lines: string[] = [];
  const menus = menuLine(candidates, ctx, contentRoot);
  if (menus) lines.push(menus);
  let more = 0;
  const room = () => lines.length < ARTICLE_CONTROLS_CAP;
  const add = (el: Element) => lines.push(controlLine(el, ctx, 0));
  const looseButton = (el: Element, labels: Set<string>, space: boolean): boolean => {
    const label = labelOf(el);
    if (!space || labels.size >= LOOSE_BUTTONS_CAP || !label || labels.has(label) || !opensSomething(el)) return false;
    labels.add(label);
    add(el);
    return true;
  };

  // Group by form, in page order; controls outside any form are their own groups of one.
  const groups: { form: HTMLFormElement | null; members: Found[] }[] = [];
  const byForm = new Map<HTMLFormElement, Found[]>();
  for (const f of found) {
    if (!f.form) {
      groups.push({ form: null, members: [f] });
      continue;
    }
    let members = byForm.get(f.form);
    if (!members) {
      members = [];
      byForm.set(f.form, members);
      groups.push({ form: f.form, members });
    }
    members.push(f);
  }

  const seen = new Set<string>();
  const buttons = new Set<string>();
  // A search box and one other lone field (a signup, a quick login) at most: sites repeat them.
  const lone = { search: 0, other: 0 };
  const loneField = (el: Element): boolean => {
    if (!isTextEntry(el) && el.localName !== 'select') return false;
    if (!labelOf(el)) return false; // nothing says what it is for
    const kind = isSearch(el) ? 'search' : 'other';
    if (lone[kind] >= 1 || !room()) return false;
    lone[kind]++;
    add(el);
    return true;
  };
  for (const { form, members } of groups) {
    if (!form) {
      const [f] = members as [Found];
      // Outside a form, a text field is a search box or the like; sliders, selects and toggles are
      // a video player's or a menu's machinery. Buttons only when they open something (a menu, a
      // sign-in dialog), each label once.
      if (f.field ? !(isTextEntry(f.el) && loneField(f.el)) : !looseButton(f.el, buttons, room())) more++;
      continue;
    }
    const fields = members.filter((m) => m.field);
    if (!fields.some((m) => isTextEntry(m.el) || m.el.localName === 'select')) {
      more += members.length; // buttons and boxes to tick only (like, vote, consent): not what a reader acts on
      continue;
    }
    // Sites repeat a form (mobile and desktop headers, a signup box top and bottom): once is enough.
    const signature = fields.map((m) => `${m.el.localName}:${labelOf(m.el)}`).join('|');
    if (seen.has(signature) || !room()) {
      more += members.length;
      continue;
    }
    seen.add(signature);
    if (fields.length === 1) {
      // A search box or a one-field signup: the field says what it is, Enter submits it.
      more += members.length - (loneField(fields[0]!.el) ? 1 : 0);
      continue;
    }
    if (fields.length <= MAX_SIGN_IN_FIELDS && fields.some((m) => isPassword(m.el))) {
      lines.push(formLine(form, ctx));
      const submit = members.find((m) => !m.field);
      const shown = submit ? [...fields, submit] : fields;
      for (const m of shown) if (room()) add(m.el);
      more += members.length - shown.filter((m) => ctx.emitted.has(m.el)).length;
      continue;
    }
    lines.push(formLine(form, ctx, submitLabel(members)));
    more += members.length;
  }
  if (more) lines.push(moreLine(more));
  return lines;
}

/** The page's menus outside the content, on one line: `[nav "Main" {#nav}] [nav {footer nav}]`. */
function menuLine(candidates: readonly Element[], ctx: RenderContext, contentRoot: Element | null): string {
  const menus: string[] = [];
  let last: Element | null = null;
  for (const el of candidates) {
    if (menus.length >= MAX_MENUS) break;
    if (el.localName !== 'nav' && el.getAttribute('role')?.toLowerCase() !== 'navigation') continue;
    if ((last && last.contains(el)) || (contentRoot && contentRoot.contains(el)) || notActionable(el)) continue;
    if (el.querySelectorAll('a[href]').length < MIN_MENU_LINKS) continue;
    const selector = ctx.builder.selectorFor(el);
    if (!selector) continue;
    last = el;
    menus.push(formatRegion('nav', ariaName(el), selector));
  }
  return menus.join(' ');
}

function controlLine(el: Element, ctx: RenderContext, maxOptions = Infinity): string {
  ctx.emitted.add(el);
  const info = describeControl(el);
  if (info.options && info.options.labels.length > maxOptions) {
    info.options = { labels: info.options.labels.slice(0, maxOptions), more: info.options.more + info.options.labels.length - maxOptions };
  }
  const selector = ctx.builder.selectorFor(el);
  if (selector) ctx.record?.(selector, info);
  return formatControl(info, selector);
}

function formLine(form: Element, ctx: RenderContext, fallback = ''): string {
  return formatRegion('form', formLabel(form) || fallback, ctx.builder.selectorFor(form));
}

/** What was left out, and the selector that reads all of it in place (ANNOTATION_NOTE explains the line). */
function moreLine(n: number): string {
  return `[+${n} more {body}]`;
}

/** What a multi-field form does, when it has no name of its own: its submit button says it ("Post comment"). */
function submitLabel(members: Found[]): string {
  const submit = members.find((m) => !m.field);
  return submit ? labelOf(submit.el) : '';
}

/** Something to type into or choose from (vs a button to press). */
function isField(el: Element): boolean {
  const tag = el.localName;
  if (tag === 'select' || tag === 'textarea') return true;
  if (tag === 'input') return !['submit', 'button', 'reset', 'image'].includes((el as HTMLInputElement).type);
  const role = widgetRole(el);
  return role ? ['checkbox', 'radio', 'switch', 'combobox', 'textbox', 'searchbox', 'slider', 'spinbutton', 'menuitemcheckbox', 'menuitemradio'].includes(role) : el.hasAttribute('contenteditable');
}

/** Where a person types: a text-like input, a textarea, an editable region, a text or search box role. */
function isTextEntry(el: Element): boolean {
  const tag = el.localName;
  if (tag === 'textarea') return true;
  if (tag === 'input') return !['checkbox', 'radio', 'range', 'color', 'file', 'submit', 'button', 'reset', 'image'].includes((el as HTMLInputElement).type);
  const role = widgetRole(el);
  return role ? ['combobox', 'textbox', 'searchbox'].includes(role) : el.hasAttribute('contenteditable');
}

/** A site search box, by the names every CMS gives one (the label is in the page's language). */
function isSearch(el: Element): boolean {
  if ((el as HTMLInputElement).type === 'search' || widgetRole(el) === 'searchbox') return true;
  if (el.closest('[role="search" i], search')) return true;
  const names = `${el.getAttribute('name') ?? ''} ${el.id} ${el.getAttribute('class') ?? ''} ${(el as HTMLInputElement).form?.getAttribute('action') ?? ''}`;
  return /search|query|^(q|s|k|p|keys?|keywords?)\b/i.test(names);
}

function isPassword(el: Element): boolean {
  return el.localName === 'input' && (el as HTMLInputElement).type === 'password';
}

/** A menu button, a disclosure, a dialog opener: buttons that lead somewhere on the page. */
function opensSomething(el: Element): boolean {
  return el.hasAttribute('aria-haspopup') || el.hasAttribute('aria-expanded') || el.hasAttribute('aria-controls');
}

/** Disabled as a person meets it: the property, a disabled fieldset around it, or aria-disabled. */
function isDisabled(el: Element): boolean {
  return el.matches(':disabled') || el.getAttribute('aria-disabled') === 'true';
}

function formOf(el: Element): HTMLFormElement | null {
  return (el as HTMLInputElement).form ?? el.closest('form');
}

/** A form's own name: aria, its title, or a `name` that is words ("search-form" and "gd_jsform" are code, not names). */
function formLabel(form: Element): string {
  if (form.hasAttribute('aria-label') || form.hasAttribute('aria-labelledby')) return labelOf(form);
  const title = normalize(form.getAttribute('title') ?? '');
  if (title) return title;
  const name = normalize(form.getAttribute('name') ?? '');
  return /^[\p{L} ]+$/u.test(name) && name.includes(' ') ? name : '';
}

/** A landmark's own name (aria-label / labelledby), never its text: a menu's text is all its links. */
function ariaName(el: Element): string {
  if (el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby')) return labelOf(el);
  const heading = el.querySelector('h2, h3, h4');
  return heading ? normalize(textOf(heading)) : '';
}

/** Placed where no one can scroll to it (left: -5000px): a honeypot for bots, not a control. */
function offPage(el: Element): boolean {
  const view = el.ownerDocument.defaultView;
  if (!view || typeof el.getBoundingClientRect !== 'function') return false;
  const r = el.getBoundingClientRect();
  if (r.width === 0 && r.height === 0 && r.x === 0 && r.y === 0) return false; // not laid out (jsdom)
  return r.right + view.scrollX <= 0 || r.bottom + view.scrollY <= 0;
}
