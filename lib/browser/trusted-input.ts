/**
 * The Settings switch for trusted input (page_action through the DevTools protocol). Offered where
 * the build has the `debugger` permission (Chrome; Firefox has no such API). Chrome does not let
 * `debugger` be an optional permission, so the Chrome build declares it and the switch alone decides
 * whether it is used; were it ever optional, turning the switch on asks for it here.
 */
import { browser } from 'wxt/browser';

const DEBUGGER = { permissions: ['debugger'] } as const;

export function trustedInputOffered(): boolean {
  // Outside the extension (the settings form mounted in a component test) there is no manifest.
  const manifest = browser.runtime?.getManifest?.();
  if (!manifest) return false;
  return [...((manifest.permissions as string[] | undefined) ?? []), ...((manifest.optional_permissions as string[] | undefined) ?? [])].includes('debugger');
}

/** Must be called from the user's click: the browser asks only within a user gesture. */
export async function requestTrustedInput(): Promise<boolean> {
  try {
    return (await browser.permissions.contains(DEBUGGER as never)) || (await browser.permissions.request(DEBUGGER as never));
  } catch {
    return false;
  }
}
