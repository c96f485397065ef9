/** The background's side of lib/protocol.ts: one handler per request the UI pages make. */
import { errorMessage } from '../../lib/errors';
import { onMessage } from '../../lib/protocol';
import { runSearch, SEARCH_TEST_QUERY } from '../../lib/search-engines/run';
import { migrateSettings } from '../../lib/settings';
import { FETCH_TIMEOUT_MS } from '../../lib/web/request';
import type { BackgroundServices } from './services';

/** Registered synchronously at start-up (a woken service worker must see the first message); each waits for the store. */
export function registerProtocolHandlers({ ready, skills }: BackgroundServices): void {
  onMessage('listConversations', async () => (await ready).store.list());
  onMessage('renameConversation', async ({ data }) => (await ready).runs.rename(data.conversationId, data.title));
  onMessage('deleteConversation', async ({ data }) => (await ready).runs.delete(data.conversationId));
  onMessage('sendUserMessage', async ({ data }) => ({
    conversationId: await (await ready).runs.send(data.conversationId, data.text),
  }));
  onMessage('stopRun', async ({ data }) => (await ready).runs.stop(data.conversationId));
  onMessage('regenerate', async ({ data }) => (await ready).runs.regenerate(data.conversationId));
  onMessage('answerQuestion', async ({ data }) => (await ready).runs.answer(data.conversationId, data.questionId, data.reply));
  onMessage('continueRun', async ({ data }) => (await ready).runs.continueRun(data.conversationId));
  onMessage('testSearchEngine', async ({ data }) => {
    try {
      const results = await runSearch(migrateSettings(data.settings), SEARCH_TEST_QUERY, 3, globalThis.fetch.bind(globalThis), AbortSignal.timeout(FETCH_TIMEOUT_MS), data.engine);
      return { ok: true as const, results };
    } catch (e) {
      return { ok: false as const, error: errorMessage(e) };
    }
  });
  onMessage('refreshSkillTools', async ({ data }) => {
    try {
      return { ok: true as const, tools: await skills.refresh(data.skillId) };
    } catch (e) {
      return { ok: false as const, error: errorMessage(e) };
    }
  });
}
