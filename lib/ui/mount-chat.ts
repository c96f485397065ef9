/**
 * One chat, two hosts: the popup and the side panel (Chrome) / sidebar (Firefox) mount the same
 * Chat with the same client; only what the host can do differs (the popup can hand the chat over
 * to the panel, the panel is already there).
 */
import { mount } from 'svelte';
import { browser } from 'wxt/browser';
import { announcePanel, createPanelAdapter, leaveHandoff, takeHandoff, watchHandoffs, type PanelHandoff } from '../browser/panel';
import { uiLocale } from '../i18n';
import Chat from './chat/Chat.svelte';
import { createExtensionClient } from './extension-client';

export type ChatHost = 'popup' | 'panel';

declare global {
  interface Window {
    /** Read by the e2e suite: ms from open to the conversation on screen. */
    __pagewrightShownMs?: number;
  }
}

export function mountChat(host: ChatHost): void {
  document.documentElement.lang = uiLocale();
  document.documentElement.dataset.host = host;
  const client = createExtensionClient();
  // Looked up now: in a click, any await before the browser's call loses the user's gesture.
  let windowId: number | undefined;
  const windowKnown = browser.windows.getCurrent().then((w) => (windowId = w.id), () => undefined);
  let openPanel: ((conversationId: string | undefined) => void) | undefined;
  if (host === 'popup') {
    const panel = createPanelAdapter();
    openPanel = (conversationId) => {
      // Both calls start in the gesture, in this order: the panel finds the handoff when it starts.
      void leaveHandoff({ conversationId, windowId });
      panel.open(windowId).then(() => window.close(), (e) => console.warn('Pagewright: the side panel did not open:', e));
    };
  }
  const chat = mount(Chat, {
    target: document.getElementById('app')!,
    props: { client, host, onopenpanel: openPanel, onshown: (ms: number) => (window.__pagewrightShownMs = ms) },
  }) as { handoff(h: PanelHandoff): void };
  // A handoff waiting (a menu item where the panel could not open, so the popup opened instead).
  // The panel watches before it looks, so that a handoff landing in between is not missed (one
  // seen by both is applied twice, to the same effect).
  void windowKnown.then(async () => {
    if (host === 'panel' && windowId !== undefined) announcePanel(windowId);
    if (host === 'panel') watchHandoffs(windowId, (h) => chat.handoff(h));
    const first = await takeHandoff(windowId);
    if (first) chat.handoff(first);
  });
}
