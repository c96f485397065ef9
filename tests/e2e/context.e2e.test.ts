import { describe, expect, it } from 'vitest';
import type { BrowserName } from '../harness/browsers';
import { gate, lastToolResult, text, toolCall, type ReplyFn } from '../harness/fake-anthropic';
import { setSettings, TEST_PERMISSIONS } from '../harness/popup';
import { siteUrl } from '../harness/sites';
import { agentSession } from '../harness/session';
import { until } from '../harness/until';

const browsers: BrowserName[] = ['chromium', 'firefox'];

/** The current-tab block of a request's latest user turn, and the selection fence after it. */
const currentTab = (body: any): string =>
  (body.messages.findLast((m: any) => m.role === 'user' && m.content.some((b: any) => b.type === 'text'))?.content ?? [])
    .filter((b: any) => b.type === 'text' && b.text.startsWith('<current-tab '))
    .map((b: any) => b.text)
    .join('\n');

describe.each(browsers)('long conversations, the current tab, cost and guards in %s', (name) => {
  // A window of its own for the fixture tab: the user's window is the one focused last.
  const session = agentSession(name, { model: 'claude-sonnet-5-5', allowPrivateNetwork: true }, {
    ...TEST_PERMISSIONS,
    sites: [...TEST_PERMISSIONS.sites, { site: 'http://blocked.pagewright.test', subdomains: false, read: 'block', act: 'block', send: 'block', createdAt: 1 }],
  });
  const { fake, fixtures } = session;

  /** Shows `path` in a new focused window, as a user looking at a page; returns its tab id. */
  async function lookAt(url: string, select?: string): Promise<number> {
    const id = await session.popup.page.evaluate(async (url) => {
      const api = (globalThis as any).browser ?? (globalThis as any).chrome;
      const win = await api.windows.create({ url, focused: true });
      return (await api.tabs.query({ windowId: win.id }))[0].id as number;
    }, url);
    await until(async () => (await session.tabs()).some((t) => t.id === id && t.url === url && t.status === 'complete'), { timeout: 20_000, what: `tab ${id} to load ${url}` });
    if (select) {
      const page = await session.pageShowing(url);
      await page.evaluate((s) => {
        const el = [...document.querySelectorAll('p, h1, li')].find((e) => e.textContent?.includes(s))!;
        const range = document.createRange();
        range.selectNodeContents(el);
        getSelection()!.removeAllRanges();
        getSelection()!.addRange(range);
      }, select);
    }
    return id;
  }

  it('"summarise this page": the first request names the active tab, so one get_tab_content call does it', async () => {
    const url = `${fixtures.url}/readability/001/source.html`;
    const id = await lookAt(url);
    fake.script((body) => {
      const tab = /<current-tab tab_id="(\d+)"/.exec(currentTab(body));
      return toolCall('get_tab_content', { tab_id: Number(tab?.[1] ?? -1), max_length: 2000 });
    }, text('Summarised.'));
    await session.popup.send('Summarise this page');
    await session.popup.waitForAssistantText('Summarised.', 30_000);
    const first = currentTab(fake.requests[0]!.body);
    expect(first).toContain(`tab_id="${id}"`);
    expect(first).toContain(`url="${url}"`);
    expect(first).toMatch(/title="[^"]+"/);
    expect(fake.requests).toHaveLength(2);
    const result = lastToolResult(fake.requests[1]!.body);
    expect(result.isError).toBe(false);
    expect(result.content.url).toBe(url);
  });

  it('carries the selected text, fenced, and never names a tab on a blocked site', async () => {
    // Its own URL: the test finds the page to select in by its address.
    const url = `${fixtures.url}/readability/001/source.html?selection`;
    await lookAt(url, '');
    const page = await session.pageShowing(url);
    const selected = await page.evaluate(() => {
      const el = [...document.querySelectorAll('p')].find((p) => (p.textContent ?? '').trim().length > 40)!;
      const range = document.createRange();
      range.selectNodeContents(el);
      getSelection()!.removeAllRanges();
      getSelection()!.addRange(range);
      return getSelection()!.toString().trim();
    });
    fake.script(text('Seen the selection.'));
    await session.popup.send('What does this mean?');
    await session.popup.waitForAssistantText('Seen the selection.');
    const block = currentTab(fake.requests[0]!.body);
    expect(block).toMatch(/<untrusted-content id="[0-9a-f]{24}" source="selection">/);
    expect(block.replace(/\s+/g, ' ')).toContain(selected.replace(/\s+/g, ' ').slice(0, 200));

    const blocked = `${siteUrl(fixtures.url, 'blocked')}/index.html`;
    await lookAt(blocked);
    fake.script(text('Nothing named.'));
    await session.popup.send('And this one?');
    await session.popup.waitForAssistantText('Nothing named.');
    const body = JSON.stringify(fake.requests.at(-1)!.body.messages.at(-1));
    expect(body).not.toContain('blocked.pagewright.test');
    expect(currentTab(fake.requests.at(-1)!.body)).toBe('');
  });

  it('keeps answering past the context window, shows where the model\'s view begins and the cost', async () => {
    // The fake plays a 30,000-token model; Settings say so too, so the context module elides and compacts.
    fake.contextWindow = 30_000;
    await setSettings(session.popup.page, { contextWindow: 30_000, maxTokens: 1024 });
    const url = `${fixtures.url}/readability/002/source.html`;
    const isNote = (body: any) => JSON.stringify(body.system ?? '').includes('You distil documents');
    let fetches = 0;
    /** Two long pages per turn, then "Answer <turn>."; compaction notes answered when asked. */
    const reply: ReplyFn = (body) => {
      if (isNote(body)) return text('NOTE: the user asked for pages to be read; they were read.');
      let results = 0;
      let turn: string | undefined;
      for (let i = body.messages.length - 1; i >= 0 && !turn; i--) {
        const m = body.messages[i];
        if (m.role !== 'user') continue;
        turn = m.content.map((b: any) => (b.type === 'text' ? /turn (\d+)$/.exec(b.text)?.[1] : undefined)).find(Boolean);
        if (!turn) results += m.content.filter((b: any) => b.type === 'tool_result').length;
      }
      return results < 2 ? toolCall('web_fetch', { url: `${url}?n=${fetches++}`, max_length: 40_000 }) : text(`Answer ${turn}.`);
    };
    fake.script(...Array<ReplyFn>(80).fill(reply));
    for (let turn = 1; turn <= 6; turn++) {
      await session.popup.send(`Read the page again, turn ${turn}`);
      await session.popup.waitForAssistantText(`Answer ${turn}.`, 60_000);
      await session.popup.idle();
    }
    await session.popup.waitFor('[data-context-divider]', 20_000);
    const sent = fake.requests.filter((r) => r.path.startsWith('/v1/messages') && !r.path.includes('count_tokens') && !isNote(r.body));
    expect(sent.some((r) => JSON.stringify(r.body.messages).includes('result were elided'))).toBe(true);
    expect(await session.popup.count('[data-role="user"]')).toBe(6);
    // A priced model: the run's cost shows beside its tokens.
    expect(await session.popup.text('[data-cost="run"]')).toMatch(/\$\d/);
  });

  it('the loop guard stops a scripted loop and says why', async () => {
    fake.script(toolCall('list_tabs', {}), toolCall('list_tabs', {}), toolCall('list_tabs', {}), text('never'));
    await session.popup.send('Loop');
    await session.popup.waitFor('[data-banner="error-loop"]', 20_000);
    expect(await session.popup.text('[data-banner="error-loop"]')).toMatch(/list_tabs was called 3 times in a row/);
    expect(fake.requests).toHaveLength(3);
  });

  it('a stream that goes silent is retried once, then shown as an error with Retry and its text kept', async () => {
    await setSettings(session.popup.page, { streamIdleSec: 2 });
    const never = gate();
    fake.script(
      { ...text('Words before the silence'), chunk: 6, pause: { afterEvents: 5, gate: never } },
      { ...text('Second words before silence'), chunk: 6, pause: { afterEvents: 5, gate: never } },
      text('Recovered after Retry.'),
    );
    const t0 = Date.now();
    await session.popup.send('Talk');
    await session.popup.waitFor('[data-banner="retrying"]', 10_000);
    await session.popup.waitFor('[data-banner="error-stream"]', 20_000);
    const seconds = (Date.now() - t0) / 1000;
    expect(seconds).toBeLessThan(15);
    await session.popup.waitForAssistantText('Second words');
    await session.popup.page.$eval('[data-banner="error-stream"] button', (b) => (b as HTMLButtonElement).click());
    await session.popup.waitForAssistantText('Recovered after Retry.');
    never.open();
    console.log(`stalled stream (${name}): error banner ${seconds.toFixed(1)} s after sending, with a 2 s silence setting`);
  });
});
