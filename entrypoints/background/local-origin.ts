/**
 * Keeps the Origin rules for local model servers (lib/browser/local-origin.ts) in step with the
 * settings: set at start-up, replaced whenever the stored settings change, and checked again
 * before a run reads them, so a run started right after saving never races the change event.
 */
import { browser } from 'wxt/browser';
import { localOriginTargets } from '../../lib/agent/providers/local-origin';
import type { LocalOriginAdapter } from '../../lib/browser/local-origin';
import { migrateSettings, SETTINGS_STORAGE_KEY, type Settings } from '../../lib/settings';

export interface LocalOriginSync {
  /** Resolves once the rules fit `settings` (at once when they already do). */
  ensure(settings: Settings): Promise<void>;
}

/** Registers its listener synchronously: a woken service worker must see the change that woke it. */
export function syncLocalOriginRules(adapter: LocalOriginAdapter, loadSettings: () => Promise<Settings>): LocalOriginSync {
  const ensure = (settings: Settings) => adapter.apply(localOriginTargets(settings));
  browser.storage.onChanged.addListener((changes, area) => {
    const change = changes[SETTINGS_STORAGE_KEY];
    if (area === 'local' && change) void ensure(migrateSettings(change.newValue));
  });
  void loadSettings().then(ensure, () => {});
  return { ensure };
}
