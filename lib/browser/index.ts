import type { KeepAlive } from '../agent/run-manager';
import { persistentPageKeepAlive, serviceWorkerKeepAlive } from './keepalive';

/** Browser differences, chosen once at start-up from the build target. */
export interface BrowserAdapters {
  keepAlive: KeepAlive;
}

export function createAdapters(): BrowserAdapters {
  const serviceWorker = import.meta.env.MANIFEST_VERSION === 3 && !import.meta.env.FIREFOX;
  return {
    keepAlive: serviceWorker ? serviceWorkerKeepAlive() : persistentPageKeepAlive(),
  };
}
