/**
 * The measures the extraction bench scores with, kept pure (no DOM, no pipeline imports) so that a
 * unit test pins them down (tests/unit/extract-metrics.test.ts):
 *
 * - markdownToText: Markdown as a reader sees it — syntax, images and link URLs removed, link text
 *   kept. Both corpora are scored on plain text: a `**` or a `](…)` inside a segment breaks a
 *   substring match, and URLs are not the page's words.
 * - shingleCounts / meanScores: the held-out set's metric (the article-extraction benchmark's):
 *   Unicode word runs, 4-token shingles, per-page tp/fp/fn over the shingle multisets; precision
 *   and recall are means over pages, F1 the harmonic mean of the two means.
 * - segmentCounts / microScores: trafilatura's corpus metric: its segments as substrings of the
 *   whitespace-normalised output, tp/fp/fn summed over all pages.
 * - decodeHtml: a saved page's bytes decoded as a browser would (BOM, then a declared charset).
 */

// ---------- Markdown → text ----------

const FENCE = /^\s*(`{3,}|~{3,})/;
const IMAGE = /!\[(?:\\.|[^\]\\])*\]\((?:<[^>\n]*>|(?:\\.|[^()\s\\]|\([^()\s]*\))*)(?:\s+"(?:\\.|[^"\\])*")?\)/g;
const LINK = /\[((?:\\.|[^\]\\])*)\]\((?:<[^>\n]*>|(?:\\.|[^()\s\\]|\([^()\s]*\))*)(?:\s+"(?:\\.|[^"\\])*")?\)/g;
/** `<https://…>`: a link whose text is its URL — the text stays. */
const AUTOLINK = /<([a-z][\w+.-]*:[^\s<>]*)>/gi;
const HEADING = /^\s{0,3}#{1,6}(?:\s+|$)/;
const QUOTE = /^(?:\s{0,3}>\s?)+/;
const LIST_ITEM = /^\s*(?:[-*+]|\d{1,9}[.)])\s+(?:\[[ xX]\]\s+)?/;
const RULE = /^\s{0,3}(?:(?:-\s*){3,}|(?:\*\s*){3,}|(?:_\s*){3,})$/;
const TABLE_DIVIDER = /^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*$/;
/** Unescaped emphasis / strike / bracket markers (turndown escapes the page's own * _ [ ]). */
const SYNTAX = /(?<!\\)(?:\*+|_+|~~|\[|\])/g;
const UNESCAPE = /\\([!-/:-@[-`{-~])/g;
const CODE_SPAN = /(`+)([\s\S]*?[^`])\1(?!`)/g;
// Private-use code points: never in page text, never a word character.
const HOLD_OPEN = '\uE000';
const HOLD_CLOSE = '\uE001';
const HELD = /\uE000(\d+)\uE001/g;

/**
 * The plain text of Markdown: headings, quotes, list markers, rules, table pipes, emphasis and
 * escapes gone; images gone (alt text is not page text); links reduced to their text; code kept
 * verbatim (inline and fenced, without the fences). `keep` names spans to leave untouched — the
 * bench passes the `{…}` annotation pattern to score them "as sent" (a `[` in a selector must not
 * read as Markdown).
 */
export function markdownToText(markdown: string, keep?: RegExp): string {
  const held: string[] = [];
  const hold = (s: string) => `${HOLD_OPEN}${held.push(s) - 1}${HOLD_CLOSE}`;
  let fence = '';
  const lines = markdown.split('\n').map((line) => {
    const mark = FENCE.exec(line)?.[1];
    if (mark && (!fence || (mark[0] === fence[0] && mark.length >= fence.length))) {
      fence = fence ? '' : mark;
      return '';
    }
    if (fence) return line;
    return inline(line, keep, hold);
  });
  return lines.join('\n').replace(HELD, (_, i: string) => held[Number(i)] ?? '');
}

function inline(line: string, keep: RegExp | undefined, hold: (s: string) => string): string {
  if (RULE.test(line) || TABLE_DIVIDER.test(line)) return '';
  let s = line;
  if (keep) s = s.replace(new RegExp(keep.source, keep.flags.includes('g') ? keep.flags : `${keep.flags}g`), hold);
  s = s.replace(CODE_SPAN, (_, _ticks: string, code: string) => hold(code.replace(/^ (.*) $/, '$1')));
  s = s.replace(HEADING, '').replace(QUOTE, '').replace(LIST_ITEM, '');
  if (/^\s*\|/.test(s)) s = s.replace(/(?<!\\)\|/g, ' ');
  s = s.replace(IMAGE, ' ');
  s = s.replace(AUTOLINK, (_, url: string) => hold(url));
  // Innermost first: a link's text may hold another bracketed span (a control line).
  for (let before = ''; before !== s; ) {
    before = s;
    s = s.replace(LINK, '$1');
  }
  s = s.replace(SYNTAX, '').replace(/\\$/, '');
  return s.replace(UNESCAPE, '$1');
}

// ---------- the held-out set's metric: 4-token shingles ----------

export const SHINGLE_SIZE = 4;
const WORD = /[\p{L}\p{N}_]+/gu;

/** Unicode word runs, case kept. */
export function wordTokens(text: string): string[] {
  return text.match(WORD) ?? [];
}

/**
 * The multiset of n-token shingles; a text shorter than n is one shingle (as the benchmark's own
 * scorer does), an empty text none.
 */
export function shingles(tokens: readonly string[], n = SHINGLE_SIZE): Map<string, number> {
  const out = new Map<string, number>();
  if (!tokens.length) return out;
  for (let i = 0; i < Math.max(1, tokens.length - n + 1); i++) {
    const key = tokens.slice(i, i + n).join(' ');
    out.set(key, (out.get(key) ?? 0) + 1);
  }
  return out;
}

export interface Counts {
  tp: number;
  fp: number;
  fn: number;
}

/** tp / fp / fn of one page: shingles of the output against the ground truth's, as multisets. */
export function shingleCounts(output: string, truth: string): Counts {
  const got = shingles(wordTokens(output));
  const want = shingles(wordTokens(truth));
  let tp = 0;
  let fp = 0;
  for (const [k, n] of got) {
    const common = Math.min(n, want.get(k) ?? 0);
    tp += common;
    fp += n - common;
  }
  let all = 0;
  for (const n of want.values()) all += n;
  return { tp, fp, fn: all - tp };
}

export interface Scores {
  precision: number;
  recall: number;
  f1: number;
}

const harmonic = (p: number, r: number) => (p + r ? (2 * p * r) / (p + r) : 0);

/** Precision: mean over pages with tp+fp > 0; recall: mean over pages with tp+fn > 0; F1 of the means. */
export function meanScores(pages: readonly Counts[]): Scores {
  const ps = pages.filter((c) => c.tp + c.fp > 0).map((c) => c.tp / (c.tp + c.fp));
  const rs = pages.filter((c) => c.tp + c.fn > 0).map((c) => c.tp / (c.tp + c.fn));
  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
  const precision = mean(ps);
  const recall = mean(rs);
  return { precision, recall, f1: harmonic(precision, recall) };
}

// ---------- trafilatura's corpus metric: segments as substrings ----------

export interface SegmentCounts extends Counts {
  tn: number;
}

/**
 * Whitespace normalised, and soft hyphens (U+00AD, invisible unless a line breaks there) left out
 * on both sides: some of the corpus's segments carry the page's soft hyphens, and a reader that
 * drops them (the reader does: they split words for the model) shows the same text.
 */
const squash = (s: string) => s.replace(/\u00ad/g, '').replace(/\s+/g, ' ').trim();

/**
 * One page: tp = "with" segments found in the output, fn = the rest; fp = "without" segments
 * found, tn = the rest. No output (a crash, an empty page) finds nothing.
 */
export function segmentCounts(output: string | null, withSegments: readonly string[], withoutSegments: readonly string[]): SegmentCounts {
  const text = squash(output ?? '');
  const found = (seg: string) => text.length > 0 && text.includes(squash(seg));
  const tp = withSegments.filter(found).length;
  const fp = withoutSegments.filter(found).length;
  return { tp, fn: withSegments.length - tp, fp, tn: withoutSegments.length - fp };
}

/** Summed over all pages (micro), as the corpus's scorer does. */
export function microScores(pages: readonly SegmentCounts[]): Scores & { accuracy: number } {
  const sum = { tp: 0, fp: 0, fn: 0, tn: 0 };
  for (const c of pages) {
    sum.tp += c.tp;
    sum.fp += c.fp;
    sum.fn += c.fn;
    sum.tn += c.tn;
  }
  const precision = sum.tp + sum.fp ? sum.tp / (sum.tp + sum.fp) : 0;
  const recall = sum.tp + sum.fn ? sum.tp / (sum.tp + sum.fn) : 0;
  const all = sum.tp + sum.fp + sum.fn + sum.tn;
  return { precision, recall, f1: harmonic(precision, recall), accuracy: all ? (sum.tp + sum.tn) / all : 0 };
}

// ---------- a saved page's bytes → text ----------

const META_CHARSET = /<meta\b[^>]*?\bcharset\s*=\s*["']?\s*([\w.:-]+)/i;
const HEAD_END = /<\/head\s*>|<body\b/i;

/**
 * Decodes a saved page as a browser would: a byte-order mark wins, then the charset its <meta>
 * declares (charset= or http-equiv content-type, looked for in the head: a browser that meets it
 * after its 1,024-byte prescan re-decodes); utf-16 declared in the page means utf-8 (the spec's
 * rule); no usable declaration: UTF-8 if the bytes are valid UTF-8, else windows-1252 (a browser's
 * detector lands there for the pages of this corpus; its default for Western locales).
 */
export function decodeHtml(bytes: Uint8Array): { text: string; encoding: string } {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return { text: new TextDecoder('utf-8').decode(bytes.subarray(3)), encoding: 'utf-8' };
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return { text: new TextDecoder('utf-16be').decode(bytes.subarray(2)), encoding: 'utf-16be' };
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return { text: new TextDecoder('utf-16le').decode(bytes.subarray(2)), encoding: 'utf-16le' };
  const ascii = new TextDecoder('windows-1252').decode(bytes.subarray(0, 64 * 1024));
  const end = HEAD_END.exec(ascii)?.index ?? ascii.length;
  const label = META_CHARSET.exec(ascii.slice(0, Math.max(end, 1024)))?.[1];
  if (label) {
    let encoding: string | undefined;
    try {
      encoding = new TextDecoder(label).encoding;
    } catch {
      encoding = undefined; // an unknown label: as if none
    }
    if (encoding) {
      if (encoding.startsWith('utf-16')) encoding = 'utf-8';
      return { text: new TextDecoder(encoding).decode(bytes), encoding };
    }
  }
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes), encoding: 'utf-8' };
  } catch {
    return { text: new TextDecoder('windows-1252').decode(bytes), encoding: 'windows-1252' };
  }
}
