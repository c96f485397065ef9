/**
 * The Settings switch for trusted input (page_action through the DevTools protocol). Offered where
 * the build lists `debugger` among its optional permissions (Chrome; Firefox has no such API), and
 * asked for only when the user turns it on: the browser then shows the permission prompt, and
 * later, while input is being sent, its "is debugging this browser" bar.
 */
import { browser } from 'wxt/browser';

const DEBUGGER = { permissions: ['debugger'] } as const;

export function trustedInputOffered(): boolean {
  return !!(browser.runtime.getManifest().optional_permissions as string[] | undefined)?.includes('debugger');
}

/** Must be called from the user's click: the browser asks only within a user gesture. */
export async function requestTrustedInput(): Promise<boolean> {
  try {
    return await browser.permissions.request(DEBUGGER as never);
  } catch {
    return false;
  }
}

export async function releaseTrustedInput(): Promise<void> {
  await browser.permissions.remove(DEBUGGER as never).catch(() => {});
}
