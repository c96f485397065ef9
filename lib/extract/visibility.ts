/**
 * Whether an element is hidden from the user. In a rendered page the browser knows (checkVisibility,
 * computed styles); in jsdom or a parsed document nothing is laid out, so only what the markup says
 * counts (hidden, inline display:none / visibility:hidden, input type=hidden).
 */
export type HiddenTest = (el: Element) => boolean;

const INLINE_HIDDEN = /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)\s*(?:!important\s*)?(?:;|$)/i;

export function markupHidden(el: Element): boolean {
  if (el.hasAttribute('hidden') && el.getAttribute('hidden') !== 'until-found') return true;
  const style = el.getAttribute('style');
  if (style && INLINE_HIDDEN.test(style)) return true;
  return el.localName === 'input' && (el.getAttribute('type') ?? '').toLowerCase() === 'hidden';
}

interface CheckVisibility {
  checkVisibility(options?: Record<string, boolean>): boolean;
}

/** True when `doc` is laid out by a browser (so checkVisibility and computed styles mean something). */
export function isRendered(doc: Document): boolean {
  const root = doc.documentElement as (Element & Partial<CheckVisibility>) | null;
  if (!root || !doc.defaultView || typeof root.checkVisibility !== 'function') return false;
  // A body kept invisible until scripts run (anti-flicker snippets, blocked scripts) would make
  // every element read as hidden: then only the markup can tell.
  return doc.body ? (doc.body as unknown as CheckVisibility).checkVisibility({ visibilityProperty: true, opacityProperty: true }) : false;
}

export function hiddenTest(doc: Document): HiddenTest {
  if (!isRendered(doc)) return markupHidden;
  const view = doc.defaultView!;
  const options = { visibilityProperty: true, checkVisibilityCSS: true };
  return (el) => {
    if ((el as unknown as CheckVisibility).checkVisibility(options)) return false;
    if (el.localName === 'input' && (el as HTMLInputElement).type === 'hidden') return true;
    const style = view.getComputedStyle(el);
    // display:contents has no box of its own, yet its children render.
    if (style.display === 'contents') return false;
    // Closed <details> hide their body from layout; the text is still the page's (and one click away).
    if (style.display !== 'none' && style.visibility !== 'hidden' && el.closest('details:not([open])')) return false;
    return true;
  };
}

/** Hidden from the user, or from assistive technology (aria-hidden, inert): not something to act on. */
export function notActionable(el: Element): boolean {
  return !!el.closest('[aria-hidden="true"], [inert]');
}
