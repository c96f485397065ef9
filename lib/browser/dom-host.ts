/**
 * Where DOM work for the background happens: Chrome's service worker has no DOMParser, so it goes
 * to the offscreen document; Firefox's background page has a DOM of its own.
 */
import { fetchedHtmlToMarkdown, type FetchedPage, type FetchedPageRequest } from '../extract/fetched';
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

export function inPageDomHost(): DomHost {
  return {
    htmlToMarkdown: async (request) => fetchedHtmlToMarkdown(request),
  };
}

/** The offscreen document's side of offscreenDomHost. */
export function startDomHostRelay(): void {
  offscreenMessaging.onMessage('domHtmlToMarkdown', ({ data }) => fetchedHtmlToMarkdown(data));
}
