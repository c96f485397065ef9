import { browser } from 'wxt/browser';
import type { Permissions, SiteAccess } from '../contracts/permissions';
import { migratePermissions, PERMISSIONS_STORAGE_KEY, withGrant, type Migrated } from '../policy/permissions';
import type { PermissionsSource } from '../policy/session';

/** A rule's "last used" is saved at most this often per site: it is for the user's eye, not a log. */
const USED_WRITE_MS = 60_000;

/**
 * The permissions in storage.local (never sync: the list of sites a user allowed says a lot
 * about them), read once and kept until storage says they changed (the management page's edits).
 */
export function browserPermissions(): PermissionsSource {
  let cache: Promise<Migrated> | undefined;
  const lastWrite = new Map<string, number>();
  browser.storage.onChanged.addListener((changes, area) => {
    if (area === 'local' && PERMISSIONS_STORAGE_KEY in changes) cache = undefined;
  });
  const load = () => (cache ??= loadPermissions());
  // Writes go one after another, each on a fresh read, so a grant never overwrites another.
  let writes: Promise<unknown> = Promise.resolve();
  const update = (change: (p: Permissions) => Permissions) => {
    const next = writes.then(async () => {
      const { permissions } = await loadPermissions();
      const changed = change(permissions);
      await browser.storage.local.set({ [PERMISSIONS_STORAGE_KEY]: changed });
      cache = Promise.resolve({ permissions: changed, problems: [] });
    });
    writes = next.catch(() => {});
    return next;
  };
  return {
    current: async () => (await load()).permissions,
    grant: (site: string, accesses: readonly SiteAccess[]) => update((p) => withGrant(p, site, accesses)),
    used(site) {
      const now = Date.now();
      if (now - (lastWrite.get(site) ?? 0) < USED_WRITE_MS) return;
      lastWrite.set(site, now);
      void update((p) => ({ ...p, sites: p.sites.map((r) => (r.site === site ? { ...r, lastUsed: now } : r)) })).catch(() => {});
    },
  };
}

export async function loadPermissions(): Promise<Migrated> {
  const got = await browser.storage.local.get(PERMISSIONS_STORAGE_KEY);
  return migratePermissions(got[PERMISSIONS_STORAGE_KEY]);
}

export async function savePermissions(permissions: Permissions): Promise<void> {
  await browser.storage.local.set({ [PERMISSIONS_STORAGE_KEY]: permissions });
}
