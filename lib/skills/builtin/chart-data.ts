/**
 * text_to_chart's data: the checks every chart passes before it is drawn, and the parser that
 * turns the free text a model tends to write ("Q1: 10, Q2: 15", CSV, TSV, a Markdown table,
 * "label value" lines) into labels and series.
 */
import { ModelFacingError } from '../../errors';

export const CHART_TYPES = ['bar', 'line', 'pie'] as const;
export type ChartType = (typeof CHART_TYPES)[number];

export interface ChartSeries {
  name: string;
  values: number[];
}

export interface ChartData {
  /** One per point (a bar group, a point on each line, a pie slice). */
  labels: string[];
  series: ChartSeries[];
}

/** More points than this make neither a readable chart nor a reasonable SVG. */
export const MAX_CHART_POINTS = 1000;
/** A legend of more series than this is unreadable, and so are the bars. */
export const MAX_CHART_SERIES = 20;
/** Beyond this the axis arithmetic loses its precision (and no chart needs it). */
export const MAX_CHART_ABS_VALUE = 1e15;
const MAX_LABEL_CHARS = 200;

/** What the model is shown when its text cannot be read. */
export const CHART_TEXT_EXAMPLE =
  'Accepted text: "label: value" pairs separated by commas or new lines (e.g. "Q1: 10, Q2: 15, Q3: 12"), ' +
  '"label value" lines (e.g. "Apples 10\\nPears 7"), or CSV/TSV/Markdown table rows with labels in the first column and an optional ' +
  'header row naming the series (e.g. "quarter,sales,costs\\nQ1,10,7\\nQ2,15,9").';

/** A problem with the chart's data, worded for the model. */
export class ChartDataError extends ModelFacingError<'chart_data'> {
  override name = 'ChartDataError';

  constructor(message: string) {
    super('chart_data', message);
  }
}

/**
 * Checks data for a chart of `type` and returns it tidied (labels and names trimmed, names
 * given to unnamed series). Throws ChartDataError saying what is wrong and where.
 */
export function checkChartData(data: ChartData, type: ChartType): ChartData {
  const labels = data.labels.map((l) => cutLabel(String(l).trim()));
  if (!data.series.length) throw new ChartDataError('The data has no series: give at least one {name, values}.');
  if (data.series.length > MAX_CHART_SERIES) {
    throw new ChartDataError(`The data has ${data.series.length} series; a chart shows at most ${MAX_CHART_SERIES}.`);
  }
  if (!labels.length) throw new ChartDataError('The data has no points: labels is empty.');
  if (labels.length > MAX_CHART_POINTS) {
    throw new ChartDataError(`The data has ${labels.length} points; a chart shows at most ${MAX_CHART_POINTS}. Aggregate or sample the data first.`);
  }
  const series = data.series.map((s, i) => {
    const name = cutLabel(String(s.name ?? '').trim()) || `Series ${i + 1}`;
    if (s.values.length !== labels.length) {
      throw new ChartDataError(`Series "${name}" has ${s.values.length} value${s.values.length === 1 ? '' : 's'} but there are ${labels.length} labels: give one value per label.`);
    }
    s.values.forEach((v, j) => {
      if (typeof v !== 'number' || !Number.isFinite(v)) {
        throw new ChartDataError(`Series "${name}" value ${j + 1} (label "${labels[j]}") is not a finite number.`);
      }
      if (Math.abs(v) > MAX_CHART_ABS_VALUE) {
        throw new ChartDataError(`Series "${name}" value ${j + 1} (label "${labels[j]}") is ${v}; values must lie between -1e15 and 1e15.`);
      }
    });
    return { name, values: [...s.values] };
  });
  if (type === 'pie') {
    if (series.length > 1) {
      throw new ChartDataError(
        `A pie chart shows one series; the data has ${series.length} (${series.map((s) => `"${s.name}"`).join(', ')}). Pass only one, or use a bar chart.`,
      );
    }
    const values = series[0]!.values;
    const negative = values.findIndex((v) => v < 0);
    if (negative >= 0) {
      throw new ChartDataError(`A pie chart cannot show negative values: "${labels[negative]}" is ${values[negative]}. Use a bar chart instead.`);
    }
    if (!values.some((v) => v > 0)) throw new ChartDataError('A pie chart needs values whose sum is positive; all are 0.');
  }
  return { labels, series };
}

function cutLabel(s: string): string {
  const chars = Array.from(s);
  return chars.length > MAX_LABEL_CHARS ? `${chars.slice(0, MAX_LABEL_CHARS - 1).join('')}…` : s;
}

// ---------- numbers ----------

const CURRENCY = /[$€£¥₹₺₩₽¢]/g;

/**
 * A number as people write it: "1,234.5", "1.234,5", "1 234", "12%", "$1,200", "−3", "2.5e3".
 * Undefined when `text` is not one number.
 */
export function parseNumber(text: string): number | undefined {
  let s = text.trim().replace(/^"(.*)"$/, '$1').trim();
  s = s.replace(CURRENCY, '').replace(/%$/, '').replace(/[\u2212\u2012\u2013]/g, '-');
  s = s.replace(/[\s\u00a0\u202f']/g, '').trim();
  if (!s) return undefined;
  if (/^[-+]?\d{1,3}(,\d{3})+(\.\d+)?$/.test(s)) s = s.replace(/,/g, '');
  else if (/^[-+]?\d{1,3}(\.\d{3})+(,\d+)?$/.test(s) && s.includes(',')) s = s.replace(/\./g, '').replace(',', '.');
  else if (/^[-+]?\d{1,3}(\.\d{3}){2,}$/.test(s)) s = s.replace(/\./g, '');
  else if (/^[-+]?\d*,\d+$/.test(s)) s = s.replace(',', '.');
  if (!/^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(s)) return undefined;
  const n = Number(s);
  return Number.isFinite(n) ? n : undefined;
}

// ---------- text ----------

/** Reads chart data out of free text; throws ChartDataError (with CHART_TEXT_EXAMPLE) when it cannot. */
export function parseChartText(text: string): ChartData {
  const lines = text
    .split(/\r\n|\r|\n/)
    .map((l) => l.trim())
    .filter((l) => l && !/^\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?$/.test(l)); // Markdown table rules
  if (!lines.length) throw new ChartDataError(`The text is empty. ${CHART_TEXT_EXAMPLE}`);
  const data = pairs(lines) ?? table(lines) ?? labelledLines(lines) ?? bareNumbers(lines);
  if (!data) throw new ChartDataError(`Could not read chart data from the text. ${CHART_TEXT_EXAMPLE}`);
  return data;
}

/** "Q1: 10, Q2: 15" (several per line) or "Q1 = 10" lines. */
function pairs(lines: string[]): ChartData | undefined {
  const number = String.raw`[-+\u2212]?[$€£¥₹₺₩₽¢]?\s?(?:\d{1,3}(?:,\d{3})+|\d+)?(?:[.,]\d+)?(?:e[-+]?\d+)?\s?%?`;
  const pair = new RegExp(String.raw`\s*([^:=\n]+?)\s*[:=]\s*(${number})\s*(?:[,;]|$)`, 'iy');
  const labels: string[] = [];
  const values: number[] = [];
  for (const line of lines) {
    pair.lastIndex = 0;
    while (pair.lastIndex < line.length) {
      const m = pair.exec(line);
      if (!m) return undefined;
      const value = parseNumber(m[2]!);
      const label = m[1]!.replace(/^[-*•]\s+/, '').trim(); // list bullets
      if (value === undefined || !label) return undefined;
      labels.push(label);
      values.push(value);
      if (labels.length > MAX_CHART_POINTS) return tooMany(labels.length);
    }
  }
  return labels.length ? { labels, series: [{ name: 'Value', values }] } : undefined;
}

const DELIMITERS = ['\t', '|', ';', ','] as const;

/** CSV, TSV, semicolon-separated or a Markdown table: labels in the first column. */
function table(lines: string[]): ChartData | undefined {
  for (const d of DELIMITERS) {
    const rows = lines.map((l) => splitRow(d === '|' ? l.replace(/^\|/, '').replace(/\|$/, '') : l, d));
    const width = rows[0]!.length;
    if (width < 2 || rows.some((r) => r.length !== width)) continue;
    const numeric = (cell: string) => parseNumber(cell) !== undefined;
    // One row of numbers only: the values themselves, numbered.
    if (rows.length === 1 && rows[0]!.every(numeric)) return numbered(rows[0]!.map((c) => parseNumber(c)!));
    const header = rows[0]!.slice(1).some((c) => !numeric(c)) ? rows[0]! : undefined;
    const body = header ? rows.slice(1) : rows;
    if (!body.length) continue;
    if (body.length > MAX_CHART_POINTS) return tooMany(body.length);
    const series: ChartSeries[] = [];
    for (let col = 1; col < width; col++) {
      const values = body.map((row, i) => {
        const v = parseNumber(row[col]!);
        if (v === undefined) {
          const column = header?.[col] ? `column "${header[col]}"` : `column ${col + 1}`;
          throw new ChartDataError(`Row "${row.join(d === '\t' ? ' ' : d)}" (data row ${i + 1}) has no number in ${column}: "${row[col]}". ${CHART_TEXT_EXAMPLE}`);
        }
        return v;
      });
      series.push({ name: header?.[col]?.trim() || (width === 2 ? 'Value' : `Series ${col}`), values });
    }
    return { labels: body.map((r) => r[0]!.trim()), series };
  }
  return undefined;
}

/** One CSV-style row: `"quoted, cells"` and `""` escapes are honoured. */
function splitRow(line: string, delimiter: string): string[] {
  const cells: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"' && !cell.trim()) {
      quoted = true;
      cell = '';
    } else if (c === delimiter) {
      cells.push(cell.trim());
      cell = '';
    } else cell += c;
  }
  cells.push(cell.trim());
  return cells;
}

/** "Apples 10" lines: the last word is the value. */
function labelledLines(lines: string[]): ChartData | undefined {
  const labels: string[] = [];
  const values: number[] = [];
  for (const line of lines) {
    const m = /^(.*\S)\s+(\S+)$/.exec(line);
    const value = m ? parseNumber(m[2]!) : undefined;
    if (!m || value === undefined) return undefined;
    labels.push(m[1]!.replace(/^[-*•]\s+/, ''));
    values.push(value);
  }
  if (labels.length > MAX_CHART_POINTS) return tooMany(labels.length);
  return { labels, series: [{ name: 'Value', values }] };
}

/** Numbers alone, one per line or separated by commas, semicolons or spaces. */
function bareNumbers(lines: string[]): ChartData | undefined {
  const cells = lines.length === 1 ? lines[0]!.split(/[;,\s]+/).filter(Boolean) : lines;
  const values = cells.map(parseNumber);
  if (values.some((v) => v === undefined)) return undefined;
  if (values.length > MAX_CHART_POINTS) return tooMany(values.length);
  return numbered(values as number[]);
}

const numbered = (values: number[]): ChartData => ({ labels: values.map((_, i) => String(i + 1)), series: [{ name: 'Value', values }] });

function tooMany(n: number): never {
  throw new ChartDataError(`The text holds more than ${MAX_CHART_POINTS} points (${n}); a chart shows at most ${MAX_CHART_POINTS}. Aggregate or sample the data first.`);
}
