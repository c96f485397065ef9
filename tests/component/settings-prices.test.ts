/**
 * The management page's Settings form on settings kept in memory: the price table (prefilled
 * with the built-in prices, inline errors per cell, nothing saved while one is wrong, reset,
 * a valid edit saved), the context, budget and advanced fields beside it, and the summary
 * model's provider.
 */
import { describe, expect, test } from 'vitest';
import { page } from 'vitest/browser';
import { render } from 'vitest-browser-svelte';
import SettingsForm from '../../entrypoints/options/SettingsForm.svelte';
import { BUILTIN_PRICES, PRICES_TAKEN } from '../../lib/agent/pricing';
import { defaultSettings, type PriceRow, type Settings } from '../../lib/settings';

function memorySettings(initial: Partial<Settings> = {}) {
  let stored: Settings = { ...defaultSettings(), apiKey: 'sk-test', ...initial };
  const saves: Settings[] = [];
  return {
    load: async () => structuredClone(stored),
    save: async (s: Settings) => {
      stored = structuredClone(s);
      saves.push(structuredClone(s));
    },
    saves,
  };
}

async function setup(initial: Partial<Settings> = {}, props: { contextWindowOf?: (m: string) => number | undefined } = {}) {
  const store = memorySettings(initial);
  const screen = await render(SettingsForm, { load: store.load, save: store.save, ...props });
  await expect.poll(() => document.querySelector('form')?.getAttribute('aria-busy')).toBe('false');
  return { ...store, screen };
}

const cell = (field: string, row: number) => page.getByRole('textbox', { name: `${field}, row ${row}`, exact: true });
const priceRows = () => document.querySelectorAll('tbody tr[data-price-row]');
const status = () => document.querySelector('[data-status]')?.getAttribute('data-status');
const save = () => page.getByRole('button', { name: 'Save', exact: true }).click();
const PRICE_MESSAGE = 'Enter a price in dollars per million tokens: a number from 0 to 10000, never negative.';

describe('the price table', () => {
  test('is prefilled with the built-in prices, marked and dated, while none are stored', async () => {
    await setup();
    expect(priceRows()).toHaveLength(BUILTIN_PRICES.length);
    await expect.element(cell('Model', 1)).toHaveValue(BUILTIN_PRICES[0]!.model);
    await expect.element(cell('Input', 1)).toHaveValue(String(BUILTIN_PRICES[0]!.input));
    expect(document.querySelectorAll('.builtin')).toHaveLength(BUILTIN_PRICES.length);
    await expect.element(page.getByTestId('prices-taken')).toHaveTextContent(`Rows marked built-in are Anthropic's published prices as read on ${PRICES_TAKEN}.`);
    await expect.element(page.getByText(/^claude-haiku-5-5\*: a request whose prompt is over 100,000 tokens/)).toBeVisible();
  });

  test('a negative price and a non-numeric one show inline errors on their cells and block saving', async () => {
    const { saves } = await setup();
    await cell('Input', 1).fill('-3');
    await cell('Output', 2).fill('cheap');
    // Errors appear once the user leaves the cell.
    await cell('Model', 3).click();
    await expect.element(cell('Input', 1)).toHaveAttribute('aria-invalid', 'true');
    await expect.element(cell('Output', 2)).toHaveAttribute('aria-invalid', 'true');
    await expect.element(cell('Output', 1)).toHaveAttribute('aria-invalid', 'false');
    expect(document.getElementById('price-0-input-error')?.textContent).toBe(PRICE_MESSAGE);
    expect(document.getElementById('price-1-output-error')?.textContent).toBe(PRICE_MESSAGE);
    expect(document.getElementById('price-0-input')?.getAttribute('aria-describedby')).toBe('price-0-input-error');
    // The edited row is no longer marked built-in.
    expect(document.querySelectorAll('.builtin')).toHaveLength(BUILTIN_PRICES.length - 2);

    await save();
    await expect.poll(status).toBe('invalid');
    await expect.element(page.getByText('Not saved: correct the fields marked above.')).toBeVisible();
    expect(saves).toHaveLength(0);
  });

  test('an emptied cell, an empty model and a duplicate model are errors too, shown after a save attempt', async () => {
    const { saves } = await setup();
    await cell('Cache read', 1).fill('');
    await page.getByRole('button', { name: 'Add row' }).click();
    await expect.element(cell('Model', BUILTIN_PRICES.length + 1)).toHaveFocus();
    await cell('Model', BUILTIN_PRICES.length + 1).fill(BUILTIN_PRICES[2]!.model);
    for (const f of ['Input', 'Output', 'Cache write (5 min)', 'Cache read']) await cell(f, BUILTIN_PRICES.length + 1).fill('1');
    await page.getByRole('button', { name: 'Add row' }).click();
    await save();
    await expect.poll(status).toBe('invalid');
    const last = BUILTIN_PRICES.length + 1;
    expect(document.getElementById('price-0-cacheRead-error')?.textContent).toBe(PRICE_MESSAGE);
    expect(document.getElementById(`price-${last - 1}-model-error`)?.textContent).toBe('This model is already in the table above; keep one row per model.');
    expect(document.getElementById(`price-${last}-model-error`)?.textContent).toMatch(/^Enter a model id/);
    expect(document.getElementById(`price-${last}-input-error`)?.textContent).toBe(PRICE_MESSAGE);
    expect(saves).toHaveLength(0);
  });

  test('a valid edit saves the whole table; an untouched table saves as [] (the built-in one)', async () => {
    const { saves } = await setup();
    await save();
    await expect.poll(status).toBe('saved');
    expect(saves[0]!.prices).toEqual([]);

    await cell('Output', 1).fill('45,5');
    await page.getByRole('button', { name: 'Remove row 2', exact: true }).click();
    await page.getByRole('button', { name: 'Add row' }).click();
    const n = BUILTIN_PRICES.length;
    await cell('Model', n).fill('my-proxy-model*');
    await cell('Input', n).fill('0.5');
    await cell('Output', n).fill('1');
    await cell('Cache write (5 min)', n).fill('0');
    await cell('Cache read', n).fill('.05');
    await save();
    await expect.poll(status).toBe('saved');
    const prices = saves[1]!.prices;
    expect(prices).toHaveLength(n);
    expect(prices[0]).toEqual({ ...pick(BUILTIN_PRICES[0]!), output: 45.5 });
    expect(prices.map((p) => p.model)).not.toContain(BUILTIN_PRICES[1]!.model);
    expect(prices.at(-1)).toEqual({ model: 'my-proxy-model*', input: 0.5, output: 1, cacheWrite: 0, cacheRead: 0.05 });
  });

  test('stored rows are shown instead of the built-in ones; reset restores the built-ins and saves []', async () => {
    const mine: PriceRow[] = [{ model: 'only-mine', input: 1, output: 2, cacheWrite: 3, cacheRead: 4 }];
    const { saves } = await setup({ prices: mine });
    expect(priceRows()).toHaveLength(1);
    await expect.element(cell('Model', 1)).toHaveValue('only-mine');
    expect(document.querySelectorAll('.builtin')).toHaveLength(0);

    // Saving without touching the table keeps the stored rows.
    await save();
    await expect.poll(status).toBe('saved');
    expect(saves[0]!.prices).toEqual(mine);

    await cell('Input', 1).fill('-1');
    await page.getByRole('button', { name: 'Reset to built-in prices' }).click();
    expect(priceRows()).toHaveLength(BUILTIN_PRICES.length);
    await expect.element(cell('Model', 1)).toHaveValue(BUILTIN_PRICES[0]!.model);
    expect(document.querySelectorAll('[aria-invalid="true"]')).toHaveLength(0);
    await save();
    await expect.poll(status).toBe('saved');
    expect(saves[1]!.prices).toEqual([]);
  });
});

describe('context, budgets and advanced', () => {
  test('an empty context window means automatic, with the effective window as hint; a set one is saved', async () => {
    const { saves } = await setup({}, { contextWindowOf: (m) => (m === 'claude-sonnet-5-5' ? 1_000_000 : undefined) });
    const field = page.getByLabelText('Context window (tokens)', { exact: true });
    await expect.element(field).toHaveValue(null);
    await expect.element(page.getByText('Empty or 0: automatic, which is 1,000,000 tokens for this model.')).toBeVisible();
    await page.getByLabelText('Model', { exact: true }).fill('acme-1');
    await expect.element(page.getByText("Empty or 0: automatic, the model's known window, else 200,000 tokens.")).toBeVisible();

    await field.fill('1000');
    await save();
    await expect.poll(status).toBe('invalid');
    expect(document.getElementById('contextWindow-error')?.textContent).toMatch(/^Enter 0 \(automatic\) or a whole number of tokens from 16000/);
    await field.fill('64000');
    await save();
    await expect.poll(status).toBe('saved');
    expect(saves[0]).toMatchObject({ contextWindow: 64_000, model: 'acme-1' });
    await field.fill('');
    await save();
    await expect.poll(() => saves.length).toBe(2);
    expect(saves[1]!.contextWindow).toBe(0);
  });

  test('emptied number fields are errors under their field, never a crash; valid ones and the run log switch save', async () => {
    const { saves } = await setup();
    const messages: Record<string, RegExp> = {
      'Token cap per run': /^Enter 0 \(off\) or a whole number of tokens from 1000/,
      'Cost cap per run (US dollars)': /^Enter 0 \(off\) or an amount in US dollars/,
      'Stop a run when the same tool call repeats (times in a row)': /^Enter 0 \(off\) or a whole number from 2 to 50/,
      "Shorten the model's view past (% of the window)": /^Enter a whole percentage from 20 to 95/,
      'Silent stream timeout (seconds)': /^Enter a whole number of seconds from 1 to 600/,
    };
    for (const label of Object.keys(messages)) await page.getByLabelText(label, { exact: true }).fill('');
    await save();
    await expect.poll(status).toBe('invalid');
    for (const [label, message] of Object.entries(messages)) {
      const input = document.getElementById(page.getByLabelText(label, { exact: true }).element().id)!;
      expect(input.getAttribute('aria-invalid'), label).toBe('true');
      expect(document.getElementById(`${input.id}-error`)?.textContent, label).toMatch(message);
    }
    expect(saves).toHaveLength(0);

    await page.getByLabelText('Token cap per run', { exact: true }).fill('0');
    await page.getByLabelText('Cost cap per run (US dollars)', { exact: true }).fill('2.5');
    await page.getByLabelText('Stop a run when the same tool call repeats (times in a row)', { exact: true }).fill('0');
    await page.getByLabelText("Shorten the model's view past (% of the window)", { exact: true }).fill('60');
    await page.getByLabelText('Silent stream timeout (seconds)', { exact: true }).fill('5');
    await expect.element(page.getByText(/^Stores the exact requests and responses of the last runs on this device/)).toBeVisible();
    await page.getByLabelText('Keep a run log for debugging').click();
    await save();
    await expect.poll(status).toBe('saved');
    expect(saves[0]).toMatchObject({ tokenBudget: 0, costBudget: 2.5, loopGuardRepeats: 0, contextThreshold: 60, streamIdleSec: 5, runLog: true });
  });
});

function pick({ model, input, output, cacheWrite, cacheRead }: PriceRow): PriceRow {
  return { model, input, output, cacheWrite, cacheRead };
}

describe('the summary model on another provider', () => {
  test('is chosen beside the summary model and saved with the connection the provider group kept', async () => {
    const ollama = { baseUrl: 'http://localhost:11434', apiKey: '', authHeader: 'bearer' as const };
    const { saves } = await setup({ providerConfigs: { ollama } });
    const picker = page.getByRole('combobox', { name: "Summary model's provider", exact: true });
    await expect.element(picker).toHaveValue('');
    await page.getByRole('textbox', { name: /^Summary model/ }).fill('qwen3:8b');
    await picker.selectOptions('ollama');
    await save();
    await expect.poll(status).toBe('saved');
    expect(saves.at(-1)).toMatchObject({ summaryModel: 'qwen3:8b', summaryProvider: 'ollama', provider: 'anthropic', providerConfigs: { ollama } });
  });
});
