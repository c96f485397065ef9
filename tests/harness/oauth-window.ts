/**
 * The sign-in window without a browser (the conformance driver, unit tests): follows the
 * authorization URL's redirects with fetch (redirect: 'manual') until one points at the redirect
 * URL, and returns that address, as identity.launchWebAuthFlow does once the user approved.
 * Test authorization servers approve at once. A page that answers without redirecting (an
 * error page, a redirect-URI mismatch) is a SignInFailed carrying what it said.
 */
import { SignInFailed, type SignInWindow } from '../../lib/skills/mcp-oauth';

/** Redirects followed inside the authorization server before giving up (a loop must not hang). */
const MAX_HOPS = 10;

export function redirectFollowingWindow(redirectUrl = 'http://127.0.0.1:1/callback'): SignInWindow {
  return {
    redirectUrl: () => redirectUrl,
    async open(authorizationUrl, signal) {
      let url = authorizationUrl.href;
      for (let hop = 0; hop < MAX_HOPS; hop++) {
        if (url.startsWith(redirectUrl)) return url;
        const r = await fetch(url, { redirect: 'manual', signal });
        const location = r.headers.get('location');
        if (r.status < 300 || r.status >= 400 || !location) {
          throw new SignInFailed(`the authorization page answered HTTP ${r.status} without sending the browser back: ${(await r.text()).replace(/\s+/g, ' ').slice(0, 200)}`);
        }
        url = new URL(location, url).href;
      }
      throw new SignInFailed('the authorization server redirected too many times.');
    },
  };
}
