/**
 * The query worker: opens stored database files (files.ts) read-only and answers queries.
 * A dedicated Worker because ReadOnlyDb.query() is synchronous and may hold its thread for the
 * whole time limit; here that blocks nothing else. Requests are answered in order.
 */
import { csvToDatabase } from './csv-import';
import { DatabaseError } from './errors';
import { readDatabaseFile } from './files';
import { openDatabase, type ReadOnlyDb } from './read-only-db';
import type { DatabaseWorkerReply, DatabaseWorkerRequest } from './worker-protocol';
import { errorMessage } from '../errors';

/** Open databases kept between calls; the least recently used is closed past this. */
const MAX_OPEN = 4;

interface OpenEntry {
  version: number;
  db: ReadOnlyDb;
}

/** The parts of a worker's global scope used here (the project's TypeScript lib is "dom", not "webworker"). */
interface WorkerScope {
  addEventListener(type: 'message', listener: (event: MessageEvent<DatabaseWorkerRequest>) => void): void;
  postMessage(message: DatabaseWorkerReply, transfer: Transferable[]): void;
}

export function startDatabaseWorker(scope: WorkerScope = globalThis as unknown as WorkerScope): void {
  const open = new Map<string, OpenEntry>();
  // One request at a time, in arrival order: opening a file is async, and a query must not
  // overtake the open it depends on.
  let queue: Promise<void> = Promise.resolve();

  const forget = (dbId: string) => {
    open.get(dbId)?.db.close();
    open.delete(dbId);
  };

  async function database(dbId: string, version: number): Promise<ReadOnlyDb> {
    const held = open.get(dbId);
    if (held && held.version === version) {
      // Map order is recency order: move it to the end.
      open.delete(dbId);
      open.set(dbId, held);
      return held.db;
    }
    forget(dbId);
    const bytes = await readDatabaseFile(dbId);
    if (!bytes) throw new DatabaseError('unknown_database', `The database "${dbId}" has no stored file: it was deleted, or its import did not finish. Import it again under Settings → Databases.`);
    const db = await openDatabase(bytes);
    open.set(dbId, { version, db });
    while (open.size > MAX_OPEN) forget(open.keys().next().value!);
    return db;
  }

  async function answer(request: DatabaseWorkerRequest): Promise<DatabaseWorkerReply> {
    try {
      switch (request.op) {
        case 'query':
          return { id: request.id, ok: true, value: (await database(request.dbId, request.version)).query(request.sql, request.options) };
        case 'schema':
          return { id: request.id, ok: true, value: (await database(request.dbId, request.version)).schema() };
        case 'forget':
          forget(request.dbId);
          return { id: request.id, ok: true, value: null };
        case 'import-csv': {
          const { bytes, tables } = await csvToDatabase(request.files.map((f) => ({ name: f.name, csv: f.bytes })));
          // Transferred back whole: a view into a larger (or the WebAssembly) buffer is copied first.
          const own = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice();
          return { id: request.id, ok: true, value: { bytes: own, tables } };
        }
        case 'inspect': {
          const db = await openDatabase(request.bytes);
          try {
            return { id: request.id, ok: true, value: db.schema() };
          } finally {
            db.close();
          }
        }
      }
    } catch (e) {
      if (e instanceof DatabaseError) return { id: request.id, ok: false, code: e.code, message: e.message };
      return { id: request.id, ok: false, code: 'host', message: `The database worker failed: ${errorMessage(e)}` };
    }
  }

  scope.addEventListener('message', (event) => {
    const request = event.data;
    queue = queue.then(async () => {
      const reply = await answer(request);
      // A new database file goes back without a copy.
      const transfer = reply.ok && reply.value && 'bytes' in reply.value ? [reply.value.bytes.buffer as ArrayBuffer] : [];
      scope.postMessage(reply, transfer);
    });
  });
}
