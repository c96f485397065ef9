import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fakeBrowser } from 'wxt/testing';
import { storageSignInStore, webAuthWindow } from '../../lib/browser/web-auth';
import { SignInDeclined, SignInFailed } from '../../lib/skills/mcp-oauth';

/**
 * The browser's side of MCP sign-in (lib/browser/web-auth.ts) on the fake browser: what the e2e
 * cannot provoke — each browser's words for a closed window, a flow that never ends and a Stop.
 */
let saved: unknown;
beforeEach(() => {
  fakeBrowser.reset();
  saved = (fakeBrowser as { identity?: unknown }).identity;
});
afterEach(() => {
  (fakeBrowser as { identity?: unknown }).identity = saved;
});

function identity(launch: (details: { url: string; interactive: boolean }) => Promise<string | undefined>) {
  (fakeBrowser as { identity?: unknown }).identity = { getRedirectURL: () => 'https://abc.chromiumapp.org/', launchWebAuthFlow: launch };
}

describe('storageSignInStore', () => {
  it('keeps one record per skill under its own key, and refuses a record of another shape', async () => {
    const store = storageSignInStore();
    await store.save('s1', { binding: '["u",""]', tokens: { access_token: 'a', token_type: 'Bearer' } });
    expect(await store.load('s1')).toEqual({ binding: '["u",""]', tokens: { access_token: 'a', token_type: 'Bearer' } });
    expect(Object.keys(await fakeBrowser.storage.local.get(null))).toEqual(['mcpSignIn:s1']);
    await fakeBrowser.storage.local.set({ 'mcpSignIn:s2': 'garbage' });
    expect(await store.load('s2')).toBeUndefined();
    await store.remove('s1');
    expect(await store.load('s1')).toBeUndefined();
  });
});

describe('webAuthWindow', () => {
  const url = new URL('https://as.example/authorize?x=1');
  it('returns where the flow ended; a closed window (either browser\'s words) is a decline; other failures say what', async () => {
    const asked: unknown[] = [];
    identity(async (details) => (asked.push(details), 'https://abc.chromiumapp.org/?code=c&state=s'));
    const w = webAuthWindow();
    expect(w.redirectUrl()).toBe('https://abc.chromiumapp.org/');
    expect(await w.open(url, new AbortController().signal)).toBe('https://abc.chromiumapp.org/?code=c&state=s');
    expect(asked).toEqual([{ url: url.href, interactive: true }]);
    for (const words of ['The user did not approve access.', 'User cancelled or denied access.']) {
      identity(async () => Promise.reject(new Error(words)));
      await expect(w.open(url, new AbortController().signal)).rejects.toThrow(SignInDeclined);
    }
    identity(async () => undefined);
    await expect(w.open(url, new AbortController().signal)).rejects.toThrow(SignInDeclined);
    identity(async () => Promise.reject(new Error('Authorization page could not be loaded.')));
    await expect(w.open(url, new AbortController().signal)).rejects.toThrow(new SignInFailed('the sign-in window failed: Authorization page could not be loaded.'));
  });

  it('a Stop ends the wait for a window that never closes', async () => {
    identity(() => new Promise(() => {}));
    const stop = new AbortController();
    const waiting = webAuthWindow().open(url, stop.signal);
    stop.abort(new Error('stopped'));
    await expect(waiting).rejects.toThrow('stopped');
  });
});
