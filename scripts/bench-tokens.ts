/**
 * The local token estimate (lib/agent/token-estimate.ts) against exact counts from
 * @anthropic-ai/tokenizer (what the fake model counts with), on tool results as the model gets
 * them: get_tab_content's annotated Markdown and web_fetch's results for Mozilla Readability's
 * test pages, run through the real pipeline in jsdom (scripts/token-corpus.ts says how).
 *
 *   npm run bench:tokens [-- --fit [--write]] [--fresh] [--verbose]
 *
 * Calibration and measurement use disjoint texts: the estimator's price tables are fitted on the
 * calibration set only (--fit prints new tables, --write puts them into token-estimate.ts), and its error is
 * reported on the measured set, which it never saw (the calibration set's error is printed too,
 * for comparison). Target: mean absolute error and total error within 10% on the measured set.
 *
 * Building the corpus runs extractPage twice per page in jsdom (minutes on a busy machine), so
 * that part is kept in .output/bench-tokens/, keyed by a hash of lib/extract and the pages and by
 * PAGES_VERSION; --fresh rebuilds it.
 */
import { getTokenizer } from '@anthropic-ai/tokenizer';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { englishness, estimateTokens, isCommonWord, PIECE_KINDS, walkPieces, type PieceSink } from '../lib/agent/token-estimate';
import { FIXTURES_DIR } from '../tests/harness/fixtures';
import { otherSamples, pageSamples, PAGES_VERSION, type Sample } from './token-corpus';

const args = process.argv.slice(2);
const flag = (name: string) => args.includes(name);

// ---------- the corpus, cached ----------

function hashOf(dirs: string[], files: string[]): string {
  const h = createHash('sha1');
  const walk = (p: string) => {
    if (!existsSync(p)) return;
    if (statSync(p).isDirectory()) for (const e of readdirSync(p).sort()) walk(path.join(p, e));
    else h.update(p).update(readFileSync(p));
  };
  for (const d of dirs) walk(d);
  for (const f of files) walk(f);
  return h.digest('hex').slice(0, 16);
}

function loadCorpus(): Sample[] {
  const key = `${PAGES_VERSION}-${hashOf(['lib/extract', path.join(FIXTURES_DIR, 'readability')], ['lib/policy/fence.ts'])}`;
  const dir = path.resolve('.output/bench-tokens');
  const file = path.join(dir, `pages-${key}.json`);
  let pages: Sample[];
  if (!flag('--fresh') && existsSync(file)) pages = JSON.parse(readFileSync(file, 'utf8')) as Sample[];
  else {
    console.log('reading the Readability pages (extractPage in jsdom, twice per page; cached afterwards)…');
    const t0 = performance.now();
    pages = pageSamples();
    console.log(`  ${pages.length} texts in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(file, JSON.stringify(pages));
  }
  return [...pages, ...otherSamples()];
}

// ---------- exact counts ----------

const tokenizer = getTokenizer();
/** As countTokens does it (NFKC first), without building a tokenizer per call. */
const exact = (text: string) => tokenizer.encode(text.normalize('NFKC'), 'all').length;

// ---------- fitting ----------

const TABLE_LENGTH = 16;
const CAMEL = PIECE_KINDS.indexOf('camel');
const LATIN = PIECE_KINDS.indexOf('latin');
const CJK = PIECE_KINDS.indexOf('cjk');
/** Symbol runs this long or shorter may be priced as they are; the RUNS_KEPT commonest are. */
const RUN_MAX = 6;
const RUNS_KEPT = 160;
const ROWS = PIECE_KINDS.length * 2;
/** Fewer pieces than this of a kind and length: the entry is derived, not averaged. */
const MIN_COUNT = 8;
const LONG_MIN_COUNT = 50;
/**
 * Tokens per character of a kind whose calibration pieces hold fewer than 400 characters in all
 * (otherwise the kind's own rate is used): rough rates of a byte-level, mostly English vocabulary.
 */
const PRIOR_PER_CHAR: Record<string, number> = { latin: 0.45, cyrillic: 0.7, arabic: 1, cjk: 1, hangul: 1.3, letters: 1.2, mixed: 0.35, caps: 0.45, digits: 0.4, symbols: 0.5 };

interface Acc {
  count: Float64Array;
  sum: Float64Array;
  /** Per row: pieces longer than the table, as (length, tokens). */
  long: [number, number][][];
  /** Symbol runs with no ascii: [space, w2, w3, w4, tokens]. */
  wide: number[][];
  /** Words of prose (lowercase after a space, Latin): [kind, space, length, tokens, englishness of the text before them, letters beyond Latin-1]. */
  words: number[][];
  /** CJK runs: [length, han, kana, tokens]. */
  cjk: number[][];
  /** Camel-case words: [space, length, humps, tokens]. */
  camels: number[][];
}

function fit(samples: Sample[]) {
  const acc: Acc = { count: new Float64Array(ROWS * TABLE_LENGTH), sum: new Float64Array(ROWS * TABLE_LENGTH), long: Array.from({ length: ROWS }, () => []), wide: [], words: [], camels: [], cjk: [] };
  const memo = new Map<string, number>();
  const priceOf = (s: string) => {
    let n = memo.get(s);
    if (n === undefined) memo.set(s, (n = exact(s)));
    return n;
  };
  let commonWords = 0;
  let allWords = 0;
  const runs = new Map<string, { count: number; tokens: number; space: number; length: number }>();
  for (const sample of samples) {
    const text = sample.text;
    // As the estimator does it: englishness re-derived every 8 lowercase words.
    let words = 0;
    let common = 0;
    let english = englishness(0, 0);
    const sink: PieceSink = {
      piece(kind, space, length, start, end, w2, w3, w4) {
        const tokens = priceOf(text.slice(start, end));
        if ((kind === 0 && space) || kind === LATIN) {
          acc.words.push([kind, space, length, tokens, english, kind === LATIN ? w2 : 0]);
          if (!space) return;
          words++;
          if (kind === 0 && isCommonWord(text, start + 1, end)) common++;
          if ((words & 7) === 0) english = englishness(common, words);
          return;
        }
        if (kind === CJK) {
          acc.cjk.push([length, w2, w3, tokens]);
          return;
        }
        if (kind === CAMEL) {
          acc.camels.push([space, length, w2, tokens]);
          return;
        }
        if (kind === 10 && (w2 | w3 | w4)) {
          if (!length) acc.wide.push([space, w2, w3, w4, tokens]);
          return;
        }
        if (kind === 10 && end - start <= RUN_MAX) {
          // Short symbol runs are priced as they are when common (below), by the table otherwise.
          const run = text.slice(start, end);
          const seen = runs.get(run);
          if (seen) seen.count++;
          else runs.set(run, { count: 1, tokens, space, length });
          return;
        }
        const row = kind * 2 + space;
        if (length <= TABLE_LENGTH) {
          acc.count[row * TABLE_LENGTH + length - 1]! += 1;
          acc.sum[row * TABLE_LENGTH + length - 1]! += tokens;
        } else acc.long[row]!.push([length, tokens]);
      },
    };
    walkPieces(text, sink);
    commonWords += common;
    allWords += words;
  }
  const englishPrior = commonWords / Math.max(1, allWords);
  // The commonest short symbol runs ("](", "\":\"", "},{\"") cost what the vocabulary says; the
  // rest feed the symbols rows. A piece's count is the same wherever it occurs (merges never
  // cross pieces), so these prices are exact, not averages.
  const byUse = [...runs.entries()].sort((a, b) => b[1].count - a[1].count || (a[0] < b[0] ? -1 : 1));
  const commonRuns = byUse.slice(0, RUNS_KEPT).filter(([, r]) => r.count >= MIN_COUNT);
  const kept = new Set(commonRuns.map(([run]) => run));
  for (const [run, r] of runs) {
    if (kept.has(run)) continue;
    const row = 10 * 2 + r.space;
    acc.count[row * TABLE_LENGTH + r.length - 1]! += r.count;
    acc.sum[row * TABLE_LENGTH + r.length - 1]! += r.count * r.tokens;
  }

  const price: number[][] = [];
  const slope: number[] = [];
  for (let row = 0; row < ROWS; row++) {
    const kind = PIECE_KINDS[row >> 1]!;
    const twin = row ^ 1;
    // Tokens per character: from the kind's own pieces when there are enough, else the prior.
    let pooledTokens = 0;
    let pooledChars = 0;
    for (const r of [row, twin]) {
      for (let l = 1; l <= TABLE_LENGTH; l++) {
        pooledTokens += acc.sum[r * TABLE_LENGTH + l - 1]!;
        pooledChars += acc.count[r * TABLE_LENGTH + l - 1]! * l;
      }
      for (const [l, t] of acc.long[r]!) {
        pooledTokens += t;
        pooledChars += l;
      }
    }
    const prior = pooledChars >= 400 ? pooledTokens / pooledChars : (PRIOR_PER_CHAR[kind] ?? 0.5);
    const entries: number[] = [];
    for (let l = 1; l <= TABLE_LENGTH; l++) {
      const at = (r: number) => (acc.count[r * TABLE_LENGTH + l - 1]! >= MIN_COUNT ? acc.sum[r * TABLE_LENGTH + l - 1]! / acc.count[r * TABLE_LENGTH + l - 1]! : undefined);
      let value = at(row) ?? at(twin);
      // Whitespace runs cost one token each whatever their length, in this vocabulary.
      if (value === undefined) value = kind === 'spaces' || kind === 'newlines' ? 1 : Math.max(1, prior * l);
      entries.push(value);
    }
    // Never cheaper for a longer piece: keeps the estimate monotone as text grows.
    for (let l = 1; l < TABLE_LENGTH; l++) entries[l] = Math.max(entries[l]!, entries[l - 1]!);
    price.push(entries.map((x) => Math.round(x * 100) / 100));
    // Beyond the table: tokens per extra character over both rows of the kind (long pieces are
    // rare), fitted as a line through them; too few of them, and the prior rate is used.
    const longs = [...acc.long[row]!, ...acc.long[twin]!];
    let slopeValue = kind === 'spaces' || kind === 'newlines' ? 0 : prior;
    if (longs.length >= LONG_MIN_COUNT) {
      const mx = longs.reduce((a, [l]) => a + l, 0) / longs.length;
      const my = longs.reduce((a, [, t]) => a + t, 0) / longs.length;
      let num = 0;
      let den = 0;
      for (const [l, t] of longs) {
        num += (l - mx) * (t - my);
        den += (l - mx) ** 2;
      }
      if (den > 0) slopeValue = num / den;
    }
    slope.push(Math.round(Math.max(0, slopeValue) * 1000) / 1000);
  }

  // Words of prose (lowercase or Latin after a space): their price rises as the text is less
  // English than a knee, 1 + rise * max(0, knee - englishness); Latin words add `extra` per letter
  // beyond Latin-1. For each knee on a grid: the rows refitted on (tokens - extras) / factor, the
  // rise and the extra by least squares, three times over; the knee that fits best wins.
  const ROWS_FITTED = [0 * 2 + 1, LATIN * 2, LATIN * 2 + 1];
  const wordPrice = (row: number, length: number) => {
    const r = price[row]!;
    return length <= TABLE_LENGTH ? r[length - 1]! : r[TABLE_LENGTH - 1]! + (length - TABLE_LENGTH) * slope[row]!;
  };
  let extra = 0;
  const refit = (g: (f: number) => number) => {
    for (const row of ROWS_FITTED) {
      const sums = new Float64Array(TABLE_LENGTH);
      const counts = new Float64Array(TABLE_LENGTH);
      for (const [kind, space, length, t, f, ext] of acc.words) {
        if (kind! * 2 + space! !== row || length! > TABLE_LENGTH) continue;
        sums[length! - 1]! += (t! - extra * ext!) / (space ? g(f!) : 1);
        counts[length! - 1]! += 1;
      }
      const r = price[row]!;
      for (let l = 0; l < TABLE_LENGTH; l++) if (counts[l]! >= MIN_COUNT) r[l] = Math.max(1, Math.round((sums[l]! / counts[l]!) * 100) / 100);
      for (let l = 1; l < TABLE_LENGTH; l++) r[l] = Math.max(r[l]!, r[l - 1]!);
    }
  };
  refit(() => 1);
  const firstRows = ROWS_FITTED.map((row) => price[row]!.slice());
  let best = { knee: 0, rise: 0, extra: 0, sse: Infinity, rows: firstRows };
  for (let knee = 0.05; knee <= 0.5001; knee += 0.05) {
    ROWS_FITTED.forEach((row, j) => (price[row] = firstRows[j]!.slice()));
    let rise = 0;
    extra = 0;
    const g = (f: number) => Math.min(2, 1 + rise * Math.max(0, knee - f));
    for (let round = 0; round < 3; round++) {
      let num = 0;
      let den = 0;
      for (const [kind, space, length, t, f, ext] of acc.words) {
        if (!space) continue;
        const p = wordPrice(kind! * 2 + 1, length!);
        const h = Math.max(0, knee - f!);
        num += p * h * (t! - extra * ext! - p);
        den += p * p * h * h;
      }
      rise = den ? Math.max(0, num / den) : 0;
      let en = 0;
      let ed = 0;
      for (const [kind, space, length, t, f, ext] of acc.words) {
        if (kind !== LATIN || !ext) continue;
        const p = wordPrice(kind * 2 + space!, length!) * (space ? g(f!) : 1);
        en += (t! - p + extra * ext!) * ext!;
        ed += ext! * ext!;
      }
      extra = ed >= MIN_COUNT ? Math.max(0, en / ed) : 0;
      refit(g);
    }
    let sse = 0;
    for (const [kind, space, length, t, f, ext] of acc.words) sse += (t! - wordPrice(kind! * 2 + space!, length!) * (space ? g(f!) : 1) - extra * ext!) ** 2;
    if (sse < best.sse) best = { knee: Math.round(knee * 100) / 100, rise, extra, sse, rows: ROWS_FITTED.map((row) => price[row]!.slice()) };
  }
  ROWS_FITTED.forEach((row, j) => (price[row] = best.rows[j]!));

  // CJK runs: base + han * a + kana * b, by least squares.
  const cjk = solve3(acc.cjk.map(([length, han, kana, t]) => [[1, han!, kana!], t! - 0.5 * (length! - han! - kana!)] as const)) ?? [0.5, 1, 0.8];

  // Non-ascii symbols: tokens per symbol by UTF-8 length, from runs of one width, then the space.
  const perWidth = [2, 3, 4].map((w) => {
    const runs = acc.wide.filter((r) => r[0] === 0 && r[w - 1]! > 0 && r.slice(1, 4).filter((x) => x > 0).length === 1);
    const chars = runs.reduce((a, r) => a + r[w - 1]!, 0);
    return chars >= MIN_COUNT ? runs.reduce((a, r) => a + r[4]!, 0) / chars : [1, 1.5, 2.5][w - 2]!;
  });
  const spaced = acc.wide.filter((r) => r[0] === 1);
  const spaceCost = spaced.length >= MIN_COUNT ? spaced.reduce((a, r) => a + r[4]! - r[1]! * perWidth[0]! - r[2]! * perWidth[1]! - r[3]! * perWidth[2]!, 0) / spaced.length : 0.5;

  // Camel-case words, once the word rows are final: one factor on their hump-by-hump price. The
  // tables in force are the module's, so price with the fitted rows by hand.
  let camelNum = 0;
  let camelDen = 0;
  for (const [space, length, humps, t] of acc.camels) {
    const hump = Math.max(1, Math.round(length! / humps!));
    const p = wordPrice(space!, hump) + (humps! - 1) * wordPrice(0, hump);
    camelNum += p * t!;
    camelDen += p * p;
  }
  const camelFactor = acc.camels.length >= MIN_COUNT && camelDen ? camelNum / camelDen : 1;
  const r3 = (x: number) => Math.round(x * 1000) / 1000;
  return {
    price, slope, wide: perWidth.map((x) => Math.round(x * 100) / 100), spaceBeforeWide: Math.round(Math.max(0, spaceCost) * 100) / 100,
    englishPrior: r3(englishPrior), knee: best.knee, rise: r3(best.rise), camelFactor: r3(camelFactor),
    commonRuns: commonRuns.map(([run, r]) => [run, r.tokens] as const),
    cjk: cjk.map(r3),
    extendedExtra: r3(best.extra),
  };
}

const ESTIMATOR = path.resolve('lib/agent/token-estimate.ts');
const FITTED = /(\/\/ <fitted[^>]*>\n)[\s\S]*?(\/\/ <\/fitted>)/;

/** The tables as TypeScript; with --write, put in place in the estimator. */
/** Least squares for three coefficients (normal equations, Gaussian elimination); null if singular. */
function solve3(rows: readonly (readonly [readonly number[], number])[]): number[] | null {
  if (rows.length < MIN_COUNT) return null;
  const m = [0, 1, 2].map(() => [0, 0, 0, 0]);
  for (const [x, y] of rows) for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 3; j++) m[i]![j]! += x[i]! * x[j]!;
    m[i]![3]! += x[i]! * y;
  }
  for (let c = 0; c < 3; c++) {
    const p = [c, c + 1, c + 2].filter((r) => r < 3).reduce((a, r) => (Math.abs(m[r]![c]!) > Math.abs(m[a]![c]!) ? r : a), c);
    [m[c], m[p]] = [m[p]!, m[c]!];
    if (Math.abs(m[c]![c]!) < 1e-9) return null;
    for (let r = 0; r < 3; r++) if (r !== c) {
      const k = m[r]![c]! / m[c]![c]!;
      for (let j = c; j < 4; j++) m[r]![j]! -= k * m[c]![j]!;
    }
  }
  return [0, 1, 2].map((i) => m[i]![3]! / m[i]![i]!);
}

function printFit(f: ReturnType<typeof fit>) {
  const rows = f.price.map((r, i) => `  [${r.join(', ')}], // ${PIECE_KINDS[i >> 1]}${i & 1 ? ' after a space' : ''}${i >> 1 === CJK ? ' (unused: CJK is priced per character)' : i >> 1 === CAMEL ? ' (unused: priced hump by hump)' : ''}`);
  const code = [
    `const PRICE: readonly (readonly number[])[] = [\n${rows.join('\n')}\n];`,
    `const SLOPE: readonly number[] = [${f.slope.join(', ')}];`,
    `const WIDE: readonly number[] = [0, 0, ${f.wide.join(', ')}];`,
    `const SPACE_BEFORE_WIDE = ${f.spaceBeforeWide};`,
    `const ENGLISH_PRIOR = ${f.englishPrior};`,
    `const ENGLISH_KNEE = ${f.knee};`,
    `const WORD_RISE = ${f.rise};`,
    `const CAMEL_FACTOR = ${f.camelFactor};`,
    `const CJK_BASE = ${f.cjk[0]};`,
    `const HAN_RATE = ${f.cjk[1]};`,
    `const KANA_RATE = ${f.cjk[2]};`,
    `const EXTENDED_EXTRA = ${f.extendedExtra};`,
    `const COMMON_RUNS: readonly (readonly [string, number])[] = ${JSON.stringify(f.commonRuns)};`,
  ].join('\n');
  console.log(`\n${code}`);
  if (flag('--write')) {
    const source = readFileSync(ESTIMATOR, 'utf8');
    if (!FITTED.test(source)) throw new Error(`no <fitted> block in ${ESTIMATOR}`);
    writeFileSync(ESTIMATOR, source.replace(FITTED, (_m, open: string, close: string) => `${open}${code}\n${close}`));
    console.log(`\nwritten to ${path.relative(process.cwd(), ESTIMATOR)}`);
  }
}

// ---------- measuring ----------

interface Row {
  sample: Sample;
  exact: number;
  estimate: number;
  error: number;
}

function measure(samples: Sample[]): Row[] {
  return samples.map((sample) => {
    const e = exact(sample.text);
    const est = estimateTokens(sample.text);
    return { sample, exact: e, estimate: est, error: e ? (est - e) / e : 0 };
  });
}

const pct = (x: number) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`;

function report(title: string, rows: Row[]): { mae: number; total: number } {
  const groups = new Map<string, Row[]>();
  for (const r of rows) groups.set(r.sample.kind, [...(groups.get(r.sample.kind) ?? []), r]);
  groups.set('all', rows);
  console.log(`\n${title}`);
  console.log('  kind              texts   exact tokens   mean |error|   total error   worst text');
  let all = { mae: 0, total: 0 };
  for (const [kind, list] of groups) {
    const mae = list.reduce((a, r) => a + Math.abs(r.error), 0) / list.length;
    const ex = list.reduce((a, r) => a + r.exact, 0);
    const est = list.reduce((a, r) => a + r.estimate, 0);
    const total = (est - ex) / ex;
    const worst = list.reduce((a, r) => (Math.abs(r.error) > Math.abs(a.error) ? r : a));
    console.log(`  ${kind.padEnd(16)} ${String(list.length).padStart(6)} ${String(ex).padStart(14)} ${(mae * 100).toFixed(1).padStart(13)}% ${pct(total).padStart(13)}   ${worst.sample.name} (${pct(worst.error)}, ${worst.exact} tokens)`);
    if (kind === 'all') all = { mae, total };
  }
  if (flag('--verbose')) for (const r of rows) console.log(`    ${r.sample.kind.padEnd(16)} ${r.sample.name.padEnd(48)} ${String(r.exact).padStart(7)} ${String(r.estimate).padStart(7)} ${pct(r.error)}`);
  return all;
}

function speed(samples: Sample[]) {
  const text = samples.map((s) => s.text).join('\n');
  const bytes = Buffer.byteLength(text, 'utf8');
  estimateTokens(text); // warm up: classify every character once, let the JIT settle
  const times: number[] = [];
  for (let i = 0; i < 7; i++) {
    const t0 = performance.now();
    estimateTokens(text);
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  const ms = times[3]!;
  const tokens = exact(text);
  // A 150,000-token conversation, estimated whole (callers estimate only what was added).
  const perToken = ms / tokens;
  console.log(`\nspeed: ${(bytes / 1e6).toFixed(1)} MB (${tokens} tokens) in ${ms.toFixed(1)} ms median = ${(bytes / 1e6 / (ms / 1000)).toFixed(0)} MB/s; ` +
    `a whole 150,000-token conversation: ${(perToken * 150_000).toFixed(2)} ms; one 8,000-token tool result: ${(perToken * 8_000).toFixed(3)} ms`);
}

/** The split must be the tokenizer's: summed per piece, exact counts must equal the whole's. */
function splitCheck(samples: Sample[]) {
  let whole = 0;
  let pieces = 0;
  for (const s of samples) {
    whole += exact(s.text);
    walkPieces(s.text, { piece: (_k, _s, _l, start, end) => void (pieces += exact(s.text.slice(start, end))) });
  }
  console.log(`split check (measured set): exact tokens piece by piece ${pieces} vs whole ${whole} (${pct((pieces - whole) / whole)}; NFKC changes a few)`);
}

function main() {
  const samples = loadCorpus();
  const calibration = samples.filter((s) => s.set === 'calibration');
  const measured = samples.filter((s) => s.set === 'measured');
  console.log(
    `calibration set: ${calibration.length} texts (even-numbered Readability pages, tests/fixtures/web, Bing's API JSON, half the search pages, tests/fixtures/tokens, lib/web sources); ` +
      `measured set: ${measured.length} texts (odd-numbered Readability pages, Google's API JSON, the other search pages, lib/extract sources)`,
  );
  if (flag('--fit')) {
    printFit(fit(calibration));
    return;
  }
  report('calibration set (what the tables were fitted on)', measure(calibration));
  const result = report('measured set (never used for fitting)', measure(measured));
  splitCheck(measured.slice(0, 40));
  speed(measured);
  const ok = Math.abs(result.mae) <= 0.1 && Math.abs(result.total) <= 0.1;
  console.log(`\nmeasured set: mean |error| ${(result.mae * 100).toFixed(1)}%, total ${pct(result.total)} — target within 10%: ${ok ? 'met' : 'NOT met'}`);
  tokenizer.free();
}

main();
