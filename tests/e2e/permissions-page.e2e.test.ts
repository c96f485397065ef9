/**
 * Management page → Permissions in the built extension: a site added through the form and
 * blocked lands in storage.local as the policy reads it, the next call to it is blocked and the
 * background's activity-log entry shows on the page and in its JSON export; an "Always on this
 * site" click in the popup shows on the open page without a reload.
 */
import type { Page } from 'puppeteer-core';
import { describe, expect, it } from 'vitest';
import type { BrowserName } from '../harness/browsers';
import { text, toolCall } from '../harness/fake-anthropic';
import { agentSession } from '../harness/session';
import { siteUrl } from '../harness/sites';
import { until } from '../harness/until';

const browsers: BrowserName[] = ['chromium', 'firefox'];
const ASK_EVERYTHING = { version: 1, mode: 'ask', sites: [], tools: {}, localFiles: false };

const storedPermissions = (page: Page) =>
  page.evaluate(async () => {
    const api = (globalThis as any).browser ?? (globalThis as any).chrome;
    return (await api.storage.local.get('permissions')).permissions ?? null;
  });

/** Polls rather than waiting for animation frames: the page is often a background tab while the popup works. */
const waitIn = (page: Page, selector: string, timeout = 15_000) =>
  page.waitForFunction((s) => !!document.querySelector(s), { timeout, polling: 100 }, selector);

async function openPermissions(session: ReturnType<typeof agentSession>) {
  const page = await session.ext.open('options.html#permissions', { width: 1100, height: 900 });
  await waitIn(page, '#perm-site-input');
  await waitIn(page, '[data-testid="perm-log-count"][data-total]');
  return page;
}

/** Empties the activity log with the page's own Clear (its confirmation accepted), if it holds anything. */
async function clearActivityLog(page: Page) {
  if ((await page.$eval('[data-testid="perm-log-count"]', (el) => el.getAttribute('data-total'))) === '0') return;
  await page.evaluate(() => (window.confirm = () => true));
  await page.$eval('[data-testid="perm-log-clear"]', (b) => (b as HTMLButtonElement).click());
  await waitIn(page, '[data-testid="perm-log-count"][data-total="0"]');
}

describe.each(browsers)('the Permissions page in %s', (name) => {
  const session = agentSession(name, {}, ASK_EVERYTHING);
  const { fake, fixtures } = session;

  it('adds a site, blocks it; the next call there is blocked, logged, shown and exported', async () => {
    const options = await openPermissions(session);
    try {
      // The log holds this test's calls alone: what another test of the file logged in this browser goes first.
      await clearActivityLog(options);
      const article = `${siteUrl(fixtures.url, 'blocked')}/web/article.html`;
      // Typed as a user might paste it: upper case, a port, a path.
      await options.type('#perm-site-input', article.replace('blocked.pagewright.test', 'Blocked.PageWright.test'));
      expect(await options.$eval('#perm-site-hint', (el) => el.textContent)).toBe('Saved as http://blocked.pagewright.test');
      await options.click('[data-testid="perm-site-add"]');
      await waitIn(options, 'tr[data-site="http://blocked.pagewright.test"]');
      await waitIn(options, '[data-status="saved"]');
      await options.click('tr[data-site="http://blocked.pagewright.test"] [data-testid="perm-site-block"]');
      const stored = await until(async () => {
        const p = await storedPermissions(options);
        return p?.sites?.[0]?.read === 'block' ? p : undefined;
      }, { what: 'the blocked site in storage.local' });
      expect(stored).toEqual({ ...ASK_EVERYTHING, sites: [{ site: 'http://blocked.pagewright.test', subdomains: false, read: 'block', act: 'block', send: 'block', createdAt: expect.any(Number) }] });
      expect(await options.$eval('tr[data-site="http://blocked.pagewright.test"] select[data-access="act"]', (el) => (el as HTMLSelectElement).value)).toBe('block');

      // The model fetches the blocked site: the background refuses it and logs the decision.
      const [result] = await session.agentRuns([() => ({ name: 'web_fetch', input: { url: article } })]);
      expect(result).toMatchObject({ isError: true, content: expect.stringMatching(/blocked blocked\.pagewright\.test/) });

      await options.click('[data-testid="perm-log-refresh"]');
      await waitIn(options, 'tr[data-entry][data-tool="web_fetch"][data-outcome="blocked"]');
      const row = await options.$eval('tr[data-entry][data-tool="web_fetch"]', (tr) => [...(tr as HTMLTableRowElement).cells].map((c) => c.textContent?.trim()));
      expect(row.slice(2)).toEqual(['web_fetch', 'blocked.pagewright.test · Send', 'Blocked', 'Blocked: you blocked blocked.pagewright.test', '']);
      expect(await options.$eval('[data-testid="perm-log-count"]', (el) => el.textContent?.trim())).toBe('1 entry');

      // Export: the page's own download, caught where it clicks its link.
      await options.evaluate(() => {
        const w = window as any;
        w.__downloads = [];
        HTMLAnchorElement.prototype.click = function (this: HTMLAnchorElement) {
          const { download, href } = this;
          void fetch(href).then(async (r) => w.__downloads.push({ download, type: r.headers.get('content-type'), text: await r.text() }));
        };
      });
      await options.click('[data-testid="perm-log-export"]');
      const [file] = await until(() => options.evaluate(() => ((window as any).__downloads.length ? (window as any).__downloads : undefined)), { what: 'the exported file' });
      expect(file.download).toMatch(/^pagewright-activity-\d{4}-\d{2}-\d{2}\.json$/);
      expect(file.type).toMatch(/^application\/json/);
      const exported = JSON.parse(file.text);
      expect(exported).toEqual([
        {
          at: expect.any(Number),
          conversationId: expect.any(String),
          tool: 'web_fetch',
          site: 'http://blocked.pagewright.test',
          url: article,
          access: 'send',
          decision: { outcome: 'blocked', by: 'rule', rule: 'site_block', site: 'http://blocked.pagewright.test' },
        },
      ]);
      expect(await options.$eval('tr[data-entry] td[title]', (td) => td.getAttribute('title'))).toBe(exported[0].conversationId);
    } finally {
      await options.close();
    }
  });

  it('an "Always on this site" click in the popup shows on the open page at once', async () => {
    const options = await openPermissions(session);
    try {
      expect(await options.$('tr[data-site]')).toBeNull();
      const { popup } = session;
      fake.script(toolCall('open_tab', { url: `${siteUrl(fixtures.url, 'news')}/web/article.html`, active: false }), text('Opened the article.'));
      await popup.send('Open the article');
      await popup.waitFor('[data-approval][data-tool="open_tab"]');
      await popup.page.evaluate(() => {
        const always = [...document.querySelectorAll<HTMLButtonElement>('[data-approval] button')].find((b) => b.textContent?.trim() === 'Always on this site');
        always!.click();
      });
      await popup.waitForAssistantText('Opened the article.', 40_000);

      // Nobody reloaded the page: it read the background's write when storage said so.
      await waitIn(options, 'tr[data-site="http://news.pagewright.test"]');
      const levels = await options.$$eval('tr[data-site="http://news.pagewright.test"] select', (els) => els.map((s) => (s as HTMLSelectElement).value));
      expect(levels).toEqual(['allow', 'allow', 'ask']);
      expect(await options.$eval('tr[data-site="http://news.pagewright.test"] .used', (el) => el.textContent?.trim())).not.toBe('Never');

      await until(async () => {
        await options.click('[data-testid="perm-log-refresh"]');
        return options.$('tr[data-entry][data-tool="open_tab"]');
      }, { what: 'the open_tab entry in the log' });
      const row = await options.$eval('tr[data-entry][data-tool="open_tab"]', (tr) => [...(tr as HTMLTableRowElement).cells].map((c) => c.textContent?.trim()));
      expect(row.slice(2)).toEqual(['open_tab', 'news.pagewright.test · Act', 'Allowed', 'Allowed by you, always on news.pagewright.test', '']);
    } finally {
      await options.close();
    }
  });
});
