/**
 * page_action: acting on a page as a person does — click, type, choose, press, scroll, wait — by
 * the selectors get_tab_content gives. An addition to the contract's tools (issue 18). The page
 * side is lib/actions (injected by lib/browser/page-actions.ts); this file is the model's side:
 * the schema, what each action needs, and the result.
 */
import * as v from 'valibot';
import { ACTIONS, DIRECTIONS } from '../actions/types';
import { KeyError, parseChord } from '../actions/keys';
import { PageActionError, type PageActionResult } from '../browser/page-actions';
import { builtinFacts } from './catalog';
import { inTab, requireReadableTab } from './pages';
import { defineTool, ToolError } from './registry';
import { tabId, tabTargets } from './tabs';

export const WAIT_DEFAULT_MS = 5_000;
export const WAIT_MAX_MS = 30_000;

const NEEDS_SELECTOR = new Set(['click', 'double_click', 'hover', 'focus', 'type', 'fill', 'clear', 'select', 'check', 'uncheck']);

const str = (max: number, what: string) => v.pipe(v.string(`must be a string (${what})`), v.maxLength(max, `must be at most ${max} characters`));

/** The reason a key name is refused, or '' (the message lists the valid names). */
export function keyProblem(key: string | undefined): string {
  if (key === undefined) return '';
  try {
    parseChord(key);
    return '';
  } catch (e) {
    return e instanceof KeyError ? e.message : String(e);
  }
}

const fields = v.strictObject({
    tab_id: tabId,
    action: v.picklist(ACTIONS, `must be one of ${ACTIONS.join(', ')}`),
    // Few words in the schema: every request carries it (the operating prompt's token budget).
    selector: v.optional(v.pipe(str(2000, 'a {selector} from get_tab_content'), v.nonEmpty('must not be empty'))),
    text: v.optional(str(100_000, 'the text')),
    value: v.optional(str(10_000, "an option's label or value")),
    key: v.optional(str(100, 'a key or chord')),
    direction: v.optional(v.picklist(DIRECTIONS, `must be one of ${DIRECTIONS.join(', ')}`)),
    until: v.optional(v.picklist(['appears', 'disappears'], 'must be "appears" or "disappears"')),
    timeout_ms: v.optional(v.pipe(v.number('must be a number of milliseconds'), v.integer('must be a whole number'), v.minValue(0, 'must be at least 0'), v.maxValue(WAIT_MAX_MS, `must be at most ${WAIT_MAX_MS}`))),
    dialog: v.optional(v.picklist(['dismiss', 'accept'], 'must be "dismiss" or "accept"')),
});
type Input = v.InferOutput<typeof fields>;

export const pageActionInput = v.pipe(
  fields,
  // What each action needs, checked before the permission layer asks anything.
  v.forward(v.check((i: Input) => !NEEDS_SELECTOR.has(i.action) || i.selector !== undefined, (issue) => `${(issue.input as Input).action} needs a selector (a {selector} from get_tab_content)`), ['selector']),
  v.forward(v.check((i: Input) => !(i.action === 'type' || i.action === 'fill') || i.text !== undefined, (issue) => `${(issue.input as Input).action} needs text`), ['text']),
  v.forward(v.check((i: Input) => i.action !== 'select' || (i.value ?? i.text) !== undefined, 'select needs value (the option\'s label or value)'), ['value']),
  v.forward(v.check((i: Input) => i.action !== 'press' || i.key !== undefined, 'press needs key (e.g. Enter, Control+A)'), ['key']),
  v.forward(v.check((i: Input) => i.action !== 'press' || !keyProblem(i.key), (issue) => keyProblem((issue.input as Input).key)), ['key']),
  v.forward(v.check((i: Input) => i.action !== 'wait_for' || (i.selector !== undefined) !== (i.text !== undefined && i.text !== ''), 'wait_for needs either a selector or a text (one of them)'), ['selector']),
);

export const pageAction = defineTool({
  ...builtinFacts('page_action'),
  description:
    'Act on a page as a person, on a {selector} from get_tab_content: type appends text as keys, fill replaces it; select picks ' +
    'a <select>/combobox/listbox option by label or value; press takes a key or chord (Enter, Control+A); scroll moves the ' +
    'page or selector by direction, or to selector; wait_for waits (timeout_ms, default 5000) until selector or text appears ' +
    '(or disappears, until). Refuses hidden, disabled or covered elements. Returns the element\'s new state, navigation, ' +
    'dialogs (dismissed unless dialog=accept; value answers a prompt) and text that appeared or went.',
  input: pageActionInput,
  // Text that appeared and a dialog's message are the site's words: fenced, and they taint the run.
  fenceResult(result, fence) {
    const r = result as Record<string, unknown> & { appeared?: string[]; gone?: string[]; dialogs?: { message: string }[] };
    return {
      ...r,
      ...(r.appeared ? { appeared: fence(r.appeared.join('\n')) } : {}),
      ...(r.gone ? { gone: fence(r.gone.join('\n')) } : {}),
      ...(r.dialogs ? { dialogs: r.dialogs.map((d) => ({ ...d, message: fence(d.message) })) } : {}),
    };
  },
  targets: (input, ctx) => tabTargets(ctx, input.tab_id, 'act', describeCall(input)),
  async run(input, ctx) {
    const tab = await requireReadableTab(ctx, input.tab_id);
    const chord = input.action === 'press' ? parseChord(input.key!) : undefined;
    let result: PageActionResult;
    try {
      result = await ctx.env.pages.act(
        tab.id,
        {
          action: input.action,
          ...(input.selector ? { selector: input.selector } : {}),
          ...(input.text !== undefined ? { text: input.text } : {}),
          ...(input.value !== undefined || input.action === 'select' ? { value: input.value ?? input.text ?? '' } : {}),
          ...(chord ? { chord } : {}),
          ...(input.direction ? { direction: input.direction } : {}),
          ...(input.until ? { until: input.until } : {}),
          timeoutMs: input.timeout_ms ?? WAIT_DEFAULT_MS,
          dialog: input.dialog ?? 'dismiss',
        },
        { trusted: ctx.env.settings.trustedInput, url: tab.url, signal: ctx.signal },
      );
    } catch (e) {
      if (e instanceof PageActionError) {
        if (e.code === 'restricted') throw new ToolError(`Tab ${tab.id} cannot be read or scripted: ${e.message}`);
        if (e.code === 'closed') throw new ToolError(`Tab ${tab.id} is closed (or was closed by the action): see list_tabs.`);
        throw new ToolError(`${input.action} failed: ${e.message}`);
      }
      return inTab(e, tab.id);
    }
    const { waitedMs, ...rest } = result;
    return { tab_id: tab.id, action: input.action, ...rest, ...(waitedMs !== undefined ? { waited_ms: waitedMs } : {}) };
  },
});

/** What the approval card shows: the action in a line. */
function describeCall(input: v.InferOutput<typeof pageActionInput>): string {
  const parts: string[] = [input.action];
  if (input.selector) parts.push(`on ${input.selector}`);
  if (input.text !== undefined && input.action !== 'wait_for') parts.push(`text ${JSON.stringify(input.text.length > 200 ? `${input.text.slice(0, 200)}…` : input.text)}`);
  if (input.value !== undefined) parts.push(`value ${JSON.stringify(input.value)}`);
  if (input.key) parts.push(`key ${input.key}`);
  if (input.direction) parts.push(input.direction);
  return parts.join(' ');
}

export const pageActionTools = [pageAction];
