import { browser, type Browser } from 'wxt/browser';
import { defineBackground } from 'wxt/utils/define-background';
import { ConversationStore } from '../lib/agent/conversation-store';
import { createAnthropicClient } from '../lib/agent/model';
import { RunManager } from '../lib/agent/run-manager';
import { createAdapters } from '../lib/browser';
import { registerDatabaseMessages } from '../lib/browser/database-host';
import { onMessage, RUN_EVENTS_PORT, type PortEvent, type PortRequest } from '../lib/protocol';
import { registerSandboxMessages } from '../lib/sandbox/background';
import { loadSettings } from '../lib/storage/settings-store';
import { openWorkspace } from '../lib/workspace';
import { migrateSettings } from '../lib/settings';
import { browserSkillStore } from '../lib/skills/browser-store';
import { McpServerSessions } from '../lib/skills/mcp-servers';
import { storeProposals } from '../lib/skills/proposals';
import { createSkillRuntime } from '../lib/skills/runtime';
import { createBuiltinRegistry } from '../lib/tools';
import { runSearch, SEARCH_TEST_QUERY } from '../lib/search-engines/run';
import { FETCH_TIMEOUT_MS } from '../lib/web/request';

export default defineBackground(() => {
  const adapters = createAdapters();
  const skillStore = browserSkillStore();
  const skills = createSkillRuntime(skillStore, new McpServerSessions(globalThis.fetch.bind(globalThis)));
  // Handlers are registered synchronously (a woken service worker must see the first message);
  // they wait for the store.
  const ready = (async () => {
    const store = await ConversationStore.open();
    const runs = new RunManager({
      store,
      registry: createBuiltinRegistry(),
      skills: (signal) => skills.tools(signal),
      loadSettings,
      createClient: createAnthropicClient,
      keepAlive: adapters.keepAlive,
      attention: adapters.attention,
      // fetch is bound: called detached from globalThis it throws "Illegal invocation".
      browser: { tabs: adapters.tabs, pages: adapters.pages, sandbox: adapters.sandbox, dom: adapters.dom, database: adapters.database, fetch: globalThis.fetch.bind(globalThis), workspace: openWorkspace, skillProposals: storeProposals(skillStore) },
    });
    await runs.recoverInterrupted();
    return { store, runs };
  })();

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
      return { ok: false as const, error: e instanceof Error ? e.message : String(e) };
    }
  });
  onMessage('refreshSkillTools', async ({ data }) => {
    try {
      return { ok: true as const, tools: await skills.refresh(data.skillId) };
    } catch (e) {
      return { ok: false as const, error: e instanceof Error ? e.message : String(e) };
    }
  });
  registerSandboxMessages(adapters.sandbox);
  registerDatabaseMessages(adapters.database);

  browser.runtime.onConnect.addListener((port: Browser.runtime.Port) => {
    if (port.name !== RUN_EVENTS_PORT || port.sender?.id !== browser.runtime.id) return;
    let unsubscribe = () => {};
    const post = (msg: PortEvent) => {
      try {
        port.postMessage(msg);
      } catch {
        unsubscribe();
      }
    };
    port.onMessage.addListener(async (raw: unknown) => {
      const msg = raw as PortRequest;
      unsubscribe();
      unsubscribe = () => {};
      if (msg.type !== 'attach') return;
      const { runs } = await ready;
      const conversationId = msg.conversationId ?? (await runs.latestId());
      if (!conversationId) return post({ type: 'empty' });
      // Subscribe before the snapshot is read so no event falls between the two.
      const queued: PortEvent[] = [];
      let live = false;
      unsubscribe = runs.subscribe(conversationId, (event) =>
        live ? post({ conversationId, event }) : queued.push({ conversationId, event }),
      );
      const snapshot = await runs.snapshot(conversationId);
      if (!snapshot) {
        post({ type: 'missing', conversationId });
        return;
      }
      post({ conversationId, event: { type: 'snapshot', snapshot } });
      live = true;
      // An active run's snapshot is read from memory without awaiting, so nothing queued is
      // missing from it; an idle conversation's queue holds only what followed the read.
      if (!runs.isRunning(conversationId)) for (const q of queued) post(q);
      queued.length = 0;
    });
    port.onDisconnect.addListener(() => unsubscribe());
  });
});
