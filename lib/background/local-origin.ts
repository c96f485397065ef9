/**
 * Keeps the Origin rules for local model servers (lib/browser/local-origin.ts) in step with the
 * settings: set at start-up, replaced whenever the stored settings change, and checked again
 * before a run reads them, so a run started right after saving never races the change event.
 */
import { browser } from 'wxt/browser';
import { localOriginTargets } from '../agent/providers/local-origin';
import type { LocalOriginAdapter } from '../browser/local-origin';
import { migrateSettings, SETTINGS_STORAGE_KEY, type Settings } from '../settings';

export interface LocalOriginSync {
  /** Resolves once the rules fit `settings` (at once when they already do). */
  ensure(settings: Settings): Promise<void>;
  /**
   * Runs `work` with one more origin fixed (Settings → Test on a local URL not saved yet: it
   * would otherwise be refused though saving would make it work), then the settings' rules again.
   */
  withOrigin<T>(origin: string | undefined, work: () => Promise<T>): Promise<T>;
}

/** Registers its listener synchronously: a woken service worker must see the change that woke it. */
export function syncLocalOriginRules(adapter: LocalOriginAdapter, loadSettings: () => Promise<Settings>): LocalOriginSync {
  let extra: string[] = [];
  let current: string[] = [];
  const applyNow = () => adapter.apply([...new Set([...current, ...extra])].sort());
  const ensure = (settings: Settings) => {
    current = localOriginTargets(settings);
    return applyNow();
  };
  browser.storage.onChanged.addListener((changes, area) => {
    const change = changes[SETTINGS_STORAGE_KEY];
    if (area === 'local' && change) void ensure(migrateSettings(change.newValue));
  });
  void loadSettings().then(ensure, () => {});
  return {
    ensure,
    async withOrigin(origin, work) {
      if (!origin) return work();
      extra = [...extra, origin];
      try {
        await applyNow();
        return await work();
      } finally {
        // One entry out (two tests of the same URL may overlap), then the rules as settings say.
        const i = extra.indexOf(origin);
        extra = [...extra.slice(0, i), ...extra.slice(i + 1)];
        await applyNow();
      }
    },
  };
}
