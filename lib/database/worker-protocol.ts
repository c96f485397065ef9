/** Messages between the pages that start the database worker and the worker (worker.ts). */
import type { ImportedTable } from './csv-import';
import type { DatabaseErrorCode } from './errors';
import type { QueryOptions, QueryResult } from './read-only-db';
import type { DatabaseSchema } from './schema';

/** The worker script, an unlisted WXT entrypoint (entrypoints/database-worker.ts). */
export const DATABASE_WORKER_PATH = '/database-worker.js';

/**
 * `version` is the connection's created_at (connections.ts, databaseRef): the worker keeps a database open between calls and
 * reads the file again only when the version it holds differs (deleted and imported again).
 */
export type DatabaseWorkerRequest =
  | { id: number; op: 'query'; dbId: string; version: number; sql: string; options?: QueryOptions }
  | { id: number; op: 'schema'; dbId: string; version: number }
  | { id: number; op: 'forget'; dbId: string }
  /** An import: CSV files → a new database file's bytes and what each table became. */
  | { id: number; op: 'import-csv'; files: { name: string; bytes: Uint8Array }[] }
  /** An import: checks that `bytes` is an SQLite database the engine can read; answers its schema. */
  | { id: number; op: 'inspect'; bytes: Uint8Array };

export interface CsvImportReply {
  bytes: Uint8Array;
  tables: ImportedTable[];
}

export type DatabaseWorkerReply =
  | { id: number; ok: true; value: QueryResult | DatabaseSchema | CsvImportReply | null }
  | { id: number; ok: false; code: DatabaseErrorCode; message: string };
