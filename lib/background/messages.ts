/** The background's side of lib/protocol.ts: one handler per request the UI pages make. */
import { exportAllPart, exportFile, parseImport } from '../agent/conversation-export';
import type { ConversationSummary } from '../contracts/conversation';
import { errorMessage } from '../errors';
import { t } from '../i18n';
import { onMessage } from '../protocol';
import { runSearch, SEARCH_TEST_QUERY } from '../search-engines/run';
import { migrateSettings } from '../settings';
import { FETCH_TIMEOUT_MS } from '../web/request';
import { listProviderModels, testProvider } from './provider-probe';
import type { BackgroundServices } from './services';

/** Registered synchronously at start-up (a woken service worker must see the first message); each waits for the store. */
export function registerProtocolHandlers({ ready, skills, localOrigin }: BackgroundServices): void {
  onMessage('listConversations', async () => (await ready).store.list());
  onMessage('renameConversation', async ({ data }) => (await ready).runs.rename(data.conversationId, data.title));
  onMessage('deleteConversation', async ({ data }) => (await ready).runs.delete(data.conversationId));
  onMessage('continueInChat', async ({ data }) => (await ready).runs.preferNext(data.conversationId));
  onMessage('searchConversations', async ({ data }) => (await ready).store.search(data.query));
  onMessage('exportConversation', async ({ data }) => {
    const conversation = await (await ready).store.get(data.conversationId);
    if (!conversation) throw new Error('This conversation no longer exists.');
    return exportFile(conversation, data.format, markdownWords());
  });
  onMessage('exportAllConversations', async ({ data }) => {
    const { store } = await ready;
    // Oldest first: conversations started while the parts are fetched come last, none is skipped.
    const ids = (await store.list()).map((c) => c.id).reverse();
    return exportAllPart(ids, (id) => store.get(id), { from: data.from, part: data.part });
  });
  onMessage('importConversations', async ({ data }) => {
    const parsed = parseImport(data.text);
    if (!parsed.ok) return parsed;
    const { store } = await ready;
    const imported: ConversationSummary[] = [];
    try {
      for (const c of parsed.conversations) {
        const saved = await store.import(c);
        imported.push({ id: saved.id, title: saved.title, updatedAt: saved.updatedAt, status: saved.run.status });
      }
    } catch (e) {
      // Each conversation is written whole or not at all; say how far the file got.
      return { ok: false as const, error: `${imported.length} of ${parsed.conversations.length} conversations were imported, then saving failed: ${errorMessage(e)}` };
    }
    return { ok: true as const, imported };
  });
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
  onMessage('listModels', ({ data }) => listProviderModels(data, undefined, localOrigin.withOrigin));
  onMessage('testProvider', ({ data }) => testProvider(data, localOrigin.withOrigin));
  onMessage('refreshSkillTools', async ({ data }) => {
    try {
      return { ok: true as const, tools: await skills.refresh(data.skillId) };
    } catch (e) {
      return { ok: false as const, error: errorMessage(e) };
    }
  });
  onMessage('mcpSignInStatus', ({ data }) => skills.signIn.status(data.skillId));
  onMessage('mcpSignIn', async ({ data }) => {
    try {
      await skills.signIn.signIn(data.skillId);
      return { ok: true as const };
    } catch (e) {
      return { ok: false as const, error: errorMessage(e) };
    }
  });
  onMessage('mcpSignOut', async ({ data }) => {
    try {
      return { ok: true as const, ...(await skills.signIn.signOut(data.skillId)) };
    } catch (e) {
      return { ok: false as const, error: errorMessage(e) };
    }
  });
}

/** The Markdown file's words in the user's language. */
const markdownWords = () => ({
  you: t('chat_you'),
  assistant: t('chat_assistant'),
  created: t('export_md_created', '$1'),
  messages: t('export_md_messages', '$1'),
  tab: t('export_md_tab', '$1'),
  error: t('export_md_error'),
  noResult: t('export_md_no_result'),
  more: t('export_md_more', '$1'),
  image: t('export_md_image', '$1'),
});
