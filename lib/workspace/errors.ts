/**
 * The workspace's one error type. Its message is meant for the model: it says what is wrong
 * and what to do instead (a valid path, the folder to list, the offset to use).
 */
import { ModelFacingError } from '../errors';

export type WorkspaceErrorCode =
  /** The path breaks a rule (escape, bad character, empty segment, too long …). */
  | 'invalid_path'
  /** The workspace root itself was given where a file or a removable entry is needed. */
  | 'root_refused'
  | 'not_found'
  /** A folder where a file is needed (read, write over). */
  | 'not_a_file'
  /** A file where a folder is needed (list, or a parent segment). */
  | 'not_a_directory'
  | 'invalid_data_url'
  /** offset / limit / mode out of range. */
  | 'invalid_argument'
  | 'quota_exceeded'
  /** The entry is locked by another writer (a sync access handle, an exclusive writable). */
  | 'busy'
  /** This context has no OPFS, or the storage is disabled (private windows, policies). */
  | 'unsupported'
  /** Anything else the file system reported. */
  | 'io';

export class WorkspaceError extends ModelFacingError<WorkspaceErrorCode> {
  override name = 'WorkspaceError';
}

export const isWorkspaceError = (e: unknown): e is WorkspaceError => e instanceof WorkspaceError;

/** The DOMException name of a file-system failure ('' for anything else). */
export function domErrorName(e: unknown): string {
  // QuotaExceededError became its own class (a DOMException subclass) in recent Chromium; the
  // name is the same in every engine, so compare names rather than classes.
  return typeof e === 'object' && e !== null && 'name' in e && typeof e.name === 'string' ? e.name : '';
}
