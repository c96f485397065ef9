/**
 * What tokens cost: the built-in price table, the lookup of a model's price (the user's rows from
 * Settings first), the cost of one request's usage, its display, and the check of a price table
 * the user edited. Pure: imports only the settings schema and the contracts.
 */
import * as v from 'valibot';
import type { TokenUsage } from '../contracts/conversation';
import { PriceRowSchema, type PriceRow } from '../settings';

/** The day the built-in table below was read from its sources. */
export const PRICES_TAKEN = '2026-12-02';

/** Prices are per million tokens. */
const MTOK = 1_000_000;

export type PriceRates = Omit<PriceRow, 'model'>;

/**
 * A price as the cost counter uses it. `longPrompt`: a model billed at higher rates, on every
 * token of the request, when the request's prompt (input, cache reads and cache writes) is over
 * `above` tokens. Only built-in rows carry it; the Settings table edits the base rates.
 */
export interface Price extends PriceRow {
  longPrompt?: PriceRates & { above: number };
}

/**
 * Anthropic's prices in US dollars per million tokens: input, output, 5-minute cache write and
 * cache read (hits and refreshes). Sources, read on PRICES_TAKEN:
 * - https://platform.claude.com/docs/en/about-claude/pricing ("Model pricing");
 * - the model pages https://platform.claude.com/docs/en/models/<model>/overview (Opus 5.5,
 *   Sonnet 5.5, Haiku 5.5, whose rows came after the pricing page copy that could be read);
 * - https://platform.claude.com/docs/en/about-claude/model-deprecations for what is retired.
 * The newest copies of those pages available date from late October 2026, so the table is as of
 * then: Sonnet 5.5's cache read is $0.10 since the cut of 2026-10-07 (its overview page still
 * said $0.20; price trackers that re-read the live pricing page on 2026-10-24 agree on $0.10).
 * Left out: Sonnet 4.5 (retired 2026-11-30), Opus 4.1, Opus 4 and Sonnet 4 (retired on the
 * Claude API). Mythos models are in limited availability but priced on the page.
 *
 * Matching: a model id of two version numbers (`claude-opus-4-6`) takes a prefix row, which also
 * matches its dated snapshots (`claude-opus-4-5-20251101`); a one-number id (`claude-opus-5`) is an
 * exact row, because a prefix `claude-opus-5*` would also price a future `claude-opus-5-7`.
 */
export const BUILTIN_PRICES: readonly Price[] = [
  { model: 'claude-fable-5-1*', input: 10, output: 50, cacheWrite: 12.5, cacheRead: 0.25 },
  { model: 'claude-mythos-5-1*', input: 10, output: 50, cacheWrite: 12.5, cacheRead: 0.25 },
  { model: 'claude-fable-5', input: 10, output: 50, cacheWrite: 12.5, cacheRead: 1 },
  { model: 'claude-mythos-5', input: 10, output: 50, cacheWrite: 12.5, cacheRead: 1 },
  { model: 'claude-opus-5-5*', input: 4, output: 20, cacheWrite: 5, cacheRead: 0.2 },
  { model: 'claude-opus-5', input: 5, output: 25, cacheWrite: 6.25, cacheRead: 0.5 },
  { model: 'claude-opus-4-8*', input: 5, output: 25, cacheWrite: 6.25, cacheRead: 0.5 },
  { model: 'claude-opus-4-7*', input: 5, output: 25, cacheWrite: 6.25, cacheRead: 0.5 },
  { model: 'claude-opus-4-6*', input: 5, output: 25, cacheWrite: 6.25, cacheRead: 0.5 },
  { model: 'claude-opus-4-5*', input: 5, output: 25, cacheWrite: 6.25, cacheRead: 0.5 },
  { model: 'claude-sonnet-5-5*', input: 2, output: 10, cacheWrite: 2.5, cacheRead: 0.1 },
  { model: 'claude-sonnet-5', input: 2, output: 10, cacheWrite: 2.5, cacheRead: 0.2 },
  { model: 'claude-sonnet-4-6*', input: 3, output: 15, cacheWrite: 3.75, cacheRead: 0.3 },
  {
    model: 'claude-haiku-5-5*',
    input: 0.1,
    output: 0.5,
    cacheWrite: 0.125,
    cacheRead: 0.01,
    // "From $0.10 / $0.50": prompts over 100K tokens are billed at five times the rates.
    longPrompt: { above: 100_000, input: 0.5, output: 2.5, cacheWrite: 0.625, cacheRead: 0.05 },
  },
  { model: 'claude-haiku-4-5*', input: 1, output: 5, cacheWrite: 1.25, cacheRead: 0.1 },
];

const key = (model: string) => model.trim().toLowerCase();

/** The row for `model` among `rows`: an exact id first, else the longest prefix row (`foo*`). */
function match<R extends PriceRow>(model: string, rows: readonly R[]): R | undefined {
  const id = key(model);
  let best: R | undefined;
  let bestLength = -1;
  for (const row of rows) {
    const m = key(row.model);
    if (m === id) return row;
    if (m.endsWith('*') && id.startsWith(m.slice(0, -1)) && m.length > bestLength) {
      best = row;
      bestLength = m.length;
    }
  }
  return best;
}

const sameRates = (a: PriceRates, b: PriceRates) =>
  a.input === b.input && a.output === b.output && a.cacheWrite === b.cacheWrite && a.cacheRead === b.cacheRead;

/**
 * The price of `model`: the user's rows (Settings → Prices) before the built-in ones, so a model
 * the user's table does not name keeps its built-in price. A user row that equals the built-in
 * row of the same model (the table saved as prefilled) keeps the built-in long-prompt rates.
 * Undefined: the model has no price, and the UI shows its tokens only.
 */
export function priceFor(model: string, rows: readonly PriceRow[] = []): Price | undefined {
  const mine = match(model, rows);
  if (mine) {
    const builtin = BUILTIN_PRICES.find((b) => key(b.model) === key(mine.model));
    return builtin && sameRates(builtin, mine) ? builtin : mine;
  }
  return match(model, BUILTIN_PRICES);
}

/**
 * US dollars for one request's usage (input: uncached input). The long-prompt rates apply when
 * that request's prompt was over the threshold, so pass each round's usage, not a run's sum.
 */
export function costOf(usage: TokenUsage, price: Price): number {
  const prompt = usage.input + usage.cacheRead + usage.cacheWrite;
  const r: PriceRates = price.longPrompt && prompt > price.longPrompt.above ? price.longPrompt : price;
  return (usage.input * r.input + usage.output * r.output + usage.cacheWrite * r.cacheWrite + usage.cacheRead * r.cacheRead) / MTOK;
}

/**
 * A cost for the popup: `$12.34` from a dollar up; below, up to four decimals (`$0.0123`) so a
 * cheap run still shows how much; under a cent and above zero, `<$0.01`. `locale` is a BCP 47 tag
 * (the UI's language); the currency stays US dollars, which the prices are in.
 */
export function formatCost(dollars: number, locale?: string): string {
  if (!Number.isFinite(dollars)) return '—';
  const format = (n: number, maxDigits: number) => {
    try {
      return new Intl.NumberFormat(locale, { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: maxDigits }).format(n);
    } catch {
      // A locale tag Intl does not know (e.g. a test catalogue's): English digits are still right.
      return new Intl.NumberFormat('en', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: maxDigits }).format(n);
    }
  };
  if (dollars > 0 && dollars < 0.01) return `<${format(0.01, 2)}`;
  return format(dollars, Math.abs(dollars) >= 1 ? 2 : 4);
}

// ---- The Settings table: what the user types, checked cell by cell ----

export const PRICE_FIELDS = ['model', 'input', 'output', 'cacheWrite', 'cacheRead'] as const;
export type PriceField = (typeof PRICE_FIELDS)[number];
export const RATE_FIELDS = ['input', 'output', 'cacheWrite', 'cacheRead'] as const;

/** A row of the Settings table as typed: every cell is text until it is checked. */
export type PriceDraftRow = Record<PriceField, string>;
/** An i18n message key per invalid cell. */
export type PriceRowErrors = Partial<Record<PriceField, string>>;

export interface PriceTableCheck {
  ok: boolean;
  /** The parsed rows; complete only when `ok`. */
  rows: PriceRow[];
  /** One entry per input row, `{}` for a valid one. */
  errors: PriceRowErrors[];
  /** A message about the table as a whole (too many rows). */
  table?: string;
}

export const MAX_PRICE_ROWS = 200;

/**
 * A typed price: digits with one decimal mark, a dot or a comma (Turkish and Indonesian write
 * 2,5). No grouping: no model costs a thousand dollars per million tokens, so "1,000" is read as
 * one. Anything else is NaN, which the row schema refuses with the cell's message.
 */
export function parsePrice(text: unknown): number {
  if (typeof text === 'number') return text;
  if (typeof text !== 'string') return Number.NaN;
  const s = text.trim();
  if (!/^(\d+([.,]\d*)?|[.,]\d+)$/.test(s)) return Number.NaN;
  return Number(s.replace(',', '.'));
}

export const draftOf = (row: PriceRow): PriceDraftRow => ({
  model: row.model,
  input: String(row.input),
  output: String(row.output),
  cacheWrite: String(row.cacheWrite),
  cacheRead: String(row.cacheRead),
});

/**
 * Checks a table the user edited: each cell against the settings' row schema (a model id or
 * prefix; prices finite, from 0 to 10,000), and no model twice — the second row naming a model
 * (case aside) gets the error, since only one of them could ever apply.
 */
export function validatePriceRows(rows: readonly unknown[]): PriceTableCheck {
  const errors: PriceRowErrors[] = [];
  const parsed: PriceRow[] = [];
  const seen = new Set<string>();
  for (const raw of rows) {
    const cells = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
    const candidate = {
      model: typeof cells.model === 'string' ? cells.model : '',
      ...Object.fromEntries(RATE_FIELDS.map((f) => [f, parsePrice(cells[f])])),
    };
    const rowErrors: PriceRowErrors = {};
    const r = v.safeParse(PriceRowSchema, candidate, { abortPipeEarly: true });
    if (r.success) {
      parsed.push(r.output);
    } else {
      for (const issue of r.issues) {
        const field = issue.path?.[0]?.key as PriceField | undefined;
        if (field && !rowErrors[field]) rowErrors[field] = issue.message;
      }
    }
    const model = key(candidate.model);
    if (model && !rowErrors.model) {
      if (seen.has(model)) rowErrors.model = 'settings_error_price_duplicate';
      seen.add(model);
    }
    errors.push(rowErrors);
  }
  const table = rows.length > MAX_PRICE_ROWS ? 'settings_error_prices' : undefined;
  const ok = !table && errors.every((e) => Object.keys(e).length === 0);
  return { ok, rows: parsed, errors, ...(table ? { table } : {}) };
}

/** The built-in table, as rows the user can edit (without the long-prompt rates, which are not editable). */
export const builtinRows = (): PriceRow[] =>
  BUILTIN_PRICES.map(({ model, input, output, cacheWrite, cacheRead }) => ({ model, input, output, cacheWrite, cacheRead }));

/** Whether `rows` are exactly the built-in table, which Settings then stores as `[]`. */
export function isBuiltinTable(rows: readonly PriceRow[]): boolean {
  return rows.length === BUILTIN_PRICES.length && rows.every((r, i) => r.model === BUILTIN_PRICES[i]!.model && sameRates(r, BUILTIN_PRICES[i]!));
}

/** Whether `row` is a built-in row unchanged (the table marks it). */
export const isBuiltinRow = (row: PriceRow): boolean =>
  BUILTIN_PRICES.some((b) => b.model === row.model && sameRates(b, row));
