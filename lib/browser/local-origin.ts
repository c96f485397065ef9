/**
 * The Origin fix for local model servers (lib/agent/providers/local-origin.ts says which
 * servers): a declarativeNetRequest session rule per server sets the Origin of the extension's
 * own requests to that server to the server's own origin, which a server that checks Origin
 * (Ollama without OLLAMA_ORIGINS) accepts.
 *
 * The same rule works in Chrome MV3 and Firefox MV2 (DNR exists in both manifest versions there):
 * - `initiatorDomains` is the host of the extension's own URL. In Chrome that is the extension id;
 *   in Firefox the per-install UUID of moz-extension://, not runtime.id (the gecko id, which never
 *   matches). It matches the background (service worker or page) and the extension's pages, and
 *   no web page: a page's request to localhost keeps its Origin.
 * - `urlFilter` is `|scheme://host[:port]/`: that server and nothing else, not even another port.
 * Session rules, rebuilt at every start-up and settings change: nothing outlives the settings
 * that asked for it. Permission: declarativeNetRequestWithHostAccess (no install warning beyond
 * the host access the extension has).
 *
 * Where the API is missing or refuses the rules, the requests still go with the extension's
 * Origin; a server that refuses it answers 403, which the chat's banner and Settings → Test show.
 */
import { browser } from 'wxt/browser';

export interface LocalOriginAdapter {
  /**
   * Makes the rules fix exactly these origins (scheme://host[:port]); resolves once they are in
   * place. Calls are applied in order; one with the same origins as the last is free.
   */
  apply(origins: readonly string[]): Promise<void>;
}

/** The part of declarativeNetRequest this uses (Chrome's and Firefox's agree on it). */
export interface SessionRulesApi {
  getSessionRules(): Promise<{ id: number }[]>;
  updateSessionRules(options: { removeRuleIds?: number[]; addRules?: OriginRule[] }): Promise<void>;
}

export interface OriginRule {
  id: number;
  priority: number;
  action: { type: 'modifyHeaders'; requestHeaders: { header: string; operation: 'set'; value: string }[] };
  condition: { urlFilter: string; initiatorDomains: string[]; resourceTypes: 'xmlhttprequest'[] };
}

/** Session rule ids this module owns (issue 15); other features keep clear of them. */
export const FIRST_RULE_ID = 15_000;
const LAST_RULE_ID = 15_999;

/** The rules for `origins`, for requests made by the extension whose URL host is `extensionHost`. */
export function originRules(origins: readonly string[], extensionHost: string): OriginRule[] {
  return origins.slice(0, LAST_RULE_ID - FIRST_RULE_ID + 1).map((origin, i) => ({
    id: FIRST_RULE_ID + i,
    priority: 1,
    action: { type: 'modifyHeaders', requestHeaders: [{ header: 'origin', operation: 'set', value: origin }] },
    // fetch() from the background and from extension pages is "xmlhttprequest" in both browsers.
    condition: { urlFilter: `|${origin}/`, initiatorDomains: [extensionHost], resourceTypes: ['xmlhttprequest'] },
  }));
}

/** The DNR adapter, or one that does nothing where the browser has no DNR session rules. */
export function dnrLocalOrigin(
  api: SessionRulesApi | undefined = (browser as unknown as { declarativeNetRequest?: SessionRulesApi }).declarativeNetRequest,
  extensionHost: string = new URL(browser.runtime.getURL('/')).host,
): LocalOriginAdapter {
  if (!api?.updateSessionRules) return { apply: async () => {} };
  let applied: string | undefined;
  let queue = Promise.resolve();
  const replace = async (origins: readonly string[]) => {
    const mine = (await api.getSessionRules()).map((r) => r.id).filter((id) => id >= FIRST_RULE_ID && id <= LAST_RULE_ID);
    // One call: the old rules go and the new come in together, so no request slips between.
    await api.updateSessionRules({ removeRuleIds: mine, addRules: originRules(origins, extensionHost) });
  };
  return {
    apply(origins) {
      const key = origins.join(' ');
      if (key === applied) return queue;
      applied = key;
      queue = queue
        .then(() => replace(origins))
        .catch((e: unknown) => {
          // Try again at the next call; meanwhile requests go unfixed, which is no worse than before.
          applied = undefined;
          console.warn(`Pagewright: the Origin rules for local model servers were not set: ${e instanceof Error ? e.message : String(e)}`);
        });
      return queue;
    },
  };
}
