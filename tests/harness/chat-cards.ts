import type { ScriptedReply } from './fake-anthropic';
import type { PopupPage } from './popup';

/**
 * One model reply that leaves a run waiting on both cards the chat can show: a question
 * (ask_user) and an approval (execute_script on `tabId`, which asks under "Ask first"
 * permissions, lib/contracts/permissions.ts's defaultPermissions). Long words on purpose: the
 * cards must wrap at the panel's narrowest. `lead`: text streamed before the two calls.
 */
export function askAndAct(tabId: number, lead?: string, extra: Partial<ScriptedReply> = {}): ScriptedReply {
  return {
    content: [
      ...(lead ? [{ type: 'text' as const, text: lead }] : []),
      {
        type: 'tool_use',
        name: 'ask_user',
        input: {
          question: `Which of these should I order for the https://shop.example.com/${'very-long-category-name/'.repeat(4)} basket?`,
          options: ['TheExtraordinarilyLongNamedDeluxeModelWithoutAnyPlaceToBreakTheLine', 'The small one'],
        },
      },
      { type: 'tool_use', name: 'execute_script', input: { target: 'page', tab_id: tabId, code: `document.title = ${JSON.stringify('ordered-'.repeat(30))}; return document.title` } },
    ],
    ...extra,
  };
}

/** Waits until `chat` shows both cards of askAndAct. */
export async function waitForCards(chat: PopupPage, timeout = 20_000): Promise<void> {
  // Interval polling: a page without animation frames (hidden) must still see them.
  await chat.page.waitForFunction(() => !!document.querySelector('form[data-question]') && !!document.querySelector('[data-approval]'), { timeout, polling: 100 });
}
