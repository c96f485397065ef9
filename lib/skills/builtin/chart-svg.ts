/**
 * text_to_chart's renderer: checked chart data → one self-contained SVG document. Pure string
 * work (no DOM, no canvas), so it runs in Chrome's service worker as well as in a test.
 * Text widths are estimated from character counts: there is no font engine to ask, and the
 * estimate errs wide so labels do not collide.
 */
import type { ChartData, ChartType } from './chart-data';

export const CHART_WIDTH = 800;
export const CHART_HEIGHT = 500;

export interface ChartSpec {
  type: ChartType;
  /** Already checked with checkChartData. */
  data: ChartData;
  title?: string;
  xLabel?: string;
  yLabel?: string;
  width?: number;
  height?: number;
}

/** Tableau 10: distinct hues that stay apart for the colour-blind too. */
export const CHART_PALETTE = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac'] as const;

/** The i-th colour: the palette, then golden-angle hues so many pie slices stay distinct. */
export function chartColor(i: number): string {
  if (i < CHART_PALETTE.length) return CHART_PALETTE[i]!;
  return hslToHex((i * 137.508) % 360, 0.55, i % 2 ? 0.45 : 0.62);
}

const PAD = 20;
const FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif";
const TEXT = '#222222';
const MUTED = '#555555';
const GRID = '#e6e6e6';
const AXIS = '#888888';
/** Markers on a line are drawn up to this many points; beyond, they are a smudge. */
const MAX_MARKERS = 60;

// Characters outside XML 1.0's Char production make the whole document unreadable.
// eslint-disable-next-line no-control-regex
const NOT_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Text safe inside an element or a quoted attribute. */
export function escapeXml(s: string): string {
  return s
    .replace(NOT_XML, '\ufffd')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

export interface Ticks {
  min: number;
  max: number;
  step: number;
  ticks: number[];
}

/** Round axis bounds and a 1-2-2.5-5 step giving about `count` ticks that cover [min, max]. */
export function niceTicks(min: number, max: number, count = 6): Ticks {
  if (min > max) [min, max] = [max, min];
  if (min === max) {
    const pad = min === 0 ? 1 : Math.abs(min) * 0.1;
    min = min === 0 ? 0 : min - pad;
    max += pad;
  }
  const rough = (max - min) / Math.max(1, count - 1);
  const magnitude = 10 ** Math.floor(Math.log10(rough));
  const norm = rough / magnitude;
  const step = (norm <= 1 ? 1 : norm <= 2 ? 2 : norm <= 2.5 ? 2.5 : norm <= 5 ? 5 : 10) * magnitude;
  const decimals = Math.min(20, Math.max(0, -Math.floor(Math.log10(step)) + 1));
  const round = (v: number) => Number(v.toFixed(decimals));
  const lo = round(Math.floor(min / step + 1e-9) * step);
  const hi = round(Math.ceil(max / step - 1e-9) * step);
  const ticks: number[] = [];
  for (let i = 0; ; i++) {
    const t = round(lo + i * step);
    if (t > hi + step / 2) break;
    ticks.push(t);
  }
  return { min: lo, max: ticks[ticks.length - 1]!, step, ticks };
}

const compact = new Intl.NumberFormat('en', { notation: 'compact', maximumFractionDigits: 2 });

/** A tick label with as many decimals as the step needs ("2.5", "0.25", "12k"). */
export function formatTick(v: number, step: number): string {
  if (Math.abs(v) >= 10_000) return compact.format(v);
  let decimals = 0;
  while (decimals < 20 && Math.abs(Number(step.toFixed(decimals)) - step) > step * 1e-6) decimals++;
  return new Intl.NumberFormat('en', { minimumFractionDigits: decimals, maximumFractionDigits: decimals }).format(v);
}

const valueFormat = new Intl.NumberFormat('en', { maximumFractionDigits: 6 });
export const formatValue = (v: number): string => valueFormat.format(v);
/** A share of the whole, one decimal: "25.0%". */
export const formatPercent = (share: number): string => `${(share * 100).toFixed(1)}%`;

/** Renders the chart as an SVG document (UTF-8 text, no XML declaration needed). */
export function renderChartSvg(spec: ChartSpec): string {
  const width = spec.width ?? CHART_WIDTH;
  const height = spec.height ?? CHART_HEIGHT;
  const out: string[] = [];
  const title = spec.title?.trim() ?? '';
  const name = title || `${capitalise(spec.type)} chart`;
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-labelledby="chart-title chart-desc" font-family="${escapeXml(FONT)}">`,
    `<title id="chart-title">${escapeXml(name)}</title>`,
    `<desc id="chart-desc">${escapeXml(describe(spec))}</desc>`,
    // Opaque background: the chat may be dark, and an SVG is transparent by default.
    `<rect class="background" width="${width}" height="${height}" fill="#ffffff"/>`,
  );
  let top = PAD;
  if (title) {
    out.push(text(width / 2, top + 18, truncate(title, Math.floor((width - 2 * PAD) / (20 * 0.6))), { size: 20, weight: 600, anchor: 'middle', cls: 'chart-title' }));
    top += 38;
  }
  const frame = { width, height, top };
  if (spec.type === 'pie') out.push(...pie(spec, frame));
  else out.push(...cartesian(spec, frame));
  out.push('</svg>');
  return out.join('\n');
}

interface Frame {
  width: number;
  height: number;
  /** Where the chart may start below the title. */
  top: number;
}

function cartesian(spec: ChartSpec, frame: Frame): string[] {
  const { labels, series } = spec.data;
  const out: string[] = [];
  let top = frame.top;
  if (series.length > 1) {
    const legend = legendRows(series.map((s) => s.name), frame.width - 2 * PAD);
    legend.items.forEach(({ label, x, row }, i) => {
      const y = top + row * 20;
      out.push(
        `<g class="legend-item"><rect x="${r2(PAD + x)}" y="${r2(y)}" width="12" height="12" rx="2" fill="${chartColor(i)}"/>` +
          text(PAD + x + 18, y + 10.5, label, { size: 12, fill: TEXT }) +
          '</g>',
      );
    });
    top += legend.rows * 20 + 8;
  }
  top += 6;

  const all = series.flatMap((s) => s.values);
  const dataMin = Math.min(...all);
  const dataMax = Math.max(...all);
  // Bars are lengths from zero, so zero is always on the axis; a line may float.
  const scale = spec.type === 'bar' ? niceTicks(Math.min(0, dataMin), Math.max(0, dataMax)) : niceTicks(dataMin, dataMax);
  const tickLabels = scale.ticks.map((t) => formatTick(t, scale.step));

  const yTitle = spec.yLabel?.trim();
  const xTitle = spec.xLabel?.trim();
  let left = PAD + (yTitle ? 22 : 0) + Math.max(...tickLabels.map((t) => textWidth(t, 12))) + 8;
  const right = frame.width - PAD;

  const n = labels.length;
  let band = (right - left) / n;
  const horizontal = labels.map((l) => truncate(l, 24));
  const widest = Math.max(...horizontal.map((l) => textWidth(l, 12)));
  const rotate = widest > band * 0.9;
  const shown = rotate ? labels.map((l) => truncate(l, 18)) : horizontal;
  const shownWidest = Math.max(...shown.map((l) => textWidth(l, 12)));
  // Rotated by 45°, a label reaches down and left by its length / √2.
  const reach = rotate ? shownWidest * Math.SQRT1_2 : 0;
  if (rotate && reach - band / 2 > left - PAD) {
    left = PAD + reach - band / 2;
    band = (right - left) / n;
  }
  const every = Math.max(1, Math.ceil((rotate ? 16 : shownWidest + 10) / band));
  const labelSpace = rotate ? reach + 18 : 22;
  const bottom = frame.height - PAD - (xTitle ? 22 : 0) - labelSpace;
  const plotTop = top;

  const y = (v: number) => bottom - ((v - scale.min) / (scale.max - scale.min)) * (bottom - plotTop);
  const zero = scale.min <= 0 && scale.max >= 0 ? y(0) : bottom;

  out.push('<g class="grid">');
  scale.ticks.forEach((t, i) => {
    const ty = y(t);
    out.push(`<line x1="${r2(left)}" x2="${r2(right)}" y1="${r2(ty)}" y2="${r2(ty)}" stroke="${GRID}" stroke-width="1"/>`);
    out.push(text(left - 6, ty + 4, tickLabels[i]!, { size: 12, fill: MUTED, anchor: 'end', cls: 'y-tick' }));
  });
  out.push('</g>');

  if (spec.type === 'bar') {
    const group = band * 0.8;
    const barWidth = group / series.length;
    const gap = barWidth > 6 ? 1 : 0;
    series.forEach((s, j) => {
      out.push(`<g class="series" fill="${chartColor(j)}">`);
      s.values.forEach((v, i) => {
        const x = left + i * band + band * 0.1 + j * barWidth;
        const vy = y(v);
        out.push(
          `<rect class="bar" data-series="${j}" data-index="${i}" x="${r2(x + gap / 2)}" y="${r2(Math.min(vy, zero))}" width="${r2(Math.max(0.5, barWidth - gap))}" height="${r2(Math.abs(zero - vy))}">` +
            `<title>${escapeXml(`${labels[i]} — ${s.name}: ${formatValue(v)}`)}</title></rect>`,
        );
      });
      out.push('</g>');
    });
  } else {
    series.forEach((s, j) => {
      const color = chartColor(j);
      const points = s.values.map((v, i) => [left + (i + 0.5) * band, y(v)] as const);
      const d = points.map(([px, py], i) => `${i ? 'L' : 'M'}${r2(px)} ${r2(py)}`).join(' ');
      out.push(`<g class="series"><path class="line" data-series="${j}" d="${d}" fill="none" stroke="${color}" stroke-width="2" stroke-linejoin="round" stroke-linecap="round"/>`);
      if (n <= MAX_MARKERS) {
        points.forEach(([px, py], i) => {
          out.push(
            `<circle class="point" cx="${r2(px)}" cy="${r2(py)}" r="3.5" fill="${color}" stroke="#ffffff" stroke-width="1">` +
              `<title>${escapeXml(`${labels[i]} — ${s.name}: ${formatValue(s.values[i]!)}`)}</title></circle>`,
          );
        });
      }
      out.push('</g>');
    });
  }

  out.push('<g class="axes">');
  out.push(`<line x1="${r2(left)}" x2="${r2(left)}" y1="${r2(plotTop)}" y2="${r2(bottom)}" stroke="${AXIS}" stroke-width="1"/>`);
  out.push(`<line x1="${r2(left)}" x2="${r2(right)}" y1="${r2(zero)}" y2="${r2(zero)}" stroke="${AXIS}" stroke-width="1"/>`);
  out.push('</g>');

  out.push('<g class="x-labels">');
  for (let i = 0; i < n; i += every) {
    const x = left + (i + 0.5) * band;
    out.push(
      rotate
        ? text(0, 0, shown[i]!, { size: 12, fill: MUTED, anchor: 'end', cls: 'x-tick', transform: `translate(${r2(x)} ${r2(bottom + 12)}) rotate(-45)` })
        : text(x, bottom + 17, shown[i]!, { size: 12, fill: MUTED, anchor: 'middle', cls: 'x-tick' }),
    );
  }
  out.push('</g>');

  if (xTitle) out.push(text((left + right) / 2, frame.height - PAD + 2, truncate(xTitle, 90), { size: 13, fill: TEXT, anchor: 'middle', cls: 'x-title' }));
  if (yTitle) {
    const cy = (plotTop + bottom) / 2;
    out.push(text(0, 0, truncate(yTitle, 50), { size: 13, fill: TEXT, anchor: 'middle', cls: 'y-title', transform: `translate(${PAD + 10} ${r2(cy)}) rotate(-90)` }));
  }
  return out;
}

function pie(spec: ChartSpec, frame: Frame): string[] {
  const { labels } = spec.data;
  const values = spec.data.series[0]!.values;
  const total = values.reduce((a, b) => a + b, 0);
  const out: string[] = [];
  const legendWidth = Math.min(300, frame.width * 0.38);
  const areaWidth = frame.width - 2 * PAD - legendWidth;
  const areaHeight = frame.height - PAD - frame.top;
  const radius = Math.max(10, Math.min(areaWidth, areaHeight) / 2 - 8);
  const cx = PAD + areaWidth / 2;
  const cy = frame.top + areaHeight / 2;

  out.push('<g class="slices">');
  let angle = -Math.PI / 2; // twelve o'clock, then clockwise
  values.forEach((v, i) => {
    if (v <= 0) return;
    const share = v / total;
    const sweep = share * 2 * Math.PI;
    const tip = `<title>${escapeXml(`${labels[i]}: ${formatValue(v)} (${formatPercent(share)})`)}</title>`;
    const attrs = `class="slice" data-index="${i}" data-share="${r2(share * 100, 4)}" fill="${chartColor(i)}" stroke="#ffffff" stroke-width="1"`;
    if (share >= 1 - 1e-9) {
      out.push(`<circle ${attrs} cx="${r2(cx)}" cy="${r2(cy)}" r="${r2(radius)}">${tip}</circle>`);
    } else {
      const [x0, y0] = polar(cx, cy, radius, angle);
      const [x1, y1] = polar(cx, cy, radius, angle + sweep);
      const large = sweep > Math.PI ? 1 : 0;
      out.push(`<path ${attrs} d="M${r2(cx)} ${r2(cy)} L${r2(x0)} ${r2(y0)} A${r2(radius)} ${r2(radius)} 0 ${large} 1 ${r2(x1)} ${r2(y1)} Z">${tip}</path>`);
    }
    if (share >= 0.05) {
      const [lx, ly] = polar(cx, cy, radius * (share >= 1 - 1e-9 ? 0 : 0.64), angle + sweep / 2);
      out.push(text(lx, ly + 4, formatPercent(share), { size: 12, weight: 600, anchor: 'middle', fill: readableOn(chartColor(i)), cls: 'slice-label' }));
    }
    angle += sweep;
  });
  out.push('</g>');

  // The legend names every slice with its share; when they do not all fit, the rest are summed.
  const legendX = frame.width - PAD - legendWidth + 12;
  const rowHeight = 20;
  const capacity = Math.max(1, Math.floor((frame.height - PAD - frame.top) / rowHeight));
  const listed = labels.length <= capacity ? labels.length : capacity - 1;
  const legendTop = frame.top + Math.max(0, (areaHeight - Math.min(labels.length, capacity) * rowHeight) / 2);
  const chars = Math.floor((legendWidth - 30) / (12 * 0.6));
  out.push('<g class="legend">');
  for (let i = 0; i < listed; i++) {
    const y = legendTop + i * rowHeight;
    const pct = formatPercent(values[i]! / total);
    const label = `${truncate(labels[i]!, Math.max(4, chars - pct.length - 3))} — ${pct}`;
    out.push(
      `<g class="legend-item"><rect x="${r2(legendX)}" y="${r2(y)}" width="12" height="12" rx="2" fill="${chartColor(i)}"/>` +
        text(legendX + 18, y + 10.5, label, { size: 12, fill: TEXT }) +
        '</g>',
    );
  }
  if (listed < labels.length) {
    const rest = values.slice(listed).reduce((a, b) => a + b, 0);
    const y = legendTop + listed * rowHeight;
    out.push(text(legendX + 18, y + 10.5, `… and ${labels.length - listed} more — ${formatPercent(rest / total)}`, { size: 12, fill: MUTED, cls: 'legend-more' }));
  }
  out.push('</g>');
  return out;
}

/** The chart in words, for the SVG's <desc> (read by screen readers). */
function describe(spec: ChartSpec): string {
  const { labels, series } = spec.data;
  const range = (xs: readonly string[]) => (xs.length > 2 ? `${xs[0]} … ${xs[xs.length - 1]}` : xs.join(', '));
  if (spec.type === 'pie') {
    const values = series[0]!.values;
    const total = values.reduce((a, b) => a + b, 0);
    const slices = labels.slice(0, 10).map((l, i) => `${l} ${formatPercent(values[i]! / total)}`);
    return `Pie chart of ${labels.length} slice${labels.length === 1 ? '' : 's'} totalling ${formatValue(total)}: ${slices.join(', ')}${labels.length > 10 ? ', …' : ''}.`;
  }
  const all = series.flatMap((s) => s.values);
  const names = series.map((s) => s.name);
  return (
    `${capitalise(spec.type)} chart of ${series.length} series (${names.slice(0, 5).join(', ')}${names.length > 5 ? ', …' : ''}) ` +
    `over ${labels.length} point${labels.length === 1 ? '' : 's'} (${range(labels)}); values from ${formatValue(Math.min(...all))} to ${formatValue(Math.max(...all))}.`
  );
}

interface TextOptions {
  size: number;
  fill?: string;
  anchor?: 'start' | 'middle' | 'end';
  weight?: number;
  cls?: string;
  transform?: string;
}

function text(x: number, y: number, content: string, o: TextOptions): string {
  const attrs = [
    o.cls ? `class="${o.cls}"` : '',
    o.transform ? `transform="${o.transform}"` : `x="${r2(x)}" y="${r2(y)}"`,
    `font-size="${o.size}"`,
    o.weight ? `font-weight="${o.weight}"` : '',
    o.anchor && o.anchor !== 'start' ? `text-anchor="${o.anchor}"` : '',
    `fill="${o.fill ?? TEXT}"`,
  ].filter(Boolean);
  return `<text ${attrs.join(' ')}>${escapeXml(content)}</text>`;
}

/** Legend items flowed into rows of `width`. */
function legendRows(names: string[], width: number): { items: { label: string; x: number; row: number }[]; rows: number } {
  const items: { label: string; x: number; row: number }[] = [];
  let x = 0;
  let row = 0;
  for (const name of names) {
    const label = truncate(name, 30);
    const w = 18 + textWidth(label, 12) + 16;
    if (x > 0 && x + w > width) {
      row++;
      x = 0;
    }
    items.push({ label, x, row });
    x += w;
  }
  return { items, rows: row + 1 };
}

/** An estimate that errs wide: sans-serif glyphs average about 0.55 em. */
const textWidth = (s: string, size: number) => Array.from(s).length * size * 0.6;

function truncate(s: string, max: number): string {
  const chars = Array.from(s);
  return chars.length > max ? `${chars.slice(0, Math.max(1, max - 1)).join('')}…` : s;
}

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** Coordinates to two decimals: smaller files, and no "1e-7" that some viewers misread. */
function r2(n: number, digits = 2): string {
  const f = 10 ** digits;
  const v = Math.round(n * f) / f;
  return String(Object.is(v, -0) ? 0 : v);
}

const polar = (cx: number, cy: number, r: number, a: number): [number, number] => [cx + r * Math.cos(a), cy + r * Math.sin(a)];

/** Black or white, whichever reads better on `hex` (WCAG relative luminance). */
function readableOn(hex: string): string {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  const luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  return luminance > 0.35 ? '#1a1a1a' : '#ffffff';
}

function hslToHex(h: number, s: number, l: number): string {
  const a = s * Math.min(l, 1 - l);
  const f = (n: number) => {
    const k = (n + h / 30) % 12;
    const c = l - a * Math.max(-1, Math.min(k - 3, 9 - k, 1));
    return Math.round(c * 255)
      .toString(16)
      .padStart(2, '0');
  };
  return `#${f(0)}${f(8)}${f(4)}`;
}
