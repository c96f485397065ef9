import * as v from 'valibot';
import { PageError } from '../browser/pages';
import { builtinFacts } from './catalog';
import { defineTool, fenceWithin, ToolError, type ToolContext } from './registry';
import { requireTab, tabId, tabTargets } from './tabs';
import { restrictedPageReason } from './url-policy';

/** How to use the annotations: said here, not in the system prompt, because sub-agents read pages too. */
export const SELECTOR_HELP =
  'Markdown where headings, landmarks, buttons and fields end in {css-selector}, unique when read ("A >>> B": B in A\'s shadow ' +
  'root or iframe). Links have none: find them by href. "[page controls]" sums up the controls outside the main text: ' +
  'read a [form "…" {sel}] line\'s selector for its fields, and "[+N more {body}]" means the rest are there.';

const maxLength = v.pipe(
  v.number('must be a number of characters'),
  v.integer('must be a whole number'),
  v.minValue(100, 'must be at least 100'),
  v.maxValue(1_000_000, 'must be at most 1000000 (the most a page read returns)'),
);

/** Tells the model why the page cannot be read, or lets the call go on. */
export async function requireReadableTab(ctx: ToolContext, id: number) {
  const tab = await requireTab(ctx, id);
  const reason = restrictedPageReason(tab.url);
  if (reason) throw new ToolError(`Tab ${id} cannot be read or scripted: ${reason}.`);
  return tab;
}

/** A restricted page's message does not say which tab: the model may have several in play. */
export function inTab(e: unknown, tab: number): never {
  if (e instanceof PageError && e.code === 'restricted') throw new ToolError(`Tab ${tab} cannot be read or scripted: ${e.message}`);
  throw e;
}

export const getTabContent = defineTool({
  ...builtinFacts('get_tab_content'),
  description:
    "Read a tab as rendered (what the user sees, logged in). Returns {tab_id, url, title, content, truncated, used_selector}: " +
    SELECTOR_HELP,
  input: v.strictObject({
    tab_id: tabId,
    selector: v.optional(v.pipe(v.string('must be a CSS selector string'), v.nonEmpty('must not be empty'), v.maxLength(2000, 'must be at most 2000 characters'), v.description('Read only this part'))),
    prompt: v.optional(v.pipe(v.string('must be a string'), v.nonEmpty('must not be empty'), v.maxLength(10_000, 'must be at most 10000 characters'), v.description('What to distil from the page, instead of returning it whole'))),
    max_length: v.optional(maxLength),
  }),
  targets: (input, ctx) => tabTargets(ctx, input.tab_id, 'read'),
  fenceResult: (result, fence, input) => {
    const r = result as { url: string; content: string; truncated: boolean };
    const { text, cut } = fenceWithin(fence, r.content, r.url, input.max_length);
    return { ...r, content: text, truncated: r.truncated || cut };
  },
  async run(input, ctx) {
    const tab = await requireReadableTab(ctx, input.tab_id);
    // With a prompt the whole page goes to the summariser; max_length then caps the answer.
    const page = await ctx.env.pages
      .read(tab.id, { ...(input.selector ? { selector: input.selector } : {}), ...(!input.prompt && input.max_length ? { maxLength: input.max_length } : {}) }, ctx.signal)
      .catch((e: unknown) => inTab(e, tab.id));
    let content = page.content;
    let truncated = page.truncated;
    if (input.prompt) {
      content = await ctx.env.summarize(page.content, input.prompt, ctx.signal);
      truncated = false;
      if (input.max_length && content.length > input.max_length) {
        content = content.slice(0, input.max_length);
        truncated = true;
      }
    }
    return { tab_id: tab.id, url: page.url || tab.url, title: page.title || tab.title, content, truncated, used_selector: page.usedSelector };
  },
});

export const pageTools = [getTabContent];
