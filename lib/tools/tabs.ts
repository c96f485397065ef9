import * as v from 'valibot';
import type { TabInfo } from '../browser/tabs';
import type { CallTarget, SiteAccess } from '../contracts/permissions';
import { builtinFacts } from './catalog';
import { defineTool, ToolError, type ToolContext } from './registry';
import { checkOpenableUrl } from './url-policy';

export const LOAD_TIMEOUT_MS = 30_000;
const PATTERN_MAX = 500;

export const tabId = v.pipe(
  v.number('must be a number (a tab id from list_tabs)'),
  v.integer('must be a whole number (a tab id from list_tabs)'),
  v.minValue(0, 'must be a tab id from list_tabs'),
);
const windowId = v.pipe(v.number('must be a number (a window_id from list_tabs)'), v.integer('must be a whole number'));
const pattern = v.pipe(
  v.string('must be a string (a regular expression)'),
  v.maxLength(PATTERN_MAX, `must be at most ${PATTERN_MAX} characters`),
);

function compile(name: string, source: string | undefined): RegExp | undefined {
  if (source === undefined) return undefined;
  try {
    return new RegExp(source, 'i');
  } catch (e) {
    throw new ToolError(`${name} is not a valid regular expression: ${(e as Error).message}.`);
  }
}

export const listTabs = defineTool({
  ...builtinFacts('list_tabs'),
  description:
    'List open tabs, all or filtered. Returns [{id, window_id, url, title, active, audible, status}]',
  input: v.strictObject({
    url_pattern: v.optional(v.pipe(pattern, v.description('Regex, any case'))),
    title_pattern: v.optional(v.pipe(pattern, v.description('Regex, any case'))),
    active: v.optional(v.pipe(v.boolean('must be true or false'), v.description("Only each window's active tab"))),
    window_id: v.optional(windowId),
    audible: v.optional(v.boolean('must be true or false')),
  }),
  async run(input, ctx) {
    const urlRe = compile('url_pattern', input.url_pattern);
    const titleRe = compile('title_pattern', input.title_pattern);
    const tabs = await ctx.env.tabs.query({
      ...(input.active !== undefined ? { active: input.active } : {}),
      ...(input.window_id !== undefined ? { windowId: input.window_id } : {}),
      ...(input.audible !== undefined ? { audible: input.audible } : {}),
    });
    return tabs.filter((t) => (!urlRe || urlRe.test(t.url)) && (!titleRe || titleRe.test(t.title))).map(publicTab);
  },
});

export const openTab = defineTool({
  ...builtinFacts('open_tab'),
  description:
    `Open a URL in a new tab, or in tab_id, and wait for it to load (${LOAD_TIMEOUT_MS / 1000} s at most). Returns the tab and loaded`,
  input: v.strictObject({
    url: v.pipe(v.string('must be a string'), v.nonEmpty('must not be empty'), v.maxLength(8192, 'must be at most 8192 characters')),
    tab_id: v.optional(v.pipe(tabId, v.description('Navigate this tab instead'))),
    active: v.optional(v.pipe(v.boolean('must be true or false'), v.description('Default true'))),
    window_id: v.optional(windowId),
    wait_until_loaded: v.optional(v.pipe(v.boolean('must be true or false'), v.description('Default true'))),
  }),
  // The address leaves the machine with the request, and the page runs as the user's.
  // A URL that cannot be opened anyway is refused before anyone is asked; file: is the policy's to decide.
  targets: (input) => {
    const verdict = checkOpenableUrl(input.url, { fileAccess: true });
    if (!verdict.ok) throw new ToolError(`Cannot open that URL: ${verdict.reason}`);
    return [{ access: 'act', url: verdict.url, navigates: true }];
  },
  async run(input, ctx) {
    const verdict = checkOpenableUrl(input.url, { fileAccess: await ctx.env.tabs.fileAccessAllowed() });
    if (!verdict.ok) throw new ToolError(`Cannot open that URL: ${verdict.reason}`);
    const active = input.active ?? true;
    if (input.window_id !== undefined && !(await ctx.env.tabs.windowExists(input.window_id))) {
      throw new ToolError(`No window with id ${input.window_id}. Call list_tabs to see the window_id of each tab.`);
    }
    let tab = await (input.tab_id !== undefined
      ? ctx.env.tabs.navigate(input.tab_id, verdict.url, active)
      : ctx.env.tabs.create({ url: verdict.url, active, ...(input.window_id !== undefined ? { windowId: input.window_id } : {}) }));
    if (input.wait_until_loaded === false) return { ...publicTab(tab), loaded: false };
    const newTab = input.tab_id === undefined;
    const loaded = await ctx.env.tabs.waitForLoad(tab.id, LOAD_TIMEOUT_MS, ctx.signal, { url: verdict.url, newTab });
    tab = await ctx.env.tabs.get(tab.id);
    return loaded
      ? { ...publicTab(tab), loaded: true }
      : {
          ...publicTab(tab),
          loaded: false,
          note: `still loading after ${LOAD_TIMEOUT_MS / 1000} s; the page may be partly usable. Call get_tab_content or list_tabs later to check.`,
        };
  },
});

export const closeTab = defineTool({
  ...builtinFacts('close_tab'),
  description: 'Close a tab. Returns {closed: true, tab_id}',
  input: v.strictObject({ tab_id: tabId }),
  targets: ({ tab_id }, ctx) => tabTargets(ctx, tab_id, 'act'),
  async run({ tab_id }, ctx) {
    await ctx.env.tabs.close(tab_id);
    return { closed: true, tab_id };
  },
});

export const activateTab = defineTool({
  ...builtinFacts('activate_tab'),
  description: 'Show a tab to the user (focuses its window). Returns the tab',
  input: v.strictObject({ tab_id: tabId }),
  targets: ({ tab_id }, ctx) => tabTargets(ctx, tab_id, 'act'),
  async run({ tab_id }, ctx) {
    return publicTab(await ctx.env.tabs.activate(tab_id));
  },
});

/** The fields the contract names, in its order. */
export function publicTab(t: TabInfo) {
  return { id: t.id, window_id: t.window_id, url: t.url, title: t.title, active: t.active, audible: t.audible, status: t.status };
}

/** The site a call on tab `id` touches: the page the tab shows (a missing tab fails the call here). */
export async function tabTargets(ctx: ToolContext, id: number, access: SiteAccess, preview?: string): Promise<CallTarget[]> {
  const tab = await ctx.env.tabs.get(id);
  return [{ access, url: tab.url, ...(preview ? { preview } : {}) }];
}

export async function requireTab(ctx: ToolContext, id: number): Promise<TabInfo> {
  const tab = await ctx.env.tabs.get(id);
  if (tab.discarded) {
    throw new ToolError(`Tab ${id} is discarded (unloaded by the browser to save memory). Call activate_tab on it to reload it first.`);
  }
  return tab;
}

export const tabTools = [listTabs, openTab, closeTab, activateTab];
