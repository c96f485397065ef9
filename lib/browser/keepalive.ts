import { browser } from 'wxt/browser';
import type { KeepAlive } from '../contracts/ports';

/**
 * Chrome stops an idle MV3 service worker after ~30 s; any extension API call resets that
 * timer, so a cheap one every 20 s keeps it alive while a run is active.
 */
export function serviceWorkerKeepAlive(intervalMs = 20_000): KeepAlive {
  let holders = 0;
  let timer: ReturnType<typeof setInterval> | undefined;
  return {
    acquire() {
      if (holders++ === 0) timer = setInterval(() => void browser.runtime.getPlatformInfo(), intervalMs);
    },
    release() {
      if (--holders <= 0) {
        holders = 0;
        clearInterval(timer);
      }
    },
  };
}

/** Firefox's MV2 background page is persistent: nothing to do. */
export const persistentPageKeepAlive = (): KeepAlive => ({ acquire() {}, release() {} });
