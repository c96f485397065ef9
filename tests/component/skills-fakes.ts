import { SkillStore, type KeyValueArea } from '../../lib/skills/store';
import { BUILTIN_TOOL_NAMES } from '../../lib/tools/catalog';

/** browser.storage.local as the store sees it, in memory; values are copied as storage would. */
export class MemoryArea implements KeyValueArea {
  data = new Map<string, unknown>();
  async get(key: string) {
    return this.data.has(key) ? { [key]: structuredClone(this.data.get(key)) } : {};
  }
  async set(items: Record<string, unknown>) {
    for (const [k, v] of Object.entries(items)) this.data.set(k, structuredClone(v));
  }
}

export function memorySkillStore() {
  const area = new MemoryArea();
  return { area, store: new SkillStore(area, new Set(BUILTIN_TOOL_NAMES)) };
}
