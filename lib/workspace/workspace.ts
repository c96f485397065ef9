/**
 * The workspace: files the agent keeps in the Origin Private File System, under one folder
 * (WORKSPACE_DIR) so that other OPFS data of the extension (a SQLite database later) is out of
 * reach of every path. All paths go through parsePath; all failures become WorkspaceErrors whose
 * messages tell the model what to do.
 *
 * Writes are all-or-nothing: createWritable() writes to a swap file that replaces the target
 * only on close(), so a failed write (quota, a lock) leaves the old content; a file or folders
 * created for a write that then failed are removed again.
 *
 * Runs wherever OPFS does: Chrome's extension service worker (createWritable is exposed there,
 * checked in Chromium 156), Firefox's background page (a window), dedicated workers.
 */

import { formatBytes } from '../web/content-kind';
import { decodeDataUrl, looksLikeDataUrl } from './data-url';
import { domErrorName, WorkspaceError } from './errors';
import { pageLines, type LinePage, type PageOptions } from './lines';
import { displayOf, joinDisplay, parsePath, PATH_HINT, quote, SWAP_FILE, type WorkspacePath } from './paths';
import { decodeText, detectText, guessMimeType, type TextEncodingName } from './sniff';
import { errorMessage } from '../errors';

/** The folder under the OPFS root that holds the workspace. */
export const WORKSPACE_DIR = 'workspace';

/** getFile() calls in flight at once while listing (see list()). */
export const LIST_CONCURRENCY = 256;
/**
 * Entries list() returns unless told otherwise. Each file costs a getFile() (~0.1 ms in
 * Chromium, ~0.35 ms in Firefox, in parallel), and a model cannot use 10,000 entries at once.
 */
export const DEFAULT_LIST_LIMIT = 1000;

export type ReadMode = 'text' | 'blob' | 'auto';
export type EntryKind = 'file' | 'directory';

export interface WriteOptions {
  /** Decode a string that is a data URL to its bytes (default true); false writes it as text. */
  decodeDataUrl?: boolean;
}

export interface WriteResult {
  path: string;
  /** Bytes written. */
  size: number;
  /** True when the file did not exist before. */
  created: boolean;
  /** Set when the content was a data URL: its media type (null when unparseable). */
  data_url_type?: string | null;
}

interface ReadBase {
  path: string;
  /** File size in bytes. */
  size: number;
  /** ms since the epoch. */
  last_modified: number;
}

/** A text read: the page of lines (content, offset, lines, total_lines, truncated, note). */
export interface TextReadResult extends ReadBase, LinePage {
  kind: 'text';
  encoding: TextEncodingName;
  /** Text mode was asked for, but the bytes look binary (shown decoded as UTF-8 anyway). */
  looks_binary?: true;
}

export interface BlobReadResult extends ReadBase {
  kind: 'blob';
  /** A type for the Blob, with a charset for text ("image/png", "text/csv;charset=utf-8"). */
  mime_type: string;
  bytes: Uint8Array;
  /** What the bytes are, by detectText. */
  detected: 'text' | 'binary';
  /** For binary content whose format the magic number names: "PNG image" … */
  format?: string;
  note?: string;
}

export type ReadResult = TextReadResult | BlobReadResult;

export interface ReadOptions extends PageOptions {
  mode?: ReadMode;
}

export interface ListEntry {
  name: string;
  kind: EntryKind;
  /** Files only: bytes. */
  size?: number;
  /** Files only: ms since the epoch. */
  last_modified?: number;
}

export interface ListOptions {
  /** First entry to return, 1-based, in the sorted order (default 1). */
  offset?: number;
  /** Most entries to return (default DEFAULT_LIST_LIMIT; Infinity for all). */
  limit?: number;
}

export interface ListResult {
  path: string;
  /** Folders first, then files; each group in natural name order ("a2" before "a10"). */
  entries: ListEntry[];
  /** Entries in the folder, shown or not. */
  total: number;
  /** Position of entries[0] in the whole sorted list (1-based). */
  offset: number;
  /** True when entries after the last shown one exist. */
  truncated: boolean;
  /** Files and folders in the whole folder. */
  files: number;
  directories: number;
  /** For the model, when entries were left out: how many, and how to see them. */
  note?: string;
}

export interface DeleteResult {
  path: string;
  kind: EntryKind;
}

export interface StatResult {
  path: string;
  kind: EntryKind;
  size?: number;
  last_modified?: number;
}

export interface FileBytes extends ReadBase {
  name: string;
  bytes: Uint8Array;
}

type Dir = FileSystemDirectoryHandle;

const READ_MODES: readonly ReadMode[] = ['text', 'blob', 'auto'];
const encoder = new TextEncoder();
const collator = new Intl.Collator('en', { numeric: true });
const byName = (a: string, b: string) => collator.compare(a, b) || (a < b ? -1 : a > b ? 1 : 0);

export class Workspace {
  /** @param root the folder that is "/" (a fresh temporary folder in tests). */
  constructor(readonly root: FileSystemDirectoryHandle) {}

  /**
   * Writes a file, replacing it if it exists and creating missing folders. A string is UTF-8
   * text unless it is a data URL ("data:…,…"), which is decoded to its bytes.
   */
  async write(path: string, content: string | Uint8Array | Blob, options: WriteOptions = {}): Promise<WriteResult> {
    const target = parsePath(path);
    if (target.isRoot) throw new WorkspaceError('root_refused', `Cannot write to "/": it is the workspace root folder. Give a file path such as "/notes.md".`);
    if (target.trailingSlash) {
      throw new WorkspaceError('invalid_path', `Invalid path ${quote(path)}: it ends with "/", which names a folder. Give a file name, e.g. "${target.display}/file.txt". Folders are created as needed when a file is written.`);
    }
    let dataUrlType: string | null | undefined;
    let data: Uint8Array | Blob;
    if (typeof content === 'string') {
      if (options.decodeDataUrl !== false && looksLikeDataUrl(content)) {
        const decoded = decodeDataUrl(content);
        data = decoded.bytes;
        dataUrlType = decoded.mimeType;
      } else {
        data = encoder.encode(content);
      }
    } else {
      data = content;
    }
    const size = data instanceof Blob ? data.size : data.byteLength;

    const { segments } = target;
    const created: { parent: Dir; name: string }[] = [];
    /** Removes the folders this write created, deepest first, if nothing else has filled them. */
    const undoFolders = async () => {
      for (const { parent, name } of created.reverse()) await parent.removeEntry(name).catch(() => undefined);
    };

    let dir = this.root;
    try {
      for (let i = 0; i < segments.length - 1; i++) {
        const name = segments[i]!;
        try {
          dir = await dir.getDirectoryHandle(name);
        } catch (e) {
          const kind = domErrorName(e);
          if (kind === 'TypeMismatchError') throw parentIsFile(target, i);
          if (kind !== 'NotFoundError') throw e;
          const child = await dir.getDirectoryHandle(name, { create: true });
          created.push({ parent: dir, name });
          dir = child;
        }
      }
    } catch (e) {
      await undoFolders();
      throw asWorkspaceError(e, 'write', target.display);
    }

    const name = segments[segments.length - 1]!;
    let handle: FileSystemFileHandle;
    let existed = true;
    try {
      try {
        handle = await dir.getFileHandle(name);
      } catch (e) {
        const kind = domErrorName(e);
        if (kind === 'TypeMismatchError') {
          throw new WorkspaceError('not_a_file', `Cannot write ${quote(target.display)}: it is a folder. Write to a file inside it (e.g. "${target.display}/file.txt"), choose another name, or delete the folder first with opfs_delete.`);
        }
        if (kind !== 'NotFoundError') throw e;
        handle = await dir.getFileHandle(name, { create: true });
        existed = false;
      }
    } catch (e) {
      await undoFolders();
      throw asWorkspaceError(e, 'write', target.display);
    }

    let writable: FileSystemWritableFileStream | undefined;
    try {
      if (typeof handle.createWritable !== 'function') {
        throw new WorkspaceError('unsupported', 'Files cannot be written in this browser context: FileSystemFileHandle.createWritable() is not available here.');
      }
      writable = await handle.createWritable({ keepExistingData: false });
      await writable.write(data as FileSystemWriteChunkType);
      // Only close() moves the swap file over the target: until here the old content is intact.
      await writable.close();
    } catch (e) {
      // abort() discards the swap file; after a failed close() the stream is already errored.
      if (writable) await writable.abort().catch(() => undefined);
      if (!existed) {
        // Another writer may have filled the name meanwhile: remove only the empty file we made.
        const empty = await handle
          .getFile()
          .then((f) => f.size === 0)
          .catch(() => false);
        if (empty) await dir.removeEntry(name).catch(() => undefined);
      }
      await undoFolders();
      throw await writeError(e, target.display, size);
    }
    return { path: target.display, size, created: !existed, ...(dataUrlType !== undefined ? { data_url_type: dataUrlType } : {}) };
  }

  /**
   * Reads a file. auto: text or blob by the bytes (detectText); text: lines by offset/limit (at
   * most DEFAULT_LINE_LIMIT lines when no limit is given, a note says how to read on); blob: the
   * bytes and a MIME type.
   */
  async read(path: string, options: ReadOptions = {}): Promise<ReadResult> {
    const mode = options.mode ?? 'auto';
    if (!READ_MODES.includes(mode)) throw new WorkspaceError('invalid_argument', `mode must be "text", "blob" or "auto" (got ${quote(String(mode))}).`);
    const file = await this.readBytes(path);
    const base: ReadBase = { path: file.path, size: file.size, last_modified: file.last_modified };
    const verdict = detectText(file.bytes);
    const paging = options.offset !== undefined || options.limit !== undefined;

    if (mode === 'blob' || (mode === 'auto' && verdict.kind === 'binary')) {
      const result: BlobReadResult = {
        ...base,
        kind: 'blob',
        mime_type: guessMimeType(file.bytes, file.name, verdict),
        bytes: file.bytes,
        detected: verdict.kind,
        ...(verdict.kind === 'binary' && verdict.format ? { format: verdict.format.label } : {}),
      };
      if (paging) {
        result.note =
          verdict.kind === 'binary'
            ? `offset and limit were ignored: the file is binary (${verdict.reason}). Use mode "text" to read it as text anyway.`
            : 'offset and limit were ignored: they apply to mode "text" (or "auto" on a text file).';
      }
      return result;
    }

    const encoding: TextEncodingName = verdict.kind === 'text' ? verdict.encoding : 'utf-8';
    const page = pageLines(decodeText(file.bytes, encoding), options);
    return { ...base, kind: 'text', encoding, ...page, ...(verdict.kind === 'binary' ? { looks_binary: true as const } : {}) };
  }

  /** A file's bytes and metadata. */
  async readBytes(path: string): Promise<FileBytes> {
    const target = parsePath(path);
    if (target.isRoot) throw new WorkspaceError('not_a_file', `"/" is the workspace root folder, not a file. Use opfs_list to see what it holds.`);
    const dir = await this.walk(target, target.segments.length - 1, 'read');
    const name = target.segments[target.segments.length - 1]!;
    let file: File;
    try {
      file = await (await dir.getFileHandle(name)).getFile();
    } catch (e) {
      const kind = domErrorName(e);
      if (kind === 'TypeMismatchError') throw new WorkspaceError('not_a_file', `${quote(target.display)} is a folder, not a file. Use opfs_list on it to see its files.`);
      if (kind === 'NotFoundError') throw await this.notFound(target, target.segments.length - 1, dir);
      throw asWorkspaceError(e, 'read', target.display);
    }
    let bytes: Uint8Array;
    try {
      bytes = new Uint8Array(await file.arrayBuffer());
    } catch (e) {
      // A File is a snapshot: reading it after a write replaced the file fails (Chromium:
      // NotReadableError, Firefox: AbortError). Once more with a fresh snapshot; a second
      // failure is real.
      const kind = domErrorName(e);
      if (kind !== 'NotReadableError' && kind !== 'AbortError') throw asWorkspaceError(e, 'read', target.display);
      try {
        file = await (await dir.getFileHandle(name)).getFile();
        bytes = new Uint8Array(await file.arrayBuffer());
      } catch (again) {
        throw asWorkspaceError(again, 'read', target.display);
      }
    }
    return { path: target.display, name, size: file.size, last_modified: file.lastModified, bytes };
  }

  /**
   * Lists a folder ("" or "/" for the root), sorted: folders first, then natural name order.
   *
   * getFile() — the only way to a file's size and time — is what costs: an IPC round trip and a
   * Blob each, ~0.1 ms apiece in parallel in Chromium (0.5 ms one by one), ~0.35 ms in Firefox
   * whatever the parallelism. So the names are sorted first and only the entries returned
   * (offset/limit) are looked at, up to LIST_CONCURRENCY at once.
   */
  async list(path = '', options: ListOptions = {}): Promise<ListResult> {
    const offset = checkWhole('offset', options.offset, 1, 1);
    const limit = options.limit === Number.POSITIVE_INFINITY ? options.limit : checkWhole('limit', options.limit, 1, DEFAULT_LIST_LIMIT);
    const target = parsePath(path);
    const dir = await this.walkToFolder(target, 'list');
    const handles: FileSystemHandle[] = [];
    try {
      for await (const handle of dir.values()) if (!SWAP_FILE.test(handle.name)) handles.push(handle);
    } catch (e) {
      throw asWorkspaceError(e, 'list', target.display);
    }
    handles.sort((a, b) => (a.kind === b.kind ? byName(a.name, b.name) : a.kind === 'directory' ? -1 : 1));
    const directories = handles.filter((h) => h.kind === 'directory').length;
    const shown = handles.slice(offset - 1, offset - 1 + limit);

    const entries: (ListEntry | null)[] = new Array(shown.length);
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < shown.length; i = next++) {
        const handle = shown[i]!;
        if (handle.kind === 'directory') {
          entries[i] = { name: handle.name, kind: 'directory' };
          continue;
        }
        try {
          const file = await (handle as FileSystemFileHandle).getFile();
          entries[i] = { name: handle.name, kind: 'file', size: file.size, last_modified: file.lastModified };
        } catch (e) {
          // Deleted between the listing and getFile(): it is gone, so it is not listed.
          if (domErrorName(e) === 'NotFoundError') entries[i] = null;
          else throw asWorkspaceError(e, 'list', target.display);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(LIST_CONCURRENCY, shown.length) }, worker));

    const present = entries.filter((e): e is ListEntry => e !== null);
    const gone = shown.length - present.length;
    const total = handles.length - gone;
    const result: ListResult = {
      path: target.display,
      entries: present,
      total,
      offset,
      truncated: offset - 1 + shown.length < handles.length,
      files: handles.length - directories - gone,
      directories,
    };
    if (result.truncated || offset > 1) {
      const last = offset - 1 + shown.length;
      result.note = shown.length
        ? `Showing entries ${offset}–${last} of ${total} (folders first, then files by name).${result.truncated ? ` To see more, call again with offset=${last + 1}.` : ''}`
        : `offset ${offset} is past the last entry: the folder has ${total}.`;
    }
    return result;
  }

  /** Deletes a file, or a folder with everything in it. */
  async delete(path: string): Promise<DeleteResult> {
    const target = parsePath(path);
    if (target.isRoot) {
      throw new WorkspaceError('root_refused', 'Cannot delete "/": it is the workspace root folder. Delete the files and folders in it one by one (opfs_list "/" shows them).');
    }
    const { kind, parent, name } = await this.locate(target, 'delete');
    try {
      await parent.removeEntry(name, { recursive: true });
    } catch (e) {
      if (domErrorName(e) === 'NotFoundError') throw await this.notFound(target, target.segments.length - 1, parent);
      throw asWorkspaceError(e, 'delete', target.display);
    }
    return { path: target.display, kind };
  }

  /** What is at a path: kind, and for a file its size and modification time. */
  async stat(path: string): Promise<StatResult> {
    const target = parsePath(path);
    if (target.isRoot) return { path: '/', kind: 'directory' };
    const { kind, handle } = await this.locate(target, 'read');
    if (kind === 'directory') return { path: target.display, kind };
    try {
      const file = await (handle as FileSystemFileHandle).getFile();
      return { path: target.display, kind, size: file.size, last_modified: file.lastModified };
    } catch (e) {
      throw asWorkspaceError(e, 'read', target.display);
    }
  }

  // --- walking ---------------------------------------------------------------------------------

  /** The folder holding the first `depth` segments of the path, which must all be folders. */
  private async walk(target: WorkspacePath, depth: number, op: Operation): Promise<Dir> {
    let dir = this.root;
    for (let i = 0; i < depth; i++) {
      try {
        dir = await dir.getDirectoryHandle(target.segments[i]!);
      } catch (e) {
        const kind = domErrorName(e);
        if (kind === 'NotFoundError') throw await this.notFound(target, i, dir);
        if (kind === 'TypeMismatchError') throw parentIsFile(target, i);
        throw asWorkspaceError(e, op, target.display);
      }
    }
    return dir;
  }

  private async walkToFolder(target: WorkspacePath, op: Operation): Promise<Dir> {
    if (target.isRoot) return this.root;
    const parent = await this.walk(target, target.segments.length - 1, op);
    const name = target.segments[target.segments.length - 1]!;
    try {
      return await parent.getDirectoryHandle(name);
    } catch (e) {
      const kind = domErrorName(e);
      if (kind === 'TypeMismatchError') {
        throw new WorkspaceError('not_a_directory', `${quote(target.display)} is a file, not a folder. Read it with opfs_read, or list its folder ${quote(displayOf(target.segments, target.segments.length - 1))}.`);
      }
      if (kind === 'NotFoundError') throw await this.notFound(target, target.segments.length - 1, parent);
      throw asWorkspaceError(e, op, target.display);
    }
  }

  /** The entry at a (non-root) path, its kind and its folder. */
  private async locate(target: WorkspacePath, op: Operation): Promise<{ kind: EntryKind; handle: FileSystemHandle; parent: Dir; name: string }> {
    const parent = await this.walk(target, target.segments.length - 1, op);
    const name = target.segments[target.segments.length - 1]!;
    try {
      return { kind: 'file', handle: await parent.getFileHandle(name), parent, name };
    } catch (e) {
      const kind = domErrorName(e);
      if (kind === 'NotFoundError') throw await this.notFound(target, target.segments.length - 1, parent);
      if (kind !== 'TypeMismatchError') throw asWorkspaceError(e, op, target.display);
    }
    try {
      return { kind: 'directory', handle: await parent.getDirectoryHandle(name), parent, name };
    } catch (e) {
      if (domErrorName(e) === 'NotFoundError') throw await this.notFound(target, target.segments.length - 1, parent);
      throw asWorkspaceError(e, op, target.display);
    }
  }

  /**
   * "Not found", naming the nearest folder that exists (`missing` is the index of the first
   * segment it lacks) and, when that folder has the name in another case, the likely intended one.
   */
  private async notFound(target: WorkspacePath, missing: number, folder: Dir): Promise<WorkspaceError> {
    const parent = displayOf(target.segments, missing);
    const name = target.segments[missing]!;
    let suggestion = '';
    try {
      const lower = name.toLowerCase();
      for await (const key of folder.keys()) {
        if (key.toLowerCase() === lower) {
          suggestion = ` Did you mean ${quote(joinDisplay(parent, key))}? Names are case-sensitive.`;
          break;
        }
      }
    } catch {
      // The suggestion is a courtesy; the error stands without it.
    }
    const what = missing === target.segments.length - 1 ? `${quote(target.display)} does not exist` : `${quote(target.display)} does not exist: ${quote(parent)} has no ${quote(name)}`;
    return new WorkspaceError('not_found', `${what}.${suggestion} The nearest existing folder is ${quote(parent)}; call opfs_list with path ${quote(parent)} to see what it holds.`);
  }
}

type Operation = 'read' | 'write' | 'list' | 'delete';

function checkWhole(name: string, value: number | undefined, min: number, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min) throw new WorkspaceError('invalid_argument', `${name} must be a whole number of at least ${min} (got ${String(value)}).`);
  return value;
}

function parentIsFile(target: WorkspacePath, index: number): WorkspaceError {
  const file = displayOf(target.segments, index + 1);
  return new WorkspaceError('not_a_directory', `${quote(file)} is a file, not a folder, so ${quote(target.display)} cannot be inside it. Use another path, or delete ${quote(file)} first.`);
}

/** A file-system failure as a WorkspaceError (one already is: passed through). */
export function asWorkspaceError(e: unknown, op: Operation, path: string): WorkspaceError {
  if (e instanceof WorkspaceError) return e;
  const name = domErrorName(e);
  const detail = errorMessage(e);
  switch (name) {
    case 'QuotaExceededError':
      return new WorkspaceError('quota_exceeded', `Cannot ${op} ${quote(path)}: the browser's storage quota is used up. Nothing was changed. Delete files that are no longer needed (opfs_delete), or write less.`, { cause: e });
    case 'NoModificationAllowedError':
      return new WorkspaceError('busy', `Cannot ${op} ${quote(path)} right now: another writer has it locked. Try again in a moment.`, { cause: e });
    case 'NotFoundError':
      return new WorkspaceError('not_found', `${quote(path)} does not exist (it may have just been deleted). Call opfs_list to see what the workspace holds.`, { cause: e });
    case 'SecurityError':
      return new WorkspaceError('unsupported', `The browser does not allow file storage here (${detail}); the workspace is unavailable, e.g. in a private window or when site data is blocked.`, { cause: e });
    case 'TypeError':
      return new WorkspaceError('invalid_path', `The browser refused the path ${quote(path)} (${detail}). ${PATH_HINT}`, { cause: e });
    default:
      return new WorkspaceError('io', `Could not ${op} ${quote(path)}: ${name ? `${name}: ` : ''}${detail}`, { cause: e });
  }
}

/**
 * A failed write. Chromium reports a quota overrun on writable.write() as QuotaExceededError,
 * or — when the browser side gives up on the data pipe first, which happens for large chunks
 * and overwrites — as "AbortError: Failed to write data to data pipe". Nothing else aborts a
 * write we never abort ourselves, so AbortError is read as the quota too (the message hedges).
 * The quota figures are added only when they agree (the free space is smaller than the write):
 * on a full disk the estimate can still show room, and figures that contradict the error only
 * confuse.
 */
async function writeError(e: unknown, path: string, size: number): Promise<WorkspaceError> {
  const name = domErrorName(e);
  if (name !== 'QuotaExceededError' && name !== 'AbortError') return asWorkspaceError(e, 'write', path);
  let figures = '';
  try {
    const { usage, quota } = await navigator.storage.estimate();
    if (usage !== undefined && quota !== undefined && quota - usage < size) figures = ` In use: ${formatBytes(usage)} of ${formatBytes(quota)}.`;
  } catch {
    // No estimate: the message stands without figures.
  }
  const why = name === 'AbortError' ? 'the browser aborted the write, most likely because its storage quota is used up' : "the browser's storage quota is used up";
  return new WorkspaceError('quota_exceeded', `Cannot write ${quote(path)} (${formatBytes(size)}): ${why}.${figures} Nothing was written. Delete files that are no longer needed (opfs_delete), or write less.`, { cause: e });
}

/**
 * The extension's workspace: navigator.storage.getDirectory() → WORKSPACE_DIR (created).
 * @throws WorkspaceError('unsupported') where there is no OPFS or storage is blocked.
 */
export async function openWorkspace(folder = WORKSPACE_DIR): Promise<Workspace> {
  const storage = typeof navigator === 'undefined' ? undefined : navigator.storage;
  if (!storage || typeof storage.getDirectory !== 'function') {
    throw new WorkspaceError('unsupported', 'This browser context has no Origin Private File System (navigator.storage.getDirectory), so the workspace is unavailable.');
  }
  try {
    const root = await storage.getDirectory();
    return new Workspace(await root.getDirectoryHandle(folder, { create: true }));
  } catch (e) {
    throw asWorkspaceError(e, 'list', '/');
  }
}
