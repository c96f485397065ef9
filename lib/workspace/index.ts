/**
 * The OPFS workspace behind the opfs_* tools: paths confined to one folder, all-or-nothing
 * writes (text or data URLs), text/binary told by the bytes, line paging, fast listing.
 */
export { WorkspaceError, isWorkspaceError, type WorkspaceErrorCode } from './errors';
export { parsePath, MAX_NAME_BYTES, MAX_PATH_BYTES, PATH_HINT, type WorkspacePath } from './paths';
export { decodeDataUrl, looksLikeDataUrl, type DecodedDataUrl } from './data-url';
export { detectText, decodeText, guessMimeType, type ContentVerdict, type TextEncodingName } from './sniff';
export { countLines, pageLines, DEFAULT_LINE_LIMIT, DEFAULT_MAX_CHARS, type LinePage, type PageOptions } from './lines';
export {
  Workspace,
  openWorkspace,
  WORKSPACE_DIR,
  DEFAULT_LIST_LIMIT,
  LIST_CONCURRENCY,
  type BlobReadResult,
  type DeleteResult,
  type EntryKind,
  type FileBytes,
  type ListEntry,
  type ListOptions,
  type ListResult,
  type ReadMode,
  type ReadOptions,
  type ReadResult,
  type StatResult,
  type TextReadResult,
  type WriteOptions,
  type WriteResult,
} from './workspace';
