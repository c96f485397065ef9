import { browser } from 'wxt/browser';
import { ConnectionStore, type KeyValueArea } from './connections';
import { deleteDatabaseFile, writeDatabaseFile } from './files';

/** The connections on browser.storage.local with their files in OPFS, for the management page and the background. */
export function browserConnectionStore(): ConnectionStore {
  const area: KeyValueArea = {
    get: (key) => browser.storage.local.get(key) as Promise<Record<string, unknown>>,
    set: (items) => browser.storage.local.set(items),
  };
  return new ConnectionStore(area, { write: writeDatabaseFile, remove: deleteDatabaseFile });
}
