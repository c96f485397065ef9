/**
 * The chat beside the page: Chrome's side panel (chrome.sidePanel, MV3) and Firefox's sidebar
 * (sidebarAction). Both mount the same Chat as the popup (entrypoints/sidepanel). Chosen once
 * where it is created.
 *
 * Both browsers open the panel only inside a user gesture (a click in the popup, a menu item, a
 * keyboard command), and Firefox only when the call is made before anything is awaited: so
 * `open` makes the browser call first, synchronously, and callers must not await before it.
 */
import { browser, type Browser } from 'wxt/browser';
import { SETTINGS_STORAGE_KEY, type ToolbarOpens } from '../settings';

export interface PanelAdapter {
  /** Opens the panel in `windowId` (Chrome needs it; Firefox opens it in the current window). Call it first thing in the gesture. */
  open(windowId?: number): Promise<void>;
  /** Closes the window's panel when it is open, else opens it (the keyboard command). */
  toggle(windowId?: number): Promise<void>;
  /**
   * What the toolbar button opens. Chrome: no popup and the side panel's openPanelOnActionClick;
   * Firefox: no popup, and the button's click toggles the sidebar (serveToolbarButton).
   */
  setToolbarOpens(mode: ToolbarOpens): Promise<void>;
}

const POPUP = 'popup.html';
/** The toolbar button's API: action (MV3), browserAction (Firefox MV2). */
export function toolbarButton(): typeof browser.action {
  return (browser.action ?? (browser as unknown as { browserAction: typeof browser.action }).browserAction);
}

/** The port each open panel keeps to the background, so that the background knows which windows show one. */
export const PANEL_PORT = 'pagewright:panel';

type PanelMessage = { type: 'window'; windowId: number } | { type: 'close' };

/**
 * The background's view of the open panels, by window. Chrome has no "is the side panel open"
 * query; the panel closes itself (window.close) when asked, which every Chrome with side panels
 * allows.
 */
export class OpenPanels {
  private readonly ports = new Map<number, Browser.runtime.Port>();

  listen(): this {
    browser.runtime.onConnect.addListener((port) => {
      if (port.name !== PANEL_PORT) return;
      let windowId: number | undefined;
      port.onMessage.addListener((m: PanelMessage) => {
        if (m?.type === 'window' && Number.isInteger(m.windowId)) this.ports.set((windowId = m.windowId), port);
      });
      port.onDisconnect.addListener(() => {
        if (windowId !== undefined && this.ports.get(windowId) === port) this.ports.delete(windowId);
      });
    });
    return this;
  }

  has(windowId: number): boolean {
    return this.ports.has(windowId);
  }

  close(windowId: number): void {
    this.ports.get(windowId)?.postMessage({ type: 'close' } satisfies PanelMessage);
  }
}

/** A side panel closes with window.close(); the same page shown in a tab (a test's window) closes its tab. */
async function closeSelf(): Promise<void> {
  const tab = await browser.tabs.getCurrent().catch(() => undefined);
  if (tab?.id !== undefined) await browser.tabs.remove(tab.id);
  else window.close();
}

/** The panel's side of OpenPanels: says which window it is in, closes when asked, reconnects after a worker restart. */
export function announcePanel(windowId: number): void {
  const connect = () => {
    const port = browser.runtime.connect({ name: PANEL_PORT });
    port.postMessage({ type: 'window', windowId } satisfies PanelMessage);
    port.onMessage.addListener((m: PanelMessage) => {
      if (m?.type === 'close') void closeSelf();
    });
    port.onDisconnect.addListener(() => setTimeout(connect, 250));
  };
  connect();
}

interface ChromeSidePanel {
  open(options: { windowId?: number; tabId?: number }): Promise<void>;
  setPanelBehavior(behavior: { openPanelOnActionClick: boolean }): Promise<void>;
}

/**
 * The background's part of the "Toolbar button opens" setting: applied at start and whenever the
 * settings change; in Firefox, a click on a button without a popup toggles the sidebar (the
 * click is the gesture sidebarAction needs). Chrome opens its panel itself.
 */
export function serveToolbarButton(panel: PanelAdapter, load: () => Promise<{ toolbarOpens: ToolbarOpens }>): void {
  const sidebar = (browser as unknown as { sidebarAction?: { toggle(): Promise<void> } }).sidebarAction;
  if (sidebar) toolbarButton().onClicked.addListener(() => void sidebar.toggle());
  let applied: ToolbarOpens | undefined;
  const apply = () =>
    load()
      .then(async ({ toolbarOpens }) => {
        if (toolbarOpens === applied) return;
        await panel.setToolbarOpens(toolbarOpens);
        applied = toolbarOpens;
      })
      .catch((e) => console.warn('Pagewright: the toolbar button setting was not applied:', e));
  void apply();
  browser.storage.onChanged.addListener((changes, area) => {
    if (area === 'local' && SETTINGS_STORAGE_KEY in changes) void apply();
  });
}

/**
 * Chosen by what the browser offers (Firefox's sidebarAction, Chrome's sidePanel), so the pages
 * that open the panel need not know the build. `panels`: the background's OpenPanels (toggling
 * needs it in Chrome; the popup only opens).
 */
export function createPanelAdapter(panels?: OpenPanels): PanelAdapter {
  const sidebar = (browser as unknown as { sidebarAction?: { open(): Promise<void>; toggle(): Promise<void> } }).sidebarAction;
  if (sidebar) {
    return {
      open: () => sidebar.open(),
      toggle: () => sidebar.toggle(),
      setToolbarOpens: (mode) => toolbarButton().setPopup({ popup: mode === 'panel' ? '' : POPUP }),
    };
  }
  const sidePanel = (globalThis as unknown as { chrome?: { sidePanel?: ChromeSidePanel } }).chrome?.sidePanel;
  const setToolbarOpens = async (mode: ToolbarOpens) => {
    await toolbarButton().setPopup({ popup: mode === 'panel' ? '' : POPUP });
    await sidePanel?.setPanelBehavior({ openPanelOnActionClick: mode === 'panel' });
  };
  return {
    // The window is known before the gesture (looking it up here would await, and lose it).
    open,
    setToolbarOpens,
    toggle: (windowId) => {
      if (windowId !== undefined && panels?.has(windowId)) {
        panels.close(windowId);
        return Promise.resolve();
      }
      return open(windowId);
    },
  };
  function open(windowId: number | undefined): Promise<void> {
    if (!sidePanel) return Promise.reject(new Error('This browser has no side panel for extensions.'));
    if (windowId === undefined) return Promise.reject(new Error('Which window to open the side panel in is not known yet.'));
    return sidePanel.open({ windowId });
  }
}

/**
 * What the panel should show when it opens: the conversation the popup had open, or a new chat
 * with a message prefilled (the context menu's "Ask Pagewright about…"). Left in storage.session
 * by whoever opens the panel, taken by the panel (at start, and while it is open), never kept
 * past the browser session, and ignored once stale (a panel opened later from the toolbar shows
 * the latest conversation, as the popup does).
 */
export interface PanelHandoff {
  /** The conversation to attach to; absent: a new chat. */
  conversationId?: string;
  /** Text to put in the composer, for the user to complete and send (never sent by itself). */
  draft?: string;
  /** The window whose panel it is for (a handoff for another window's panel is left for it). */
  windowId?: number;
  at: number;
}

export const HANDOFF_KEY = 'pagewright:panel-handoff';
/** A handoff older than this was for a panel that never opened. */
export const HANDOFF_TTL_MS = 15_000;

export function leaveHandoff(handoff: Omit<PanelHandoff, 'at'>): Promise<void> {
  return browser.storage.session.set({ [HANDOFF_KEY]: { ...handoff, at: Date.now() } satisfies PanelHandoff });
}

/** Takes the handoff meant for this window's panel, if a fresh one is waiting. */
export async function takeHandoff(windowId: number | undefined): Promise<PanelHandoff | undefined> {
  const found = (await browser.storage.session.get(HANDOFF_KEY))[HANDOFF_KEY] as PanelHandoff | undefined;
  if (!found || typeof found.at !== 'number' || Date.now() - found.at > HANDOFF_TTL_MS) return undefined;
  if (found.windowId !== undefined && windowId !== undefined && found.windowId !== windowId) return undefined;
  await browser.storage.session.remove(HANDOFF_KEY);
  return found;
}

/** Calls `onHandoff` for each handoff left while the panel is open (a menu item used again). */
export function watchHandoffs(windowId: number | undefined, onHandoff: (h: PanelHandoff) => void): () => void {
  const listener = (changes: Record<string, { newValue?: unknown }>, area: string) => {
    if (area === 'session' && changes[HANDOFF_KEY]?.newValue) void takeHandoff(windowId).then((h) => h && onHandoff(h));
  };
  browser.storage.onChanged.addListener(listener);
  return () => browser.storage.onChanged.removeListener(listener);
}
