/**
 * "Ask Pagewright about…" in the page's context menu (contextMenus in Chrome, menus in Firefox:
 * Firefox answers to both names) and the keyboard commands. Each opens the chat beside the page
 * with a new message prefilled that carries what was clicked, for the user to complete and send:
 * never sent by itself (the model reads nothing until the user says what to do with it).
 *
 * The browser calls these listeners in a user gesture, which is what lets them open the panel;
 * called any other way (a test through `pagewrightHandlers`), opening is refused, and the
 * handoff waits for the user to open the panel or the popup.
 */
import { browser } from 'wxt/browser';
import { t, type MessageKey } from '../i18n';
import { restrictedPageReason } from '../tools/url-policy';
import { leaveHandoff, toolbarButton, type PanelAdapter } from './panel';

export const MENU_IDS = ['ask-page', 'ask-selection', 'ask-link', 'ask-image'] as const;
export type MenuId = (typeof MENU_IDS)[number];

type MenuContext = 'page' | 'selection' | 'link' | 'image';
const MENUS: { id: MenuId; title: MessageKey; contexts: [MenuContext, ...MenuContext[]] }[] = [
  { id: 'ask-page', title: 'menu_ask_page', contexts: ['page'] },
  { id: 'ask-selection', title: 'menu_ask_selection', contexts: ['selection'] },
  { id: 'ask-link', title: 'menu_ask_link', contexts: ['link'] },
  { id: 'ask-image', title: 'menu_ask_image', contexts: ['image'] },
];

/** The commands the manifest declares besides the browser's own (_execute_action, _execute_sidebar_action). */
export const TOGGLE_PANEL_COMMAND = 'toggle-panel';

/** The most of a selection a draft quotes: a whole page selected (megabytes) is for get_tab_content to read. */
export const MAX_QUOTE = 4000;
/** URLs longer than this (a data: image of megabytes) are described, not pasted. */
export const MAX_URL = 2000;

/** What the browser tells a menu listener (the fields this uses of contextMenus.OnClickData). */
export interface MenuClick {
  menuItemId: string | number;
  pageUrl?: string;
  selectionText?: string;
  linkUrl?: string;
  linkText?: string;
  srcUrl?: string;
  mediaType?: string;
}

export interface MenuTab {
  id?: number;
  windowId?: number;
  url?: string;
  title?: string;
}

/** The message to prefill for a menu click, in the user's language. */
export function draftFor(click: MenuClick, tab: MenuTab | undefined): string {
  const pageUrl = click.pageUrl || tab?.url || '';
  const title = (tab?.title ?? '').trim();
  const page = title ? `${title} — ${shownUrl(pageUrl)}` : shownUrl(pageUrl);
  const lines: string[] = [];
  switch (click.menuItemId) {
    case 'ask-selection': {
      const text = (click.selectionText ?? '').trim();
      const quoted = text.length > MAX_QUOTE ? `${text.slice(0, MAX_QUOTE)}…` : text;
      lines.push(t('ask_draft_selection', page), quoted.split('\n').map((l) => `> ${l}`).join('\n'));
      if (text.length > MAX_QUOTE) lines.push(t('ask_draft_selection_cut', MAX_QUOTE, text.length));
      break;
    }
    case 'ask-link':
      lines.push(t('ask_draft_link', shownUrl(click.linkUrl ?? ''), page));
      break;
    case 'ask-image':
      lines.push(t('ask_draft_image', shownUrl(click.srcUrl ?? ''), page));
      break;
    default:
      lines.push(t('ask_draft_page', page));
  }
  if (pageUrl && restrictedPageReason(pageUrl)) lines.push(t('ask_draft_restricted'));
  return `${lines.join('\n\n')}\n\n`;
}

/** A URL as the draft shows it: an inline image's data (megabytes) is named, not pasted. */
function shownUrl(url: string): string {
  if (/^data:/i.test(url)) {
    const type = /^data:([^;,]*)/i.exec(url)?.[1] || 'data';
    return t('ask_draft_inline_data', type, Math.max(1, Math.round(url.length / 1024)));
  }
  return url.length > MAX_URL ? `${url.slice(0, MAX_URL)}…` : url;
}

export interface AskHandlers {
  /** Resolves to the message left for the chat (undefined: not one of this menu's items). */
  menuClicked(click: MenuClick, tab?: MenuTab): Promise<string | undefined>;
  command(name: string, tab?: MenuTab): Promise<void>;
}

/**
 * Creates the menu items (again at every start: Chrome keeps them across service-worker restarts
 * and would refuse duplicates, Firefox forgets them) and registers the listeners. Synchronous, as
 * the background's registrations must be.
 */
export function registerAskMenu(panel: PanelAdapter): AskHandlers {
  // Firefox's own name (its contextMenus alias comes with the "contextMenus" permission only).
  const menus = (browser as unknown as { menus?: typeof browser.contextMenus }).menus ?? browser.contextMenus;
  void menus.removeAll().then(() => {
    for (const m of MENUS) menus.create({ id: m.id, title: t(m.title), contexts: m.contexts }, () => void browser.runtime.lastError);
  });
  const handlers: AskHandlers = {
    async menuClicked(click, tab) {
      if (!MENU_IDS.includes(click.menuItemId as MenuId)) return undefined;
      const draft = draftFor(click, tab);
      // Both calls start now, in the gesture: the handoff first, so the panel finds it.
      const left = leaveHandoff({ draft, windowId: tab?.windowId });
      await Promise.all([left, openChat(panel, tab?.windowId)]);
      return draft;
    },
    async command(name, tab) {
      if (name !== TOGGLE_PANEL_COMMAND) return;
      await panel.toggle(tab?.windowId);
    },
  };
  menus.onClicked.addListener((click, tab) => void handlers.menuClicked(click, tab));
  browser.commands?.onCommand.addListener((name, tab) => void handlers.command(name, tab));
  return handlers;
}

/** The panel, or where it cannot open (no gesture, no panel API) the popup; else the handoff waits. */
async function openChat(panel: PanelAdapter, windowId: number | undefined): Promise<void> {
  try {
    await panel.open(windowId);
  } catch {
    const action = toolbarButton() as { openPopup?: () => Promise<void> } | undefined;
    await action?.openPopup?.().catch(() => undefined);
  }
}
