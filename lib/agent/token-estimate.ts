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
import { base64ImageTokens, MAX_IMAGE_TOKENS } from '../images';

/** What an image of unknown size costs at most: ~1.15 megapixels, the size the API scales images to. */
export const IMAGE_TOKENS = MAX_IMAGE_TOKENS;
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
  'escaped', // ascii letters right after a backslash: JSON's \n, \t, \" run into the next word ("nThe")
  'camel', // humps of words ("querySelector", "HTMLElement", "isFamilyFriendly"), priced hump by hump
  'contraction', // 's 't 're 've 'm 'll 'd
] as const;
export type PieceKind = (typeof PIECE_KINDS)[number];

/** Receives the pieces of a text, in order (the bench uses it to calibrate and check the split). */
export interface PieceSink {
  /**
   * A piece from `start` to `end` (UTF-16 offsets, a leading space included), of `kind` (an index
   * of PIECE_KINDS), with `length` characters beyond the leading space. For symbol runs, `length`
   * counts the ASCII ones and `a`, `b`, `c` the others by their UTF-8 length (2, 3, 4 bytes); for
   * camel-case words, `a` is the number of humps; for CJK runs, `a` counts Han characters and `b`
   * kana; for Latin words, `a` counts letters beyond Latin-1 (ı, ş, ğ, ř, ő…).
   */
  piece(kind: number, space: number, length: number, start: number, end: number, a: number, b: number, c: number): void;
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
const CJ = 11; // Han
const KA = 12; // Hiragana, Katakana
const HG = 13;
const OL = 14; // other letters
const NX = 15; // non-ascii digits and numbers
const S2 = 16; // non-ascii symbols, 2 bytes in UTF-8
const S3 = 17; // 3 bytes
const HI = 18; // a high surrogate: look at the code point
const LO_SURR = 19; // a stray low surrogate

const KIND_OF_SCRIPT: Record<number, number> = { [LX]: 3, [CY]: 4, [AR]: 5, [CJ]: 6, [KA]: 6, [HG]: 7, [OL]: 8 };
const LATIN_KIND = 3;
const CJK_KIND = 6;
const ESCAPED = 13;
const CAMEL = 14;
const CONTRACTION = 15;

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
const IS_HAN = /\p{Script=Han}/u;
const IS_KANA = /[\p{Script=Hiragana}\p{Script=Katakana}]/u;
const IS_HANGUL = /\p{Script=Hangul}/u;

function classify(c: number): number {
  if (c >= 0xd800 && c <= 0xdbff) return HI;
  if (c >= 0xdc00 && c <= 0xdfff) return LO_SURR;
  const ch = String.fromCharCode(c);
  if (IS_SPACE.test(ch)) return c === 0x2028 || c === 0x2029 || c === 0x85 ? LF : WS;
  if (IS_LETTER.test(ch)) {
    if (IS_LATIN.test(ch)) return LX;
    if (IS_HAN.test(ch)) return CJ;
    if (IS_KANA.test(ch)) return KA;
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
        sink.piece(CONTRACTION, 0, len - 1, start, i + len, 0, 0, 0);
        i += len;
        continue;
      }
    }

    if (isLetterClass(k) || (k === HI && astralIsLetter(text.codePointAt(i) ?? c))) {
      // ?\p{L}+ — classified by case (ascii) or by the first non-ascii script.
      let script = 0;
      let upper = 0;
      let upperInside = false;
      // Hump starts: a capital after a small letter, or the last capital of a run before a small one.
      let humps = 1;
      let prev = 0;
      let han = 0;
      let kana = 0;
      let extended = 0;
      const from = i;
      while (i < n) {
        const ci = text.charCodeAt(i);
        const ki = classOf(ci);
        if (ki === UP) {
          if (i > from) upperInside = true;
          if (prev === LO) humps++;
          upper++;
        } else if (ki === LO) {
          if (prev === UP && i - 1 > from && classOf(text.charCodeAt(i - 2)) === UP) humps++;
        } else if (ki === HI) {
          if (!astralIsLetter(text.codePointAt(i) ?? ci)) break;
          script ||= CJ;
          han++;
          i += 2;
          continue;
        } else if (ki >= LX && ki <= OL) {
          script ||= ki;
          if (ki === CJ) han++;
          else if (ki === KA) kana++;
          else if (ki === LX && ci >= 0x100) extended++;
        } else break;
        prev = ki;
        i++;
      }
      const len = i - from;
      // "the", "The" | "HTML" | "querySelector" (humps of 3 letters or more on average) | "eXHcYq" | a script's letters
      let kind = script ? KIND_OF_SCRIPT[script]! : !upperInside ? 0 : upper === len ? 1 : len >= 3 * humps ? CAMEL : 2;
      if (!script && !space && start > 0 && text.charCodeAt(start - 1) === 92) kind = ESCAPED;
      sink.piece(kind, space, len, start, i, kind === CJK_KIND ? han : kind === CAMEL ? humps : kind === LATIN_KIND ? extended : 0, kind === CJK_KIND ? kana : 0, 0);
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
// PRICE[kind * 2 + space][length - 1]: mean tokens of a piece of that kind and length (lengths
// with too few pieces in the calibration texts come from the kind's tokens per character).
// SLOPE: tokens per character beyond TABLE_LENGTH. WIDE: tokens of a non-ASCII symbol by its
// UTF-8 length (2, 3, 4 bytes); SPACE_BEFORE_WIDE: of a space before one. ENGLISH_*, WORD_RISE:
// see wordFactor. CAMEL_FACTOR: see camelPrice. CJK_BASE, HAN_RATE, KANA_RATE: a CJK run's price.
// EXTENDED_EXTRA: per Latin letter beyond Latin-1 (Turkish ı ş ğ, Czech ř ě, Polish ł: the
// vocabulary has few merges with them). COMMON_RUNS: short symbol runs priced as they are.
// <fitted by="npm run bench:tokens -- --fit --write">
const PRICE: readonly (readonly number[])[] = [
  [1, 1.01, 1.07, 1.08, 1.19, 1.27, 1.34, 1.61, 1.77, 2.13, 2.17, 2.24, 2.76, 2.83, 3.25, 4.43], // lower
  [1, 1, 1, 1.02, 1.09, 1.14, 1.21, 1.35, 1.42, 1.43, 1.55, 1.55, 1.82, 1.82, 1.92, 2.7], // lower after a space
  [1, 1.02, 1.66, 1.66, 1.66, 2.07, 2.85, 3.05, 3.05, 4.26, 4.69, 5.11, 5.54, 5.96, 6.39, 6.82], // caps
  [1, 1.03, 1.42, 1.42, 1.57, 1.64, 1.64, 2.56, 3, 4.26, 4.69, 5.11, 5.54, 5.96, 6.39, 6.82], // caps after a space
  [1, 1.6, 2.09, 2.79, 3.21, 4.04, 4.38, 4.78, 5.52, 5.99, 7.27, 7.86, 7.86, 9.4, 9.86, 9.86], // mixed
  [1, 1.6, 1.6, 1.78, 2.34, 4.04, 4.38, 4.38, 5.52, 5.99, 7.27, 7.86, 7.86, 9.4, 9.86, 9.86], // mixed after a space
  [1, 1, 1.13, 1.13, 2.55, 2.87, 3.24, 3.48, 3.48, 3.48, 4.54, 4.54, 5.85, 6.3, 6.75, 7.2], // latin
  [1, 1, 1, 1, 1.46, 1.68, 1.85, 2.08, 2.2, 2.2, 2.59, 2.59, 2.59, 2.59, 3.15, 7.2], // latin after a space
  [1.44, 1.44, 2.33, 2.71, 3.25, 4.31, 4.64, 4.64, 5.29, 6.2, 6.25, 8.22, 8.91, 9.59, 10.28, 10.96], // cyrillic
  [1.44, 1.44, 2.33, 2.71, 3.25, 4.31, 4.64, 4.64, 5.29, 6.2, 6.25, 8.22, 8.91, 9.59, 10.28, 10.96], // cyrillic after a space
  [1, 2.64, 3.83, 4.94, 4.95, 5.59, 6.67, 7.44, 9.49, 10.54, 11.59, 12.65, 13.7, 14.76, 15.81, 16.86], // arabic
  [1, 2.64, 3.83, 4.94, 4.95, 5.59, 6.67, 7.44, 9.49, 10.54, 11.59, 12.65, 13.7, 14.76, 15.81, 16.86], // arabic after a space
  [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16], // cjk (unused: CJK is priced per character)
  [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16], // cjk after a space (unused: CJK is priced per character)
  [2.07, 3.44, 4.68, 5.92, 7.25, 9.59, 11.19, 12.78, 14.38, 15.98, 17.58, 19.18, 20.77, 22.37, 23.97, 25.57], // hangul
  [2.07, 3.44, 4.68, 5.92, 7.25, 9.59, 11.19, 12.78, 14.38, 15.98, 17.58, 19.18, 20.77, 22.37, 23.97, 25.57], // hangul after a space
  [2, 2.4, 3.6, 4.8, 6, 7.2, 8.4, 9.6, 10.8, 12, 13.2, 14.4, 15.6, 16.8, 18, 19.2], // letters
  [1, 2.4, 3.6, 4.8, 6, 7.2, 8.4, 9.6, 10.8, 12, 13.2, 14.4, 15.6, 16.8, 18, 19.2], // letters after a space
  [1, 1, 1.01, 1.4, 2, 2.59, 2.65, 3.08, 3.79, 4.13, 4.54, 5.26, 5.68, 5.81, 6.44, 6.57], // digits
  [1, 1, 1.1, 1.18, 2, 2.25, 2.96, 3.08, 3.79, 4.13, 4.54, 5.26, 5.68, 5.81, 6.44, 6.57], // digits after a space
  [1, 1.12, 1.54, 2.02, 2.34, 2.86, 3.28, 3.76, 4.11, 4.21, 5, 5.41, 5.41, 6.98, 7.48, 7.97], // symbols
  [1, 1.12, 1.52, 2.08, 2.54, 3.08, 3.3, 3.76, 4.03, 4.21, 5, 5.41, 5.41, 6.98, 7.48, 7.97], // symbols after a space
  [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1], // spaces
  [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1], // spaces after a space
  [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1], // newlines
  [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1], // newlines after a space
  [1, 1.43, 1.86, 1.86, 1.99, 1.99, 2.28, 2.28, 2.57, 2.72, 2.94, 2.94, 2.94, 8.28, 8.87, 9.46], // escaped
  [1, 1.43, 1.86, 1.86, 1.99, 1.99, 2.28, 2.28, 2.57, 2.72, 2.94, 2.94, 2.94, 8.28, 8.87, 9.46], // escaped after a space
  [1, 1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5, 5.5, 6, 6.5, 7, 7.5, 8], // camel (unused: priced hump by hump)
  [1, 1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5, 5.5, 6, 6.5, 7, 7.5, 8], // camel after a space (unused: priced hump by hump)
  [1, 1, 2.63, 3.51, 4.39, 5.26, 6.14, 7.02, 7.9, 8.77, 9.65, 10.53, 11.4, 12.28, 13.16, 14.04], // contraction
  [1, 1, 2.63, 3.51, 4.39, 5.26, 6.14, 7.02, 7.9, 8.77, 9.65, 10.53, 11.4, 12.28, 13.16, 14.04], // contraction after a space
];
const SLOPE: readonly number[] = [0.394, 0.394, 0.426, 0.426, 0.608, 0.608, 0.45, 0.45, 0.685, 0.685, 1.054, 1.054, 1, 1, 1.598, 1.598, 1.2, 1.2, 0.199, 0.199, 0.498, 0.498, 0, 0, 0, 0, 0.591, 0.591, 0.5, 0.5, 0.877, 0.877];
const WIDE: readonly number[] = [0, 0, 1.32, 0.84, 2.5];
const SPACE_BEFORE_WIDE = 0.18;
const ENGLISH_PRIOR = 0.425;
const ENGLISH_KNEE = 0.4;
const WORD_RISE = 1.35;
const CAMEL_FACTOR = 1.055;
const CJK_BASE = 0.811;
const HAN_RATE = 1.044;
const KANA_RATE = 1.008;
const EXTENDED_EXTRA = 2.315;
const COMMON_RUNS: readonly (readonly [string, number])[] = [[".",1],["-",1],[",",1],["/",1],["\\",1],[":",1],["_",1],["://",1],[")",1],[" [",1],[" \\\"",1],["=",1],["(",1],[".\\",1],["[",1],[" (",1],["%",1],["](",1],["?",1],["](/",2],["\":\"",1],[" >",1],["\\\"",1],[" *",1],[" {",1],[")\\",1],["\\\":",1],["&",1],["+",1],["\",\"",1],[";",1],[",\"",1],["*",1],["=\\\"",1],[" {#",1],[" \"",1],["\":",1],[" '",1],["\"",1],["),",1],[" =",1],[">",1],[" {\\",1],[" |",1],[").",1],[";\\",1],["*](",2],["\\\",\\",2],[" -",1],["**",1],[" [*",1],[",\\",1],[" /",1],["##",1],["}\\",1],["###",1],[")}]",2],["}]",1],["',",1],[" \\\\[",2],[":\\",1],["\\\\]\\",2],["'",1],[" **",1],[" ===",1],["#",1],["</",1],["}]\\",2],[" {.",2],["--",1],["\":\"<",2],["}",1],[" }\\",1],[");\\",1],["))",1],[",\\\"",1],["\\\">\",\"",2],["/)",1],["\\\">\\",1],["{\"",1],["!",1],["\\\\]](#",3],[" */\\",2],["|",1],["\"}",1],["):",1],[" [\\\"",2],["([*",2],["))\\",1],["\\]",1],["]",1],[">\\",1],[" \\[",1],["\\\"](",3],["]\\",1],[".\\\"\\",2],["\\\"]",2],["```\\",2],[" &&",1],[" :",1],["('",1],["![",1],[" ?",1],[" },\\",2],[" \\\\{",2],["](#",1],[" $",1],["/).",2],[".\"",1],[")}",1],["/?",1],[")}\\",1],["*](/",3],[" <",1],["/\",\"",2],[" ||",1],["_(",1],[" `",1],["?\\",1],[" ##",1],["---\\",2],["=\"",1],["\\\",",1],[" +",1],[" }",1],["/#",1],[").\\",1],["\\\\+",2],[" };\\",2],["\"},{\"",2],["\\\"\\",1],["\\]](#",2],["####",1],["';\\",2],["*.",1],[" .",1],[" &",1],["\":{\"",1],[" [\"",1],[")}],",2],["\"]}]",2],["\\\"]}]\\",3],[" (\\",1],["\",",1],["/)\\",2],["/**",1],["\"](",2],["---",1],[".[\\\\[",3],["\\\\_",2],["```",1],[" ??",1],[" =>",1],[" \\\\\\\\",1],["/\\\",\\",2],[")*,*",2],["=---&",3],[" ...",1],["*,",1],[".\\\"",2]];
// </fitted>

/** Longest symbol run looked up in COMMON_RUNS (the bench's RUN_MAX). */
const RUN_MAX = 6;
const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
const runHash = (text: string, from: number, to: number): number => {
  let h = FNV_OFFSET;
  for (let j = from; j < to; j++) h = Math.imul(h ^ text.charCodeAt(j), FNV_PRIME);
  return h | 0;
};
/** The commonest short symbol runs, by hash: what the vocabulary makes of each. */
const RUN_PRICE = new Map<number, number>(COMMON_RUNS.map(([run, tokens]) => [runHash(run, 0, run.length), tokens]));

/**
 * A short ASCII symbol run: its own price (COMMON_RUNS, else the table), but never below a
 * prefix's, so a run that grows never gets cheaper (a hash per prefix, built as it goes).
 */
function shortRunPrice(text: string, start: number, end: number, space: number): number {
  let h = FNV_OFFSET;
  let best = 0;
  for (let j = start; j < end; j++) {
    h = Math.imul(h ^ text.charCodeAt(j), FNV_PRIME);
    if (j < start + space) continue;
    const own = RUN_PRICE.get(h | 0) ?? price(10, space, j - start - space + 1);
    if (own > best) best = own;
  }
  return best;
}

/** A camel-case word: its humps priced as words of their mean length, scaled by CAMEL_FACTOR. */
function camelPrice(space: number, length: number, humps: number): number {
  const hump = Math.max(1, Math.round(length / humps));
  return (price(0, space, hump) + (humps - 1) * price(0, 0, hump)) * CAMEL_FACTOR;
}

function price(kind: number, space: number, length: number): number {
  const row = PRICE[kind * 2 + space]!;
  return length <= TABLE_LENGTH ? row[length - 1]! : row[TABLE_LENGTH - 1]! + (length - TABLE_LENGTH) * SLOPE[kind * 2 + space]!;
}

/**
 * The most frequent English words (and code's). Words of prose — lowercase or accented Latin, after a space — cost
 * more in a text that has few of them (Spanish, Czech, Latin placeholder text): the vocabulary
 * learnt mostly English. How English the text is so far scales each such word as it comes, so a
 * text's estimate only grows as the text does. Keys and URL parts (no space before) are priced
 * plainly: they are English-like whatever the text around them.
 */
const COMMON_WORDS =
  'the of and to a in is it that for on with as was at by be this are from or an not but have his her had they which you ' +
  'he she we our their there been has were its more all can will would also who one about into than other when what some ' +
  'only may them these such out up if so no do new time two first most over after any many like just i my me us your ' +
  'how where then could should very said each both well here back even use way make see get know ' +
  // and what code is made of: the vocabulary knows it as well
  'const let var return else while true false null import export type async await class string number def self ' +
  'try catch throw void typeof length value name data key id text url';
const COMMON = new Uint8Array(1 << 16);
const wordHash = (text: string, from: number, to: number): number => {
  let h = 0;
  for (let j = from; j < to; j++) h = (Math.imul(h, 31) + (text.charCodeAt(j) | 32)) | 0;
  return (h ^ (h >>> 16)) & 0xffff;
};
for (const w of COMMON_WORDS.split(' ')) COMMON[wordHash(w, 0, w.length)] = 1;
/** Longest common word: longer words are never looked up. */
const COMMON_MAX = 6;

/** Whether the lowercase word at [from, to) is one of COMMON_WORDS (a hash, so rarely a false yes). */
export function isCommonWord(text: string, from: number, to: number): boolean {
  return to - from <= COMMON_MAX && COMMON[wordHash(text, from, to)] === 1;
}

/** How English the text so far is, with a prior of a few typical English words. */
export function englishness(common: number, words: number): number {
  return (common + ENGLISH_PRIOR * PRIOR_WORDS) / (words + PRIOR_WORDS);
}
const PRIOR_WORDS = 20;

/**
 * The factor on a lowercase word's price: 1 for English, rising as the text is less English than
 * ENGLISH_KNEE (both fitted with the tables). Never below 1: a word never costs less than the
 * space it follows, so the estimate only grows as the text does.
 */
export function wordFactor(english: number): number {
  return Math.min(FACTOR_MAX, 1 + WORD_RISE * Math.max(0, ENGLISH_KNEE - english));
}
const FACTOR_MAX = 2;

class Summer implements PieceSink {
  total = 0;
  text = '';
  words = 0;
  common = 0;
  factor = wordFactor(ENGLISH_PRIOR);

  reset(text: string): void {
    this.total = 0;
    this.text = text;
    this.words = 0;
    this.common = 0;
    this.factor = wordFactor(ENGLISH_PRIOR);
  }

  piece(kind: number, space: number, length: number, start: number, end: number, a: number, b: number, c: number): void {
    if (kind === LATIN_KIND) this.total += a * EXTENDED_EXTRA;
    if ((kind === 0 || kind === LATIN_KIND) && space) {
      this.total += price(kind, 1, length) * this.factor;
      this.words++;
      if (kind === 0 && isCommonWord(this.text, start + 1, end)) this.common++;
      // Re-derived every few words: a division per word would be most of a word's cost.
      if ((this.words & 7) === 0) this.factor = wordFactor(englishness(this.common, this.words));
      return;
    }
    if (kind === CAMEL) {
      this.total += camelPrice(space, length, a);
      return;
    }
    if (kind === CJK_KIND) {
      // Per character: Han and kana cost differently, and runs (whole sentences) are long.
      this.total += Math.max(1, CJK_BASE + a * HAN_RATE + b * KANA_RATE + (length - a - b) * 0.5);
      return;
    }
    if (kind !== 10 || (a | b | c) === 0) {
      this.total += kind === 10 && end - start <= RUN_MAX ? shortRunPrice(this.text, start, end, space) : price(kind, space, length);
      return;
    }
    this.total += (length ? price(10, space, length) : space * SPACE_BEFORE_WIDE) + a * WIDE[2]! + b * WIDE[3]! + c * WIDE[4]!;
  }
}
const summer = new Summer();

/** The estimated token count of `text`: linear in its length, a few ns per character. */
export function estimateTokens(text: string): number {
  if (!text) return 0;
  summer.reset(text);
  walkPieces(text, summer);
  const total = summer.total;
  summer.text = '';
  return Math.round(total);
}

type Block = Anthropic.ContentBlockParam | Anthropic.ContentBlock;

/**
 * The estimated tokens of a message's content as the model receives it: text, tool_use input
 * (as JSON), tool_result content (a string or text and image blocks), images by their size
 * (Anthropic's (w × h) / 750, at most IMAGE_TOKENS; a URL image, whose size is unknown, at the most).
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
      return block.source.type === 'base64' ? base64ImageTokens(block.source.data, block.source.media_type) : IMAGE_TOKENS;
    case 'thinking':
      return BLOCK_OVERHEAD + estimateTokens(block.thinking);
    case 'document':
      // A text document costs its text; a PDF is priced like one page image, its pages unknown here.
      return BLOCK_OVERHEAD + (block.source.type === 'text' ? estimateTokens(block.source.data) : IMAGE_TOKENS);
    default:
      return BLOCK_OVERHEAD + estimateTokens(JSON.stringify(block));
  }
}
