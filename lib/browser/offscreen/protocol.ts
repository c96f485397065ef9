/**
 * Chrome's offscreen document (the one DOM a Chrome MV3 background may have): the messages the
 * service worker sends it, for the sandbox host, the DOM host and — through its own map in
 * lib/database/protocol.ts — the database host.
 */
import { defineExtensionMessaging } from '@webext-core/messaging';
import type { FetchedPage, FetchedPageRequest } from '../../extract/fetched';
import type { RealmEngine } from '../../sandbox/engines';
import type { RealmRunRequest } from '../../sandbox/report';
import type { SandboxOutcome } from '../../sandbox/types';

/**
 * Chrome: background service worker → offscreen document. A map of its own, with names no
 * other context listens for: runtime messages reach every extension page, and
 * @webext-core/messaging allows one listener per message type per context.
 */
export interface OffscreenProtocol {
  sandboxOffscreenRun(data: { runId: string; engine: RealmEngine; request: RealmRunRequest }): SandboxOutcome;
  sandboxOffscreenAbort(data: { runId: string }): void;
  /** web_fetch: fetched HTML → Markdown (the service worker has no DOMParser). */
  domHtmlToMarkdown(data: FetchedPageRequest): FetchedPage;
  /** opfs_read in blob mode: a blob URL of the extension's origin for a workspace file. */
  domBlobUrl(data: { path: string }): { url: string };
}

export const offscreenMessaging = defineExtensionMessaging<OffscreenProtocol>();
