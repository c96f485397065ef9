/**
 * The compact text table the model reads: pipe-separated, Markdown-like, one line per row.
 */
export type Cell = string | number | null;

export interface TableLimits {
  /** The whole table text, header included. */
  maxChars: number;
  /** One cell; longer values are cut and end with "…". */
  maxCellChars: number;
}

/** SQLite's own shell prints REALs with 15 significant digits: 2328.6, not 2328.6000000000004. */
export function formatNumber(n: number): string {
  if (Number.isInteger(n)) return String(n);
  return String(Number(n.toPrecision(15)));
}

export function cutCell(text: string, maxCellChars: number): string {
  return text.length > maxCellChars ? `${text.slice(0, Math.max(0, maxCellChars - 1))}…` : text;
}

function cellText(value: Cell): string {
  if (value === null) return 'NULL';
  if (typeof value === 'number') return formatNumber(value);
  // A cell stays on its line: the model must see where a row ends.
  return value.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r\n|\r|\n/g, '\\n');
}

export function headerLines(columns: readonly string[]): string {
  return `| ${columns.map((c) => cellText(c)).join(' | ')} |\n|${columns.map(() => '---').join('|')}|\n`;
}

export function rowLine(row: readonly Cell[]): string {
  return `| ${row.map(cellText).join(' | ')} |\n`;
}
