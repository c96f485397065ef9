/**
 * The run log in the built extension: with Settings → Run log on, a scripted run (a 529 that is
 * retried, a tool round, the answer) shows in the management page's Run log section with its
 * requests exactly as the fake model received them — the key taken out wherever it appeared —,
 * and neither the stored log nor the downloaded file holds the key. With the setting off, a run
 * leaves nothing and the section says so, with a link to the setting.
 */
import type { Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserName, ExtensionBrowser } from '../harness/browsers';
import { sharedBrowser } from '../harness/shared-browser';
import { FakeAnthropic, text, toolCall } from '../harness/fake-anthropic';
import { PopupPage, setSettings } from '../harness/popup';
import { until } from '../harness/until';

const browsers: BrowserName[] = ['chromium', 'firefox'];
const KEY = 'test-key-run-log-e2e';
const REDACTED = '[redacted]';

/** What the log should hold for a body the fake received: the same, the key redacted. */
const redacted = (body: unknown) => JSON.parse(JSON.stringify(body).replaceAll(KEY, REDACTED));

/** Everything in the run log's database, as the page's origin holds it. */
const storedLog = (page: Page) =>
  page.evaluate(
    () =>
      new Promise<string>((resolve, reject) => {
        const req = indexedDB.open('pagewright-run-log');
        req.onerror = () => reject(req.error);
        req.onsuccess = () => {
          const db = req.result;
          const names = [...db.objectStoreNames];
          if (!names.length) return resolve('{}');
          const t = db.transaction(names, 'readonly');
          const out: Record<string, unknown> = {};
          for (const name of names) {
            const all = t.objectStore(name).getAll();
            all.onsuccess = () => (out[name] = all.result);
          }
          t.oncomplete = () => {
            db.close();
            resolve(JSON.stringify(out));
          };
        };
      }),
  );

/** Empties the log the way the page's Clear does, without its confirmation (a retried test starts clean). */
const clearLog = (page: Page) =>
  page.evaluate(
    () =>
      new Promise<void>((resolve, reject) => {
        const req = indexedDB.open('pagewright-run-log');
        req.onerror = () => reject(req.error);
        req.onsuccess = () => {
          const db = req.result;
          const names = [...db.objectStoreNames];
          if (!names.length) return (db.close(), resolve());
          const t = db.transaction(names, 'readwrite');
          for (const name of names) t.objectStore(name).clear();
          t.oncomplete = () => (db.close(), resolve());
        };
      }),
  );

const click = (page: Page, selector: string) => page.$eval(selector, (b) => (b as HTMLElement).click());

/** Interval polling: a background tab gets no animation frames. */
const waitIn = (page: Page, selector: string, timeout = 20_000) => page.waitForFunction((s) => !!document.querySelector(s), { timeout, polling: 100 }, selector);

/** The JSON a part of a request shows, in full (its "Show all" clicked when it has one). */
async function partJson(page: Page, exchange: number, part: string): Promise<any> {
  const sel = `[data-exchange="${exchange}"] details[data-part="${part}"]`;
  await page.$eval(sel, (d) => ((d as HTMLDetailsElement).open = true));
  await waitIn(page, `${sel} pre[data-json]`);
  await page.$eval(sel, (d) => d.querySelector<HTMLButtonElement>('button[data-show-all]')?.click());
  await page.waitForFunction((s) => !document.querySelector(`${s} button[data-show-all]`), { polling: 100 }, sel);
  return JSON.parse(await page.$eval(`${sel} pre[data-json]`, (el) => el.textContent ?? ''));
}

describe.each(browsers)('the run log in %s', (name) => {
  const fake = new FakeAnthropic();
  let ext: ExtensionBrowser;
  let popup: PopupPage;
  let options: Page;

  beforeAll(async () => {
    await fake.start();
  });
  afterAll(async () => {
    await fake.stop();
  });
  const shared = sharedBrowser(name, {
    async onLaunch(e) {
      ext = e;
      // The popup opens last, in front: headless Chromium lands no mouse clicks in a background
      // tab, so the options page behind it is driven by DOM clicks.
      options = await ext.open('options.html#run-log', { width: 1000, height: 900 });
      popup = await PopupPage.open(ext);
    },
  });

  /**
   * A run in the log, recorded with the setting on: the first test's, or (run alone, retried on a
   * fresh profile) one made here.
   */
  const loggedRun = () =>
    shared.once('a logged run', async () => {
      fake.reset();
      await setSettings(popup.page, { apiKey: KEY, baseUrl: fake.url, model: 'fake-model', runLog: true });
      await popup.newChat();
      fake.script(text('Logged for the log.'));
      await popup.send('Log this run');
      await popup.waitForAssistantText('Logged for the log.');
      await popup.idle();
      await until(
        async () => {
          await click(options, '[data-testid="runlog-refresh"]');
          await new Promise((r) => setTimeout(r, 200));
          return (await options.$eval('[data-run] [data-requests]', (el) => el.getAttribute('data-requests')).catch(() => null)) === '1';
        },
        { what: 'the logged run', timeout: 15_000 },
      );
    });

  it('with the setting on, shows the run, its requests as the fake received them, and never the key', async () => {
    fake.reset();
    await clearLog(options);
    await setSettings(popup.page, { apiKey: KEY, baseUrl: fake.url, model: 'fake-model', runLog: true });
    await popup.newChat();
    fake.script(
      { error: { status: 529, type: 'overloaded_error', message: 'Overloaded for the test' } },
      toolCall('create_task', { subject: `Keep ${KEY} safe` }),
      text('Logged answer.'),
    );
    await popup.send(`Plan it. My key is ${KEY}`);
    await popup.waitForAssistantText('Logged answer.', 30_000);
    await popup.idle();
    expect(fake.requests).toHaveLength(3);

    // The last request is written just after its stream ends: refresh until it is there.
    await until(
      async () => {
        await click(options, '[data-testid="runlog-refresh"]');
        await new Promise((r) => setTimeout(r, 200));
        return (await options.$eval('[data-run] [data-requests]', (el) => el.getAttribute('data-requests')).catch(() => null)) === '3';
      },
      { what: 'the run with its three requests', timeout: 15_000 },
    );
    expect(await options.$('[data-testid="runlog-off"]')).toBeNull();
    const summary = await options.$eval('[data-run] summary', (el) => el.textContent?.replace(/\s+/g, ' ').trim());
    expect(summary).toContain('Plan it.');
    expect(summary).toContain('fake-model');
    expect(summary).toContain('3 requests');
    expect(summary).toContain('1 failed');
    expect(summary).toContain('Finished');
    expect(await options.$eval('[data-testid="runlog-count"]', (el) => el.textContent?.trim())).toMatch(/^1 run, /);

    // Opened: each request, the 529 with its status and body, the others with their replies.
    await options.$eval('[data-run] details', (d) => ((d as HTMLDetailsElement).open = true));
    await waitIn(options, '[data-exchange="2"]');
    expect(await options.$$eval('[data-exchange]', (els) => els.map((el) => el.getAttribute('data-outcome')))).toEqual(['error', 'ok', 'ok']);
    expect(await options.$eval('[data-exchange="0"] .line', (el) => el.textContent)).toContain('Failed (529)');
    const error = await partJson(options, 0, 'error');
    expect(error).toMatchObject({ status: 529, body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded for the test' } } });
    for (const i of [0, 1, 2]) expect(await partJson(options, i, 'request')).toEqual(redacted(fake.requests[i]!.body));
    const reply = await partJson(options, 1, 'response');
    expect(reply.content).toEqual([{ type: 'tool_use', id: expect.any(String), name: 'create_task', input: { subject: `Keep ${REDACTED} safe` } }]);
    expect((await partJson(options, 2, 'response')).content).toEqual([{ type: 'text', text: 'Logged answer.' }]);
    const events = await partJson(options, 2, 'events');
    expect(events.map((e: any) => e.event.type)).toEqual(expect.arrayContaining(['message_start', 'content_block_delta', 'message_stop']));

    // The key: sent to the fake, kept nowhere.
    expect(fake.requests[0]!.headers['x-api-key'] ?? fake.requests[0]!.headers.authorization).toContain(KEY);
    expect(JSON.stringify(fake.requests[0]!.body)).toContain(KEY);
    const stored = await storedLog(options);
    expect(stored).toContain('Logged answer.');
    expect(stored).not.toContain(KEY);
    expect(await options.evaluate(() => document.body.textContent ?? '')).not.toContain(KEY);

    // Downloads: all runs, and the one run; caught where the page clicks its link.
    await options.evaluate(() => {
      const w = window as any;
      w.__downloads = [];
      HTMLAnchorElement.prototype.click = function (this: HTMLAnchorElement) {
        const { download, href } = this;
        void fetch(href).then(async (r) => w.__downloads.push({ download, type: r.headers.get('content-type'), text: await r.text() }));
      };
    });
    await click(options, '[data-testid="runlog-download-all"]');
    await click(options, '[data-testid="runlog-download-run"]');
    const files = await until(() => options.evaluate(() => ((window as any).__downloads.length === 2 ? (window as any).__downloads : undefined)), { what: 'the two downloaded files' });
    const all = files.find((f: any) => /^pagewright-run-log-\d{4}-\d{2}-\d{2}\.json$/.test(f.download));
    const one = files.find((f: any) => /^pagewright-run-log-\d{4}-\d{2}-\d{2}-[\w-]{8}\.json$/.test(f.download));
    expect(all && one).toBeTruthy();
    for (const file of [all, one]) {
      expect(file.type).toMatch(/^application\/json/);
      expect(file.text).not.toContain(KEY);
      const parsed = JSON.parse(file.text);
      expect(parsed).toMatchObject({ format: 'pagewright-run-log', version: 1, runs: [{ title: expect.stringContaining('Plan it.'), requests: 3, failed: 1, status: 'ok', endpoint: fake.url }] });
      expect(parsed.runs[0].exchanges.map((e: any) => e.request)).toEqual(fake.requests.map((r) => redacted(r.body)));
      expect(parsed.runs[0].exchanges[0].error.status).toBe(529);
    }
    shared.made('a logged run');
  });

  it('with the setting off, records nothing and says so, linking to the setting', async () => {
    await loggedRun();
    const before = await storedLog(options);
    fake.reset();
    await setSettings(popup.page, { apiKey: KEY, baseUrl: fake.url, model: 'fake-model', runLog: false });
    await popup.newChat();
    fake.script(text('Not logged.'));
    await popup.send('Do not log this');
    await popup.waitForAssistantText('Not logged.');
    await popup.idle();
    expect(fake.requests).toHaveLength(1);

    await click(options, '[data-testid="runlog-refresh"]');
    await waitIn(options, '[data-testid="runlog-off"]');
    expect(await options.$eval('[data-testid="runlog-off"] a', (a) => a.getAttribute('href'))).toBe('#settings');
    expect(await options.$$eval('[data-run]', (els) => els.length)).toBe(JSON.parse(before).runs.length);
    const after = await storedLog(options);
    expect(after).toBe(before);
    expect(after).not.toContain('Do not log this');

    // Clear empties it.
    await options.evaluate(() => (window.confirm = () => true));
    await click(options, '[data-testid="runlog-clear"]');
    await options.waitForFunction(() => !document.querySelector('[data-run]'), { polling: 100 });
    expect(await options.$eval('[data-testid="runlog-count"]', (el) => el.textContent?.trim())).toBe('No runs recorded.');
    expect(JSON.parse(await storedLog(options))).toEqual({ runs: [], exchanges: [] });
  });
});
