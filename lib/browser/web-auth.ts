/**
 * The browser's side of MCP sign-in (lib/skills/mcp-oauth.ts): the sign-in window is
 * identity.launchWebAuthFlow (Chrome and Firefox alike: the browser's own window, on the
 * authorization server's page, closed by the browser when it redirects to getRedirectURL()), and
 * sign-in records live in storage.local under one key per skill — never in the skill record, so
 * never in an export of skills.
 */
import { browser } from 'wxt/browser';
import { SignInDeclined, SignInFailed, type SignInRecord, type SignInStore, type SignInWindow } from '../skills/mcp-oauth';

const KEY_PREFIX = 'mcpSignIn:';

export function storageSignInStore(): SignInStore {
  const key = (skillId: string) => KEY_PREFIX + skillId;
  return {
    async load(skillId) {
      const got = await browser.storage.local.get(key(skillId));
      const record = got[key(skillId)] as SignInRecord | undefined;
      // A record from an older shape (or edited by hand) is not trusted: signing in again fixes it.
      return record && typeof record === 'object' && typeof record.binding === 'string' ? record : undefined;
    },
    async save(skillId, record) {
      await browser.storage.local.set({ [key(skillId)]: record });
    },
    async remove(skillId) {
      await browser.storage.local.remove(key(skillId));
    },
  };
}

/** Chrome's and Firefox's words for a window the user closed (they reject rather than resolve). */
const CLOSED = /did not approve|cancel+ed|denied|closed/i;

export function webAuthWindow(): SignInWindow {
  return {
    redirectUrl: () => browser.identity.getRedirectURL(),
    async open(authorizationUrl, signal) {
      signal.throwIfAborted();
      // The flow cannot be cancelled from here; Stop stops waiting for it.
      const stopped = new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));
      let finalUrl: string | undefined;
      try {
        finalUrl = await Promise.race([browser.identity.launchWebAuthFlow({ url: authorizationUrl.href, interactive: true }), stopped]);
      } catch (e) {
        if (signal.aborted) throw e;
        const message = e instanceof Error ? e.message : String(e);
        if (CLOSED.test(message)) throw new SignInDeclined('the sign-in window was closed');
        throw new SignInFailed(`the sign-in window failed: ${message}`);
      }
      if (!finalUrl) throw new SignInDeclined('the sign-in window was closed');
      return finalUrl;
    },
  };
}
