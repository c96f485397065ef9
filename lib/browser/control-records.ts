/**
 * What get_tab_content said each control was — its role and accessible name, by the selector it
 * gave — per tab, so that page_action can find the control again when the page re-rendered it and
 * the selector (a `[pw="N"]` stamp, often) matches nothing. Kept in the background, not the page:
 * the page is read in one world and acted on in another, and it must not be able to rewrite
 * what was recorded. Lost when the background restarts; the action then says to read the page again.
 */
import type { RecordedControl } from '../actions/types';

/** [selector, role, name], as the page reader returns them. */
export type ControlEntry = [selector: string, role: string, name: string];

const MAX_TABS = 50;
const MAX_PER_TAB = 5000;

export class ControlRecords {
  /** Per tab: the page's origin (a record from another site says nothing here) and the controls. */
  private readonly tabs = new Map<number, { origin: string; controls: Map<string, RecordedControl> }>();

  record(tabId: number, url: string, controls: readonly ControlEntry[] | undefined): void {
    if (!controls?.length) return;
    const origin = originOf(url);
    let tab = this.tabs.get(tabId);
    if (!tab || tab.origin !== origin) tab = { origin, controls: new Map() };
    this.tabs.delete(tabId); // re-inserted last: the map's order is the least recently read first
    this.tabs.set(tabId, tab);
    for (const [selector, role, name] of controls) {
      tab.controls.delete(selector);
      tab.controls.set(selector, { role, name });
    }
    for (const key of tab.controls.keys()) {
      if (tab.controls.size <= MAX_PER_TAB) break;
      tab.controls.delete(key);
    }
    for (const key of this.tabs.keys()) {
      if (this.tabs.size <= MAX_TABS) break;
      this.tabs.delete(key);
    }
  }

  lookup(tabId: number, url: string, selector: string): RecordedControl | undefined {
    const tab = this.tabs.get(tabId);
    return tab && tab.origin === originOf(url) ? tab.controls.get(selector.trim()) : undefined;
  }
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}
