import type { KeepAlive } from '../contracts/ports';
import { createSandboxHost } from '../sandbox';
import type { SandboxHost } from '../sandbox/types';
import type { Attention } from '../contracts/ports';
import type { DatabaseHost } from '../database/host';
import { createAttention } from './attention';
import { inPageDatabaseHost, offscreenDatabaseHost } from './database-host';
import { inPageDomHost, offscreenDomHost, type DomHost } from './dom-host';
import { persistentPageKeepAlive, serviceWorkerKeepAlive } from './keepalive';
import { createChromePages, createFirefoxPages, type PagesAdapter } from './pages';
import { createTabsAdapter, type TabsAdapter } from './tabs';

/** Browser differences, chosen once at start-up from the build target. */
export interface BrowserAdapters {
  keepAlive: KeepAlive;
  tabs: TabsAdapter;
  pages: PagesAdapter;
  sandbox: SandboxHost;
  dom: DomHost;
  /** Where database skills' queries run. */
  database: DatabaseHost;
  attention: Attention;
}

export function createAdapters(): BrowserAdapters {
  const firefox = !!import.meta.env.FIREFOX;
  const serviceWorker = import.meta.env.MANIFEST_VERSION === 3 && !firefox;
  return {
    keepAlive: serviceWorker ? serviceWorkerKeepAlive() : persistentPageKeepAlive(),
    tabs: createTabsAdapter(),
    pages: firefox ? createFirefoxPages() : createChromePages(),
    sandbox: createSandboxHost(),
    dom: serviceWorker ? offscreenDomHost() : inPageDomHost(),
    database: serviceWorker ? offscreenDatabaseHost() : inPageDatabaseHost(),
    attention: createAttention(),
  };
}
