import type { ActivityEntry } from '../../lib/contracts/permissions';
import { ActivityLog } from '../../lib/policy/activity-log';
import { migratePermissions, PERMISSIONS_STORAGE_KEY } from '../../lib/policy/permissions';
import { SETTINGS_STORAGE_KEY } from '../../lib/settings';
import type { PermissionsPageStorage, StoredChange } from '../../entrypoints/options/permissions-storage';

/**
 * storage.local as the Permissions section sees it, in memory: values are copied as storage
 * copies them, and every write — the page's own too — is announced to the watchers a moment
 * later, as storage.onChanged does.
 */
export class MemoryPageStorage implements PermissionsPageStorage {
  readonly data = new Map<string, unknown>();
  private readonly listeners = new Set<(what: StoredChange) => void>();
  writes = 0;

  async loadPermissions() {
    return migratePermissions(this.stored(PERMISSIONS_STORAGE_KEY));
  }
  async savePermissions(permissions: unknown) {
    this.write(PERMISSIONS_STORAGE_KEY, permissions);
  }
  async loadRawSettings() {
    return this.stored(SETTINGS_STORAGE_KEY);
  }
  async saveRawSettings(settings: Record<string, unknown>) {
    this.write(SETTINGS_STORAGE_KEY, settings);
  }
  watch(listener: (what: StoredChange) => void) {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** What storage holds now (a copy). */
  stored(key: string): any {
    return structuredClone(this.data.get(key));
  }

  /** A write from elsewhere (another page, the background); `announce: false` is one whose change event has not arrived yet. */
  write(key: string, value: unknown, { announce = true } = {}) {
    this.writes++;
    this.data.set(key, structuredClone(value));
    if (!announce) return;
    const what: StoredChange = key === PERMISSIONS_STORAGE_KEY ? 'permissions' : key === SETTINGS_STORAGE_KEY ? 'settings' : 'skills';
    setTimeout(() => this.listeners.forEach((l) => l(what)), 0);
  }

  get watchers() {
    return this.listeners.size;
  }
}

/** A real activity log in the test page's IndexedDB, under a name of its own. */
export async function testActivityLog(entries: ActivityEntry[] = []) {
  const name = `test-activity-${crypto.randomUUID()}`;
  const log = await ActivityLog.open(indexedDB, { name });
  for (const e of entries) await log.append(e);
  return {
    name,
    log,
    open: () => ActivityLog.open(indexedDB, { name }),
    async remove() {
      log.close();
      await new Promise((resolve) => {
        const req = indexedDB.deleteDatabase(name);
        req.onsuccess = req.onerror = req.onblocked = resolve;
      });
    },
  };
}
