import * as v from 'valibot';
import { PageError } from '../browser/pages';
import { inTab, requireReadableTab } from './pages';
import { builtinFacts } from './catalog';
import { defineTool, ToolError, type ToolContext } from './registry';
import { tabId, tabTargets } from './tabs';

export const SCRIPT_OUTPUT_MAX_CHARS = 100_000;
const CODE_MAX_CHARS = 200_000;

export const executeScript = defineTool({
  ...builtinFacts('execute_script'),
  description:
    'Run JavaScript as an async function body (return the result). target "page": in tab_id\'s page (MAIN world), to read or ' +
    'act on the DOM; "sandbox": pure computation, no DOM or network, console output in logs. ' +
    `Returns {result} as JSON (truncated past ${SCRIPT_OUTPUT_MAX_CHARS} characters) or the error`,
  maxInputChars: CODE_MAX_CHARS + 1000,
  input: v.strictObject({
    code: v.pipe(v.string('must be a string of JavaScript'), v.nonEmpty('must not be empty'), v.maxLength(CODE_MAX_CHARS, `must be at most ${CODE_MAX_CHARS} characters`)),
    target: v.picklist(['page', 'sandbox'], 'must be "page" or "sandbox"'),
    tab_id: v.optional(v.pipe(tabId, v.description('For "page"; default: the active tab'))),
  }),
  riskOf: ({ target }) => (target === 'sandbox' ? 'run_isolated' : 'act_on_site'),
  async targets({ code, target, tab_id }, ctx) {
    if (target === 'sandbox') return [];
    const id = tab_id ?? (await activeTabId(ctx));
    return id === undefined ? [] : tabTargets(ctx, id, 'act', code);
  },
  async run({ code, target, tab_id }, ctx) {
    const timeoutMs = ctx.env.settings.scriptTimeoutSec * 1000;
    if (target === 'sandbox') {
      const out = await ctx.env.sandbox.run(code, { timeoutMs, signal: ctx.signal, maxOutputChars: SCRIPT_OUTPUT_MAX_CHARS });
      if (!out.ok) {
        const what =
          out.error.kind === 'timeout'
            ? `The code did not finish within ${timeoutMs / 1000} s and was stopped.`
            : out.error.kind === 'syntax'
              ? out.error.message.startsWith('SyntaxError') ? out.error.message : `SyntaxError: ${out.error.message}`
              : `${out.error.message}${out.error.stack ? `\n${out.error.stack}` : ''}`;
        throw new ToolError(`${what}${out.logs.length ? `\nlogs:\n${out.logs.join('\n')}` : ''}`);
      }
      return { target, result: out.result, logs: out.logs, truncated: out.truncated };
    }

    const id = tab_id ?? (await activeTabId(ctx));
    if (id === undefined) throw new ToolError('There is no active tab; pass tab_id (see list_tabs).');
    const tab = await requireReadableTab(ctx, id);
    let out;
    try {
      out = await ctx.env.pages.run(tab.id, code, { timeoutMs, maxChars: SCRIPT_OUTPUT_MAX_CHARS, signal: ctx.signal });
    } catch (e) {
      if (e instanceof PageError && e.code === 'user_scripts_needed') ctx.env.notify({ kind: 'user_scripts_needed' });
      inTab(e, tab.id);
    }
    if (!out.ok) {
      const err = out.error!;
      throw new ToolError(
        err.kind === 'syntax'
          ? `SyntaxError in the code: ${err.message}`
          : `The code threw ${err.name}: ${err.message}${err.stack ? `\n${err.stack}` : ''}`,
      );
    }
    let result: unknown;
    try {
      result = JSON.parse(out.json ?? 'null');
    } catch {
      result = out.json; // cut mid-way by the size cap: give the text as it is
    }
    return {
      target,
      tab_id: tab.id,
      result,
      truncated: !!out.truncated,
      ...(out.world === 'isolated'
        ? { note: "The page's CSP forbids eval, so the code ran in Firefox's content-script context with the page's window and DOM." }
        : {}),
    };
  },
});

const activeTabId = async (ctx: ToolContext) => (await ctx.env.tabs.query({ active: true })).find((t) => t)?.id;

export const scriptTools = [executeScript];
