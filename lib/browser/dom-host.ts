/**
 * Where DOM work for the background happens: Chrome's service worker has no DOMParser, so it goes
 * to the offscreen document; Firefox's background page has a DOM of its own.
 */
import type { FetchedPage, FetchedPageRequest } from '../extract/fetched';
import { ensureOffscreenDocument, sendWhenListening } from '../sandbox/offscreen-document';
import { offscreenMessaging } from '../sandbox/offscreen-protocol';

export interface DomHost {
  htmlToMarkdown(request: FetchedPageRequest): Promise<FetchedPage>;
}

export function offscreenDomHost(): DomHost {
  return {
    async htmlToMarkdown(request) {
      await ensureOffscreenDocument();
      return sendWhenListening(() => offscreenMessaging.sendMessage('domHtmlToMarkdown', request));
    },
  };
}

/** The extractor (defuddle, turndown) loads on the first fetched page, not with the background. */
const extractor = () => import('../extract/fetched');

export function inPageDomHost(): DomHost {
  return {
    htmlToMarkdown: async (request) => (await extractor()).fetchedHtmlToMarkdown(request),
  };
}

/** The offscreen document's side of offscreenDomHost. */
export function startDomHostRelay(): void {
  offscreenMessaging.onMessage('domHtmlToMarkdown', async ({ data }) => (await extractor()).fetchedHtmlToMarkdown(data));
}
