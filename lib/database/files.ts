/**
 * Database files in the Origin Private File System, under DATABASES_DIR: beside the agent's
 * workspace folder (lib/workspace), never inside it, so no opfs_* path can reach them. Only the
 * management page writes here (import, delete); the query worker only reads.
 */
import { DatabaseError } from './errors';

export const DATABASES_DIR = 'databases';

/** db_id as the skill config allows it (lib/skills/config.ts), so it is a safe file name too. */
export const DB_ID_PATTERN = /^[\w-]{1,64}$/;

export function databaseFileName(dbId: string): string {
  if (!DB_ID_PATTERN.test(dbId)) throw new DatabaseError('unknown_database', `"${dbId}" is not a valid db_id: use 1–64 letters, digits, "_" or "-".`);
  return `${dbId}.sqlite`;
}

async function databasesDir(create: boolean): Promise<FileSystemDirectoryHandle | null> {
  const root = await navigator.storage.getDirectory();
  try {
    return await root.getDirectoryHandle(DATABASES_DIR, { create });
  } catch (e) {
    if (!create && (e as DOMException)?.name === 'NotFoundError') return null;
    throw e;
  }
}

/** The stored file's bytes, or null when there is none. */
export async function readDatabaseFile(dbId: string): Promise<Uint8Array | null> {
  const name = databaseFileName(dbId);
  const dir = await databasesDir(false);
  if (!dir) return null;
  try {
    const file = await (await dir.getFileHandle(name)).getFile();
    return new Uint8Array(await file.arrayBuffer());
  } catch (e) {
    if ((e as DOMException)?.name === 'NotFoundError') return null;
    throw e;
  }
}

/** Replaces the file whole: createWritable() swaps the new content in only on close(). */
export async function writeDatabaseFile(dbId: string, bytes: Uint8Array): Promise<void> {
  const name = databaseFileName(dbId);
  const dir = (await databasesDir(true))!;
  const handle = await dir.getFileHandle(name, { create: true });
  const writable = await handle.createWritable({ keepExistingData: false });
  try {
    await writable.write(bytes as Uint8Array<ArrayBuffer>);
    await writable.close();
  } catch (e) {
    await writable.abort().catch(() => {});
    throw e;
  }
}

export async function deleteDatabaseFile(dbId: string): Promise<void> {
  const name = databaseFileName(dbId);
  const dir = await databasesDir(false);
  try {
    await dir?.removeEntry(name);
  } catch (e) {
    if ((e as DOMException)?.name !== 'NotFoundError') throw e;
  }
}
