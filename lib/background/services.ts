/**
 * The background's long-lived parts, built once: the conversation store and the run manager
 * (after the store opens, so a woken service worker's first message waits for it), the skills.
 */
import { ConversationStore } from '../agent/conversation-store';
import { RunManager } from '../agent/run-manager';
import type { BrowserAdapters } from '../browser';
import { browserSkillStore } from '../skills/browser-store';
import { fitToolImage } from '../browser/screenshot';
import { McpServerSessions } from '../skills/mcp-servers';
import { storageSignInStore, webAuthWindow } from '../browser/web-auth';
import { storeProposals } from '../skills/proposals';
import { createSkillRuntime, type SkillRuntime } from '../skills/runtime';
import { ActivityLog } from '../policy/activity-log';
import { browserPermissions } from '../storage/permissions-store';
import { RunLogStore } from '../storage/run-log-store';
import { loadSettings } from '../storage/settings-store';
import { createBuiltinRegistry } from '../tools';
import { openWorkspace } from '../workspace';
import { syncLocalOriginRules, type LocalOriginSync } from './local-origin';
import { createLoggedClient } from './run-log';

export interface BackgroundServices {
  skills: SkillRuntime;
  /** The Origin rules for local model servers, which Settings → Test also needs. */
  localOrigin: LocalOriginSync;
  /** Resolves once the store is open and interrupted runs are marked. */
  ready: Promise<{ store: ConversationStore; runs: RunManager }>;
}

export function startServices(adapters: BrowserAdapters): BackgroundServices {
  // fetch is bound: called detached from globalThis it throws "Illegal invocation".
  const fetch = globalThis.fetch.bind(globalThis);
  const skillStore = browserSkillStore();
  const mcp = new McpServerSessions({ fetch, fitImage: fitToolImage, oauth: { store: storageSignInStore(), window: webAuthWindow() } });
  const skills = createSkillRuntime(skillStore, mcp, mcp.signIns);
  // A log that cannot open (storage full) must not stop the agent: its entries are then lost.
  const activity = ActivityLog.open().catch(() => undefined);
  const runLog = RunLogStore.open().catch(() => undefined);
  const localOrigin = syncLocalOriginRules(adapters.localOrigin, loadSettings);
  // What a run reads, with the Origin rules for its local servers in place first.
  const loadRunSettings = async () => {
    const settings = await loadSettings();
    await localOrigin.ensure(settings);
    return settings;
  };
  const ready = (async () => {
    const store = await ConversationStore.open();
    const runs = new RunManager({
      store,
      registry: createBuiltinRegistry(),
      skills: (signal, askSignIn) => skills.tools(signal, askSignIn),
      loadSettings: loadRunSettings,
      createClient: createLoggedClient({ log: runLog, loadSettings }),
      keepAlive: adapters.keepAlive,
      attention: adapters.attention,
      policy: { permissions: browserPermissions(), log: (entry) => void activity.then((log) => log?.append(entry)) },
      browser: {
        tabs: adapters.tabs,
        pages: adapters.pages,
        screenshots: adapters.screenshots,
        sandbox: adapters.sandbox,
        dom: adapters.dom,
        database: adapters.database,
        fetch,
        addresses: adapters.addresses,
        workspace: openWorkspace,
        skillProposals: storeProposals(skillStore),
      },
    });
    await runs.recoverInterrupted();
    return { store, runs };
  })();
  return { skills, ready, localOrigin };
}
