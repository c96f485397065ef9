/**
 * Imports on the management page: the SQLite work (checking a file, building one from CSV) runs
 * in a database worker of the page's own, so the page neither loads the engine nor freezes
 * while a large CSV is parsed and inserted.
 */
import type { ImportedTable } from './csv-import';
import { DatabaseError } from './errors';
import type { DatabaseSchema } from './schema';
import type { CsvImportReply, DatabaseWorkerReply, DatabaseWorkerRequest } from './worker-protocol';

export interface NamedBytes {
  name: string;
  bytes: Uint8Array;
}

export interface DatabaseImporter {
  /** Checks an SQLite file (header, page size, readable by the engine) and reads its schema. */
  inspectSqlite(bytes: Uint8Array): Promise<DatabaseSchema>;
  /** CSV files → one SQLite file, a table per file; refuses binary or malformed files. */
  csvToSqlite(files: NamedBytes[]): Promise<{ bytes: Uint8Array; tables: ImportedTable[]; schema: DatabaseSchema }>;
}

// Omit over a union keeps only the shared keys; this one keeps each member's own.
type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never;

/** One worker per import, ended when the import ends (the engine holds tens of MB while it works). */
export function workerImporter(spawn: () => Worker): DatabaseImporter {
  const ask = (worker: Worker, request: WithoutId<DatabaseWorkerRequest>, transfer: Transferable[] = []) =>
    new Promise<unknown>((resolve, reject) => {
      const id = Math.floor(Math.random() * 2 ** 31);
      const onMessage = (e: MessageEvent<DatabaseWorkerReply>) => {
        if (e.data?.id !== id) return;
        worker.removeEventListener('message', onMessage);
        worker.removeEventListener('error', onError);
        if (e.data.ok) resolve(e.data.value);
        else reject(new DatabaseError(e.data.code, e.data.message));
      };
      const onError = (e: ErrorEvent) => {
        e.preventDefault();
        reject(new DatabaseError('host', `The database worker failed${e.message ? `: ${e.message}` : ''}.`));
      };
      worker.addEventListener('message', onMessage);
      worker.addEventListener('error', onError);
      worker.postMessage({ ...request, id }, transfer);
    });
  const withWorker = async <T>(work: (w: Worker) => Promise<T>): Promise<T> => {
    const worker = spawn();
    try {
      return await work(worker);
    } finally {
      worker.terminate();
    }
  };
  return {
    inspectSqlite: (bytes) => withWorker(async (w) => (await ask(w, { op: 'inspect', bytes })) as DatabaseSchema),
    csvToSqlite: (files) =>
      withWorker(async (w) => {
        const made = (await ask(w, { op: 'import-csv', files })) as CsvImportReply;
        const schema = (await ask(w, { op: 'inspect', bytes: made.bytes })) as DatabaseSchema;
        return { ...made, schema };
      }),
  };
}
