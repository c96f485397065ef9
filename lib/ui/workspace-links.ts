/**
 * Links from the chat to workspace files: the management page opens a file named in its hash
 * (`#workspace?path=journals/abc.md`), and the popup shows images the tools saved there.
 */
import { browser } from 'wxt/browser';
import { openWorkspace } from '../workspace';

const WORKSPACE_HASH = '#workspace';

/** The management page's hash that shows `path` in the workspace browser. */
export const workspaceFileHash = (path: string) => `${WORKSPACE_HASH}?path=${encodeURIComponent(path)}`;

/** The file a `#workspace?path=…` hash names; undefined for any other hash (or none given). */
export function workspacePathFromHash(hash: string): string | undefined {
  if (hash !== WORKSPACE_HASH && !hash.startsWith(`${WORKSPACE_HASH}?`)) return undefined;
  return new URLSearchParams(hash.slice(WORKSPACE_HASH.length + 1)).get('path') || undefined;
}

export const workspacePageUrl = (path: string) => browser.runtime.getURL('/options.html') + workspaceFileHash(path);

/** In a new tab: the popup closes as soon as another tab takes the focus. */
export async function openWorkspaceFile(path: string): Promise<void> {
  await browser.tabs.create({ url: workspacePageUrl(path) });
}

/** Image types a tool may point the chat at; by extension, as the tools name them. */
const IMAGE_TYPES: Record<string, string> = {
  svg: 'image/svg+xml',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
};

export const workspaceImageType = (path: string): string | undefined => IMAGE_TYPES[path.split('.').pop()?.toLowerCase() ?? ''];

/**
 * A blob URL for a workspace image (revoke it when done). Shown through <img> only: an SVG there
 * runs no script and reaches nothing, which its markup in the page's DOM would.
 */
export async function workspaceImageUrl(path: string): Promise<string> {
  const type = workspaceImageType(path);
  if (!type) throw new Error(`"${path}" is not an image the chat can show.`);
  const file = await (await openWorkspace()).readBytes(path);
  return URL.createObjectURL(new Blob([file.bytes as Uint8Array<ArrayBuffer>], { type }));
}
