/**
 * A local estimate of how many tokens a text costs, for the context check before each model
 * request (count_tokens is a network round per request, and not every endpoint has it).
 *
 * It splits text the way the tokenizer does before its byte-pair merges — the GPT-2-style
 * pre-split that @anthropic-ai/tokenizer uses: contractions, an optional space + a run of letters,
 * of digits or of other symbols, whitespace runs — in one pass over the char codes (no regular
 * expression, so no backtracking), and prices each piece from a table by its kind and length.
 * Merges never cross pieces, so only the price of a piece is estimated; the tables below were
 * calibrated on tool results (`npm run bench:tokens -- --fit` reprints them) and are measured on
 * other texts by the same bench.
 */
import type Anthropic from '@anthropic-ai/sdk';

/** What an image costs whatever its size: ~1.15 megapixels, the size the API scales images to. */
export const IMAGE_TOKENS = 1_600;
/** The framing each content block adds around its text (role and block markers, tool ids). */
const BLOCK_OVERHEAD = 4;

/** The kinds of piece, each with its own price table (letter runs by script and case). */
export const PIECE_KINDS = [
  'lower', // ascii letters, lowercase or capitalised ("the", "The")
  'caps', // ascii capitals ("HTML")
  'mixed', // other ascii case patterns ("querySelector", "eXHcY")
  'latin', // letters with accents or other Latin letters ("café", "straße")
  'cyrillic', // and Greek
  'arabic', // and Hebrew
  'cjk', // Han, Hiragana, Katakana
  'hangul',
  'letters', // any other script
  'digits',
  'symbols', // ascii punctuation and symbols ("](", "\"}", "```")
  'spaces',
  'newlines', // a whitespace run holding a line break
] as const;
export type PieceKind = (typeof PIECE_KINDS)[number];

/** Receives the pieces of a text, in order (the bench uses it to calibrate and check the split). */
export interface PieceSink {
  /**
   * A piece from `start` to `end` (UTF-16 offsets, a leading space included), of `kind`, with
   * `length` characters beyond the leading space; for symbol runs, `wide` counts the non-ASCII
   * symbols by their UTF-8 length (2, 3 or 4 bytes) and `length` only the ASCII ones.
   */
  piece(kind: number, space: number, length: number, start: number, end: number, wide2: number, wide3: number, wide4: number): void;
}

// Character classes.
const SP = 1; // U+0020
const WS = 2; // other whitespace
const LF = 3; // a line break
const LO = 4; // a-z
const UP = 5; // A-Z
const DG = 6; // 0-9
const PU = 7; // ascii punctuation
const LX = 8; // non-ascii letters, by script: Latin
const CY = 9;
const AR = 10;
const CJ = 11;
const HG = 12;
const OL = 13; // other letters
const NX = 14; // non-ascii digits and numbers
const S2 = 15; // non-ascii symbols, 2 bytes in UTF-8
const S3 = 16; // 3 bytes
const HI = 17; // a high surrogate: look at the code point
const LO_SURR = 18; // a stray low surrogate

const KIND_OF_SCRIPT: Record<number, number> = { [LX]: 3, [CY]: 4, [AR]: 5, [CJ]: 6, [HG]: 7, [OL]: 8 };

/** Classes of the BMP, filled on first sight of each character (a regex test once per distinct char). */
const CLASS = new Uint8Array(65_536);
for (let c = 0; c < 128; c++) {
  CLASS[c] = c === 32 ? SP : c === 10 || c === 13 ? LF : (c >= 9 && c <= 12) ? WS : c >= 97 && c <= 122 ? LO : c >= 65 && c <= 90 ? UP : c >= 48 && c <= 57 ? DG : PU;
}
// Control characters outside \s are symbols to the tokenizer.
for (let c = 0; c < 32; c++) if (c < 9 || (c > 13 && c < 32)) CLASS[c] = PU;

const IS_SPACE = /\s/u;
const IS_LETTER = /\p{L}/u;
const IS_NUMBER = /\p{N}/u;
const IS_LATIN = /\p{Script=Latin}/u;
const IS_CYRILLIC = /[\p{Script=Cyrillic}\p{Script=Greek}]/u;
const IS_ARABIC = /[\p{Script=Arabic}\p{Script=Hebrew}]/u;
const IS_CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;
const IS_HANGUL = /\p{Script=Hangul}/u;

function classify(c: number): number {
  if (c >= 0xd800 && c <= 0xdbff) return HI;
  if (c >= 0xdc00 && c <= 0xdfff) return LO_SURR;
  const ch = String.fromCharCode(c);
  if (IS_SPACE.test(ch)) return c === 0x2028 || c === 0x2029 || c === 0x85 ? LF : WS;
  if (IS_LETTER.test(ch)) {
    if (IS_LATIN.test(ch)) return LX;
    if (IS_CJK.test(ch)) return CJ;
    if (IS_HANGUL.test(ch)) return HG;
    if (IS_CYRILLIC.test(ch)) return CY;
    if (IS_ARABIC.test(ch)) return AR;
    return OL;
  }
  if (IS_NUMBER.test(ch)) return NX;
  return c < 0x800 ? S2 : S3;
}

const classOf = (c: number): number => CLASS[c] || (CLASS[c] = classify(c));
const isSpaceClass = (k: number) => k === SP || k === WS || k === LF;
const isLetterClass = (k: number) => (k >= LO && k <= UP) || (k >= LX && k <= OL);
const isNumberClass = (k: number) => k === DG || k === NX;
/** Astral code points: CJK extension letters (planes 2 and 3), else symbols (emoji and the like). */
const astralIsLetter = (cp: number) => cp >= 0x20000 && cp <= 0x3ffff;

/**
 * Walks the pieces of `text` as the tokenizer's pre-split makes them:
 * 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
 */
export function walkPieces(text: string, sink: PieceSink): void {
  const n = text.length;
  let i = 0;
  while (i < n) {
    const start = i;
    let c = text.charCodeAt(i);
    let k = classOf(c);
    let space = 0;
    if (isSpaceClass(k)) {
      if (k === SP && i + 1 < n && !isSpaceClass(classOf(text.charCodeAt(i + 1)))) {
        // " word": the space belongs to the piece after it.
        space = 1;
        i++;
        c = text.charCodeAt(i);
        k = classOf(c);
      } else {
        let j = i + 1;
        let breaks = k === LF ? 1 : 0;
        while (j < n) {
          const kj = classOf(text.charCodeAt(j));
          if (!isSpaceClass(kj)) break;
          if (kj === LF) breaks++;
          j++;
        }
        // \s+(?!\S): a run before text leaves its last character to the next piece
        // (a space joins the word; any other whitespace is a piece of its own).
        if (j < n && j - i > 1) {
          j--;
          if (classOf(text.charCodeAt(j)) === LF) breaks--;
        }
        sink.piece(breaks ? 12 : 11, 0, j - i, start, j, 0, 0, 0);
        i = j;
        continue;
      }
    } else if (c === 39 && i + 1 < n) {
      // Contractions, only where a piece starts.
      const d = text.charCodeAt(i + 1);
      const e = i + 2 < n ? text.charCodeAt(i + 2) : 0;
      const len = d === 115 || d === 116 || d === 109 || d === 100 ? 2 : (d === 114 && e === 101) || (d === 118 && e === 101) || (d === 108 && e === 108) ? 3 : 0;
      if (len) {
        sink.piece(0, 0, len - 1, start, i + len, 0, 0, 0);
        i += len;
        continue;
      }
    }

    if (isLetterClass(k) || (k === HI && astralIsLetter(text.codePointAt(i) ?? c))) {
      // ?\p{L}+ — classified by case (ascii) or by the first non-ascii script.
      let script = 0;
      let upper = 0;
      let upperInside = false;
      const from = i;
      while (i < n) {
        const ci = text.charCodeAt(i);
        const ki = classOf(ci);
        if (ki === UP) {
          if (i > from) upperInside = true;
          upper++;
        } else if (ki === HI) {
          if (!astralIsLetter(text.codePointAt(i) ?? ci)) break;
          script ||= CJ;
          i += 2;
          continue;
        } else if (ki >= LX && ki <= OL) {
          script ||= ki;
        } else if (ki !== LO) break;
        i++;
      }
      const len = i - from;
      // "the", "The" | "HTML" | "querySelector" | a script's letters (accented Latin included)
      const kind = script ? KIND_OF_SCRIPT[script]! : !upperInside ? 0 : upper === len ? 1 : 2;
      sink.piece(kind, space, len, start, i, 0, 0, 0);
      continue;
    }
    if (isNumberClass(k)) {
      const from = i;
      while (i < n && isNumberClass(classOf(text.charCodeAt(i)))) i++;
      sink.piece(9, space, i - from, start, i, 0, 0, 0);
      continue;
    }
    // ?[^\s\p{L}\p{N}]+
    let ascii = 0;
    let w2 = 0;
    let w3 = 0;
    let w4 = 0;
    while (i < n) {
      const ci = text.charCodeAt(i);
      const ki = classOf(ci);
      if (ki === PU) ascii++;
      else if (ki === S2) w2++;
      else if (ki === S3 || ki === LO_SURR) w3++;
      else if (ki === HI) {
        const cpi = text.codePointAt(i) ?? ci;
        if (astralIsLetter(cpi)) break;
        w4++;
        i += 2;
        continue;
      } else break;
      i++;
    }
    sink.piece(10, space, ascii, start, i, w2, w3, w4);
  }
}

// ---- Prices, calibrated by scripts/bench-tokens.ts --fit (see the calibration set there) ----

/** Longest piece priced from the table; longer ones add SLOPE per character. */
const TABLE_LENGTH = 16;
// PRICE[kind * 2 + space][length - 1]: mean tokens of a piece of that kind and length (the rows
// of other scripts come from per-character priors: the calibration texts hold few such words).
// SLOPE: tokens per character beyond TABLE_LENGTH. WIDE: tokens of a non-ASCII symbol by its
// UTF-8 length (2, 3, 4 bytes); SPACE_BEFORE_WIDE: of a space before one.
// <fitted by="npm run bench:tokens -- --fit --write">
const PRICE: readonly (readonly number[])[] = [
  [1, 1.01, 1.07, 1.08, 1.2, 1.29, 1.35, 1.62, 1.8, 2.13, 2.17, 2.17, 2.78, 2.84, 3.34, 3.34], // lower
  [1, 1, 1.01, 1.05, 1.13, 1.19, 1.26, 1.43, 1.51, 1.52, 1.64, 1.65, 2.07, 2.07, 2.13, 3.1], // lower after a space
  [1, 1.02, 1.64, 1.64, 1.64, 1.83, 2.85, 2.85, 2.85, 4.5, 4.95, 5.4, 5.85, 6.3, 6.75, 7.2], // caps
  [1, 1.03, 1.43, 1.43, 1.57, 1.64, 1.64, 2.56, 3, 4.5, 4.95, 5.4, 5.85, 6.3, 6.75, 7.2], // caps after a space
  [1, 1.52, 2.04, 2.04, 2.41, 2.82, 3.07, 3.07, 3.49, 3.49, 3.79, 3.79, 3.79, 4.98, 7.43, 7.43], // mixed
  [1, 1.52, 1.52, 1.77, 2.39, 2.39, 2.39, 2.39, 2.83, 2.83, 2.83, 2.83, 2.83, 2.97, 2.97, 3.36], // mixed after a space
  [1, 1.83, 1.85, 2.4, 3, 3.48, 3.68, 3.68, 3.76, 3.76, 5, 5, 5, 5, 5.33, 7.2], // latin
  [1, 1.83, 1.83, 2.12, 2.72, 3.28, 3.28, 3.47, 3.65, 3.76, 4.02, 4.02, 4.14, 4.14, 5.33, 7.2], // latin after a space
  [1.69, 1.69, 2.1, 2.8, 3.5, 4.2, 4.9, 5.6, 6.3, 7, 7.7, 8.4, 9.1, 9.8, 10.5, 11.2], // cyrillic
  [1.69, 1.69, 2.1, 2.8, 3.5, 4.2, 4.9, 5.6, 6.3, 7, 7.7, 8.4, 9.1, 9.8, 10.5, 11.2], // cyrillic after a space
  [1, 1.6, 2.4, 3.2, 4, 4.8, 5.6, 6.4, 7.2, 8, 8.8, 9.6, 10.4, 11.2, 12, 12.8], // arabic
  [1, 1.6, 2.4, 3.2, 4, 4.8, 5.6, 6.4, 7.2, 8, 8.8, 9.6, 10.4, 11.2, 12, 12.8], // arabic after a space
  [1.3, 2.5, 3.42, 4.54, 5.05, 6.62, 7.66, 8.61, 8.98, 10.45, 11.52, 16.8, 16.8, 16.8, 16.8, 17], // cjk
  [1.3, 2.5, 3.42, 5.62, 6.88, 8.75, 9.2, 9.2, 10.09, 10.33, 11.52, 13, 14.71, 14.71, 16.53, 17], // cjk after a space
  [1.3, 3.78, 3.9, 5.2, 6.5, 7.8, 9.1, 10.4, 11.7, 13, 14.3, 15.6, 16.9, 18.2, 19.5, 20.8], // hangul
  [1.3, 3.78, 3.9, 5.2, 6.5, 7.8, 9.1, 10.4, 11.7, 13, 14.3, 15.6, 16.9, 18.2, 19.5, 20.8], // hangul after a space
  [2, 2.4, 3.6, 4.8, 6, 7.2, 8.4, 9.6, 10.8, 12, 13.2, 14.4, 15.6, 16.8, 18, 19.2], // letters
  [1, 2.4, 3.6, 4.8, 6, 7.2, 8.4, 9.6, 10.8, 12, 13.2, 14.4, 15.6, 16.8, 18, 19.2], // letters after a space
  [1, 1, 1.01, 1.37, 2, 2.61, 2.79, 3.07, 3.76, 4.14, 4.55, 5.27, 5.65, 5.81, 6.45, 6.59], // digits
  [1, 1, 1.1, 1.18, 2, 2.25, 2.96, 3.07, 3.76, 4.14, 4.55, 5.27, 5.65, 5.81, 6.45, 6.59], // digits after a space
  [1, 1.01, 1.33, 2.02, 2.43, 2.76, 3.26, 3.88, 4.11, 4.21, 5, 5.41, 5.41, 7, 7.5, 8], // symbols
  [1, 1.04, 1.69, 1.88, 2.53, 3.19, 3.28, 3.88, 4.03, 4.21, 5, 5.41, 5.41, 7, 7.5, 8], // symbols after a space
  [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1], // spaces
  [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1], // spaces after a space
  [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1], // newlines
  [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1], // newlines after a space
];
const SLOPE: readonly number[] = [0.569, 0.569, 0.45, 0.45, 0.701, 0.701, 0.45, 0.45, 0.7, 0.7, 0.8, 0.8, 0.898, 0.898, 1.3, 1.3, 1.2, 1.2, 0.199, 0.199, 0.5, 0.5, 0, 0, 0, 0];
const WIDE: readonly number[] = [0, 0, 1, 0.83, 2.5];
const SPACE_BEFORE_WIDE = 0.2;
// </fitted>

function price(kind: number, space: number, length: number): number {
  const row = PRICE[kind * 2 + space]!;
  return length <= TABLE_LENGTH ? row[length - 1]! : row[TABLE_LENGTH - 1]! + (length - TABLE_LENGTH) * SLOPE[kind * 2 + space]!;
}

class Summer implements PieceSink {
  total = 0;
  piece(kind: number, space: number, length: number, _start: number, _end: number, w2: number, w3: number, w4: number): void {
    if (kind !== 10 || (w2 | w3 | w4) === 0) {
      this.total += price(kind, space, length);
      return;
    }
    this.total += (length ? price(10, space, length) : space * SPACE_BEFORE_WIDE) + w2 * WIDE[2]! + w3 * WIDE[3]! + w4 * WIDE[4]!;
  }
}
const summer = new Summer();

/** The estimated token count of `text`: linear in its length, a few ns per character. */
export function estimateTokens(text: string): number {
  if (!text) return 0;
  summer.total = 0;
  walkPieces(text, summer);
  return Math.round(summer.total);
}

type Block = Anthropic.ContentBlockParam | Anthropic.ContentBlock;

/**
 * The estimated tokens of a message's content as the model receives it: text, tool_use input
 * (as JSON), tool_result content (a string or text and image blocks), images at IMAGE_TOKENS.
 */
export function estimateContentTokens(content: string | readonly Block[]): number {
  if (typeof content === 'string') return estimateTokens(content) + BLOCK_OVERHEAD;
  let total = 0;
  for (const block of content) total += blockTokens(block);
  return total;
}

function blockTokens(block: Block): number {
  switch (block.type) {
    case 'text':
      return BLOCK_OVERHEAD + estimateTokens(block.text);
    case 'tool_use':
      return BLOCK_OVERHEAD + estimateTokens(block.name) + estimateTokens(JSON.stringify(block.input ?? {}));
    case 'tool_result': {
      const inner = block.content;
      if (inner === undefined) return BLOCK_OVERHEAD;
      return BLOCK_OVERHEAD + (typeof inner === 'string' ? estimateTokens(inner) : estimateContentTokens(inner as readonly Block[]));
    }
    case 'image':
      return IMAGE_TOKENS;
    case 'thinking':
      return BLOCK_OVERHEAD + estimateTokens(block.thinking);
    case 'document':
      // A text document costs its text; a PDF is priced like one page image, its pages unknown here.
      return BLOCK_OVERHEAD + (block.source.type === 'text' ? estimateTokens(block.source.data) : IMAGE_TOKENS);
    default:
      return BLOCK_OVERHEAD + estimateTokens(JSON.stringify(block));
  }
}
