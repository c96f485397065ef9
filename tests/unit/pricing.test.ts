import { describe, expect, it } from 'vitest';
import {
  BUILTIN_PRICES,
  builtinRows,
  costOf,
  draftOf,
  formatCost,
  isBuiltinTable,
  parsePrice,
  priceFor,
  PRICES_TAKEN,
  validatePriceRows,
  type PriceDraftRow,
} from '../../lib/agent/pricing';
import { DEFAULT_MODEL, PriceRowSchema, type PriceRow } from '../../lib/settings';
import * as v from 'valibot';

const usage = (input: number, output: number, cacheRead = 0, cacheWrite = 0) => ({ input, output, cacheRead, cacheWrite });
const row = (model: string, input: number, output = input * 5, cacheWrite = input * 1.25, cacheRead = input / 10): PriceRow => ({ model, input, output, cacheWrite, cacheRead });
const draft = (model: string, input = '1', output = '5', cacheWrite = '1.25', cacheRead = '0.1'): PriceDraftRow => ({ model, input, output, cacheWrite, cacheRead });

describe('the built-in table', () => {
  it('is dated, valid under the settings schema, and names each model once', () => {
    expect(PRICES_TAKEN).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    for (const p of builtinRows()) expect(v.safeParse(PriceRowSchema, p).success, p.model).toBe(true);
    expect(validatePriceRows(builtinRows().map(draftOf)).ok).toBe(true);
    expect(isBuiltinTable(builtinRows())).toBe(true);
  });

  it('prices the default model and the dated snapshots of two-number ids', () => {
    expect(priceFor(DEFAULT_MODEL)).toMatchObject({ input: 2, output: 10, cacheWrite: 2.5, cacheRead: 0.1 });
    expect(priceFor('claude-opus-4-5-20251101')?.model).toBe('claude-opus-4-5*');
    expect(priceFor('claude-haiku-4-5-20251001')?.model).toBe('claude-haiku-4-5*');
  });

  it('keeps one-number ids exact, so a later minor version is not priced as its elder', () => {
    expect(priceFor('claude-opus-5')?.input).toBe(5);
    expect(priceFor('claude-opus-5-5')?.input).toBe(4);
    expect(priceFor('claude-opus-5-7')).toBeUndefined();
    expect(priceFor('claude-sonnet-5-20270101')).toBeUndefined();
  });

  it('knows no price for other models and retired ones', () => {
    expect(priceFor('fake-model-x')).toBeUndefined();
    expect(priceFor('gpt-6-sol')).toBeUndefined();
    expect(priceFor('claude-sonnet-4-5-20250929')).toBeUndefined();
    expect(priceFor('')).toBeUndefined();
  });
});

describe('lookup precedence', () => {
  it('an exact id beats the longest prefix, which beats a shorter one', () => {
    const rows = [row('acme*', 1), row('acme-large*', 2), row('acme-large-2', 3)];
    expect(priceFor('acme-large-2', rows)?.input).toBe(3);
    expect(priceFor('acme-large-3', rows)?.input).toBe(2);
    expect(priceFor('acme-small', rows)?.input).toBe(1);
    expect(priceFor('other', rows)).toBeUndefined();
  });

  it('the order of the rows does not matter, case and spaces do not either', () => {
    const rows = [row('acme-large-2', 3), row('acme-large*', 2), row('acme*', 1)];
    expect(priceFor('acme-large-3', rows)?.input).toBe(2);
    expect(priceFor(' ACME-Large-2 ', rows)?.input).toBe(3);
  });

  it("the user's rows override the built-in ones, even a shorter prefix over a built-in exact row", () => {
    expect(priceFor('claude-sonnet-5-5', [row('claude-sonnet-5-5', 9)])?.input).toBe(9);
    expect(priceFor('claude-opus-5', [row('claude-*', 7)])?.input).toBe(7);
  });

  it('a model the user table does not name keeps its built-in price', () => {
    expect(priceFor('claude-opus-5-5', [row('mine', 1)])?.input).toBe(4);
  });

  it('a user row equal to the built-in one keeps the built-in long-prompt rates; a changed one has none', () => {
    const asPrefilled = builtinRows();
    expect(priceFor('claude-haiku-5-5', asPrefilled)?.longPrompt?.above).toBe(100_000);
    const changed = asPrefilled.map((r) => (r.model === 'claude-haiku-5-5*' ? { ...r, output: 0.6 } : r));
    expect(priceFor('claude-haiku-5-5', changed)).toEqual({ ...BUILTIN_PRICES.find((b) => b.model === 'claude-haiku-5-5*'), output: 0.6, longPrompt: undefined });
  });
});

describe('costOf', () => {
  const sonnet = row('s', 3, 15, 3.75, 0.3);

  it('prices each kind of token at its own rate per million', () => {
    expect(costOf(usage(1_000_000, 0), sonnet)).toBeCloseTo(3, 10);
    expect(costOf(usage(0, 1_000_000), sonnet)).toBeCloseTo(15, 10);
    expect(costOf(usage(0, 0, 1_000_000, 0), sonnet)).toBeCloseTo(0.3, 10);
    expect(costOf(usage(0, 0, 0, 1_000_000), sonnet)).toBeCloseTo(3.75, 10);
    // 1,200 input, 350 output, 10,000 cache read, 2,000 cache write:
    // 0.0036 + 0.00525 + 0.003 + 0.0075 = 0.01935
    expect(costOf(usage(1200, 350, 10_000, 2000), sonnet)).toBeCloseTo(0.01935, 12);
    expect(costOf(usage(0, 0), sonnet)).toBe(0);
  });

  it('a prompt over the long-prompt threshold pays the higher rates on every token, output included', () => {
    const haiku = priceFor('claude-haiku-5-5')!;
    // 100,000 prompt tokens exactly: still the base rates.
    expect(costOf(usage(90_000, 1000, 10_000), haiku)).toBeCloseTo((90_000 * 0.1 + 1000 * 0.5 + 10_000 * 0.01) / 1e6, 12);
    // One more (a cache write counts as prompt): the long rates.
    expect(costOf(usage(90_000, 1000, 10_000, 1), haiku)).toBeCloseTo((90_000 * 0.5 + 1000 * 2.5 + 10_000 * 0.05 + 0.625) / 1e6, 12);
  });
});

describe('formatCost', () => {
  it('shows cents from a dollar up, four decimals below, and <$0.01 for less than a cent', () => {
    expect(formatCost(12.345, 'en')).toBe('$12.35');
    expect(formatCost(1234.5, 'en')).toBe('$1,234.50');
    expect(formatCost(0.0123, 'en')).toBe('$0.0123');
    expect(formatCost(0.5, 'en')).toBe('$0.50');
    expect(formatCost(0.01935, 'en')).toBe('$0.0194');
    expect(formatCost(0.004, 'en')).toBe('<$0.01');
    expect(formatCost(0, 'en')).toBe('$0.00');
  });

  it("follows the UI language's digits and survives a locale Intl does not know", () => {
    expect(formatCost(0.0123, 'tr')).toMatch(/0,0123/);
    expect(formatCost(2.5, 'ko')).toMatch(/2\.50/);
    expect(formatCost(2.5, 'not a locale!')).toBe('$2.50');
    expect(formatCost(Number.NaN, 'en')).toBe('—');
  });
});

describe('parsePrice', () => {
  it('reads a dot or a comma as the decimal mark, and nothing else', () => {
    expect(parsePrice('2.5')).toBe(2.5);
    expect(parsePrice(' 2,5 ')).toBe(2.5);
    expect(parsePrice('.25')).toBe(0.25);
    expect(parsePrice('3')).toBe(3);
    expect(parsePrice(4)).toBe(4);
    for (const bad of ['', ' ', 'abc', '1e3', '-1', '2.5.1', '1,2,3', '$3', 'Infinity', null, undefined, {}]) expect(parsePrice(bad), String(bad)).toBeNaN();
  });
});

describe('validatePriceRows', () => {
  it('accepts a good table and returns the parsed rows', () => {
    const r = validatePriceRows([draft('acme*', '1', '5,5', '1.25', '0.1'), draft('other', '0', '0', '0', '0')]);
    expect(r).toEqual({ ok: true, rows: [row('acme*', 1, 5.5, 1.25, 0.1), row('other', 0, 0, 0, 0)], errors: [{}, {}] });
  });

  it('names each bad cell: negative, not a number, empty, over the maximum', () => {
    const r = validatePriceRows([draft('a', '-1'), draft('b', '1', 'abc'), draft('c', '1', '5', ''), draft('d', '1', '5', '1', '10001')]);
    expect(r.ok).toBe(false);
    expect(r.errors).toEqual([
      { input: 'settings_error_price' },
      { output: 'settings_error_price' },
      { cacheWrite: 'settings_error_price' },
      { cacheRead: 'settings_error_price' },
    ]);
  });

  it('NaN, infinite and non-string cells are errors, never a crash', () => {
    const r = validatePriceRows([
      { model: 'a', input: Number.NaN, output: Number.POSITIVE_INFINITY, cacheWrite: null, cacheRead: undefined },
      null,
      'text',
    ]);
    expect(r.errors[0]).toEqual({ input: 'settings_error_price', output: 'settings_error_price', cacheWrite: 'settings_error_price', cacheRead: 'settings_error_price' });
    expect(r.errors[1]).toMatchObject({ model: 'settings_error_price_model', input: 'settings_error_price' });
    expect(r.errors[2]).toMatchObject({ model: 'settings_error_price_model' });
  });

  it('refuses an empty or malformed model, and a star anywhere but the end', () => {
    const r = validatePriceRows([draft(''), draft('   '), draft('has space'), draft('a*b'), draft('ok-model*')]);
    expect(r.errors.map((e) => e.model)).toEqual(['settings_error_price_model', 'settings_error_price_model', 'settings_error_price_model', 'settings_error_price_model', undefined]);
  });

  it('marks the second row naming a model (case and spaces aside) as a duplicate', () => {
    const r = validatePriceRows([draft('claude-x'), draft('acme*'), draft(' Claude-X '), draft('acme')]);
    expect(r.ok).toBe(false);
    expect(r.errors).toEqual([{}, {}, { model: 'settings_error_price_duplicate' }, {}]);
  });

  it('refuses a table of more than 200 rows as a whole', () => {
    const rows = Array.from({ length: 201 }, (_, i) => draft(`m${i}`));
    const r = validatePriceRows(rows);
    expect(r.ok).toBe(false);
    expect(r.table).toBe('settings_error_prices');
    expect(validatePriceRows(rows.slice(0, 200)).ok).toBe(true);
  });
});
