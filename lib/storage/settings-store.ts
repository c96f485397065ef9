import { browser } from 'wxt/browser';
import { migrateSettings, SETTINGS_STORAGE_KEY, type Settings } from '../settings';

// Secrets live in storage.local only: storage.sync would copy the API key to the vendor's servers.
export async function loadSettings(): Promise<Settings> {
  const got = await browser.storage.local.get(SETTINGS_STORAGE_KEY);
  return migrateSettings(got[SETTINGS_STORAGE_KEY]);
}

export async function saveSettings(settings: Settings): Promise<void> {
  await browser.storage.local.set({ [SETTINGS_STORAGE_KEY]: settings });
}
