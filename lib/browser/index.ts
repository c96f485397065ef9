import type { Attention, KeepAlive } from '../contracts/ports';
import type { DatabaseHost } from '../database/host';
import { CHROME_DEFAULT_ENGINE, offscreenSandboxHost, workerSandboxHost, type SandboxEngine } from '../sandbox';
import type { SandboxHost } from '../sandbox/types';
import type { ResolvedAddresses } from '../web/answer-address';
import { firefoxDnsLookup, webRequestAddresses } from './addresses';
import { createAttention } from './attention';
import { inPageDatabaseHost, offscreenDatabaseHost } from './database-host';
import { inPageDomHost, offscreenDomHost, type DomHost } from './dom-host';
import { persistentPageKeepAlive, serviceWorkerKeepAlive } from './keepalive';
import { dnrLocalOrigin, type LocalOriginAdapter } from './local-origin';
import { createChromePages, createFirefoxPages, type PagesAdapter } from './pages';
import { CHROME_SCREENSHOTS, createScreenshots, FIREFOX_SCREENSHOTS, type ScreenshotAdapter } from './screenshot';
import { createTabsAdapter, type TabsAdapter } from './tabs';

/** Browser differences, chosen once at start-up from the build target. */
export interface BrowserAdapters {
  keepAlive: KeepAlive;
  tabs: TabsAdapter;
  pages: PagesAdapter;
  /** The screenshot tool's captures (Chrome allows two a second, Firefox any number). */
  screenshots: ScreenshotAdapter;
  sandbox: SandboxHost;
  /**
   * Chrome has two sandbox engines (V8 in the manifest sandbox page, QuickJS); extension pages
   * may ask for either (bench:sandbox, the engine tests). Absent where there is one.
   */
  sandboxForEngine?: (engine: SandboxEngine) => SandboxHost;
  dom: DomHost;
  /** Where database skills' queries run. */
  database: DatabaseHost;
  attention: Attention;
  /** Where web_fetch's answers came from (webRequest), and Firefox's resolver to ask first. */
  addresses: ResolvedAddresses;
  /** The Origin local model servers accept, set on the extension's requests to them. */
  localOrigin: LocalOriginAdapter;
}

/**
 * The one place that reads which browser this build is for: every other module gets what it
 * needs from these adapters.
 */
export function createAdapters(): BrowserAdapters {
  const firefox = !!import.meta.env.FIREFOX;
  // Chrome MV3's background is a service worker: no DOM, stopped when idle, so DOM work, the
  // sandbox and the database go to the offscreen document. Firefox's background page has a DOM.
  const serviceWorker = import.meta.env.MANIFEST_VERSION === 3 && !firefox;
  return {
    keepAlive: serviceWorker ? serviceWorkerKeepAlive() : persistentPageKeepAlive(),
    tabs: createTabsAdapter(),
    pages: firefox ? createFirefoxPages() : createChromePages(),
    screenshots: createScreenshots(firefox ? FIREFOX_SCREENSHOTS : CHROME_SCREENSHOTS),
    sandbox: firefox ? workerSandboxHost() : offscreenSandboxHost(CHROME_DEFAULT_ENGINE),
    ...(firefox ? {} : { sandboxForEngine: offscreenSandboxHost }),
    dom: serviceWorker ? offscreenDomHost() : inPageDomHost(),
    database: serviceWorker ? offscreenDatabaseHost() : inPageDatabaseHost(),
    attention: createAttention(),
    addresses: webRequestAddresses(firefox ? firefoxDnsLookup() : undefined),
    // Both browsers' declarativeNetRequest (Firefox has it in MV2 as well); without it, a no-op.
    localOrigin: dnrLocalOrigin(),
  };
}
