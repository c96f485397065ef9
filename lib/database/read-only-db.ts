/**
 * A read-only SQLite database held in memory, for the model's queries.
 *
 * The file's bytes are copied into SQLite's memory (sqlite3_deserialize, read-only), so the
 * caller's buffer — and the stored file it came from — is never written. Read-only is then
 * enforced by the engine, in layers: the deserialized database refuses writes, PRAGMA query_only
 * is on, an authorizer (guard.ts) lets statements only read, each call compiles exactly one
 * statement, and that statement must be one sqlite3_stmt_readonly() accepts and that starts as
 * a SELECT.
 */
import { DatabaseError, ONLY_QUERIES } from './errors';
import { leadingKeyword, PRAGMA_HINT, ReadGuard, refused } from './guard';
import { MAX_SQL_CHARS } from './limits';
import { readSchema, type DatabaseSchema } from './schema';
import { loadSqlite, type Sqlite, type SqliteLoadOptions } from './sqlite';
import { validateSqliteFile } from './sqlite-file';
import { headerLines, rowLine, type Cell } from './table-text';
import { readColumn } from './values';

export { MAX_SQL_CHARS };

export interface QueryOptions {
  /** Rows returned at most (default 200). */
  maxRows?: number;
  /** Characters of the text table at most (default 20,000). */
  maxChars?: number;
  /** Characters of one cell at most (default 500); longer text is cut and ends with "…". */
  maxCellChars?: number;
  /** The query is interrupted after this long (default 10 s). */
  timeoutMs?: number;
}

export interface QueryResult {
  columns: string[];
  rows: Cell[][];
  /** Rows the query produced in all; null when there were too many to count within the limits. */
  row_count: number | null;
  /** Fewer rows are returned than the query produced (the row or character cap was reached). */
  truncated: boolean;
  /** The rows as a compact pipe-separated table, for the model. */
  table: string;
  elapsed_ms: number;
}

export const QUERY_DEFAULTS: Required<QueryOptions> = { maxRows: 200, maxChars: 20_000, maxCellChars: 500, timeoutMs: 10_000 };

// Past the caps the rows are only stepped, not read, to report the total; within these bounds.
const COUNT_PAST_CAP_ROWS = 1_000_000;
const COUNT_PAST_CAP_MS = 1_000;
// SQLite calls the progress handler every this many virtual-machine steps (~0.1 ms of work).
const PROGRESS_STEPS = 10_000;
// Room kept under maxChars for the closing "showing … of … rows" line.
const FOOTER_ROOM = 80;

export interface OpenOptions extends SqliteLoadOptions {}

export async function openDatabase(bytes: Uint8Array, options: OpenOptions = {}): Promise<ReadOnlyDb> {
  validateSqliteFile(bytes);
  const sqlite = await loadSqlite(options);
  return ReadOnlyDb.open(sqlite, bytes);
}

export class ReadOnlyDb {
  private db: number;
  private deadline = Infinity;
  private readonly guard: ReadGuard;

  private constructor(
    private readonly sqlite: Sqlite,
    db: number,
  ) {
    this.db = db;
    this.guard = new ReadGuard(sqlite.capi);
  }

  static open(sqlite: Sqlite, bytes: Uint8Array): ReadOnlyDb {
    const { capi, wasm } = sqlite;
    const mark = wasm.pstack.pointer;
    let db = 0;
    try {
      const slot = wasm.pstack.allocPtr() as number;
      const rc = capi.sqlite3_open_v2(':memory:', slot, capi.SQLITE_OPEN_READONLY, 0);
      db = wasm.peekPtr(slot) as number;
      if (rc !== capi.SQLITE_OK) {
        if (db) capi.sqlite3_close_v2(db);
        throw new Error(`SQLite could not open a connection: ${capi.sqlite3_errstr(rc)}.`);
      }
    } finally {
      wasm.pstack.restore(mark);
    }
    const handle = new ReadOnlyDb(sqlite, db);
    try {
      handle.load(bytes);
      handle.lockDown();
    } catch (err) {
      capi.sqlite3_close_v2(db);
      throw err;
    }
    return handle;
  }

  private load(bytes: Uint8Array): void {
    const { capi, wasm } = this.sqlite;
    // SQLite frees this copy when the connection closes (FREEONCLOSE); the caller's bytes stay untouched.
    const p = wasm.alloc(bytes.length) as number;
    const copy = wasm.heap8u().subarray(p, p + bytes.length);
    copy.set(bytes);
    // A WAL-mode file (header bytes 18–19 = 2) cannot be read from memory; the copy says "rollback journal".
    if (copy[18] === 2) copy[18] = 1;
    if (copy[19] === 2) copy[19] = 1;
    const flags = capi.SQLITE_DESERIALIZE_FREEONCLOSE | capi.SQLITE_DESERIALIZE_READONLY;
    const rc = capi.sqlite3_deserialize(this.db, 'main', p, bytes.length, bytes.length, flags);
    if (rc !== capi.SQLITE_OK) throw new DatabaseError('not_sqlite', `SQLite could not load this database file: ${capi.sqlite3_errstr(rc)}.`);
    // Reading the schema is the first real read: a damaged file fails here rather than on the first query.
    const check = capi.sqlite3_exec(this.db, 'SELECT count(*) FROM sqlite_schema', 0, 0, 0);
    if (check !== capi.SQLITE_OK) {
      throw new DatabaseError('not_sqlite', `This SQLite database file cannot be read: ${capi.sqlite3_errmsg(this.db)}.`);
    }
  }

  private lockDown(): void {
    const { capi } = this.sqlite;
    const db = this.db;
    // Database files come from users: views and triggers in them may not call risky functions.
    capi.sqlite3_db_config(db, capi.SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, 0);
    capi.sqlite3_db_config(db, capi.SQLITE_DBCONFIG_DEFENSIVE, 1, 0);
    capi.sqlite3_db_config(db, capi.SQLITE_DBCONFIG_ENABLE_ATTACH_CREATE, 0, 0);
    capi.sqlite3_db_config(db, capi.SQLITE_DBCONFIG_ENABLE_ATTACH_WRITE, 0, 0);
    capi.sqlite3_limit(db, capi.SQLITE_LIMIT_ATTACHED, 0);
    // UTF-8 takes up to 4 bytes a character; the character cap itself is checked before compiling.
    capi.sqlite3_limit(db, capi.SQLITE_LIMIT_SQL_LENGTH, MAX_SQL_CHARS * 4);
    // One string or blob a query builds (zeroblob, replace, group_concat…) stays well inside the WebAssembly heap.
    capi.sqlite3_limit(db, capi.SQLITE_LIMIT_LENGTH, 64 * 1024 * 1024);
    const rc = capi.sqlite3_exec(db, 'PRAGMA query_only = 1', 0, 0, 0);
    if (rc !== capi.SQLITE_OK) throw new Error(`SQLite refused PRAGMA query_only: ${capi.sqlite3_errmsg(db)}`);
    // Installed last: from here on, every statement passes the guard.
    this.guard.install(db);
    capi.sqlite3_progress_handler(db, PROGRESS_STEPS, () => (performance.now() > this.deadline ? 1 : 0), 0);
  }

  /** Runs one SELECT (or WITH … SELECT, or VALUES) query. Throws DatabaseError on refusal or failure. */
  query(sql: string, options: QueryOptions = {}): QueryResult {
    this.requireOpen();
    const { capi } = this.sqlite;
    const { maxRows, maxChars, maxCellChars, timeoutMs } = queryLimits(options);
    if (typeof sql !== 'string' || sql.trim() === '') {
      throw new DatabaseError('empty_sql', `The SQL is empty: send one query (${ONLY_QUERIES}).`);
    }
    if (sql.length > MAX_SQL_CHARS) {
      throw new DatabaseError(
        'sql_too_long',
        `The SQL is ${sql.length.toLocaleString('en-US')} characters long; the limit is ${MAX_SQL_CHARS.toLocaleString('en-US')} characters per query.`,
      );
    }
    const started = performance.now();
    const deadline = started + timeoutMs;
    const stmt = this.prepareQuery(sql);
    try {
      const columns = Array.from({ length: capi.sqlite3_column_count(stmt) }, (_, i) => capi.sqlite3_column_name(stmt, i) ?? `column${i + 1}`);
      const rows: Cell[][] = [];
      let table = headerLines(columns);
      let produced = 0;
      let truncated = false;
      let counted = true;
      this.deadline = deadline;
      for (;;) {
        const rc = capi.sqlite3_step(stmt);
        if (rc === capi.SQLITE_DONE) break;
        if (rc === capi.SQLITE_INTERRUPT && truncated) {
          counted = false;
          break;
        }
        if (rc === capi.SQLITE_INTERRUPT) {
          throw new DatabaseError(
            'timeout',
            `The query was interrupted after ${formatSeconds(timeoutMs)} (the time limit). Make it cheaper: filter earlier, add a LIMIT, or avoid large cross joins.`,
          );
        }
        // A pragma table function runs its pragma as the SELECT steps: the guard may refuse it only now.
        if (rc !== capi.SQLITE_ROW) throw this.guard.refusal(sql) ?? this.sqlError('SQLite stopped the query');
        produced++;
        if (truncated) {
          if (produced - rows.length > COUNT_PAST_CAP_ROWS) {
            counted = false;
            break;
          }
          continue;
        }
        if (rows.length < maxRows) {
          const row = columns.map((_, i) => readColumn(this.sqlite, stmt, i, maxCellChars));
          const line = rowLine(row);
          if (table.length + line.length <= maxChars - FOOTER_ROOM) {
            rows.push(row);
            table += line;
            continue;
          }
        }
        truncated = true;
        // Counting the rest is a courtesy: it may not cost the query its own time limit.
        this.deadline = Math.min(deadline, performance.now() + COUNT_PAST_CAP_MS);
      }
      const row_count = counted ? produced : null;
      if (rows.length === 0 && !truncated) table += '(no rows)\n';
      if (truncated) table += `… showing ${rows.length} of ${row_count === null ? `more than ${produced.toLocaleString('en-US')}` : row_count.toLocaleString('en-US')} rows (truncated)\n`;
      return { columns, rows, row_count, truncated, table, elapsed_ms: Math.round((performance.now() - started) * 10) / 10 };
    } finally {
      this.deadline = Infinity;
      capi.sqlite3_finalize(stmt);
    }
  }

  /** Tables and views with their columns, keys and row counts. */
  schema(): DatabaseSchema {
    return readSchema((sql) => this.query(sql, { maxRows: Number.MAX_SAFE_INTEGER, maxChars: Number.MAX_SAFE_INTEGER, maxCellChars: 10_000 }).rows);
  }

  /** The database as SQLite holds it now (sqlite3_serialize): byte-identical to the file opened, unless that was in WAL mode. */
  snapshot(): Uint8Array {
    return this.sqlite.capi.sqlite3_js_db_export(this.requireOpen());
  }

  close(): void {
    if (!this.db) return;
    this.sqlite.capi.sqlite3_close_v2(this.db);
    this.db = 0;
  }

  private requireOpen(): number {
    if (!this.db) throw new DatabaseError('closed', 'This database has been closed.');
    return this.db;
  }

  /** Compiles exactly one statement and proves it is a read-only query, or throws. */
  private prepareQuery(sql: string): number {
    const { capi, wasm } = this.sqlite;
    const scope = wasm.scopedAllocPush();
    let stmt = 0;
    try {
      const [pSql, nSql] = wasm.scopedAllocCString(sql, true) as [number, number];
      const [ppStmt, pzTail] = wasm.scopedAllocPtr(2) as [number, number];
      this.guard.reset();
      const rc = capi.sqlite3_prepare_v3(this.db, pSql, nSql, 0, ppStmt, pzTail);
      if (rc !== capi.SQLITE_OK) throw this.guard.refusal(sql) ?? this.sqlError('The SQL could not be compiled');
      stmt = wasm.peekPtr(ppStmt) as number;
      if (!stmt) throw new DatabaseError('empty_sql', `The SQL holds only comments: send one query (${ONLY_QUERIES}).`);
      this.requireQuery(stmt, sql);
      const tail = wasm.peekPtr(pzTail) as number;
      if (this.holdsStatement(tail, pSql + nSql - tail)) {
        throw new DatabaseError(
          'multiple_statements',
          `One statement per call: this SQL holds more than one. Send a single query (${ONLY_QUERIES}).`,
        );
      }
      const ready = stmt;
      stmt = 0;
      return ready;
    } finally {
      if (stmt) capi.sqlite3_finalize(stmt);
      wasm.scopedAllocPop(scope);
    }
  }

  private requireQuery(stmt: number, sql: string): void {
    const { capi } = this.sqlite;
    const refusal = this.guard.refusal(sql);
    if (refusal) throw refusal;
    if (capi.sqlite3_stmt_isexplain(stmt)) throw refused('EXPLAIN');
    // VACUUM (INTO) asks the authorizer nothing: the engine's read-only verdict catches it.
    if (!capi.sqlite3_stmt_readonly(stmt) || !this.guard.startedAsQuery || capi.sqlite3_column_count(stmt) === 0) {
      const keyword = leadingKeyword(sql);
      throw refused(keyword ?? 'This statement', keyword === 'PRAGMA' ? PRAGMA_HINT : '');
    }
  }

  /** Whether the text after the first statement compiles to anything: comments and blanks compile to nothing. */
  private holdsStatement(pTail: number, nTail: number): boolean {
    if (nTail <= 0) return false;
    const { capi, wasm } = this.sqlite;
    const [ppStmt, pzTail] = wasm.scopedAllocPtr(2) as [number, number];
    const rc = capi.sqlite3_prepare_v3(this.db, pTail, nTail, 0, ppStmt, pzTail);
    const next = wasm.peekPtr(ppStmt) as number;
    if (next) capi.sqlite3_finalize(next);
    return rc !== capi.SQLITE_OK || next !== 0;
  }

  private sqlError(context: string): DatabaseError {
    return new DatabaseError('sql_error', `${context}: ${this.sqlite.capi.sqlite3_errmsg(this.db)}.`);
  }
}

function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(ms < 1000 ? 2 : 1))} s`;
}

/** Options come from tool calls and settings: anything but a positive number means the default. */
function queryLimits(options: QueryOptions): Required<QueryOptions> {
  const pick = (key: keyof QueryOptions) => {
    const v = options[key];
    return typeof v === 'number' && v > 0 ? v : QUERY_DEFAULTS[key];
  };
  return { maxRows: pick('maxRows'), maxChars: pick('maxChars'), maxCellChars: pick('maxCellChars'), timeoutMs: pick('timeoutMs') };
}
