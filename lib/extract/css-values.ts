/**
 * CSS values as the hidden-text checks need them: colours and their contrast, clip rectangles,
 * clip-path insets, lengths. Pure (no DOM), so the same code reads a computed style in the page and
 * a style attribute in a parsed document.
 */

/** Red, green, blue in 0–255 and alpha in 0–1. */
export interface Rgba {
  r: number;
  g: number;
  b: number;
  a: number;
}

export const WHITE: Rgba = { r: 255, g: 255, b: 255, a: 1 };

/**
 * Below this contrast ratio text may be invisible against its background. WCAG asks 4.5 for body
 * text; 1.2 is far below anything meant to be read (#eee on white is 1.16, #ddd 1.36), so
 * faint-but-deliberate text (watermarks, placeholders, disabled labels) stays.
 */
export const INVISIBLE_CONTRAST = 1.2;
/**
 * And the colours must be close channel by channel: luminance ignores hue, and pure yellow on
 * white (contrast 1.07) is garish, not hidden.
 */
export const INVISIBLE_CHANNEL_GAP = 32;

const NAMED: Record<string, Rgba> = {
  transparent: { r: 0, g: 0, b: 0, a: 0 },
  white: WHITE,
  black: { r: 0, g: 0, b: 0, a: 1 },
};

/**
 * The colours computed styles give (rgb()/rgba(), comma or space separated) and what style
 * attributes mostly hold (#rgb, #rgba, #rrggbb, #rrggbbaa, white/black/transparent). Anything else
 * (hsl(), oklch(), color-mix(), currentcolor, other names) is null: unknown, so never judged.
 */
export function parseColor(value: string): Rgba | null {
  const v = value.trim().toLowerCase();
  if (!v) return null;
  const named = NAMED[v];
  if (named) return named;
  if (v[0] === '#') return parseHex(v.slice(1));
  const m = /^rgba?\(\s*([^)]*)\)$/.exec(v);
  if (!m) return null;
  const parts = m[1]!.split(/\s*[,/]\s*|\s+/).filter(Boolean);
  if (parts.length !== 3 && parts.length !== 4) return null;
  const [r, g, b] = parts.slice(0, 3).map((p) => channel(p, 255));
  const a = parts.length === 4 ? channel(parts[3]!, 1) : 1;
  if (r === undefined || g === undefined || b === undefined || [r, g, b, a].some((n) => Number.isNaN(n))) return null;
  return { r, g, b, a };
}

function channel(p: string, scale: number): number {
  const n = p.endsWith('%') ? (Number(p.slice(0, -1)) / 100) * scale : Number(p);
  return Number.isFinite(n) ? Math.min(scale, Math.max(0, n)) : NaN;
}

function parseHex(h: string): Rgba | null {
  if (!/^[0-9a-f]+$/.test(h)) return null;
  const expand = h.length <= 4 ? h.replace(/./g, '$&$&') : h;
  if (expand.length !== 6 && expand.length !== 8) return null;
  const n = (i: number) => parseInt(expand.slice(i, i + 2), 16);
  return { r: n(0), g: n(2), b: n(4), a: expand.length === 8 ? n(6) / 255 : 1 };
}

/** `top` painted over `bottom` (source-over); opaque when `bottom` is. */
export function over(top: Rgba, bottom: Rgba): Rgba {
  const a = top.a + bottom.a * (1 - top.a);
  if (a === 0) return { r: 0, g: 0, b: 0, a: 0 };
  const mix = (t: number, b: number) => (t * top.a + b * bottom.a * (1 - top.a)) / a;
  return { r: mix(top.r, bottom.r), g: mix(top.g, bottom.g), b: mix(top.b, bottom.b), a };
}

/** WCAG 2 relative luminance of an opaque colour. */
export function luminance(c: Rgba): number {
  const lin = (v: number) => {
    const s = v / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(c.r) + 0.7152 * lin(c.g) + 0.0722 * lin(c.b);
}

/** WCAG 2 contrast ratio (1 to 21) of text `fg` (its alpha applied) on an opaque `bg`. */
export function contrastRatio(fg: Rgba, bg: Rgba): number {
  const a = luminance(over(fg, bg));
  const b = luminance(bg);
  return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
}

/** Text of colour `fg` cannot be told from the opaque background `bg`. */
export function indistinct(fg: Rgba, bg: Rgba): boolean {
  // The channel gap first: it is cheap, and settles almost every pair of a page.
  // On an opaque background the text's colour as seen is bg + alpha × (fg − bg).
  if (fg.a * Math.max(Math.abs(fg.r - bg.r), Math.abs(fg.g - bg.g), Math.abs(fg.b - bg.b)) > INVISIBLE_CHANNEL_GAP) return false;
  return contrastRatio(fg, bg) < INVISIBLE_CONTRAST;
}

/**
 * A clip rectangle that leaves nothing: `rect(0 0 0 0)`, `rect(1px, 1px, 1px, 1px)` (top = bottom).
 * `auto` edges are the box's own edges, so a rect with one is not judged.
 */
export function zeroAreaClip(value: string): boolean {
  const m = /^rect\(\s*([^)]*)\)$/i.exec(value.trim());
  if (!m) return false;
  const edges = m[1]!.split(/\s*,\s*|\s+/).map(pxLength);
  if (edges.length !== 4 || edges.some((e) => e === null)) return false;
  const [top, right, bottom, left] = edges as number[];
  return bottom! <= top! || right! <= left!;
}

/**
 * A clip-path that leaves nothing: an inset of 50% or more from opposite sides (the visually-hidden
 * idiom is inset(50%)), or a circle / ellipse of radius 0.
 */
export function clipPathHides(value: string): boolean {
  const v = value.trim().toLowerCase();
  if (v === 'none' || !v) return false;
  const circle = /^(?:circle|ellipse)\(\s*0(?:px|%)?(?:\s+0(?:px|%)?)?(?:\s+at\b[^)]*)?\)/.exec(v);
  if (circle) return true;
  const m = /^inset\(\s*([^)]*?)\s*(?:round\b[^)]*)?\)/.exec(v);
  if (!m) return false;
  const parts = m[1]!.split(/\s+/).filter(Boolean);
  if (!parts.length || parts.length > 4 || !parts.every((p) => p.endsWith('%') || p === '0' || p === '0px')) return false;
  const pct = parts.map((p) => (p.endsWith('%') ? Number(p.slice(0, -1)) : 0));
  const [top, right = top, bottom = top, left = right] = pct as [number, number?, number?, number?];
  return top + bottom! >= 100 || right! + left! >= 100;
}

/** A length in px (px, or a unitless 0); null for other units, which need a box to resolve. */
export function pxLength(value: string): number | null {
  const v = value.trim().toLowerCase();
  if (v === '0') return 0;
  const m = /^(-?\d*\.?\d+)px$/.exec(v);
  return m ? Number(m[1]) : null;
}

/**
 * A length as a style attribute may write it, in px: px, pt, or em/rem at the 16px default
 * (enough to tell -9999px or -100em from a small offset). Null when it cannot be known.
 */
export function approxPx(value: string): number | null {
  const v = value.trim().toLowerCase();
  const m = /^(-?\d*\.?\d+)(px|pt|r?em)?$/.exec(v);
  if (!m) return null;
  const n = Number(m[1]);
  if (!m[2]) return n === 0 ? 0 : null;
  return m[2] === 'px' ? n : m[2] === 'pt' ? (n * 4) / 3 : n * 16;
}
