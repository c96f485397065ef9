import { describe, expect, it } from 'vitest';
import { PageError, type PagesAdapter } from '../../lib/browser/pages';
import { TabError, type TabInfo, type TabsAdapter } from '../../lib/browser/tabs';
import { defaultSettings } from '../../lib/settings';
import { detachedEnv, type ToolEnv } from '../../lib/tools/env';
import { ToolRegistry, type ToolContext } from '../../lib/tools/registry';
import { pageTools } from '../../lib/tools/pages';
import { TaskBoard } from '../../lib/tools/task-board';
import { tabTools } from '../../lib/tools/tabs';

/** An in-memory browser: enough tab behaviour to test the tools' own logic. */
function fakeTabs(initial: TabInfo[], { loads = true } = {}): TabsAdapter & { tabs: TabInfo[] } {
  const tabs = initial.map((t) => ({ ...t }));
  let nextId = 100;
  const find = (id: number) => {
    const t = tabs.find((x) => x.id === id);
    if (!t) throw new TabError('not_found', `No tab with id ${id}: it was closed or never existed. Call list_tabs to see the open tabs.`);
    return t;
  };
  return {
    tabs,
    query: async ({ active, windowId, audible }) =>
      tabs.filter((t) => (active === undefined || t.active === active) && (windowId === undefined || t.window_id === windowId) && (audible === undefined || t.audible === audible)),
    get: async (id) => ({ ...find(id) }),
    create: async ({ url, active, windowId }) => {
      const t: TabInfo = { id: nextId++, window_id: windowId ?? 1, url, title: '', active, audible: false, status: 'loading' };
      tabs.push(t);
      return { ...t };
    },
    navigate: async (id, url) => Object.assign(find(id), { url, status: 'loading' as const }),
    close: async (id) => void tabs.splice(tabs.indexOf(find(id)), 1),
    activate: async (id) => Object.assign(find(id), { active: true }),
    waitForLoad: async (id) => {
      if (loads) find(id).status = 'complete';
      return loads;
    },
    windowExists: async (id) => tabs.some((t) => t.window_id === id),
    fileAccessAllowed: async () => false,
    userTab: async () => undefined,
  };
}

const tab = (id: number, window_id: number, url: string, title: string, extra: Partial<TabInfo> = {}): TabInfo => ({
  id, window_id, url, title, active: false, audible: false, status: 'complete', ...extra,
});

const initial = () => [
  tab(1, 1, 'https://news.example/today', 'Today\'s News', { active: true }),
  tab(2, 1, 'https://music.example/play', 'Now Playing', { audible: true }),
  tab(3, 2, 'https://docs.example/API', 'API reference', { active: true }),
];

function setup(adapter: TabsAdapter, pages?: PagesAdapter) {
  const registry = new ToolRegistry([...tabTools, ...pageTools]);
  const env: ToolEnv = { ...detachedEnv(defaultSettings()), tabs: adapter, ...(pages ? { pages } : {}) };
  const ctx: ToolContext = { conversationId: 'c', signal: new AbortController().signal, tasks: new TaskBoard(), env };
  return async (name: string, input: unknown) => {
    const out = await registry.call(name, input, ctx);
    return { ...out, value: out.isError ? out.content : JSON.parse(out.content) };
  };
}

describe('list_tabs', () => {
  it('filters by every criterion; patterns are case-insensitive regexes', async () => {
    const call = setup(fakeTabs(initial()));
    expect((await call('list_tabs', {})).value.map((t: TabInfo) => t.id)).toEqual([1, 2, 3]);
    expect((await call('list_tabs', { url_pattern: 'api$' })).value.map((t: TabInfo) => t.id)).toEqual([3]);
    expect((await call('list_tabs', { title_pattern: 'now|today' })).value.map((t: TabInfo) => t.id)).toEqual([1, 2]);
    expect((await call('list_tabs', { active: true })).value.map((t: TabInfo) => t.id)).toEqual([1, 3]);
    expect((await call('list_tabs', { window_id: 2 })).value.map((t: TabInfo) => t.id)).toEqual([3]);
    expect((await call('list_tabs', { audible: true })).value.map((t: TabInfo) => t.id)).toEqual([2]);
    expect((await call('list_tabs', { active: true, window_id: 1, url_pattern: 'news' })).value.map((t: TabInfo) => t.id)).toEqual([1]);
  });

  it('refuses an invalid regex, naming the argument', async () => {
    const call = setup(fakeTabs(initial()));
    const r = await call('list_tabs', { title_pattern: '(' });
    expect(r.isError).toBe(true);
    expect(r.value).toMatch(/^title_pattern is not a valid regular expression: /);
  });

  it.each([
    [{ active: 'yes' }, /"active": must be true or false/],
    [{ window_id: 1.5 }, /"window_id": must be a whole number/],
    [{ url_pattern: 'a'.repeat(501) }, /"url_pattern": must be at most 500 characters/],
    [{ tab: 1 }, /unknown argument "tab"/],
  ])('refuses bad arguments %j', async (input, message) => {
    const r = await setup(fakeTabs(initial()))('list_tabs', input);
    expect(r).toMatchObject({ isError: true, value: expect.stringMatching(message) });
  });
});

describe('open_tab', () => {
  it('opens a new active tab and waits for the load by default', async () => {
    const adapter = fakeTabs(initial());
    const r = await setup(adapter)('open_tab', { url: 'https://example.com/' });
    expect(r.value).toMatchObject({ id: 100, url: 'https://example.com/', active: true, status: 'complete', loaded: true });
  });

  it('navigates an existing tab', async () => {
    const r = await setup(fakeTabs(initial()))('open_tab', { url: 'https://example.com/next', tab_id: 2, active: false });
    expect(r.value).toMatchObject({ id: 2, url: 'https://example.com/next', loaded: true });
  });

  it('does not wait when told not to', async () => {
    const r = await setup(fakeTabs(initial()))('open_tab', { url: 'https://example.com/', wait_until_loaded: false });
    expect(r.value).toMatchObject({ status: 'loading', loaded: false });
  });

  it('returns with a still-loading note when the page does not load in time', async () => {
    const r = await setup(fakeTabs(initial(), { loads: false }))('open_tab', { url: 'https://slow.example/' });
    expect(r.isError).toBe(false);
    expect(r.value).toMatchObject({ loaded: false, status: 'loading', note: expect.stringMatching(/^still loading after 30 s/) });
  });

  it.each([
    [{ url: 'https://example.com/', tab_id: 42 }, /No tab with id 42/],
    [{ url: 'https://example.com/', window_id: 9 }, /No window with id 9/],
    [{ url: 'javascript:alert(1)' }, /javascript: URLs are refused/],
    [{ url: '' }, /"url": must not be empty/],
    [{}, /"url" is required/],
    [{ url: 'https://example.com/', active: 1 }, /"active": must be true or false/],
  ])('refuses %j', async (input, message) => {
    const r = await setup(fakeTabs(initial()))('open_tab', input);
    expect(r).toMatchObject({ isError: true, value: expect.stringMatching(message) });
  });
});

describe('close_tab and activate_tab', () => {
  it('close a tab; closing it again says it is gone', async () => {
    const adapter = fakeTabs(initial());
    const call = setup(adapter);
    expect((await call('close_tab', { tab_id: 2 })).value).toEqual({ closed: true, tab_id: 2 });
    expect(adapter.tabs.map((t) => t.id)).toEqual([1, 3]);
    expect(await call('close_tab', { tab_id: 2 })).toMatchObject({ isError: true, value: expect.stringMatching(/No tab with id 2/) });
  });

  it('activate a tab', async () => {
    const r = await setup(fakeTabs(initial()))('activate_tab', { tab_id: 2 });
    expect(r.value).toMatchObject({ id: 2, active: true });
  });

  it.each([[{ tab_id: '3' }], [{ tab_id: -1 }], [{}]])('refuse a bad tab_id %j', async (input) => {
    const r = await setup(fakeTabs(initial()))('activate_tab', input);
    expect(r).toMatchObject({ isError: true, value: expect.stringMatching(/"tab_id"/) });
  });
});

describe("get_tab_content's failures", () => {
  const failing = (error: PageError): PagesAdapter => ({
    read: async () => {
      throw error;
    },
    run: async () => {
      throw error;
    },
    selection: async () => '',
    act: async () => {
      throw error;
    },
  });

  it("gives the page's own message as it is", async () => {
    const r = await setup(fakeTabs(initial()), failing(new PageError('no_match', 'No element matches the selector "#nav".')))('get_tab_content', { tab_id: 1, selector: '#nav' });
    expect(r).toEqual({ isError: true, content: 'No element matches the selector "#nav".', value: 'No element matches the selector "#nav".' });
  });

  it('says which tab a restricted page is in', async () => {
    const r = await setup(fakeTabs(initial()), failing(new PageError('restricted', 'The browser does not let extensions into this page (x).')))('get_tab_content', { tab_id: 3 });
    expect(r.value).toBe('Tab 3 cannot be read or scripted: The browser does not let extensions into this page (x).');
  });

  it('says a closed tab is gone', async () => {
    const r = await setup(fakeTabs(initial()), failing(new PageError('empty', 'unused')))('get_tab_content', { tab_id: 42 });
    expect(r.value).toBe('No tab with id 42: it was closed or never existed. Call list_tabs to see the open tabs.');
  });
});
