import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserName } from '../harness/browsers';
import { text, toolCall } from '../harness/fake-anthropic';
import { agentSession } from '../harness/session';
import { PopupPage } from '../harness/popup';
import { until } from '../harness/until';

const browsers: BrowserName[] = ['chromium', 'firefox'];

interface Download {
  download: string;
  type: string | null;
  text: string;
}

/** The page's downloads, caught where it clicks its link (no file lands on disk). */
async function catchDownloads(page: Page) {
  await page.evaluate(() => {
    const w = window as any;
    w.__downloads = [];
    HTMLAnchorElement.prototype.click = function (this: HTMLAnchorElement) {
      const { download, href } = this;
      void fetch(href).then(async (r) => w.__downloads.push({ download, type: r.headers.get('content-type'), text: await r.text() }));
    };
  });
}

async function nextDownload(page: Page, count: number): Promise<Download> {
  const all = await until(() => page.evaluate((n) => ((window as any).__downloads.length >= n ? ((window as any).__downloads as Download[]) : undefined), count), {
    what: `download number ${count}`,
  });
  return all[count - 1]!;
}

/** DOM clicks: the popup's tab may be in the background, where puppeteer's mouse clicks do not land. */
const click = (page: Page, selector: string) => page.$eval(selector, (el) => (el as HTMLElement).click());

const rows = (page: Page) =>
  page.$$eval('li[data-conversation]', (els) => els.map((el) => ({ id: el.getAttribute('data-conversation')!, title: el.querySelector('.title')?.textContent ?? '', snippet: el.querySelector('.snippet')?.textContent ?? '' })));

async function upload(page: Page, file: string) {
  const input = await page.$('input[data-testid="conversations-import"]');
  await input!.uploadFile(file);
}

describe.each(browsers)('conversation export and import in %s', (name) => {
  const session = agentSession(name);
  let dir = '';
  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'pw-conversations-'));
  });
  afterAll(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  async function openSection(): Promise<Page> {
    const page = await session.ext.open('options.html#conversations', { width: 1000, height: 800 });
    page.on('dialog', (d) => void d.accept());
    await page.waitForSelector('[data-testid="conversations-search"]', { timeout: 10_000 });
    await catchDownloads(page);
    return page;
  }

  /** Clicks an item of the popup's ⋯ menu; answers with the page URL the popup asked to open. */
  async function popupMenu(item: string): Promise<string> {
    const popup = session.popup.page;
    // The popup hands export and import to a new tab: caught here, then opened by the test.
    await popup.evaluate(() => {
      const api = (globalThis as any).browser ?? (globalThis as any).chrome;
      (window as any).__opened = [];
      api.tabs.create = async (options: { url: string }) => void (window as any).__opened.push(options.url);
    });
    await click(popup, 'button[aria-label="More actions"]');
    await popup.waitForSelector('[role="menu"]');
    await popup.evaluate((label) => [...document.querySelectorAll<HTMLElement>('[role="menuitem"]')].find((b) => b.textContent?.trim() === label)!.click(), item);
    return until(() => popup.evaluate(() => (window as any).__opened[0] as string | undefined), { what: 'the popup to open the management page' });
  }

  it('exports a conversation with a tool call as Markdown and JSON from the popup, and imports the JSON back as a new conversation', async () => {
    const { fake, popup } = session;
    const tab = await session.openTab('/index.html', 'Pagewright fixture');
    fake.script(toolCall('get_tab_content', { tab_id: tab }), text('The fixture page says it is served on 127.0.0.1.'));
    await popup.send('Summarise the fixture page');
    await popup.waitForAssistantText('served on 127.0.0.1');
    await popup.idle();

    const markdownUrl = await popupMenu('Export as Markdown');
    const [, hash] = markdownUrl.split('#');
    expect(markdownUrl.startsWith(`${session.ext.origin}/options.html#conversations?open=`)).toBe(true);
    const id = new URLSearchParams(hash!.split('?')[1]).get('open')!;
    expect(hash).toBe(`conversations?open=${id}&export=markdown`);

    const page = await openSection();
    try {
      // The page does what the popup asked when its hash says so.
      await page.evaluate((h) => (location.hash = h), hash!);
      const md = await nextDownload(page, 1);
      expect(md.download).toMatch(/^pagewright-summarise-the-fixture-page-\d{4}-\d{2}-\d{2}\.md$/);
      expect(md.type).toMatch(/^text\/markdown/);
      expect(md.text).toMatch(/^# Summarise the fixture page\n\nCreated \d{4}-\d{2}-\d{2} \d\d:\d\d UTC · 3 messages\n/);
      expect(md.text).toMatch(/\n### You · [^\n]+\n\nSummarise the fixture page\n/);
      // The tool call, folded to one line with the first lines of its result (the fence left out).
      const toolLine = md.text.split('\n').find((l) => l.startsWith('- **get_tab_content**'));
      expect(toolLine).toBe(
        `- **get_tab_content** \`{"tab_id":${tab}}\` → \`tab_id: ${tab} ⏎ url: ${session.fixtures.url}/index.html ⏎ title: Pagewright fixture\` (${toolLine!.match(/\((\d[\d,]*) characters in all\)$/)?.[1]} characters in all)`,
      );
      expect(md.text).toContain('\nThe fixture page says it is served on 127.0.0.1.\n');
      // Shown on the page as well; a reload would not download it again.
      await page.waitForSelector(`[data-testid="conversation-view"][data-conversation="${id}"]`);
      expect(await page.$eval('[data-testid="conversation-view"] h3', (el) => el.textContent)).toBe('Summarise the fixture page');
      expect(await page.evaluate(() => location.hash)).toBe(`#conversations?open=${id}`);

      const jsonUrl = await popupMenu('Export as JSON');
      await page.evaluate((h) => (location.hash = h), jsonUrl.split('#')[1]!);
      const json = await nextDownload(page, 2);
      expect(json.download).toMatch(/^pagewright-summarise-the-fixture-page-\d{4}-\d{2}-\d{2}\.json$/);
      expect(json.type).toMatch(/^application\/json/);
      const file = JSON.parse(json.text);
      expect(file).toMatchObject({ format: 'pagewright-conversation', version: 1, exportedAt: expect.stringMatching(/^\d{4}-/) });
      const original = file.conversation;
      expect(original).toMatchObject({ id, title: 'Summarise the fixture page', run: { status: 'done' } });
      expect(original.messages.map((m: any) => [m.role, m.content.map((b: any) => b.type)])).toEqual([
        ['user', ['text']],
        ['assistant', ['tool_use']],
        ['user', ['tool_result']],
        ['assistant', ['text']],
      ]);
      expect(original.messages[1].content[0]).toMatchObject({ name: 'get_tab_content', input: { tab_id: tab } });
      expect(original.messages[2].content[0]).toMatchObject({ tool_use_id: original.messages[1].content[0].id, content: expect.stringContaining('Fixture page') });
      // The folded line said how long the whole result is.
      expect(toolLine).toContain(`(${original.messages[2].content[0].content.length.toLocaleString('en-US')} characters in all)`);

      // Imported back: a new conversation with the same messages; the original is untouched.
      const saved = path.join(dir, json.download);
      await fs.writeFile(saved, json.text);
      await upload(page, saved);
      // The rows, then the notice beside them (the page shows both at once).
      const copies = await until(async () => {
        const found = (await rows(page)).filter((r) => r.title === 'Summarise the fixture page');
        return found.length === 2 ? found : undefined;
      }, { what: 'the imported copy beside the original' });
      expect(await page.$eval('[data-testid="conversations-notice"]', (el) => el.textContent)).toBe('Imported 1: Summarise the fixture page');
      const copy = copies.find((r) => r.id !== id)!;
      await click(page, `li[data-conversation="${copy.id}"] button.open`);
      await page.waitForSelector(`[data-testid="conversation-view"][data-conversation="${copy.id}"]`);
      await click(page, '[data-testid="conversation-export-json"]');
      const again = JSON.parse((await nextDownload(page, 3)).text).conversation;
      expect(again.id).not.toBe(id);
      expect(again.messages).toEqual(original.messages);
      expect({ ...again, id }).toEqual(original);

      // The same file twice is two conversations: nothing is overwritten.
      await upload(page, saved);
      await until(async () => (await rows(page)).filter((r) => r.title === 'Summarise the fixture page').length === 3, { what: 'a third copy' });
    } finally {
      await page.close();
    }
  });

  it('"Continue in the chat" makes the next popup open on the conversation shown', async () => {
    const { fake, popup } = session;
    fake.script(text('First answer.'), text('Second answer.'));
    await popup.send('The first conversation');
    await popup.waitForAssistantText('First answer.');
    await popup.newChat();
    await popup.send('The second conversation');
    await popup.waitForAssistantText('Second answer.');
    const page = await openSection();
    try {
      // The test opens its own popup: the browser's toolbar popup would take the turn first.
      await page.evaluate(() => {
        for (const api of [(globalThis as any).browser, (globalThis as any).chrome]) if (api?.action) api.action.openPopup = async () => {};
      });
      const first = (await rows(page)).find((r) => r.title === 'The first conversation')!;
      await click(page, `li[data-conversation="${first.id}"] button.open`);
      await page.waitForSelector(`[data-testid="conversation-view"][data-conversation="${first.id}"]`);
      await click(page, '[data-testid="conversation-continue"]');
      await page.waitForFunction(() => document.querySelector('[data-testid="conversations-notice"]')?.textContent?.includes('toolbar button'), { polling: 100, timeout: 10_000 });
      const next = await PopupPage.open(session.ext);
      try {
        await next.waitForAssistantText('First answer.');
        expect(await next.text('h1.title')).toBe('The first conversation');
      } finally {
        await next.close();
      }
      // Once: the popup after that opens on the latest conversation again.
      const after = await PopupPage.open(session.ext);
      try {
        await after.waitForAssistantText('Second answer.');
      } finally {
        await after.close();
      }
    } finally {
      await page.close();
    }
  });

  it('refuses a corrupt file, a newer version and a 50 MB file, saying what is wrong; Import… in the popup leads here', async () => {
    const importUrl = await popupMenu('Import…');
    expect(importUrl).toBe(`${session.ext.origin}/options.html#conversations?import=1`);
    const page = await openSection();
    try {
      await page.evaluate((h) => (location.hash = h), importUrl.split('#')[1]!);
      await page.waitForFunction(() => document.querySelector('[data-testid="conversations-notice"]')?.textContent === 'Choose a JSON file exported from Pagewright with Import…', { polling: 100, timeout: 10_000 });
      expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('conversations-import');
      const before = (await rows(page)).length;

      const conversation = {
        id: 'x',
        title: 'Broken',
        createdAt: 1,
        updatedAt: 1,
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'hi' }], at: 1 },
          { role: 'assistant', content: [{ type: 'image', source: {} }], at: 2 },
        ],
        run: { status: 'done', round: 1, roundCap: 50, usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } },
      };
      const cases: [string, string, string][] = [
        ['corrupt.json', JSON.stringify({ format: 'pagewright-conversation', version: 1, conversation }), 'conversation.messages[1].content[0].type: expected text, tool_use or tool_result, got "image".'],
        ['newer.json', JSON.stringify({ format: 'pagewright-conversation', version: 2, conversation }), 'version: this file is version 2, and this Pagewright reads version 1. Update Pagewright to import it.'],
        ['truncated.json', JSON.stringify({ format: 'pagewright-conversation', version: 1, conversation }).slice(0, 80), ''],
      ];
      const refusal = (what: string, expected: string | RegExp) =>
        until(
          async () => {
            const shown = await page.$eval('[data-testid="conversations-error"]', (el) => el.textContent ?? '').catch(() => '');
            return (typeof expected === 'string' ? shown === expected : expected.test(shown)) && shown;
          },
          { what: `the refusal of ${what}` },
        );
      for (const [fileName, content, reason] of cases) {
        const file = path.join(dir, fileName);
        await fs.writeFile(file, content);
        await upload(page, file);
        await refusal(fileName, reason ? `This file was not imported: ${reason}` : /^This file was not imported: The file is not JSON \(.+\)\.$/);
      }

      const huge = path.join(dir, 'huge.json');
      await fs.writeFile(huge, Buffer.alloc(50 * 1024 * 1024, 0x20));
      await upload(page, huge);
      await refusal('the 50 MB file', 'This file was not imported: it is 50 MB, and conversations import from files of at most 25 MB.');
      expect((await rows(page)).length).toBe(before);
    } finally {
      await page.close();
    }
  });

  it('lists, searches and deletes; search stays quick over 300 imported conversations; Export all writes them all', async () => {
    const page = await openSection();
    try {
      const filler = 'Notes on the garden, the weather and the week ahead. '.repeat(10);
      const conversations = Array.from({ length: 300 }, (_, i) => ({
        id: `seed-${i}`,
        title: `Seeded ${i}`,
        createdAt: 1_700_000_000_000 + i,
        updatedAt: 1_700_000_000_000 + i,
        messages: Array.from({ length: 20 }, (_, j) => ({
          role: j % 2 ? 'assistant' : 'user',
          content: [{ type: 'text', text: i === 150 && j === 17 ? 'A zebra crossed the road.' : `${j}: ${filler}` }],
          at: 1_700_000_000_000 + j,
        })),
        run: { status: 'done', round: 1, roundCap: 50, usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } },
      }));
      const seed = path.join(dir, 'seed.json');
      await fs.writeFile(seed, JSON.stringify({ format: 'pagewright-conversation', version: 1, exportedAt: new Date().toISOString(), conversations }));
      await upload(page, seed);
      // The 300 rows, then the notice that came with them.
      const all = await until(async () => {
        const shown = await rows(page);
        return shown.filter((r) => r.title.startsWith('Seeded ')).length === 300 ? shown : undefined;
      }, { timeout: 30_000, what: 'the 300 imported rows' });
      expect(await page.$eval('[data-testid="conversations-notice"]', (el) => el.textContent)).toMatch(/^Imported 300: Seeded 0, Seeded 1,/);

      // Text search: the one conversation that mentions it, with the words around it.
      // Timed in the page: one input event to the list showing the match, less the typing pause.
      const ms = await page.evaluate(async () => {
        const input = document.querySelector<HTMLInputElement>('[data-testid="conversations-search"]')!;
        const started = performance.now();
        input.value = 'ZEBRA';
        input.dispatchEvent(new Event('input', { bubbles: true }));
        await new Promise<void>((done) => {
          const check = () => (document.querySelectorAll('li[data-conversation]').length === 1 ? done() : setTimeout(check, 5));
          check();
        });
        return performance.now() - started - 150;
      });
      const megabytes = conversations.flatMap((c) => c.messages).reduce((n, m) => n + m.content[0]!.text.length, 0) / 1e6;
      console.log(`${name}: search over ${all.length} conversations (6,000 messages, ${megabytes.toFixed(1)} MB of text): ${ms.toFixed(0)} ms to the list, after the 150 ms typing pause`);
      expect(await rows(page)).toEqual([{ id: expect.any(String), title: 'Seeded 150', snippet: 'A zebra crossed the road.' }]);
      expect(ms).toBeLessThan(2000);

      // Title search, then delete what it found.
      await page.$eval('[data-testid="conversations-search"]', (el) => ((el as HTMLInputElement).value = ''));
      await page.type('[data-testid="conversations-search"]', 'seeded 42');
      await page.waitForFunction(() => [...document.querySelectorAll('li[data-conversation] .title')].map((e) => e.textContent).join() === 'Seeded 42', { polling: 50, timeout: 10_000 });
      await click(page, 'button[aria-label="Delete conversation: Seeded 42"]');
      await page.waitForSelector('[data-testid="conversations-empty"]', { timeout: 10_000 });
      expect(await page.$eval('[data-testid="conversations-empty"]', (el) => el.textContent)).toBe('No conversation contains “seeded 42”.');

      // Export all: every conversation left, in one file that imports again.
      await page.$eval('[data-testid="conversations-search"]', (el) => ((el as HTMLInputElement).value = ''));
      await page.type('[data-testid="conversations-search"]', ' ');
      await until(async () => (await rows(page)).length === all.length - 1, { what: 'the whole list again' });
      await click(page, '[data-testid="conversations-export-all"]');
      const file = await nextDownload(page, 1);
      expect(file.download).toMatch(/^pagewright-conversations-\d{4}-\d{2}-\d{2}\.json$/);
      const exported = JSON.parse(file.text);
      expect(exported).toMatchObject({ format: 'pagewright-conversation', version: 1 });
      expect(exported.conversations).toHaveLength(all.length - 1);
      expect(exported.conversations.map((c: any) => c.title)).not.toContain('Seeded 42');
      expect(exported.conversations.find((c: any) => c.title === 'Seeded 150').messages[17].content[0].text).toBe('A zebra crossed the road.');
    } finally {
      await page.close();
    }
  });
});
