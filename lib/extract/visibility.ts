/**
 * Whether a person looking at the page can see an element's text. Page text reaches the model as
 * the page's own words, so text no one can see (an injection's favourite hiding place) stays out.
 *
 * Dropped: display:none, visibility:hidden, [hidden], input type=hidden; opacity 0 (the element or
 * an ancestor); clipped away (clip: rect(0 0 0 0), clip-path: inset(50%)) or squeezed to ≤ 1px with
 * overflow hidden; positioned off the page (left: -9999px, text-indent: -9999px); font-size ≤ 1px;
 * text coloured like its background (css-values.ts indistinct); aria-hidden="true" (but on an image).
 *
 * Two decisions:
 * - The visually-hidden ("sr-only") pattern is invisible to a sighted person, so its text is not
 *   page prose either. It often is a control's only name ("Close" on an icon button, "Search" on a
 *   magnifier link), and controls are still named: their labels come from the live element's
 *   accessible name (interactive.ts labelOf), which includes such text, and reach the output only as
 *   a quoted label of at most 80 characters inside the control's annotation — never as prose. (So
 *   a name may still hold text hidden in other ways: 80 quoted characters, not a page of prose.)
 * - aria-hidden subtrees are dropped from the prose (icon ligatures, decorative duplicates, or text
 *   planted for the model alone). Inside a link or a button the control stays: only the hidden
 *   text goes, and the control's name leaves it out too (hiddenFromName), as assistive tech does.
 *   Two exceptions, both in plain sight: an aria-hidden image (its alt stands for what a person
 *   sees: Wikipedia's formulas are such images, their MathML given to assistive tech instead),
 *   and the page behind an open modal dialog, which dialog libraries set aria-hidden.
 *
 * Not looked for (rare, and each would cost a read on every element): transforms (scale(0), a
 * translate off the page), another element stacked on top, filters and blend modes.
 *
 * In a rendered page the browser knows (checkVisibility, computed styles, layout). In jsdom or a
 * parsed document (web_fetch) nothing is laid out and no stylesheet applies, so only what the markup
 * says counts: attributes and the declarations of a style attribute.
 */
import { approxPx, clipPathHides, indistinct, over, parseColor, WHITE, zeroAreaClip, type Rgba } from './css-values';

/** Nothing hidden. */
export const SHOWN = 0;
/** The element's own text nodes are not visible (font size, colour), its child elements may be. */
export const TEXT_HIDDEN = 1;
/** Nothing in the subtree is visible. */
export const HIDDEN = 2;
export type Verdict = typeof SHOWN | typeof TEXT_HIDDEN | typeof HIDDEN;

/**
 * `inline`: a text-level element (span, a, b…). Those are most of a page's elements; the browser is
 * asked about them only when they hold text of their own.
 */
export type HiddenTest = (el: Element, inline: boolean) => Verdict;

/** Fields: a transparent file input laid over a styled button is how upload buttons are made. */
const FIELDS = new Set(['input', 'select', 'textarea']);

/** Attributes alone: [hidden], input type=hidden, aria-hidden. */
function attributeHidden(el: Element, modal: () => Element | null): boolean {
  if (el.hasAttribute('hidden') && el.getAttribute('hidden') !== 'until-found') return true;
  if (el.localName === 'input' && (el.getAttribute('type') ?? '').toLowerCase() === 'hidden') return true;
  return ariaHidden(el, modal);
}

/** aria-hidden="true", but on an image or on the page behind a modal dialog (see the decisions above). */
function ariaHidden(el: Element, modal: () => Element | null): boolean {
  return el.getAttribute('aria-hidden') === 'true' && el.localName !== 'img' && !behindModal(el, modal());
}

/** `el` is the page that a modal dialog's script hid from assistive tech: beside the dialog, not in it. */
function behindModal(el: Element, dialog: Element | null): boolean {
  return !!dialog && !el.contains(dialog) && !!el.parentElement?.contains(dialog);
}

function modalFinder(doc: Document, selector: string, visible: (el: Element) => boolean): () => Element | null {
  let found: Element | null | undefined;
  return () => {
    if (found === undefined) {
      try {
        found = Array.from(doc.querySelectorAll(selector)).find(visible) ?? null;
      } catch {
        found = null; // a selector engine without :modal
      }
    }
    return found;
  };
}

/** A style attribute's declarations (last one wins, !important dropped), property names lowercased. */
function declarations(style: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of style.split(';')) {
    const colon = part.indexOf(':');
    if (colon < 0) continue;
    out.set(part.slice(0, colon).trim().toLowerCase(), part.slice(colon + 1).replace(/!\s*important\s*$/i, '').trim().toLowerCase());
  }
  return out;
}

/** Beyond this (px; -63em at the default font size), a position or indent is the hide-off-screen idiom, not layout. */
const FAR_OFF = -999;

/** What a style attribute alone says: the only styles a parsed document has. */
function styleAttributeVerdict(el: Element, style: string): Verdict {
  const d = declarations(style);
  const get = (p: string) => d.get(p) ?? '';
  if (get('display') === 'none' || get('visibility') === 'hidden' || get('visibility') === 'collapse') return HIDDEN;
  const opacity = get('opacity');
  if (opacity && !FIELDS.has(el.localName) && parseFloat(opacity) <= 0) return HIDDEN;
  const positioned = /^(?:absolute|fixed)$/.test(get('position'));
  if (positioned && zeroAreaClip(get('clip'))) return HIDDEN;
  if (clipPathHides(get('clip-path'))) return HIDDEN;
  const overflow = [get('overflow'), get('overflow-x'), get('overflow-y')].some((o) => /\b(?:hidden|clip)\b/.test(o));
  if (overflow && ['width', 'height', 'max-width', 'max-height'].some((p) => tiny(get(p)))) return HIDDEN;
  if (positioned && ['left', 'top'].some((p) => (approxPx(get(p)) ?? 0) <= FAR_OFF)) return HIDDEN;
  if ((approxPx(get('text-indent')) ?? 0) <= FAR_OFF) return HIDDEN;
  if (tiny(get('font-size'))) return TEXT_HIDDEN;
  const color = parseColor(get('color'));
  if (color && !get('background-clip').includes('text') && !get('-webkit-background-clip').includes('text')) {
    if (color.a === 0) return TEXT_HIDDEN;
    // Only a background on the same element is known here: the page's stylesheets never apply.
    const background = parseColor(get('background-color') || get('background'));
    if (background && background.a === 1 && indistinct(color, background)) return TEXT_HIDDEN;
  }
  return SHOWN;
}

/** At most 1px (0 in any unit). */
function tiny(value: string): boolean {
  if (!value) return false;
  if (/^0(?:\.0*)?[a-z%]*$/.test(value)) return true;
  const px = approxPx(value);
  return px !== null && px <= 1 && px >= 0;
}

/** What the markup alone says about `el`. */
export function markupVerdict(el: Element, modal: () => Element | null = noModal): Verdict {
  if (attributeHidden(el, modal)) return HIDDEN;
  const style = el.getAttribute('style');
  return style ? styleAttributeVerdict(el, style) : SHOWN;
}
const noModal = () => null;

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
  if (!isRendered(doc)) {
    const modal = modalFinder(doc, '[aria-modal="true"]', () => true);
    return (el) => markupVerdict(el, modal);
  }
  return renderedTest(doc);
}

const WITH_OPACITY = { visibilityProperty: true, checkVisibilityCSS: true, opacityProperty: true };
const WITHOUT_OPACITY = { visibilityProperty: true, checkVisibilityCSS: true };
const MEDIA = new Set(['img', 'video', 'canvas', 'picture', 'svg', 'iframe', 'object', 'embed']);
/** The siblings looked at per level for a layer under low-contrast text (a hero image, an overlay). */
const MAX_LAYER_SIBLINGS = 64;

/** An effective background and the element whose background made it opaque (null: the canvas). */
interface Backdrop {
  color: Rgba;
  owner: Element | null;
}

/**
 * The checks on a laid-out page. Each native call (a computed property, checkVisibility, a rect)
 * costs about as much as all the rest of an element's visit, and a page has thousands: every
 * element is asked only what can apply to it, once (cached), cheapest first.
 */
function renderedTest(doc: Document): HiddenTest {
  const view = doc.defaultView!;
  const styles = new Map<Element, CSSStyleDeclaration>();
  const style = (el: Element): CSSStyleDeclaration => {
    let s = styles.get(el);
    if (!s) styles.set(el, (s = view.getComputedStyle(el)));
    return s;
  };
  const boxes = new Map<Element, boolean>();
  const backdrops = new Map<Element, Backdrop | null>();
  const modal = modalFinder(doc, 'dialog:modal, [aria-modal="true"]', (el) => (el as unknown as CheckVisibility).checkVisibility());
  // A page has a few dozen distinct colours and thousands of elements.
  const colours = new Map<string, Rgba | null>();
  const colour = (value: string): Rgba | null => {
    let c = colours.get(value);
    if (c === undefined) colours.set(value, (c = parseColor(value)));
    return c;
  };
  let canvas: Rgba | null | undefined;
  let pageSize: { width: number; height: number } | undefined;

  /**
   * Out of sight by its box: clipped to nothing, squeezed with overflow hidden, or off the page.
   * Display and opacity are checkVisibility's to answer. `block`: known to be a block, where
   * overflow and text-indent apply (they do nothing to inline boxes, whose size is their text's).
   */
  const boxHidden = (el: Element, block: boolean): boolean => {
    let hidden = boxes.get(el);
    if (hidden !== undefined) return hidden;
    const s = style(el);
    const position = s.position;
    const positioned = position === 'absolute' || position === 'fixed';
    const clipPath = s.clipPath;
    hidden = (positioned && zeroAreaClip(s.clip)) || (clipPath !== 'none' && clipPathHides(clipPath));
    // Positioned boxes are blocks whatever their tag (the visually-hidden span).
    if (!hidden && (block || positioned || s.display !== 'inline')) {
      const overflow = overflowOf(s);
      if (overflow !== 'visible') {
        const r = el.getBoundingClientRect();
        // "hidden", "hidden auto", "visible clip": the first word is x, the second (or the same) y.
        const [x, y = x] = overflow.split(' ');
        hidden = (x !== 'visible' && r.width <= 1) || (y !== 'visible' && r.height <= 1);
      }
      // text-indent moves the text of inline children too (<h1><a>Brand</a></h1>): not only own text.
      if (!hidden) hidden = indentedAway(el, s);
    }
    if (!hidden && positioned) {
      hidden = offPage(el, el.getBoundingClientRect(), position === 'fixed');
    }
    boxes.set(el, hidden);
    return hidden;
  };

  /**
   * Wholly left of or above the page (where no scrolling reaches), or past its far edges. Content
   * merely scrolled out of an inner pane (a chat log, an app's scrolling column) is not: the
   * position is taken as if every pane around it were scrolled back to its start.
   */
  const offPage = (el: Element, r: DOMRect, fixed: boolean): boolean => {
    if (r.width === 0 && r.height === 0 && r.x === 0 && r.y === 0) return false; // not laid out
    // A fixed box stays where it is whatever the scrolling: the viewport is all it can show in.
    const sx = fixed ? 0 : view.scrollX;
    const sy = fixed ? 0 : view.scrollY;
    pageSize ??= { width: doc.documentElement.scrollWidth, height: doc.documentElement.scrollHeight };
    const width = fixed ? view.innerWidth : pageSize.width;
    const height = fixed ? view.innerHeight : pageSize.height;
    const before = r.right + sx <= 0 || r.bottom + sy <= 0;
    const past = r.left + sx >= width || r.top + sy >= height;
    if (!before && !past) return false;
    let dx = 0;
    let dy = 0;
    for (let a = el.parentElement; a && a !== doc.body && a !== doc.documentElement; a = a.parentElement) {
      if (past && /auto|scroll/.test(overflowOf(style(a)))) return false; // beyond a pane's visible part: scrolling the pane shows it
      dx += a.scrollLeft;
      dy += a.scrollTop;
    }
    return before ? r.right + sx + dx <= 0 || r.bottom + sy + dy <= 0 : true;
  };

  /** text-indent: -9999px (image replacement): every line of the element's text left of the page. */
  const indentedAway = (el: Element, s: CSSStyleDeclaration): boolean => {
    const indent = parseFloat(s.textIndent);
    if (!(indent < 0) || !el.firstChild) return false;
    const r = el.getBoundingClientRect();
    if (r.left + view.scrollX + indent + r.width > 0) return false; // even the first line stays on the page
    const range = doc.createRange();
    range.selectNodeContents(el);
    const lines = Array.from(range.getClientRects()).filter((l) => l.width > 0);
    return lines.length > 0 && lines.every((l) => l.right + view.scrollX <= 0);
  };

  /**
   * The opaque colour behind `el`'s text, from the background colours of it and its ancestors;
   * null when unknown. Background images are looked for only once the text matched (pictured).
   */
  const backdrop = (el: Element): Backdrop | null => {
    let result = backdrops.get(el);
    if (result !== undefined) return result;
    const own = colour(style(el).backgroundColor);
    if (!own) result = null;
    else if (own.a >= 0.999) result = { color: own.a === 1 ? own : { ...own, a: 1 }, owner: el };
    else {
      const parent = flatParent(el);
      const below = parent ? backdrop(parent) : pageCanvas();
      result = !below ? null : own.a === 0 ? below : { color: over(own, below.color), owner: el };
    }
    backdrops.set(el, result);
    return result;
  };
  const pageCanvas = (): Backdrop | null => {
    if (canvas === undefined) {
      // A frame is transparent over its parent page; a dark colour scheme paints a dark canvas of
      // the browser's choosing: neither can be known from here.
      const scheme = style(doc.documentElement).colorScheme ?? '';
      const dark = /\bdark\b/.test(scheme) && (!/\blight\b/.test(scheme) || view.matchMedia('(prefers-color-scheme: dark)').matches);
      canvas = view.frameElement || dark ? null : WHITE;
    }
    return canvas ? { color: canvas, owner: null } : null;
  };
  /** A picture or a gradient under the text, up to the element whose colour it was compared with: who knows what is there. */
  const pictured = (el: Element, owner: Element | null): boolean => {
    for (let n: Element | null = el; n; n = n === owner ? null : flatParent(n)) if (style(n).backgroundImage !== 'none') return true;
    return false;
  };

  /** Text the colour of what is behind it, or too small to read. */
  const textHidden = (el: Element): boolean => {
    if (FIELDS.has(el.localName)) return false; // a field's text is its value, read live
    const s = style(el);
    if (parseFloat(s.fontSize) <= 1) return true;
    // The fill is what paints the glyphs (it is the colour unless -webkit-text-fill-color says otherwise).
    const fill = colour(s.getPropertyValue('-webkit-text-fill-color') || s.color);
    if (!fill) return false;
    const back = backdrop(el);
    if (!back || !indistinct(fill, back.color)) return false;
    // Outlined or shadowed text reads on any background.
    if (s.textShadow !== 'none' || parseFloat(s.getPropertyValue('-webkit-text-stroke-width')) > 0) return false;
    return !pictured(el, back.owner) && !layerBelow(el, back.owner);
  };

  /**
   * Something painted between the text and the background it was compared with: a positioned
   * picture, video or coloured panel under a hero's white title, a ::before overlay. Looked for only
   * once text already matched its background, which on real pages is rare.
   */
  const layerBelow = (el: Element, owner: Element | null): boolean => {
    const r = el.getBoundingClientRect();
    const overlaps = (o: Element) => {
      const b = o.getBoundingClientRect();
      return b.width > 0 && b.height > 0 && b.left < r.right && b.right > r.left && b.top < r.bottom && b.bottom > r.top;
    };
    const paints = (o: Element) => {
      if (MEDIA.has(o.localName)) return true;
      const s = style(o);
      return s.backgroundImage !== 'none' || (colour(s.backgroundColor)?.a ?? 1) > 0;
    };
    const pseudoPaints = (o: Element) =>
      ['::before', '::after'].some((p) => {
        const s = view.getComputedStyle(o, p);
        return s.content !== 'none' && s.content !== 'normal' && (s.backgroundImage !== 'none' || (colour(s.backgroundColor)?.a ?? 1) > 0);
      });
    for (let n: Element | null = el; n && n !== owner; n = flatParent(n)) {
      if (pseudoPaints(n)) return true;
      const parent = n.parentElement;
      const siblings = parent ? parent.children : [];
      if (siblings.length > MAX_LAYER_SIBLINGS) continue;
      for (const sib of Array.from(siblings)) {
        if (sib === n || !overlaps(sib)) continue;
        if (paints(sib)) return true;
        // A transparent wrapper around the picture (a positioned <div><img></div>).
        const inner = sib.querySelector('img, video, canvas, picture, svg');
        if (inner && overlaps(inner)) return true;
      }
    }
    return !!owner && pseudoPaints(owner);
  };

  return (el, inline) => {
    // Attributes the page's CSS can override ([hidden] with a display rule) are the browser's to judge.
    if (ariaHidden(el, modal)) return HIDDEN;
    const text = ownText(el);
    // Not asked about (too many, and nothing of their own to show): their markup still says.
    if (inline && !text) return markupVerdict(el, modal);
    if (!(el as unknown as CheckVisibility).checkVisibility(FIELDS.has(el.localName) ? WITHOUT_OPACITY : WITH_OPACITY)) {
      if (el.localName === 'input' && (el as HTMLInputElement).type === 'hidden') return HIDDEN;
      const s = style(el);
      // display:contents has no box of its own, yet its children render.
      if (s.display === 'contents') return text && textHidden(el) ? TEXT_HIDDEN : SHOWN;
      // Closed <details> hide their body from layout; the text is still the page's (and one click
      // away), unless something else hides it.
      if (s.display === 'none' || s.visibility !== 'visible' || !el.closest('details:not([open])') || transparentUpTo(el, style)) return HIDDEN;
    }
    if (inline) {
      // Text-level ancestors were never asked (see above): their boxes may clip this text away.
      for (let a = el.parentElement; a && !boxes.has(a) && a !== doc.body; a = a.parentElement) if (boxHidden(a, false)) return HIDDEN;
    }
    if (boxHidden(el, !inline)) return HIDDEN;
    return text && textHidden(el) ? TEXT_HIDDEN : SHOWN;
  };
}

/** The computed overflow of both axes: the shorthand where the browser gives it (one call, not two). */
function overflowOf(s: CSSStyleDeclaration): string {
  return s.overflow || (s.overflowX === s.overflowY ? s.overflowX : `${s.overflowX} ${s.overflowY}`);
}

/** Opacity 0 on `el` or an ancestor (checkVisibility's answer, for where it answers "hidden" anyway). */
function transparentUpTo(el: Element, style: (el: Element) => CSSStyleDeclaration): boolean {
  for (let a: Element | null = el; a; a = a.parentElement) if (style(a).opacity === '0') return true;
  return false;
}

/** The parent in the rendered (flat) tree: a slotted element sits in its slot, a shadow root's top in the host. */
function flatParent(el: Element): Element | null {
  const slot = (el as HTMLElement).assignedSlot;
  if (slot) return slot;
  if (el.parentElement) return el.parentElement;
  const root = el.parentNode as ShadowRoot | null;
  return root && 'host' in root ? root.host : null;
}

/** The element holds text of its own (not only whitespace), as opposed to only child elements. */
export function ownText(el: Element): boolean {
  for (let n = el.firstChild; n; n = n.nextSibling) if (n.nodeType === 3 && /\S/.test(n.nodeValue!)) return true;
  return false;
}

/**
 * Left out of a control's name: aria-hidden, as assistive tech leaves it out (an icon's ligature
 * text, a decorative glyph). Other hidden text stays, as it always did: visually hidden text is
 * often the only name, and icon buttons whose label the page's CSS hides (display:none on the
 * label beside a sprite) have no other.
 */
export function hiddenFromName(el: Element): boolean {
  return el.getAttribute('aria-hidden') === 'true';
}

/** Hidden from the user, or from assistive technology (aria-hidden, inert): not something to act on. */
export function notActionable(el: Element): boolean {
  return !!el.closest('[aria-hidden="true"], [inert]');
}
