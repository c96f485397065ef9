/**
 * Line paging for opfs_read: a window of whole lines (offset = first line, 1-based; limit =
 * line count), the file's total line count, and a note telling the model how to go on.
 *
 * A line ends at "\n" ("\r\n" ends one too: the "\r" stays in the text, so a page is an exact
 * slice of the file). A lone "\r" (classic Mac OS) does not end a line. A final line without
 * "\n" counts; a final "\n" does not start another: "a\nb" and "a\nb\n" both have 2 lines.
 *
 * Besides the line limit there is a character cap, because one line can be a whole minified
 * bundle or a 50 MB CSV without newlines: the window stops at the last whole line that fits,
 * and a single line longer than the cap is cut (the note says so).
 */

import { WorkspaceError } from './errors';

/** Lines returned when the caller gives no limit (the contract's 200). */
export const DEFAULT_LINE_LIMIT = 200;
/** Most characters one read returns (~25k tokens of English). */
export const DEFAULT_MAX_CHARS = 100_000;

export interface PageOptions {
  /** First line, 1-based (default 1). */
  offset?: number;
  /** Lines to return (default DEFAULT_LINE_LIMIT). */
  limit?: number;
  /** Character cap on the returned text (default DEFAULT_MAX_CHARS). */
  maxChars?: number;
}

export interface LinePage {
  /** The lines, exactly as in the file (line endings kept). */
  content: string;
  /** First line shown (1-based); equals offset. */
  offset: number;
  /** Lines shown (a cut line counts). */
  lines: number;
  total_lines: number;
  /** True when the file goes on past the window, or a line was cut. */
  truncated: boolean;
  /** For the model: what is shown and how to read on. Absent when the whole file is shown. */
  note?: string;
}

/** Lines in a text, by the rules above. */
export function countLines(text: string): number {
  if (text.length === 0) return 0;
  let count = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) count++;
  return text.endsWith('\n') ? count : count + 1;
}

function checkCount(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) {
    throw new WorkspaceError('invalid_argument', `${name} must be a whole number of at least 1 (got ${String(value)}).`);
  }
  return value;
}

/** One page of lines. @throws WorkspaceError('invalid_argument') for a bad offset/limit, or an offset past the end. */
export function pageLines(text: string, { offset: rawOffset, limit: rawLimit, maxChars = DEFAULT_MAX_CHARS }: PageOptions = {}): LinePage {
  const offset = checkCount('offset', rawOffset, 1);
  const limit = checkCount('limit', rawLimit, DEFAULT_LINE_LIMIT);
  const total = countLines(text);
  if (offset > Math.max(total, 1)) {
    throw new WorkspaceError('invalid_argument', `offset ${offset} is past the end: the file has ${total} line${total === 1 ? '' : 's'}. Use an offset from 1 to ${Math.max(total, 1)}.`);
  }

  // Index of the first character of line `offset`.
  let start = 0;
  for (let line = 1; line < offset; line++) start = text.indexOf('\n', start) + 1;
  // Index just past line offset+limit-1 (past its "\n"), or the end.
  let end = start;
  let shown = 0;
  while (shown < limit && end < text.length) {
    const nl = text.indexOf('\n', end);
    end = nl < 0 ? text.length : nl + 1;
    shown++;
  }

  let lineCut = false;
  if (end - start > maxChars) {
    const lastBreak = text.lastIndexOf('\n', start + maxChars - 1);
    if (lastBreak >= start) {
      end = lastBreak + 1;
      shown = countLines(text.slice(start, end));
    } else {
      // Not even one line fits: cut it, but not between the halves of a surrogate pair.
      end = start + maxChars;
      const code = text.charCodeAt(end - 1);
      if (code >= 0xd800 && code <= 0xdbff) end--;
      shown = 1;
      lineCut = true;
    }
  }

  const last = offset + shown - 1;
  const more = last < total;
  const page: LinePage = { content: text.slice(start, end), offset, lines: shown, total_lines: total, truncated: more || lineCut };
  if (lineCut) {
    page.note = `Line ${offset} is longer than ${maxChars} characters and was cut after ${end - start}; the rest of that line cannot be shown by line paging.${more ? ` Continue with offset=${offset + 1}.` : ''}`;
  } else if (more) {
    const cutByChars = shown < limit;
    page.note = `Showing lines ${offset}–${last} of ${total}${cutByChars ? ` (cut at ${maxChars} characters)` : ''}. To read on, call again with offset=${last + 1}${cutByChars ? ' and a smaller limit' : ` and limit (e.g. ${Math.min(limit, DEFAULT_LINE_LIMIT)})`}.`;
  } else if (offset > 1) {
    page.note = `Showing lines ${offset}–${last} of ${total} (the end of the file).`;
  }
  return page;
}
