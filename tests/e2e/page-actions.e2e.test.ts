/**
 * page_action end to end: the fake model drives real pages in the built extension, in Chromium and
 * Firefox ESR, through page_action alone, and the pages' own state shows what it did. The sign-up app
 * is a Preact app bundled from npm when the suite starts (tests/harness/action-app.ts).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { serveActionApp } from '../harness/action-app';
import type { BrowserName } from '../harness/browsers';
import { setPermissions, setSettings, TEST_PERMISSIONS } from '../harness/popup';
import { text, toolCall } from '../harness/fake-anthropic';
import { agentSession } from '../harness/session';
import { until } from '../harness/until';

const browsers: BrowserName[] = ['chromium', 'firefox'];

/** The selector get_tab_content gave the control of `kind` labelled `label`: `[kind "label" … {selector}]`. */
function selectorOf(md: string, kind: string, label: string): string {
  const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const m = md.match(new RegExp(`\\[${esc(kind)}[^\\[\\]\\n]*?"${esc(label)}"[^\\n]*?\\{((?:[^{}"\\n]|"(?:[^"\\\\]|\\\\.)*")+)\\}\\]`));
  if (!m) throw new Error(`no [${kind} "${label}" {…}] in:\n${md}`);
  return m[1]!;
}

describe.each(browsers)('page_action in %s', (name) => {
  const session = agentSession(name);
  const { fixtures, openTab, agentRuns } = session;
  beforeAll(async () => {
    await serveActionApp(fixtures);
  });

  const act = (tab: number, action: string, input: Record<string, unknown> = {}) => ({ name: 'page_action', input: { tab_id: tab, action, ...input } });

  it('fills and submits a Preact form with controlled inputs, a combobox, checkboxes, a modal and client-side routing', async () => {
    // Its own address: the test finds its page by it, and other tests open app.html too.
    const tab = await openTab('/page-actions/app.html?form', 'Sign-up app');
    const page = await session.pageShowing(`${fixtures.url}/page-actions/app.html?form`);
    await until(() => page.evaluate(() => !!document.querySelector('form')), { what: 'the app to render' });
    let md = '';
    const s = (kind: string, label: string) => selectorOf(md, kind, label);
    const results = await agentRuns([
      () => ({ name: 'get_tab_content', input: { tab_id: tab } }),
      (read) => ((md = read.content.content), act(tab, 'fill', { selector: s('input', 'Full name'), text: 'Ada Lovelace' })),
      () => act(tab, 'type', { selector: s('input email', 'Email'), text: 'ada@example.org' }),
      () => act(tab, 'clear', { selector: s('textarea', 'Notes') }),
      () => act(tab, 'type', { selector: s('textarea', 'Notes'), text: 'Hi!' }),
      () => act(tab, 'select', { selector: s('combobox', 'Plan'), value: 'Pro' }),
      () => act(tab, 'select', { selector: s('select', 'Country'), value: 'Korea' }),
      () => act(tab, 'check', { selector: s('checkbox', 'News') }),
      () => act(tab, 'check', { selector: s('checkbox', 'Events') }),
      () => act(tab, 'check', { selector: s('checkbox', 'I accept the terms') }),
      () => act(tab, 'check', { selector: s('checkbox', 'News') }),
      () => act(tab, 'click', { selector: s('button', 'Delete draft') }),
      () => act(tab, 'press', { selector: s('input email', 'Email'), key: 'Enter' }),
      () => ({ name: 'get_tab_content', input: { tab_id: tab } }),
      (read) => ((md = read.content.content), act(tab, 'click', { selector: s('button', 'Confirm and send') })),
    ]);
    const [, fill, type, clear, type2, combo, select, news, events, terms, again, del, enter, , confirm] = results;
    for (const r of results) expect(r.isError, JSON.stringify(r.content)).toBe(false);
    expect(fill.content).toMatchObject({ action: 'fill', input: 'synthetic', element: { role: 'input', name: 'Full name', value: 'Ada Lovelace' } });
    expect(type.content.element).toMatchObject({ value: 'ada@example.org' });
    expect(clear.content.element).toMatchObject({ value: '' });
    expect(type2.content.element).toMatchObject({ value: 'Hi!' });
    expect(combo.content.element).toMatchObject({ role: 'combobox', name: 'Plan', value: 'Pro' });
    expect(select.content.element).toMatchObject({ role: 'select', value: 'Korea' });
    expect(news.content.element.states).toContain('checked');
    expect(events.content.element.states).toContain('checked');
    expect(terms.content.element.states).toContain('checked');
    expect(again.content.note).toMatch(/already checked/);
    // The app's confirm() was answered "no" (the default) and said so; the draft is kept.
    expect(del.content.dialogs).toEqual([{ type: 'confirm', message: 'Delete the draft?', answer: 'dismissed' }]);
    // Enter in the email field: the app's key handler saw it, and the form was submitted (its modal opened).
    expect(enter.content.appeared).toMatch(/Check your details/);
    // The modal's button routes on the client: a new URL in the same document, and the summary appears.
    expect(confirm.content.url).toBe(`${fixtures.url}/page-actions/done`);
    expect(confirm.content.appeared).toMatch(/Submitted:/);
    const summary = await page.evaluate(() => document.getElementById('summary')?.textContent);
    expect(summary).toBe('Submitted: name=Ada Lovelace; email=ada@example.org; plan=Pro; country=kr; topics=News+Events; terms=true; notes=Hi!');
  });

  it('finds a re-rendered element again by the role and name recorded when the page was read', async () => {
    const tab = await openTab('/page-actions/app.html', 'Sign-up app');
    let md = '';
    const results = await agentRuns([
      () => ({ name: 'get_tab_content', input: { tab_id: tab } }),
      (read) => ((md = read.content.content), act(tab, 'click', { selector: selectorOf(md, 'button', 'Reload list') })),
      // The rows were replaced: the stamp the reader put on "Pick Bananas" went with the old row.
      () => act(tab, 'click', { selector: selectorOf(md, 'button', 'Pick Bananas') }),
    ]);
    expect(selectorOf(md, 'button', 'Pick Bananas')).toMatch(/^\[pw="\d+"\]$/);
    expect(results[2]!.isError, JSON.stringify(results[2]!.content)).toBe(false);
    expect(results[2]!.content.refound).toMatch(/re-rendered.*button "Pick Bananas".*role and name/);
    expect(results[2]!.content.appeared).toMatch(/Picked: Bananas/);
  });

  it('drives a shadow-DOM widget and a same-origin iframe form, and refuses covered and disabled buttons', async () => {
    // Its own address: the test finds its page by it, and other tests open widgets.html too.
    const tab = await openTab('/page-actions/widgets.html?drive', 'Widgets');
    const page = await session.pageShowing(`${fixtures.url}/page-actions/widgets.html?drive`);
    await until(
      () => page.evaluate(() => !!(document.getElementById('frame') as HTMLIFrameElement).contentDocument?.querySelector('form') && !!document.querySelector('search-widget')?.shadowRoot),
      { what: 'the widget and the frame' },
    );
    let md = '';
    const s = (kind: string, label: string) => selectorOf(md, kind, label);
    const results = await agentRuns([
      () => ({ name: 'get_tab_content', input: { tab_id: tab } }),
      (read) => ((md = read.content.content), act(tab, 'type', { selector: s('input', 'Search'), text: 'lovelace' })),
      () => act(tab, 'click', { selector: s('button', 'Go') }),
      () => act(tab, 'fill', { selector: s('input', 'Address'), text: 'ada@example.org' }),
      () => act(tab, 'check', { selector: s('checkbox', 'Weekly digest') }),
      () => act(tab, 'click', { selector: s('button', 'Subscribe') }),
      () => act(tab, 'click', { selector: '#offer' }),
      () => act(tab, 'click', { selector: '#disabled-btn' }),
      () => act(tab, 'click', { selector: '#danger' }),
      () => act(tab, 'scroll', { selector: '#box', direction: 'down' }),
      () => act(tab, 'wait_for', { text: 'Nothing deleted', timeout_ms: 2000 }),
    ]);
    const [, typed, go, filled, weekly, subscribe, covered, disabled, danger, scrolled, waited] = results;
    expect(s('input', 'Search')).toContain('>>>');
    expect(s('input', 'Address')).toContain('>>>');
    for (const r of [typed, go, filled, weekly, subscribe, danger, scrolled, waited]) expect(r.isError, JSON.stringify(r.content)).toBe(false);
    expect(typed.content.element).toMatchObject({ value: 'lovelace' });
    expect(go.content.appeared).toMatch(/Searched for lovelace/);
    expect(weekly.content.element.states).toContain('checked');
    const frameText = await page.evaluate(() => (document.getElementById('frame') as HTMLIFrameElement).contentDocument!.getElementById('frame-result')!.textContent);
    expect(frameText).toBe('Subscribed ada@example.org weekly');
    expect(covered).toMatchObject({ isError: true, content: expect.stringMatching(/button "Claim offer" is covered by div#overlay "Cookie notice: we use cookies"/) });
    expect(disabled).toMatchObject({ isError: true, content: expect.stringMatching(/disabled/) });
    expect(danger.content.dialogs).toEqual([{ type: 'confirm', message: 'Really delete everything?', answer: 'dismissed' }]);
    expect(await page.evaluate(() => document.getElementById('deleted')!.textContent)).toBe('Nothing deleted');
    expect(scrolled.content.scroll).toMatchObject({ moved: true });
    expect(waited.content.note).toMatch(/Condition met/);
  });

  it('hovers, focuses, double-clicks, scrolls the page and waits for something to go', async () => {
    const tab = await openTab('/page-actions/widgets.html?more', 'Widgets');
    const results = await agentRuns([
      () => act(tab, 'hover', { selector: '#danger' }),
      () => act(tab, 'focus', { selector: 'search-widget >>> #q' }),
      () => act(tab, 'press', { key: 'x' }),
      () => act(tab, 'double_click', { selector: 'search-widget >>> #go' }),
      () => act(tab, 'scroll', { direction: 'bottom' }),
      () => act(tab, 'scroll', { direction: 'top' }),
      () => act(tab, 'wait_for', { selector: '#nope', until: 'disappears', timeout_ms: 500 }),
    ]);
    for (const r of results) expect(r.isError, JSON.stringify(r.content)).toBe(false);
    const [hovered, focused, pressed, dbl, bottom, top] = results;
    expect(hovered.content.element).toMatchObject({ role: 'button', name: 'Delete everything' });
    expect(focused.content.element.states).toContain('focused');
    // press without a selector goes to the focused element: the field inside the shadow root.
    expect(pressed.content.element).toBeUndefined();
    expect(dbl.content.appeared).toMatch(/Searched for x/);
    expect(bottom.content.scroll).toMatchObject({ moved: true, atEnd: true });
    expect(top.content.scroll).toMatchObject({ y: 0, moved: true });
  });

  it('reports a page load the action started: the new URL, loaded', async () => {
    const tab = await openTab('/page-actions/widgets.html', 'Widgets');
    const [r] = await agentRuns([() => act(tab, 'click', { selector: '#to-frame' })]);
    expect(r.isError, JSON.stringify(r.content)).toBe(false);
    expect(r.content.navigation).toEqual({ url: `${fixtures.url}/page-actions/frame-form.html`, loaded: true, title: 'Frame form' });
  });

  it('gives clear errors for bad input', async () => {
    const tab = await openTab('/page-actions/widgets.html', 'Widgets');
    const t0 = Date.now();
    const results = await agentRuns([
      () => act(tab, 'swipe', { selector: '#danger' }),
      () => act(tab, 'click', { selector: '#nope' }),
      () => act(tab, 'click', { selector: 'button' }),
      () => act(tab, 'select', { selector: '#danger', value: 'x' }),
      () => act(tab, 'press', { key: 'Foo' }),
      () => act(tab, 'wait_for', { selector: '#never', timeout_ms: 300 }),
      () => act(99999, 'click', { selector: '#danger' }),
      () => act(tab, 'fill', { selector: '#danger', text: 'x' }),
      () => act(tab, 'click', {}),
      () => act(tab, 'click', { selector: 'button[' }),
    ]);
    expect(results[0]).toMatchObject({ isError: true, content: expect.stringMatching(/"action": must be one of click, double_click/) });
    expect(results[1]).toMatchObject({ isError: true, content: expect.stringMatching(/No element matches "#nope"/) });
    expect(results[2]).toMatchObject({ isError: true, content: expect.stringMatching(/matches \d+ elements/) });
    expect(results[3]).toMatchObject({ isError: true, content: expect.stringMatching(/not a <select>, a combobox or a listbox/) });
    expect(results[4]).toMatchObject({ isError: true, content: expect.stringMatching(/Unknown key "Foo"\. Valid keys: .*Enter/) });
    expect(results[5]).toMatchObject({ isError: true, content: expect.stringMatching(/Waited 300 ms for "#never" to appear; it did not happen/) });
    expect(results[6]).toMatchObject({ isError: true, content: expect.stringMatching(/No tab with id 99999/) });
    expect(results[7]).toMatchObject({ isError: true, content: expect.stringMatching(/is not a text field/) });
    expect(results[8]).toMatchObject({ isError: true, content: expect.stringMatching(/"selector": click needs a selector/) });
    expect(results[9]).toMatchObject({ isError: true, content: expect.stringMatching(/Invalid selector/) });
    expect(Date.now() - t0).toBeLessThan(30_000);
  });

  it.runIf(name === 'chromium')('sends trusted input through the DevTools protocol when the setting is on', async () => {
    await setSettings(session.popup.page, { apiKey: 'test-key', baseUrl: session.fake.url, trustedInput: true });
    // Its own address: other tests leave tabs on app.html.
    const tab = await openTab('/page-actions/app.html?trusted', 'Sign-up app');
    // Input goes where a person's would: to the tab on screen.
    await session.popup.page.evaluate((id) => (globalThis as any).chrome.tabs.update(id, { active: true }), tab);
    let md = '';
    const s = (kind: string, label: string) => selectorOf(md, kind, label);
    const results = await agentRuns([
      () => ({ name: 'get_tab_content', input: { tab_id: tab } }),
      (read) => ((md = read.content.content), act(tab, 'click', { selector: s('input', 'Full name') })),
      () => act(tab, 'type', { selector: s('input', 'Full name'), text: 'Grace' }),
      () => act(tab, 'press', { selector: s('input', 'Full name'), key: 'Control+A' }),
      () => act(tab, 'press', { selector: s('input', 'Full name'), key: 'Backspace' }),
      () => act(tab, 'type', { selector: s('input', 'Full name'), text: 'Ada' }),
      () => act(tab, 'check', { selector: s('checkbox', 'News') }),
      () => act(tab, 'fill', { selector: s('input email', 'Email'), text: 'ada@example.org' }),
    ]);
    for (const r of results) expect(r.isError, JSON.stringify(r.content)).toBe(false);
    const [, click, typed, selectAll, erased, retyped, news, fill] = results;
    expect(click.content.input).toBe('trusted');
    expect(typed.content).toMatchObject({ input: 'trusted', element: { value: 'Grace' } });
    expect(selectAll.content.input).toBe('trusted');
    // Control+A selected the text the browser's own way, so Backspace erased all of it.
    expect(erased.content.element).toMatchObject({ value: '' });
    expect(retyped.content.element).toMatchObject({ value: 'Ada' });
    expect(news.content).toMatchObject({ input: 'trusted', element: { states: expect.arrayContaining(['checked']) } });
    // fill has no DevTools form: synthetic, and the result says so.
    expect(fill.content).toMatchObject({ input: 'synthetic', element: { value: 'ada@example.org' } });
    const live = await (await session.pageShowing(`${fixtures.url}/page-actions/app.html?trusted`)).evaluate(() => document.getElementById('live')!.textContent);
    expect(live).toContain('name=Ada;');
    expect(live).toContain('topics=News;');
    await setSettings(session.popup.page, { apiKey: 'test-key', baseUrl: session.fake.url, trustedInput: false });
  });

  it('asks before acting on a site, showing the action; a denial reaches the model and nothing happens', async () => {
    const tab = await openTab('/page-actions/widgets.html?ask', 'Widgets');
    const { popup, fake } = session;
    await setPermissions(popup.page, { ...TEST_PERMISSIONS, mode: 'ask', sites: [] });
    try {
      fake.script(toolCall('page_action', { tab_id: tab, action: 'click', selector: '#danger' }), text('The user said no.'));
      await popup.send('Delete everything');
      const asked = await popup.approval();
      expect(asked).toMatchObject({ tool: 'page_action', reason: 'site', preview: 'click on #danger' });
      expect(asked.text).toMatch(/wants to do this on 127\.0\.0\.1 \(click, type or choose as you would\)/);
      await popup.answerApproval(asked.id, 'deny');
      await popup.waitForAssistantText('The user said no.');
      const page = await session.pageShowing(`${fixtures.url}/page-actions/widgets.html?ask`);
      expect(await page.evaluate(() => document.getElementById('deleted')!.textContent)).toBe('Nothing deleted');
    } finally {
      await setPermissions(popup.page, TEST_PERMISSIONS);
    }
  });

  it("acts on a page whose CSP forbids eval (the module is the extension's own file)", async () => {
    const tab = await openTab('/strict-csp.html', 'Strict CSP fixture');
    const [scrolled, waited] = await agentRuns([
      () => act(tab, 'scroll', { selector: '#counter' }),
      () => act(tab, 'wait_for', { selector: '#strict-title', timeout_ms: 1000 }),
    ]);
    expect(scrolled.isError, JSON.stringify(scrolled.content)).toBe(false);
    expect(waited).toMatchObject({ isError: false, content: { note: expect.stringMatching(/Condition met/) } });
  });

  it('refuses a restricted page', async () => {
    const { id: tab } = await session.openRestrictedTab();
    const [r] = await agentRuns([() => act(tab, 'click', { selector: 'body' })]);
    expect(r).toMatchObject({ isError: true, content: expect.stringMatching(/cannot be read or scripted/) });
  });
});
