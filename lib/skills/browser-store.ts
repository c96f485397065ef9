import { browser } from 'wxt/browser';
import { BUILTIN_TOOL_NAMES } from '../tools/catalog';
import { SkillStore, type KeyValueArea } from './store';

/** The store on browser.storage.local, shared by the management page and the background. */
export function browserSkillStore(): SkillStore {
  const area: KeyValueArea = {
    get: (key) => browser.storage.local.get(key) as Promise<Record<string, unknown>>,
    set: (items) => browser.storage.local.set(items),
  };
  return new SkillStore(area, new Set(BUILTIN_TOOL_NAMES));
}
