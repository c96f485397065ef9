/**
 * The management page's Run log section on a real run log in the test page's IndexedDB: the
 * list, a run opened to its requests, a long body cut with "Show all", the off notice linking to
 * the setting, unreadable records counted, the download's file, and Clear.
 */
import { afterEach, expect, test, vi } from 'vitest';
import { page } from 'vitest/browser';
import { render } from 'vitest-browser-svelte';
import RunLog from '../../entrypoints/options/RunLog.svelte';
import { runLogBlob, type RunLogSource } from '../../entrypoints/options/run-log-source';
import type { RunLogExchange } from '../../lib/contracts/run-log';
import { RunLogStore } from '../../lib/storage/run-log-store';

const names: string[] = [];
const stores: RunLogStore[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const s of stores.splice(0)) s.close();
  for (const name of names.splice(0)) {
    await new Promise((resolve) => {
      const req = indexedDB.deleteDatabase(name);
      req.onsuccess = req.onerror = req.onblocked = resolve;
    });
  }
});

const BIG = 'lorem ipsum '.repeat(3000);

function exchange(index: number, ok = true): RunLogExchange {
  return {
    index,
    startedAt: Date.UTC(2026, 0, 2, 3, 4, 5) + index,
    durationMs: 120 + index,
    ...(ok ? { firstEventMs: 40 } : {}),
    request: { model: 'claude-test', max_tokens: 100, system: [{ type: 'text', text: 'sys' }], tools: [], messages: [{ role: 'user', content: index ? 'short' : BIG }], stream: true },
    outcome: ok ? 'ok' : 'error',
    ...(ok
      ? { response: { message: { content: [{ type: 'text', text: `reply ${index}` }] }, events: [{ t: 40, event: { type: 'message_stop' } }], eventCount: 1, eventsDropped: 0 } }
      : { error: { name: 'APIError', message: '529 Overloaded', status: 529, body: { type: 'error', error: { type: 'overloaded_error' } } } }),
  };
}

async function setup({ enabled = true, runs = [[exchange(0), exchange(1)]] as RunLogExchange[][], titles = ['Read the news'] } = {}) {
  const name = `test-run-log-${crypto.randomUUID()}`;
  names.push(name);
  const store = await RunLogStore.open(indexedDB, { name });
  stores.push(store);
  const ids: string[] = [];
  for (const [i, exchanges] of runs.entries()) {
    const w = store.startRun({ conversationId: `c${i}`, title: titles[i] ?? '', endpoint: 'https://api.anthropic.com', startedAt: Date.UTC(2026, 0, 2, 3, i) });
    ids.push(w.runId);
    for (const e of exchanges) await w.record(e);
  }
  let on = enabled;
  const listeners = new Set<() => void>();
  const source: RunLogSource = {
    open: () => RunLogStore.open(indexedDB, { name }),
    enabled: async () => on,
    watchSettings: (l) => (listeners.add(l), () => listeners.delete(l)),
  };
  const screen = await render(RunLog, { source });
  await expect.element(page.getByRole('heading', { name: 'Run log', level: 2 })).toBeVisible();
  const setEnabled = (value: boolean) => {
    on = value;
    for (const l of listeners) l();
  };
  return { store, ids, screen, setEnabled, name };
}

const runRow = () => document.querySelector<HTMLLIElement>('li[data-run]');

test('lists a run with its title, model, request count and status, and opens it to its requests', async () => {
  await setup();
  await expect.poll(() => runRow()?.querySelector('summary')?.textContent?.replace(/\s+/g, ' ').trim()).toMatch(/^Read the news .+ claude-test 2 requests Finished$/);
  expect(document.querySelector('[data-testid="runlog-count"]')?.textContent?.trim()).toMatch(/^1 run, \d+ kB$/);
  expect(document.querySelector('[data-testid="runlog-off"]')).toBeNull();

  await page.getByText('Read the news').click();
  await expect.poll(() => document.querySelectorAll('[data-exchange]').length).toBe(2);
  expect(document.querySelector('[data-exchange="0"] .line')?.textContent?.replace(/\s+/g, ' ').trim()).toBe('Request 1 · claude-test · Finished · 120 ms · first event after 40 ms');

  // A long body shows its start and a "Show all" that shows the rest.
  const request = document.querySelector<HTMLDetailsElement>('[data-exchange="0"] details[data-part="request"]')!;
  request.querySelector('summary')!.click();
  await expect.poll(() => request.querySelector('pre[data-json]')?.textContent?.length).toBeGreaterThan(19_000);
  const cut = request.querySelector('pre[data-json]')!.textContent!;
  expect(cut.length).toBeLessThan(20_010);
  const showAll = request.querySelector<HTMLButtonElement>('button[data-show-all]')!;
  expect(showAll.textContent).toMatch(/^Show all \(\d+ characters\)$/);
  showAll.click();
  await expect.poll(() => request.querySelector('button[data-show-all]')).toBeNull();
  expect(JSON.parse(request.querySelector('pre[data-json]')!.textContent!)).toEqual(exchange(0).request);

  // A short one has no button.
  const response = document.querySelector<HTMLDetailsElement>('[data-exchange="1"] details[data-part="response"]')!;
  response.querySelector('summary')!.click();
  await expect.poll(() => response.querySelector('pre[data-json]')?.textContent).toBeTruthy();
  expect(JSON.parse(response.querySelector('pre[data-json]')!.textContent!)).toEqual({ content: [{ type: 'text', text: 'reply 1' }] });
  expect(response.querySelector('button[data-show-all]')).toBeNull();
});

test('a failed request shows its HTTP status and error; a run without a title is named so', async () => {
  await setup({ runs: [[exchange(0, false)]], titles: [''] });
  await expect.poll(() => runRow()?.querySelector('summary')?.textContent?.replace(/\s+/g, ' ').trim()).toMatch(/^Untitled conversation .+ 1 request 1 failed Failed \(529\)$/);
  runRow()!.querySelector('summary')!.click();
  await expect.poll(() => document.querySelector('[data-exchange="0"] .line')?.textContent?.trim()).toBe('Request 1 · claude-test · Failed (529) · 120 ms');
  const error = document.querySelector<HTMLDetailsElement>('[data-exchange="0"] details[data-part="error"]')!;
  error.querySelector('summary')!.click();
  await expect.poll(() => error.querySelector('pre')?.textContent).toContain('overloaded_error');
  expect(document.querySelector('[data-exchange="0"] details[data-part="response"]')).toBeNull();
});

test('with the setting off it says so and links to the setting, still listing what was kept; turning it on hides the notice', async () => {
  const { setEnabled } = await setup({ enabled: false });
  await expect.element(page.getByTestId('runlog-off')).toHaveTextContent('The run log is off: runs are not recorded. Turn it on in Settings');
  expect(page.getByRole('link', { name: 'Turn it on in Settings' }).element().getAttribute('href')).toBe('#settings');
  expect(document.querySelectorAll('li[data-run]')).toHaveLength(1);
  setEnabled(true);
  await expect.poll(() => document.querySelector('[data-testid="runlog-off"]')).toBeNull();
});

test('says how many records could not be read', async () => {
  const { name } = await setup();
  await new Promise<void>((resolve, reject) => {
    const req = indexedDB.open(name, 1);
    req.onsuccess = () => {
      const t = req.result.transaction('runs', 'readwrite');
      t.objectStore('runs').put({ id: 'broken', title: 42 });
      t.oncomplete = () => (req.result.close(), resolve());
      t.onerror = () => reject(t.error);
    };
  });
  await page.getByTestId('runlog-refresh').click();
  await expect.element(page.getByTestId('runlog-skipped')).toHaveTextContent('1 stored record could not be read and is not shown.');
  expect(document.querySelectorAll('li[data-run]')).toHaveLength(1);
});

test('the downloaded file holds every run with its requests in full; Clear empties the log after asking', async () => {
  const { store, ids } = await setup({ runs: [[exchange(0), exchange(1)], [exchange(0, false), exchange(1)]], titles: ['First', 'Second'] });
  const blob = await runLogBlob(store, (await store.runs()).items, new Date('2026-01-02T00:00:00Z'));
  const file = JSON.parse(await blob.text());
  expect(file).toEqual(await store.file().then((f) => ({ ...f, exportedAt: '2026-01-02T00:00:00.000Z' })));
  expect(file.runs.map((r: any) => [r.id, r.title, r.exchanges.length])).toEqual([
    [ids[1], 'Second', 2],
    [ids[0], 'First', 2],
  ]);
  expect(file.runs[1].exchanges[0].request).toEqual(exchange(0).request);

  const confirm = vi.spyOn(window, 'confirm').mockReturnValueOnce(false).mockReturnValueOnce(true);
  await expect.poll(() => document.querySelectorAll('li[data-run]').length).toBe(2);
  await page.getByTestId('runlog-clear').click();
  expect(confirm).toHaveBeenCalledTimes(1);
  expect(document.querySelectorAll('li[data-run]')).toHaveLength(2);
  await page.getByTestId('runlog-clear').click();
  await expect.poll(() => document.querySelectorAll('li[data-run]').length).toBe(0);
  await expect.element(page.getByTestId('runlog-count')).toHaveTextContent('No runs recorded.');
  expect((await store.runs()).items).toEqual([]);
});
