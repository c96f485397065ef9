import { browser, type Browser } from 'wxt/browser';
import { RUN_EVENTS_PORT, sendMessage, type PortEvent, type PortRequest } from '../protocol';
import type { ChatClient } from './chat-client';
import { openConversationsPage } from './conversation-links';
import { SETTINGS_STORAGE_KEY, validateSettings } from '../settings';
import { loadSettings } from '../storage/settings-store';

const RECONNECT_MS = 250;

interface EarlyAttach {
  port: Browser.runtime.Port;
  buffered: PortEvent[];
  listener?: (e: PortEvent) => void;
  disconnected: boolean;
}

declare global {
  /** Set by public/preattach.js, which the popup loads before its own code. */
  var __pagewrightEarlyPort: EarlyAttach | undefined;
}

/** The port public/preattach.js opened for the latest conversation, once. */
function takeEarlyPort(): EarlyAttach | undefined {
  const early = globalThis.__pagewrightEarlyPort;
  globalThis.__pagewrightEarlyPort = undefined;
  return early && !early.disconnected ? early : undefined;
}

/** The chat client inside the extension: typed messages for requests, a port for run events. */
export function createExtensionClient(): ChatClient {
  return {
    attach(conversationId, onEvent, onConnection) {
      let port: Browser.runtime.Port | undefined;
      let closed = false;
      let timer: ReturnType<typeof setTimeout> | undefined;
      // After the first snapshot, a reconnect re-attaches to that conversation, not "the latest".
      let target = conversationId;
      const handle = (msg: PortEvent) => {
        if (!('type' in msg) && msg.event.type === 'snapshot') target = msg.event.snapshot.conversation.id;
        onEvent(msg);
      };
      const watch = (p: Browser.runtime.Port) => {
        // A stopped service worker drops the port: connecting again wakes it, and the fresh
        // snapshot shows where the run stands.
        p.onDisconnect.addListener(() => {
          port = undefined;
          onConnection?.(false);
          if (!closed) timer = setTimeout(connect, RECONNECT_MS);
        });
      };
      const connect = () => {
        if (closed) return;
        port = browser.runtime.connect({ name: RUN_EVENTS_PORT });
        port.onMessage.addListener((msg: unknown) => handle(msg as PortEvent));
        watch(port);
        port.postMessage({ type: 'attach', conversationId: target } satisfies PortRequest);
        onConnection?.(true);
      };
      const adopted = conversationId === null ? takeEarlyPort() : undefined;
      if (adopted) {
        port = adopted.port;
        adopted.listener = handle;
        watch(port);
        onConnection?.(true);
        for (const msg of adopted.buffered.splice(0)) handle(msg);
      } else {
        connect();
      }
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
    answer: (conversationId, questionId, reply) => sendMessage('answerQuestion', { conversationId, questionId, reply }),
    openSettings: () => void browser.runtime.openOptionsPage(),
    watchSetup(onChange) {
      const check = () => void loadSettings().then((s) => onChange(!validateSettings(s).ok), () => onChange(false));
      const listener = (changes: Record<string, unknown>, area: string) => {
        if (area === 'local' && SETTINGS_STORAGE_KEY in changes) check();
      };
      check();
      browser.storage.onChanged.addListener(listener);
      return () => browser.storage.onChanged.removeListener(listener);
    },
    openConversations: (request) => void openConversationsPage(request),
    openSkillReview: () => void browser.tabs.create({ url: browser.runtime.getURL('/options.html') + '#skills' }),
  };
}
