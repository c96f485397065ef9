/**
 * Loads the official SQLite WebAssembly build once per JavaScript realm (page, worker or Node).
 *
 * Where the .wasm comes from: the package's loader asks for `new URL('sqlite3.wasm',
 * import.meta.url)`. Node (the `node` export condition, used by the unit tests) reads that file
 * from node_modules; Vite, building an extension page or worker, sees the same expression and
 * emits sqlite3.wasm as an asset of the extension (no download at run time). A host that puts
 * the file elsewhere passes `locateFile`.
 */
import sqlite3InitModule, { type Sqlite3Static } from '@sqlite.org/sqlite-wasm';

export type Sqlite = Sqlite3Static;

export interface SqliteLoadOptions {
  /** Maps the loader's file name ('sqlite3.wasm') to the URL it is fetched from. */
  locateFile?: (file: string, scriptDirectory: string) => string;
}

let loading: Promise<Sqlite> | null = null;

export function loadSqlite(options: SqliteLoadOptions = {}): Promise<Sqlite> {
  if (!loading) {
    // The published typings declare init() without the Emscripten options it forwards.
    const init = sqlite3InitModule as unknown as (module?: object) => Promise<Sqlite>;
    loading = init(options.locateFile ? { locateFile: options.locateFile } : undefined).catch((err: unknown) => {
      loading = null;
      throw err;
    });
  }
  return loading;
}
