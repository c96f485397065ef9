/**
 * CSV text (RFC 4180): quoted fields, doubled quotes, CRLF / LF / CR line ends, line breaks
 * inside quotes, a UTF-8 byte-order mark.
 */
import { DatabaseError } from './errors';
import type { Cell } from './table-text';

const QUOTE = 0x22;
const COMMA = 0x2c;
const CR = 0x0d;
const LF = 0x0a;

/** Bytes or text from a file, checked to be text: a spreadsheet or a zip renamed .csv is refused here. */
export function decodeCsvText(input: string | Uint8Array, name = 'The file'): string {
  const notText = (why: string) => new DatabaseError('not_csv', `${name} is not a CSV text file: ${why}.`);
  let text: string;
  if (typeof input === 'string') {
    text = input;
  } else {
    if (input.includes(0)) throw notText('it contains NUL bytes (binary data)');
    try {
      // fatal: a byte that is not UTF-8 fails the whole file rather than becoming "�".
      text = new TextDecoder('utf-8', { fatal: true }).decode(input);
    } catch {
      throw notText('it is not valid UTF-8 text (save it as "CSV UTF-8")');
    }
  }
  if (text.includes('\0')) throw notText('it contains NUL characters (binary data)');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** The records of a CSV text, each a list of fields. Blank lines are skipped. */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  const n = text.length;
  let record: string[] = [];
  let quoted = false;
  let i = 0;
  while (i <= n) {
    let field: string;
    quoted = text.charCodeAt(i) === QUOTE;
    if (quoted) {
      field = '';
      let j = i + 1;
      for (;;) {
        const q = text.indexOf('"', j);
        if (q < 0) {
          throw new DatabaseError('invalid_csv', `The CSV text is malformed: a quoted field in record ${records.length + 1} is never closed.`);
        }
        field += text.slice(j, q);
        if (text.charCodeAt(q + 1) === QUOTE) {
          field += '"';
          j = q + 2;
          continue;
        }
        j = q + 1;
        break;
      }
      // Text after the closing quote is kept, as spreadsheets do, rather than failing the file.
      const end = fieldEnd(text, j);
      field += text.slice(j, end);
      i = end;
    } else {
      const end = fieldEnd(text, i);
      field = text.slice(i, end);
      i = end;
    }
    record.push(field);
    if (i >= n) break;
    const c = text.charCodeAt(i);
    if (c === COMMA) {
      i++;
      continue;
    }
    i += c === CR && text.charCodeAt(i + 1) === LF ? 2 : 1;
    if (quoted || !isBlank(record)) records.push(record);
    record = [];
    if (i >= n) return records;
  }
  if (quoted || !isBlank(record)) records.push(record);
  return records;
}

function fieldEnd(text: string, from: number): number {
  let k = from;
  for (; k < text.length; k++) {
    const c = text.charCodeAt(k);
    if (c === COMMA || c === LF || c === CR) break;
  }
  return k;
}

function isBlank(record: string[]): boolean {
  return record.length === 1 && record[0] === '';
}

/** Rows as CSV text with a header line; NULL becomes an empty field. */
export function formatCsv(columns: readonly string[], rows: readonly (readonly Cell[])[]): string {
  const field = (v: Cell): string => {
    if (v === null) return '';
    const s = String(v);
    return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  return [columns, ...rows].map((r) => r.map(field).join(',')).join('\r\n') + '\r\n';
}
