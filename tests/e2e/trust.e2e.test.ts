/**
 * The policy as a user meets it, with default permissions ("Ask before acting", no site
 * allowed): how few questions a real task takes, blocked sites and local files, sub-agents'
 * approvals, and the bad cases — two popups answering at once, a stop or a killed worker while
 * an approval waits, broken stored permissions.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { defaultPermissions } from '../../lib/contracts/permissions';
import type { BrowserName } from '../harness/browsers';
import { lastToolResult, text, toolCall } from '../harness/fake-anthropic';
import { PopupPage, setPermissions, setSettings } from '../harness/popup';
import { agentSession } from '../harness/session';
import { until } from '../harness/until';

const browsers: BrowserName[] = ['chromium', 'firefox'];

describe.each(browsers)('the trust policy in %s', (name) => {
  // The test sites resolve to 127.0.0.1: web_fetch may reach them, so the policy is what decides.
  const session = agentSession(name, { allowPrivateNetwork: true }, defaultPermissions());
  const { fake } = session;
  // A test that failed mid-way must not leave an approval waiting: the next popup would open on it.
  afterEach(() => session.popup.stopIfRunning());
  const site = (host: string, path = '/index.html') => `http://${host}.pagewright.test:${new URL(session.fixtures.url).port}${path}`;

  async function openUrl(url: string): Promise<number> {
    const id = await session.popup.page.evaluate(async (u) => {
      const api = (globalThis as any).browser ?? (globalThis as any).chrome;
      return (await api.tabs.create({ url: u, active: false })).id as number;
    }, url);
    await until(async () => (await session.tabs()).some((t) => t.id === id && t.url === url && t.status === 'complete'), { timeout: 20_000, what: `tab ${id} to load ${url}` });
    return id;
  }

  /** Answers every approval card with `choice` until the run ends with `final`; returns how many there were. */
  async function answerAll(popup: PopupPage, choice: 'once' | 'always' | 'deny', final: string): Promise<string[]> {
    const asked: string[] = [];
    await until(
      async () => {
        const card = await popup.page.$('[data-approval]');
        if (card) {
          const a = await popup.approval();
          asked.push(`${a.reason}:${a.tool}`);
          await popup.answerApproval(a.id, choice);
        }
        return popup.page.evaluate((t) => [...document.querySelectorAll('[data-role^="assistant"]')].some((el) => el.textContent?.includes(t)), final);
      },
      { timeout: 60_000, what: `the run to end with "${final}"` },
    );
    return asked;
  }

  it('approval fatigue: a 20-step research task on 2 sites asks at most 3 times after two "Always on this site"', async () => {
    await setSettings(session.popup.page, { duckduckgoEndpoint: `${session.fixtures.url}/engines/duckduckgo/html/` });
    const tabs: Record<string, number> = {};
    const open = (key: string, url: string) => (body: any) => {
      if (key in tabs) return toolCall('open_tab', { url, tab_id: tabs[key] });
      return toolCall('open_tab', { url });
    };
    const remember = (key: string) => (body: any) => {
      tabs[key] ??= lastToolResult(body).content.id;
      return toolCall('get_tab_content', { tab_id: tabs[key], max_length: 2000 });
    };
    const read = (key: string) => () => toolCall('get_tab_content', { tab_id: tabs[key], max_length: 2000 });
    const steps = [
      () => toolCall('create_task', { subject: 'Research the two sites' }),
      open('a', site('alpha')),
      remember('a'),
      () => toolCall('web_search', { query: 'alpha reviews' }),
      open('a', site('alpha', '/form.html')),
      read('a'),
      () => toolCall('web_search', { query: 'beta reviews' }),
      open('b', site('beta')),
      remember('b'),
      open('b', site('beta', '/shadow.html')),
      read('b'),
      () => toolCall('web_search', { query: 'alpha beta comparison' }),
      open('a', site('alpha', '/spa.html')),
      read('a'),
      () => toolCall('opfs_write', { path: 'research/notes.md', content: '# Notes\n\nAlpha and beta.' }),
      () => toolCall('opfs_write', { path: 'research/summary.md', content: '# Summary\n\nBeta wins.' }),
      () => toolCall('update_task', { task_id: '1', status: 'in_progress' }),
      () => toolCall('web_fetch', { url: site('alpha', '/web/article.html') }),
      () => toolCall('list_tasks', {}),
      () => toolCall('update_task', { task_id: '1', status: 'completed' }),
    ];
    expect(steps).toHaveLength(20);
    fake.script(...steps, text('Research finished.'));
    await session.popup.send('Compare the two shops for me and keep notes.');
    const asked = await answerAll(session.popup, 'always', 'Research finished.');
    console.log(`approval fatigue (${name}): 20 steps (5 page reads on 2 sites, 3 searches, 2 workspace writes), ${asked.length} asks: ${asked.join(', ')}`);
    expect(asked.length).toBeLessThanOrEqual(3);
    const errors = await session.popup.page.$$eval('details[data-tool][data-status="error"]', (els) => els.map((e) => e.textContent));
    expect(errors).toEqual([]);
  }, 120_000);

  it('a blocked site is refused without a question, with a message that says the user blocked it', async () => {
    const tab = await openUrl(site('blocked'));
    await setPermissions(session.popup.page, { ...defaultPermissions(), sites: [{ site: 'http://blocked.pagewright.test', subdomains: false, read: 'block', act: 'block', send: 'block', createdAt: 1 }] });
    const [read, fetched] = await session.agentRuns([() => ({ name: 'get_tab_content', input: { tab_id: tab } }), () => ({ name: 'web_fetch', input: { url: site('blocked', '/web/article.html') } })]);
    expect(read).toMatchObject({ isError: true, content: expect.stringMatching(/The user blocked blocked\.pagewright\.test .*Do not retry/) });
    expect(fetched).toMatchObject({ isError: true, content: expect.stringMatching(/The user blocked blocked\.pagewright\.test/) });
    expect(await session.popup.count('[data-approval]')).toBe(0);
    expect(await session.popup.page.$eval('details[data-tool="get_tab_content"] [data-decision]', (el) => el.getAttribute('data-rule'))).toBe('site_block');
  });

  it('file: URLs are refused by Pagewright\'s own policy, whatever file access the browser gives', async () => {
    const [opened] = await session.agentRuns([() => ({ name: 'open_tab', input: { url: 'file:///etc/passwd' } })]);
    expect(opened).toMatchObject({ isError: true, content: expect.stringMatching(/file: URLs are refused: local files are off in Pagewright's Permissions/) });
    expect((await session.tabs()).some((t) => t.url.startsWith('file:'))).toBe(false);
  });

  it('broken stored permissions: the valid rules still apply, the rest are dropped', async () => {
    const tab = await openUrl(site('kept'));
    await setPermissions(session.popup.page, {
      version: 1,
      mode: 'sideways',
      sites: [42, { site: 'kept.pagewright.test', read: 'allow' }, { site: 'http://kept.pagewright.test', read: 'block' }, { site: '' }],
      tools: { get_tab_content: 'perhaps' },
    });
    const [read] = await session.agentRuns([() => ({ name: 'get_tab_content', input: { tab_id: tab } })]);
    // The bare host normalises to https://…, so it does not cover this http page; the explicit http block is kept.
    expect(read).toMatchObject({ isError: true, content: expect.stringMatching(/The user blocked kept\.pagewright\.test/) });
  });

  it('a sub-agent\'s approval surfaces in the parent conversation, labelled; "Act without asking" still asks before anything irreversible', async () => {
    const { popup } = session;
    const tab = await openUrl(site('operated'));
    fake.script(
      toolCall('agent', { description: 'Fill the form', prompt: 'Press the button on the page.', type: 'page_operator', tab_id: tab }),
      toolCall('execute_script', { target: 'page', code: 'return document.title' }),
      text('The user did not let me.'),
      text('The sub-agent could not act.'),
    );
    await popup.send('Press the button for me');
    const asked = await popup.approval();
    expect(asked).toMatchObject({ tool: 'execute_script', reason: 'site' });
    expect(await popup.text(`[data-approval="${asked.id}"] .heading`)).toMatch(/sub-agent page_operator/i);
    expect(asked.preview).toBe('return document.title');
    await popup.answerApproval(asked.id, 'deny');
    await popup.waitForAssistantText('The sub-agent could not act.');

    await setPermissions(popup.page, { ...defaultPermissions(), mode: 'act' });
    await setSettings(popup.page, { instagramUserId: '1784', instagramAccessToken: 'token', instagramApiBase: 'http://127.0.0.1:9' });
    const { setSkills } = await import('../harness/popup');
    await setSkills(popup.page, [{ name: 'instagram_post', skill_type: 'builtin', config: {} }]);
    fake.script(toolCall('instagram_post', { image_url: 'https://example.com/a.jpg', caption: 'Hello' }), text('Not posted.'));
    await popup.send('Post it');
    const post = await popup.approval();
    expect(post).toMatchObject({ tool: 'instagram_post', reason: 'irreversible', choices: ['deny', 'once'] });
    await popup.answerApproval(post.id, 'deny');
    await popup.waitForAssistantText('Not posted.');
  });

  it('two popups answer at once: one decision wins and both see it', async () => {
    const { popup } = session;
    fake.script(toolCall('open_tab', { url: site('race') }), text('Race over.'));
    await popup.send('Open the race page');
    const asked = await popup.approval();
    const second = await PopupPage.open(session.ext);
    await second.page.waitForFunction((id) => !!document.querySelector(`[data-approval="${id}"]`), { timeout: 15_000, polling: 100 }, asked.id);
    // DOM clicks, both sent before either answer is back (the first popup is a background tab now).
    // A click may find the card already gone: the other popup's answer won and closed it everywhere.
    const click = (p: PopupPage, choice: string) =>
      p.page.$eval(`[data-approval="${asked.id}"] button[data-choice="${choice}"]`, (b) => (b as HTMLButtonElement).click()).then(() => 'clicked', () => 'gone');
    const clicks = await Promise.all([click(popup, 'once'), click(second, 'deny')]);
    expect(clicks).toContain('clicked');
    await popup.waitForAssistantText('Race over.');
    await second.waitForAssistantText('Race over.');
    const decisionIn = (p: PopupPage) => p.page.$eval('details[data-tool="open_tab"] [data-decision]', (el) => el.getAttribute('data-decision'));
    const first = await decisionIn(popup);
    expect(['allowed', 'denied']).toContain(first);
    expect(await decisionIn(second)).toBe(first);
    expect(await popup.count('[data-approval]')).toBe(0);
    expect(await second.count('[data-approval]')).toBe(0);
    const result = lastToolResult(fake.requests[1]!.body);
    expect(result.isError).toBe(first === 'denied');
    await second.close();
  });

  it('a stop while an approval waits closes the card and records why', async () => {
    const { popup } = session;
    fake.script(toolCall('open_tab', { url: site('stopped') }), text('never'));
    await popup.send('Open it');
    await popup.approval();
    await popup.page.$eval('button[aria-label="Stop"]', (b) => (b as HTMLButtonElement).click());
    await popup.waitForGone('[data-approval]');
    await popup.waitFor('[data-banner="stopped"]');
    expect(await popup.page.$eval('details[data-tool="open_tab"]', (el) => el.getAttribute('data-status'))).toBe('error');
    expect((await session.tabs()).some((t) => t.url.includes('stopped.pagewright.test'))).toBe(false);
  });

  it.runIf(name === 'chromium')('the worker killed while an approval waits: the run shows interrupted, nothing is lost, and it continues', async () => {
    const { popup, ext } = session;
    fake.script(toolCall('open_tab', { url: site('killed') }), text('Continued without the tab.'));
    await popup.send('Open the killed page');
    await popup.approval();
    await ext.stopBackground();
    await popup.waitFor('[data-banner="interrupted"]', 20_000);
    await popup.waitForGone('[data-approval]');
    expect(await popup.text('[data-role="user"]')).toContain('Open the killed page');
    await popup.page.$eval('[data-banner="interrupted"] button', (b) => (b as HTMLButtonElement).click());
    await popup.waitForAssistantText('Continued without the tab.');
    const messages = fake.requests.at(-1)!.body.messages;
    expect(messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(messages[2].content[0]).toMatchObject({ type: 'tool_result', is_error: true });
    expect((await session.tabs()).some((t) => t.url.includes('killed.pagewright.test'))).toBe(false);
  });
});
