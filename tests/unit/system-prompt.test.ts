import { countTokens } from '@anthropic-ai/tokenizer';
import { describe, expect, it } from 'vitest';
import { SYSTEM_PROMPT_VERSION, systemPrompt } from '../../lib/agent/system-prompt';
import { FENCE_RULE } from '../../lib/policy/fence';
import { MIN_CONTEXT_WINDOW } from '../../lib/settings';
import { createBuiltinRegistry } from '../../lib/tools';

/**
 * What every request carries before the conversation: the system prompt and the built-in tool
 * list, each tool as the model gets it (name, description, input_schema), counted as JSON.
 *
 * The issue asked for 2,500 tokens together. The tool schemas alone (names, types, limits,
 * enums, no descriptions) are ~1,200 tokens and the validation-only keywords in them
 * (minLength, maxLength, minimum, maximum, additionalProperties) ~355: within 2,500 the
 * descriptions and the prompt could share only ~1,300, too little for both a guide and tools
 * that say when to use them and what comes back. So the budget is the figure reached with the
 * descriptions tightened, and it may not grow; the halves are capped too, so one cannot eat the
 * other's share unnoticed.
 *
 * Issue 18 adds tools beyond the contract's: each raises the budget by what it costs and no more,
 * so the figure still shows what the contract's tools take. screenshot: 151 tokens (its
 * description and schema as the model sees them), rounded up to 160; page_action (13 actions,
 * 10 arguments): 335, rounded up to 340.
 */
const ISSUE_18_SCREENSHOT = 160;
const ISSUE_18_PAGE_ACTION = 340;
const TOTAL_BUDGET = 2_900 + ISSUE_18_SCREENSHOT + ISSUE_18_PAGE_ACTION;
const PROMPT_BUDGET = 750;
const TOOLS_BUDGET = 2_200 + ISSUE_18_SCREENSHOT + ISSUE_18_PAGE_ACTION;

const tools = createBuiltinRegistry().modelTools();
const prompt = systemPrompt(new Date('2026-12-02T10:00:00Z'));
const promptTokens = countTokens(prompt);
const toolTokens = countTokens(JSON.stringify(tools.map(({ name, description, input_schema }) => ({ name, description, input_schema }))));
const total = promptTokens + toolTokens;

describe('the operating prompt', () => {
  it(`with the built-in tool list stays within ${TOTAL_BUDGET} tokens, and far below the smallest context window`, () => {
    console.log(
      `[tokens] system prompt v${SYSTEM_PROMPT_VERSION}: ${promptTokens}; built-in tools (${tools.length}): ${toolTokens}; total ${total} ` +
        `(budget ${TOTAL_BUDGET}; MIN_CONTEXT_WINDOW / 3 = ${Math.floor(MIN_CONTEXT_WINDOW / 3)})`,
    );
    expect(tools.length).toBeGreaterThanOrEqual(18);
    expect(promptTokens).toBeLessThanOrEqual(PROMPT_BUDGET);
    expect(toolTokens).toBeLessThanOrEqual(TOOLS_BUDGET);
    expect(total).toBeLessThanOrEqual(TOTAL_BUDGET);
    // Settings refuse a window below MIN_CONTEXT_WINDOW: it must hold this, a reply and a turn or two.
    expect(total).toBeLessThan(MIN_CONTEXT_WINDOW / 3);
  });

  it('is versioned and dated, and keeps the fence rule and the permissions sentence word for word', () => {
    expect(Number.isInteger(SYSTEM_PROMPT_VERSION) && SYSTEM_PROMPT_VERSION > 1).toBe(true);
    expect(prompt).toContain(FENCE_RULE);
    expect(prompt).toContain("Pagewright's permissions decide what you may read, act on and send where");
    expect(prompt).toContain('do not retry it or work around it');
    expect(prompt).toMatch(/Today's date is 2026-12-02\.$/);
  });

  it('names the current-tab block exactly as user messages carry it, and says to read that tab directly', () => {
    expect(prompt).toContain('<current-tab tab_id="123" title="Page title" url="https://example.com/page"/>');
    expect(prompt).toContain('source="selection"');
    expect(prompt).toContain('get_tab_content({tab_id})');
    expect(prompt).toMatch(/no list_tabs/);
  });

  it('covers what the guide must: selectors, search vs fetch vs tab, tasks, ask_user, secrets and purchases, elision and summaries', () => {
    for (const must of [
      /\{selectors\}/,
      /act on it with page_action using the \{selectors\}/,
      /execute_script \(target "page"\)/,
      /web_search to find sources; web_fetch for a known URL/,
      /create_task.*update_task.*list_tasks/s,
      /ask_user only when the choice is genuinely the user's/,
      /Never enter passwords or payment details/,
      /never confirm a purchase/,
      /characters elided/,
      /<conversation-summary>/,
      /concise/,
    ]) {
      expect(prompt).toMatch(must);
    }
  });

  it('names only tools that exist', () => {
    const names = new Set(tools.map((t) => t.name));
    const named = [...prompt.matchAll(/\b([a-z]+(?:_[a-z]+)+)\b/g)].map((m) => m[1]!);
    // Words with underscores in the prompt are tool names, or the current-tab block's attribute.
    for (const n of named) if (n !== 'tab_id') expect(names, n).toContain(n);
    expect(named.length).toBeGreaterThan(8);
  });

  it('each built-in tool says what comes back', () => {
    for (const t of tools) expect(t.description, t.name).toMatch(/Returns/);
  });
});
