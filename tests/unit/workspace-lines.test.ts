import { describe, expect, it } from 'vitest';
import { WorkspaceError } from '../../lib/workspace/errors';
import { countLines, DEFAULT_LINE_LIMIT, pageLines } from '../../lib/workspace/lines';

const numbered = (n: number, eol = '\n') => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join(eol) + eol;

const refused = (fn: () => unknown): WorkspaceError => {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(WorkspaceError);
    expect((e as WorkspaceError).code).toBe('invalid_argument');
    return e as WorkspaceError;
  }
  throw new Error('accepted');
};

describe('countLines', () => {
  it.each([
    ['', 0],
    ['a', 1],
    ['a\n', 1],
    ['a\nb', 2],
    ['a\nb\n', 2],
    ['\n', 1],
    ['\n\n', 2],
    ['a\r\nb\r\n', 2],
    ['a\rb', 1], // a lone CR does not end a line
  ])('%j has %i', (text, n) => {
    expect(countLines(text)).toBe(n);
  });

  it('counts a million lines fast', () => {
    const text = 'x'.repeat(40).concat('\n').repeat(1_000_000);
    const t0 = performance.now();
    expect(countLines(text)).toBe(1_000_000);
    expect(performance.now() - t0).toBeLessThan(1000);
  });
});

describe('pageLines', () => {
  it('returns a short file whole, with no note', () => {
    const page = pageLines('a\nb\n');
    expect(page).toEqual({ content: 'a\nb\n', offset: 1, lines: 2, total_lines: 2, truncated: false });
  });

  it('gives the first 200 lines of a longer file, the total and how to go on', () => {
    const page = pageLines(numbered(1000));
    expect(page.lines).toBe(DEFAULT_LINE_LIMIT);
    expect(page.content.split('\n')[199]).toBe('line 200');
    expect(page.content.endsWith('line 200\n')).toBe(true);
    expect(page.total_lines).toBe(1000);
    expect(page.truncated).toBe(true);
    expect(page.note).toBe('Showing lines 1–200 of 1000. To read on, call again with offset=201 and limit (e.g. 200).');
  });

  it('pages through a 1,000-line file with offset/limit and reassembles it exactly', () => {
    const text = numbered(1000);
    let out = '';
    let offset = 1;
    for (;;) {
      const page = pageLines(text, { offset, limit: 137 });
      out += page.content;
      if (!page.truncated) break;
      offset += page.lines;
    }
    expect(out).toBe(text);
  });

  it('honours offset and limit', () => {
    const page = pageLines(numbered(1000), { offset: 501, limit: 3 });
    expect(page).toMatchObject({ content: 'line 501\nline 502\nline 503\n', offset: 501, lines: 3, total_lines: 1000, truncated: true });
    expect(page.note).toContain('offset=504');
  });

  it('says when the window reaches the end', () => {
    const page = pageLines(numbered(10), { offset: 8 });
    expect(page).toMatchObject({ content: 'line 8\nline 9\nline 10\n', lines: 3, truncated: false, note: 'Showing lines 8–10 of 10 (the end of the file).' });
  });

  it('keeps CRLF line endings and a last line without newline', () => {
    expect(pageLines('a\r\nb\r\nc', { offset: 2 }).content).toBe('b\r\nc');
  });

  it('handles an empty file', () => {
    expect(pageLines('')).toEqual({ content: '', offset: 1, lines: 0, total_lines: 0, truncated: false });
  });

  it('stops at the last whole line within the character cap', () => {
    const text = numbered(100); // "line N\n": 7–9 characters each
    const page = pageLines(text, { maxChars: 50 });
    expect(page.content).toBe('line 1\nline 2\nline 3\nline 4\nline 5\nline 6\nline 7\n');
    expect(page).toMatchObject({ lines: 7, truncated: true });
    expect(page.note).toContain('cut at 50 characters');
    expect(page.note).toContain('offset=8 and a smaller limit');
  });

  it('cuts a single line longer than the cap, never inside a surrogate pair', () => {
    const text = `${'😀'.repeat(30)}\nnext\n`;
    const page = pageLines(text, { maxChars: 11 });
    expect(page.content).toBe('😀'.repeat(5)); // 10 code units: the 11th would split a pair
    expect(page).toMatchObject({ lines: 1, truncated: true });
    expect(page.note).toContain('Line 1 is longer than 11 characters');
    expect(page.note).toContain('offset=2');
  });

  it.each([
    [{ offset: 0 }, 'offset must be a whole number of at least 1 (got 0)'],
    [{ offset: 1.5 }, 'offset must be a whole number'],
    [{ limit: 0 }, 'limit must be a whole number of at least 1'],
    [{ limit: -3 }, 'limit must be a whole number'],
    [{ offset: Number.NaN }, 'offset must be a whole number'],
  ])('refuses %j', (options, message) => {
    expect(refused(() => pageLines('a\n', options)).message).toContain(message);
  });

  it('refuses an offset past the end, saying how many lines there are', () => {
    expect(refused(() => pageLines(numbered(10), { offset: 11 })).message).toBe('offset 11 is past the end: the file has 10 lines. Use an offset from 1 to 10.');
    expect(refused(() => pageLines('', { offset: 2 })).message).toContain('the file has 0 lines');
  });

  it('pages deep into a large text quickly', () => {
    const text = numbered(500_000);
    const t0 = performance.now();
    const page = pageLines(text, { offset: 400_000, limit: 2 });
    expect(performance.now() - t0).toBeLessThan(1000);
    expect(page.content).toBe('line 400000\nline 400001\n');
    expect(page.total_lines).toBe(500_000);
  });
});
