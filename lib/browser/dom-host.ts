/**
 * Where DOM work for the background happens: Chrome's service worker has no DOMParser, so it goes
 * to the offscreen document; Firefox's background page has a DOM of its own.
 */
import type { FetchedPage, FetchedPageRequest } from '../extract/fetched';
import { ensureOffscreenDocument, sendWhenListening } from './offscreen/document';
import { offscreenMessaging } from './offscreen/protocol';
import { openWorkspace } from '../workspace';

export interface DomHost {
  htmlToMarkdown(request: FetchedPageRequest): Promise<FetchedPage>;
  /**
   * A blob URL for a workspace file, made where blob URLs live as long as the browser runs
   * (a service worker has no URL.createObjectURL). Reading the same path again replaces it.
   */
  blobUrl(path: string): Promise<{ url: string }>;
}

export function offscreenDomHost(): DomHost {
  return {
    async htmlToMarkdown(request) {
      await ensureOffscreenDocument();
      return sendWhenListening(() => offscreenMessaging.sendMessage('domHtmlToMarkdown', request));
    },
    async blobUrl(path) {
      await ensureOffscreenDocument();
      return sendWhenListening(() => offscreenMessaging.sendMessage('domBlobUrl', { path }));
    },
  };
}

const blobUrls = new Map<string, string>();

/** In a document: the file's bytes copied into a Blob (an OPFS File would go stale when the file changes). */
async function workspaceBlobUrl(path: string): Promise<{ url: string }> {
  const ws = await openWorkspace();
  const r = await ws.read(path, { mode: 'blob' });
  if (r.kind !== 'blob') throw new Error('expected a blob read');
  const url = URL.createObjectURL(new Blob([r.bytes as Uint8Array<ArrayBuffer>], { type: r.mime_type }));
  const previous = blobUrls.get(r.path);
  if (previous) URL.revokeObjectURL(previous);
  blobUrls.set(r.path, url);
  return { url };
}

/** The extractor (defuddle, turndown) loads on the first fetched page, not with the background. */
const extractor = () => import('../extract/fetched');

export function inPageDomHost(): DomHost {
  return {
    htmlToMarkdown: async (request) => (await extractor()).fetchedHtmlToMarkdown(request),
    blobUrl: workspaceBlobUrl,
  };
}

/** The offscreen document's side of offscreenDomHost. */
export function startDomHostRelay(): void {
  offscreenMessaging.onMessage('domHtmlToMarkdown', async ({ data }) => (await extractor()).fetchedHtmlToMarkdown(data));
  offscreenMessaging.onMessage('domBlobUrl', ({ data }) => workspaceBlobUrl(data.path));
}
