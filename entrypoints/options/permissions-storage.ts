/**
 * Where the Permissions section reads and writes: the stored permissions (through the trust
 * layer's store), the one setting it shows (allowPrivateNetwork), storage changes made elsewhere,
 * the activity log and the skills. The browser's are the defaults; tests hand in memory ones.
 */
import { browser } from 'wxt/browser';
import type { ActivityEntry, Permissions } from '../../lib/contracts/permissions';
import { ActivityLog } from '../../lib/policy/activity-log';
import { PERMISSIONS_STORAGE_KEY, type Migrated } from '../../lib/policy/permissions';
import { defaultSettings, SETTINGS_STORAGE_KEY } from '../../lib/settings';
import { browserSkillStore } from '../../lib/skills/browser-store';
import { SKILLS_KEY } from '../../lib/skills/store';
import type { SkillRecord } from '../../lib/skills/types';
import { loadPermissions, savePermissions } from '../../lib/storage/permissions-store';

export type StoredChange = 'permissions' | 'settings' | 'skills';

export interface PermissionsPageStorage {
  loadPermissions(): Promise<Migrated>;
  savePermissions(permissions: Permissions): Promise<void>;
  /** The settings record as stored (any version, or nothing yet). */
  loadRawSettings(): Promise<unknown>;
  saveRawSettings(settings: Record<string, unknown>): Promise<void>;
  /** Calls `listener` when another page or the background changed what the section shows; returns the unsubscribe. */
  watch(listener: (what: StoredChange) => void): () => void;
}

/** What the section does with the activity log. */
export type ActivityLogView = Pick<ActivityLog, 'recent' | 'all' | 'count' | 'clear' | 'close'>;

export function browserPageStorage(): PermissionsPageStorage {
  return {
    loadPermissions,
    savePermissions,
    loadRawSettings: async () => (await browser.storage.local.get(SETTINGS_STORAGE_KEY))[SETTINGS_STORAGE_KEY],
    saveRawSettings: (settings) => browser.storage.local.set({ [SETTINGS_STORAGE_KEY]: settings }),
    watch(listener) {
      const onChanged = (changes: Record<string, unknown>, area: string) => {
        if (area !== 'local') return;
        if (PERMISSIONS_STORAGE_KEY in changes) listener('permissions');
        if (SETTINGS_STORAGE_KEY in changes) listener('settings');
        if (SKILLS_KEY in changes) listener('skills');
      };
      browser.storage.onChanged.addListener(onChanged);
      return () => browser.storage.onChanged.removeListener(onChanged);
    },
  };
}

/** The log the background writes, opened from this page (the same extension origin). */
export const openBrowserActivityLog = (): Promise<ActivityLogView> => ActivityLog.open();

export const listBrowserSkills = (): Promise<SkillRecord[]> => browserSkillStore().list();

/**
 * The section's writes: one after another, each a change applied to what storage holds at that
 * moment, so a grant saved by the background between two clicks is kept.
 */
export class PermissionsEditor {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly storage: PermissionsPageStorage) {}

  /** Applies `change` to the latest stored permissions and saves the result, which it returns. */
  update(change: (latest: Permissions) => Permissions): Promise<Permissions> {
    return this.serially(async () => {
      const { permissions } = await this.storage.loadPermissions();
      const next = change(permissions);
      await this.storage.savePermissions(next);
      return next;
    });
  }

  async localNetwork(): Promise<boolean> {
    const raw = await this.storage.loadRawSettings();
    return isRecord(raw) && raw.allowPrivateNetwork === true;
  }

  /**
   * Changes the one setting and nothing else of the stored record (whatever its version: the
   * settings' migration reads the field from any of them); with no settings yet, the defaults.
   */
  setLocalNetwork(on: boolean): Promise<void> {
    return this.serially(async () => {
      const raw = await this.storage.loadRawSettings();
      const base: Record<string, unknown> = isRecord(raw) ? raw : { ...defaultSettings() };
      await this.storage.saveRawSettings({ ...base, allowPrivateNetwork: on });
    });
  }

  private serially<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work);
    this.queue = next.catch(() => {});
    return next;
  }
}

const isRecord = (x: unknown): x is Record<string, unknown> => !!x && typeof x === 'object' && !Array.isArray(x);

/** The export: every entry, oldest first, as the log keeps them. */
export const activityJson = (entries: readonly ActivityEntry[]) => `${JSON.stringify(entries, null, 2)}\n`;
