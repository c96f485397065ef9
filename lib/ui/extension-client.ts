import { browser, type Browser } from 'wxt/browser';
import { RUN_EVENTS_PORT, sendMessage, type PortEvent, type PortRequest } from '../protocol';
import type { ChatClient } from './chat-client';

const RECONNECT_MS = 250;

/** The chat client inside the extension: typed messages for requests, a port for run events. */
export function createExtensionClient(): ChatClient {
  return {
    attach(conversationId, onEvent, onConnection) {
      let port: Browser.runtime.Port | undefined;
      let closed = false;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const connect = () => {
        if (closed) return;
        port = browser.runtime.connect({ name: RUN_EVENTS_PORT });
        port.onMessage.addListener((msg: unknown) => onEvent(msg as PortEvent));
        // A stopped service worker drops the port: connecting again wakes it, and the fresh
        // snapshot shows where the run stands.
        port.onDisconnect.addListener(() => {
          port = undefined;
          onConnection?.(false);
          if (!closed) timer = setTimeout(connect, RECONNECT_MS);
        });
        port.postMessage({ type: 'attach', conversationId } satisfies PortRequest);
        onConnection?.(true);
      };
      connect();
      return () => {
        closed = true;
        clearTimeout(timer);
        port?.disconnect();
      };
    },
    async send(conversationId, text) {
      const r = await sendMessage('sendUserMessage', conversationId ? { conversationId, text } : { text });
      return r.conversationId;
    },
    stop: (conversationId) => sendMessage('stopRun', { conversationId }),
    regenerate: (conversationId) => sendMessage('regenerate', { conversationId }),
    continueRun: (conversationId) => sendMessage('continueRun', { conversationId }),
    list: () => sendMessage('listConversations', undefined),
    rename: (conversationId, title) => sendMessage('renameConversation', { conversationId, title }),
    remove: (conversationId) => sendMessage('deleteConversation', { conversationId }),
    openSettings: () => void browser.runtime.openOptionsPage(),
  };
}
