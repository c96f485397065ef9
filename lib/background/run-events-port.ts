/**
 * The port session: a popup (or side panel) attaches to a conversation over a long-lived port
 * and gets its snapshot, then every run event, until it detaches or closes.
 */
import { browser, type Browser } from 'wxt/browser';
import type { RunManager } from '../agent/run-manager';
import { RUN_EVENTS_PORT, type PortEvent, type PortRequest } from '../protocol';

export function serveRunEventPorts(runsReady: Promise<RunManager>): void {
  browser.runtime.onConnect.addListener((port: Browser.runtime.Port) => {
    if (port.name !== RUN_EVENTS_PORT || port.sender?.id !== browser.runtime.id) return;
    let unsubscribe = () => {};
    const post = (msg: PortEvent) => {
      try {
        port.postMessage(msg);
      } catch {
        unsubscribe();
      }
    };
    port.onMessage.addListener(async (raw: unknown) => {
      const msg = raw as PortRequest;
      unsubscribe();
      unsubscribe = () => {};
      if (msg.type !== 'attach') return;
      const runs = await runsReady;
      const conversationId = msg.conversationId ?? (await runs.latestId());
      if (!conversationId) return post({ type: 'empty' });
      // Subscribe before the snapshot is read so no event falls between the two.
      const queued: PortEvent[] = [];
      let live = false;
      unsubscribe = runs.subscribe(conversationId, (event) =>
        live ? post({ conversationId, event }) : queued.push({ conversationId, event }),
      );
      const snapshot = await runs.snapshot(conversationId);
      if (!snapshot) {
        post({ type: 'missing', conversationId });
        return;
      }
      post({ conversationId, event: { type: 'snapshot', snapshot } });
      live = true;
      // An active run's snapshot is read from memory without awaiting, so nothing queued is
      // missing from it; an idle conversation's queue holds only what followed the read.
      if (!runs.isRunning(conversationId)) for (const q of queued) post(q);
      queued.length = 0;
    });
    port.onDisconnect.addListener(() => unsubscribe());
  });
}
