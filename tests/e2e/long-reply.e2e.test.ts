import type { Page } from 'puppeteer-core';
import { describe, expect, it } from 'vitest';
import type { BrowserName } from '../harness/browsers';
import { gate, text } from '../harness/fake-anthropic';
import { PopupPage } from '../harness/popup';
import { agentSession } from '../harness/session';

/**
 * What the assertions allow: the target is 100 ms, printed per run; Chromium's worst on a
 * busy 2-core machine is a 30–60 ms frame plus a V8 major GC pause (70–175 ms measured). Before
 * incremental rendering the main thread was blocked for over 120 s.
 */
const LONG_TASK_GUARD_MS = 250;

const browsers: BrowserName[] = ['chromium', 'firefox'];
const END = 'END-OF-THE-LONG-REPLY';

/**
 * About `size` characters of the Markdown a model writes in a long report: headings, paragraphs
 * with emphasis and links, lists, tables and code fences with blank lines inside.
 */
function longReply(size: number): { text: string; sections: number } {
  const parts: string[] = [];
  let length = 0;
  let n = 0;
  while (length < size - 200) {
    n++;
    const section = [
      `## Section ${n}`,
      '',
      `Paragraph ${n} explains **what was found** on the page, with _some emphasis_, a [link](https://example.com/${n}) and \`inline code\`. `.repeat(4).trim(),
      'A second line of the same paragraph, after a soft break.',
      '',
      `- point one of ${n}`,
      `- point two, with **bold**`,
      `  - a nested point`,
      `- [x] a finished task`,
      '',
      '| item | value | note |',
      '|:-----|------:|------|',
      ...Array.from({ length: 6 }, (_, i) => `| row ${i} | ${n * 10 + i} | fine |`),
      '',
      '```ts',
      `function section${n}(x: number) {`,
      '  const y = x * 2;',
      '',
      '',
      '  return y < 10 && "<b>not bold</b>";',
      '}',
      '```',
      '',
      `> A quoted remark about section ${n}.`,
      '',
      '',
    ].join('\n');
    parts.push(section);
    length += section.length;
  }
  parts.push(`${END} — that was all of it.\n`);
  return { text: parts.join(''), sections: n };
}

/**
 * Installed in the popup: the longest main-thread task since the last reset. Chromium reports
 * long tasks (PerformanceObserver 'longtask'); Firefox has no such entry type, so a chain of
 * zero-delay timers measures the longest gap between two of its turns (a task that blocks the
 * thread for N ms shows as a gap of about N ms, plus the timer's 4 ms clamp).
 */
function installMonitor() {
  const w = window as unknown as { __jank?: { longtask: number; gap: number; frameGap: number; observer: boolean; reset(): void } };
  if (w.__jank) return;
  const jank = {
    longtask: 0,
    gap: 0,
    frameGap: 0,
    observer: false,
    reset() {
      jank.longtask = 0;
      jank.gap = 0;
      jank.frameGap = 0;
    },
  };
  w.__jank = jank;
  if (PerformanceObserver.supportedEntryTypes?.includes('longtask')) {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) jank.longtask = Math.max(jank.longtask, e.duration);
    }).observe({ type: 'longtask' });
    jank.observer = true;
  }
  let last = performance.now();
  const turn = () => {
    const now = performance.now();
    jank.gap = Math.max(jank.gap, now - last);
    last = now;
    setTimeout(turn, 0);
  };
  setTimeout(turn, 0);
  let lastFrame = performance.now();
  const frame = () => {
    const now = performance.now();
    jank.frameGap = Math.max(jank.frameGap, now - lastFrame);
    lastFrame = now;
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
}

interface Jank {
  /** The figure the test holds to: long tasks where the browser reports them, else timer gaps. */
  worst: number;
  how: string;
  gap: number;
  /** The longest time between two animation frames: how long the user saw the popup frozen. */
  frameGap: number;
}

async function jank(page: Page): Promise<Jank> {
  const j = await page.evaluate(() => {
    const w = window as unknown as { __jank: { longtask: number; gap: number; frameGap: number; observer: boolean } };
    return { longtask: w.__jank.longtask, gap: w.__jank.gap, frameGap: w.__jank.frameGap, observer: w.__jank.observer };
  });
  const { gap, frameGap } = j;
  return j.observer
    ? { worst: j.longtask, how: 'longest task (PerformanceObserver longtask)', gap, frameGap }
    : { worst: gap, how: 'longest gap between timer turns (no longtask entries in this browser)', gap, frameGap };
}

const resetJank = (page: Page) => page.evaluate(() => (window as unknown as { __jank: { reset(): void } }).__jank.reset());

/** A conversation as the store keeps it: user questions, answers with tool calls and their results. */
function longConversation(count: number) {
  const messages: unknown[] = [];
  const at = Date.now() - count * 1000;
  for (let i = 0; messages.length < count; i++) {
    const id = `toolu_seed_${i}`;
    messages.push({ role: 'user', content: [{ type: 'text', text: `Question ${i}: what does page ${i} say about the topic?` }], at: at + messages.length });
    messages.push({
      role: 'assistant',
      content: [
        { type: 'text', text: `Let me read page ${i} first.` },
        { type: 'tool_use', id, name: 'get_tab_content', input: { tab_id: 100 + i } },
      ],
      at: at + messages.length,
    });
    messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: `# Page ${i}\n\n${'Some page text. '.repeat(60)}` }], at: at + messages.length });
    messages.push({
      role: 'assistant',
      content: [
        {
          type: 'text',
          text: [
            `Page ${i} says **three things**:`,
            '',
            `1. the first, with a [source](https://example.com/${i})`,
            '2. the second',
            '3. the third',
            '',
            '```',
            `answer = ${i}`,
            '```',
            '',
            `In short: ${'it is a fine page. '.repeat(12)}ANSWER-${i}`,
          ].join('\n'),
        },
      ],
      at: at + messages.length,
    });
  }
  return messages.slice(0, count);
}

/** Writes a conversation into the extension's IndexedDB, as the background's store would have. */
async function seedConversation(page: Page, title: string, messages: unknown[]): Promise<string> {
  return page.evaluate(
    async (title, messages) => {
      // Only once the background has made the database: opening it first would create an empty
      // version 1 that the background's own upgrade then takes as already made.
      const deadline = Date.now() + 20_000;
      while (!(await indexedDB.databases()).some((d) => d.name === 'pagewright' && (d.version ?? 0) > 0)) {
        if (Date.now() > deadline) throw new Error('the background never created its database');
        await new Promise((r) => setTimeout(r, 50));
      }
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const r = indexedDB.open('pagewright');
        r.onsuccess = () => resolve(r.result);
        r.onerror = () => reject(r.error);
      });
      const id = crypto.randomUUID();
      const now = Date.now();
      const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
      const tx = db.transaction(['conversations', 'messages'], 'readwrite');
      tx.objectStore('conversations').put({ id, title, createdAt: now, updatedAt: now, run: { status: 'idle', round: 0, roundCap: 50, usage } });
      messages.forEach((message, seq) => tx.objectStore('messages').put({ conversationId: id, seq, message }));
      await new Promise((resolve, reject) => {
        tx.oncomplete = resolve;
        tx.onerror = () => reject(tx.error);
      });
      db.close();
      return id;
    },
    title,
    messages,
  );
}

/** Scrolls the message list to the top and back, a screenful per frame, as a fast wheel would. */
function scrollThrough(page: Page) {
  return page.evaluate(async () => {
    const log = document.querySelector<HTMLElement>('[role="log"]')!;
    const start = performance.now();
    let frames = 0;
    const run = (step: () => boolean) =>
      new Promise<void>((resolve) => {
        const frame = () => {
          frames++;
          if (step() || frames > 20_000) resolve();
          else requestAnimationFrame(frame);
        };
        requestAnimationFrame(frame);
      });
    await run(() => {
      if (log.scrollTop <= 0) return true;
      log.scrollTop -= log.clientHeight;
      return false;
    });
    const topText = log.querySelector('[data-role="user"]')?.textContent ?? '';
    await run(() => {
      if (log.scrollTop + log.clientHeight >= log.scrollHeight - 2) return true;
      log.scrollTop += log.clientHeight;
      return false;
    });
    return { ms: performance.now() - start, frames, topText };
  });
}

/**
 * Replies that are one huge Markdown block (issue 31): each ends with its own marker, so the test
 * knows when the last characters are on screen.
 */
const HUGE_BLOCKS: { shape: string; text: string; end: string; chunk: number }[] = [
  // The paragraph: "lorem ipsum " × 16,000, 192,000 characters, no line break.
  { shape: 'one huge paragraph', text: `${'lorem ipsum '.repeat(16_000)}END-OF-THE-PARAGRAPH`, end: 'END-OF-THE-PARAGRAPH', chunk: 2048 },
  // 200,000 characters on one line, with no newline at all (the open end is a partial line).
  { shape: 'one huge line', text: `${'abcdefghi '.repeat(19_998)}END-OF-THE-LINE`.padEnd(200_000, '.'), end: 'END-OF-THE-LINE', chunk: 2048 },
  // 1,050 lines of 1,000 characters separated by single newlines: one 1 MB paragraph.
  {
    shape: 'a 1 MB paragraph of 1,050 lines',
    text: Array.from({ length: 1050 }, (_, i) => (i === 1049 ? 'END-OF-THE-LINES '.padEnd(1000, '.') : `${i} `.padEnd(1000, 'x'))).join('\n'),
    end: 'END-OF-THE-LINES',
    chunk: 4096,
  },
  {
    shape: 'a huge table',
    text: ['| item | value | note |', '|:-----|------:|------|', ...Array.from({ length: 6000 }, (_, i) => `| row ${i} | ${i * 7} | fine |`), '| END-OF-THE-TABLE | 0 | end |', ''].join('\n'),
    end: 'END-OF-THE-TABLE',
    chunk: 2048,
  },
  {
    shape: 'a huge code block',
    text: ['```ts', ...Array.from({ length: 6000 }, (_, i) => `const x${i} = f(${i}); // <b>${i}</b>`), 'END-OF-THE-CODE();', '```', ''].join('\n'),
    end: 'END-OF-THE-CODE',
    chunk: 2048,
  },
];

/**
 * Watches the popup for `end` on screen: in the last assistant message's last box (the open end)
 * and inside the message list's viewport. Notes when (epoch ms) in window.__shownAt.
 */
function watchForEnd(page: Page, end: string) {
  return page.evaluate((end) => {
    const w = window as unknown as { __shownAt?: number };
    delete w.__shownAt;
    const check = () => {
      const mds = document.querySelectorAll('[data-role^="assistant"] .md');
      const last = mds[mds.length - 1]?.lastElementChild;
      if (last?.textContent?.includes(end) && endRect(last, end)) w.__shownAt = Date.now();
      else setTimeout(check, 10);
    };
    /** Where `end` is on screen, if it is. */
    const endRect = (box: Element, end: string) => {
      const log = document.querySelector('[role="log"]')!.getBoundingClientRect();
      const walker = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
      while (walker.nextNode()) {
        const node = walker.currentNode as Text;
        const at = node.data.indexOf(end);
        if (at < 0) continue;
        const range = document.createRange();
        range.setStart(node, at);
        range.setEnd(node, at + end.length);
        const rect = range.getBoundingClientRect();
        if (rect.height > 0 && rect.bottom <= log.bottom + 1 && rect.top >= log.top - 1) return rect;
      }
      return undefined;
    };
    check();
  }, end);
}

describe.each(browsers)('long replies and long conversations in %s', (name) => {
  const s = agentSession(name);

  // The long conversation first: a test that follows the 1 MB reply would also time the
  // browser collecting that closed popup's megabyte of DOM.
  it('opens and scrolls a 500-message conversation without long tasks', async () => {
    const messages = longConversation(500);
    await seedConversation(s.popup.page, 'Long conversation', messages);

    // A fresh popup opens on it (the most recent conversation).
    await s.popup.close();
    const fresh = await PopupPage.open(s.ext);
    await fresh.page.waitForFunction(() => document.body.textContent?.includes('ANSWER-124'), { timeout: 30_000, polling: 20 });
    const shownMs = await fresh.page.evaluate(() => (window as unknown as { __pagewrightShownMs?: number }).__pagewrightShownMs ?? -1);
    const lastShownMs = await fresh.page.evaluate(() => performance.now());
    await fresh.close();

    // Switching to it from a new chat, with the monitor watching.
    const popup = await PopupPage.open(s.ext);
    await popup.newChat();
    const page = popup.page;
    await page.evaluate(installMonitor);
    await page.click('button[aria-label="Conversations"]');
    await popup.waitFor('button[aria-label="Open conversation: Long conversation"]');
    await resetJank(page);
    const opened = await page.evaluate(async () => {
      const start = performance.now();
      document.querySelector<HTMLButtonElement>('button[aria-label="Open conversation: Long conversation"]')!.click();
      await new Promise<void>((resolve) => {
        const check = () => {
          const log = document.querySelector('[role="log"]');
          const answers = log?.querySelectorAll('[data-role="assistant"] .md');
          const last = answers?.[answers.length - 1];
          if (last?.textContent?.includes('ANSWER-124') && log!.scrollHeight - log!.scrollTop - log!.clientHeight < 2) resolve();
          else requestAnimationFrame(check);
        };
        check();
      });
      const shown = performance.now() - start;
      // Then every row, the oldest last: 125 questions and 250 answers (tool results are shown
      // on their cards, not as messages).
      await new Promise<void>((resolve) => {
        const check = () => {
          if (document.querySelectorAll('[data-role="user"]').length === 125 && document.querySelectorAll('[data-role="assistant"]').length === 250) resolve();
          else requestAnimationFrame(check);
        };
        check();
      });
      return { shown, all: performance.now() - start };
    });
    const open = await jank(page);

    await resetJank(page);
    const scrolled = await scrollThrough(page);
    const scroll = await jank(page);
    const all = await page.evaluate(() => ({
      answers: [...document.querySelectorAll('[data-role="assistant"] .md')].filter((md) => /ANSWER-\d+/.test(md.textContent ?? '')).length,
      cards: document.querySelectorAll('details[data-tool="get_tab_content"]').length,
    }));
    console.log(
      `long conversation: ${name} 500 messages; fresh popup shows it ${shownMs.toFixed(0)} ms after navigation, last answer on screen at ${lastShownMs.toFixed(0)} ms (poll); ` +
        `switching to it: last answer on screen after ${opened.shown.toFixed(0)} ms, every row after ${opened.all.toFixed(0)} ms, worst task ${open.worst.toFixed(0)} ms (frame gap ${open.frameGap.toFixed(0)} ms); ` +
        `scrolling top and back ${scrolled.ms.toFixed(0)} ms in ${scrolled.frames} frames, worst task ${scroll.worst.toFixed(0)} ms (${scroll.how}; longest frame gap ${scroll.frameGap.toFixed(0)} ms)`,
    );
    expect(scrolled.topText).toContain('Question 0:');
    expect(all).toEqual({ answers: 125, cards: 125 });
    expect(opened.shown).toBeLessThan(1000);
    expect(opened.all).toBeLessThan(5000);
    // The target is no task over 100 ms (printed above); the assertion leaves room for a GC
    // pause on a loaded 2-core CI machine, and still catches any return of whole-list re-renders.
    expect(open.worst).toBeLessThan(LONG_TASK_GUARD_MS);
    expect(scroll.worst).toBeLessThan(LONG_TASK_GUARD_MS);
    await popup.close();
  });

  it('shows a 1 MB reply streamed in 1 KB deltas within 2 s of its last delta, with no long task', async () => {
    const reply = longReply(1_000_000);
    expect(reply.text.length).toBeGreaterThan(990_000);
    // 1 KB deltas 5 ms apart: about 150 KB/s, a hundred times what the fastest models write.
    s.fake.script({ ...text(reply.text), chunk: 1024, delayMs: 5 });
    const page = s.popup.page;
    await page.evaluate(installMonitor);
    await resetJank(page);
    // The page notes the moment the end of the reply is in the DOM, at the bottom of the list.
    await page.evaluate((end) => {
      const w = window as unknown as { __shownAt?: number };
      const check = () => {
        const mds = document.querySelectorAll('[data-role^="assistant"] .md');
        const last = mds[mds.length - 1]?.lastElementChild;
        if (last?.textContent?.includes(end)) w.__shownAt = Date.now();
        else setTimeout(check, 10);
      };
      check();
    }, END);
    const sentAt = Date.now();
    await s.popup.send('Write the long report');
    await page.waitForFunction(() => !!(window as unknown as { __shownAt?: number }).__shownAt, { timeout: 80_000, polling: 100 });
    await s.popup.idle();
    const shownAt = await page.evaluate(() => (window as unknown as { __shownAt: number }).__shownAt);
    const lastDeltaAt = s.fake.requests[0]!.lastDeltaAt!;
    const j = await jank(page);
    const afterLast = (shownAt - lastDeltaAt) / 1000;
    console.log(
      `long reply: ${name} worst task ${j.worst.toFixed(0)} ms, shown ${afterLast.toFixed(2)} s after the last delta ` +
        `(stream ${((lastDeltaAt - sentAt) / 1000).toFixed(1)} s for ${(reply.text.length / 1e6).toFixed(2)} MB; ${j.how}; longest timer gap ${j.gap.toFixed(0)} ms, longest frame gap ${j.frameGap.toFixed(0)} ms)`,
    );

    // All of it is there, rendered: every section's heading, table and code block, and the end.
    const shape = await page.evaluate(() => {
      const md = [...document.querySelectorAll('[data-role="assistant"] .md')].at(-1)!;
      const log = document.querySelector('[role="log"]')!.getBoundingClientRect();
      const end = [...md.querySelectorAll('p')].at(-1)!.getBoundingClientRect();
      return {
        h2: md.querySelectorAll('h2').length,
        tables: md.querySelectorAll('table').length,
        pre: md.querySelectorAll('pre').length,
        bold: md.querySelectorAll('pre b').length,
        length: md.textContent!.length,
        endVisible: end.bottom <= log.bottom + 1 && end.top >= log.top - 1,
      };
    });
    expect(shape).toMatchObject({ h2: reply.sections, tables: reply.sections, pre: reply.sections, bold: 0, endVisible: true });
    expect(shape.length).toBeGreaterThan(reply.text.length * 0.7);
    expect(afterLast).toBeLessThan(2);
    console.log(`long reply target (${name}): no main-thread task over 100 ms while it streams — worst ${j.worst.toFixed(0)} ms ${j.worst <= 100 ? 'OK' : 'OVER'}`);
    expect(j.worst).toBeLessThan(LONG_TASK_GUARD_MS);
  });

  // Issue 31: a reply that is one Markdown block of any size shows while it streams and within 2 s
  // of its last delta (each test starts from its own new chat: agentSession's beforeEach).
  for (const block of HUGE_BLOCKS) {
    it(`shows ${block.shape} (${(block.text.length / 1000).toFixed(0)} K characters) within 2 s of its last delta`, async () => {
      s.fake.script({ ...text(block.text), chunk: block.chunk, delayMs: 5 });
      const page = s.popup.page;
      await watchForEnd(page, block.end);
      const sentAt = Date.now();
      await s.popup.send(`Write ${block.shape}`);
      await page.waitForFunction(() => !!(window as unknown as { __shownAt?: number }).__shownAt, { timeout: 30_000, polling: 100 });
      await s.popup.idle();
      const shownAt = await page.evaluate(() => (window as unknown as { __shownAt: number }).__shownAt);
      const lastDeltaAt = s.fake.requests[0]!.lastDeltaAt!;
      const afterLast = (shownAt - lastDeltaAt) / 1000;
      console.log(
        `[metric] ${name}: ${block.shape}, ${(block.text.length / 1000).toFixed(0)} K characters in ${block.chunk}-character deltas: ` +
          `on screen ${afterLast.toFixed(2)} s after the last delta (target ≤ 2 s; stream ${((lastDeltaAt - sentAt) / 1000).toFixed(1)} s)`,
      );
      const shown = await page.evaluate(() => [...document.querySelectorAll('[data-role^="assistant"] .md')].at(-1)!.textContent ?? '');
      // All of it, not only its end (a table's pipes and a fence's markers may not show).
      expect(shown.replace(/[\s|`]/g, '').length).toBeGreaterThan(block.text.replace(/[\s|`-]/g, '').length * 0.95);
      expect(afterLast).toBeLessThan(2);
    });
  }

  it('Stop in the middle of a huge paragraph keeps on screen the text that arrived, as stored', async () => {
    // One paragraph of 240 lines of "lorem ipsum" (single newlines: soft breaks).
    const paragraph = `${'lorem ipsum '.repeat(66).trim()}\n`.repeat(240);
    const chunk = 2048;
    // message_start, content_block_start, then 60 deltas: 122,880 characters arrive, then nothing.
    const paused = gate();
    const deltas = 60;
    s.fake.script({ ...text(paragraph), chunk, delayMs: 5, pause: { afterEvents: 2 + deltas, gate: paused } }, text('Fine.'));
    const arrived = paragraph.slice(0, deltas * chunk);
    const page = s.popup.page;
    await s.popup.send('Write a huge paragraph');
    // The text shows while the reply is still open: all that arrived so far.
    await page.waitForFunction(
      (n) => {
        const md = [...document.querySelectorAll('[data-role="assistant-draft"] .md')].at(-1);
        return (md?.textContent?.length ?? 0) >= n;
      },
      { timeout: 30_000, polling: 100 },
      arrived.trimEnd().length,
    );
    await page.$eval('button[aria-label="Stop"]', (b) => (b as HTMLButtonElement).click());
    await s.popup.idle();
    paused.open();
    const norm = (t: string) => t.replace(/\s+/g, ' ').trim();
    await page.waitForFunction(() => !!document.querySelector('[data-role="assistant"] .md'), { timeout: 10_000, polling: 100 });
    const stopped = await page.evaluate(() => [...document.querySelectorAll('[data-role="assistant"] .md')].at(-1)!.textContent ?? '');
    expect(norm(stopped)).toBe(norm(arrived));

    // What the next request carries is what the stopped message shows.
    await s.popup.send('Go on');
    await s.popup.waitForAssistantText('Fine.');
    const next = s.fake.requests.at(-1)!.body;
    const stored = next.messages[1];
    expect(stored.role).toBe('assistant');
    const storedText = (typeof stored.content === 'string' ? stored.content : stored.content.map((b: { text?: string }) => b.text ?? '').join('')) as string;
    expect(norm(storedText)).toBe(norm(stopped));
  });
});
