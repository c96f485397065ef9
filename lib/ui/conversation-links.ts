/**
 * Links to the management page's Conversations section. The popup hands export and import to
 * it: Firefox closes a popup when a file dialog opens, which loses the file being imported, and
 * the blob URL of a download when it asks where to save (the extension has no `downloads`
 * permission to hand it to the browser instead).
 */
import { browser } from 'wxt/browser';
import type { ExportFormat } from '../contracts/conversation-file';

const HASH = '#conversations';

/** What the section does on opening: show a conversation (and download it), or offer the import. */
export interface ConversationsRequest {
  open?: string;
  export?: ExportFormat;
  import?: boolean;
}

export function conversationsHash(request: ConversationsRequest = {}): string {
  const params = new URLSearchParams();
  if (request.open) params.set('open', request.open);
  if (request.open && request.export) params.set('export', request.export);
  if (request.import) params.set('import', '1');
  const query = params.toString();
  return query ? `${HASH}?${query}` : HASH;
}

/** The request a `#conversations?…` hash makes; undefined for any other hash. */
export function conversationsRequestFromHash(hash: string): ConversationsRequest | undefined {
  if (hash !== HASH && !hash.startsWith(`${HASH}?`)) return undefined;
  const params = new URLSearchParams(hash.slice(HASH.length + 1));
  const format = params.get('export');
  const open = params.get('open') || undefined;
  return {
    ...(open ? { open } : {}),
    ...(open && (format === 'markdown' || format === 'json') ? { export: format } : {}),
    ...(params.has('import') ? { import: true } : {}),
  };
}

/** In a new tab: the popup closes as soon as another tab takes the focus. */
export async function openConversationsPage(request: ConversationsRequest): Promise<void> {
  await browser.tabs.create({ url: browser.runtime.getURL('/options.html') + conversationsHash(request) });
}
