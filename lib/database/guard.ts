/**
 * The read-only guard: an SQLite authorizer that lets a statement only read tables and call
 * functions. SQLite asks it about every table, column and action while it compiles a
 * statement, including writes nested in a CTE, so no parsing of our own decides what runs.
 */
import { DatabaseError, ONLY_QUERIES } from './errors';
import type { Sqlite } from './sqlite';

type Capi = Sqlite['capi'];

interface Denial {
  action: number;
  arg1: string | null;
  arg2: string | null;
}

export class ReadGuard {
  private readonly allowed: ReadonlySet<number>;
  private denial: Denial | null = null;
  private firstAction: number | null = null;

  constructor(private readonly capi: Capi) {
    this.allowed = new Set([capi.SQLITE_SELECT, capi.SQLITE_READ, capi.SQLITE_FUNCTION, capi.SQLITE_RECURSIVE]);
  }

  install(db: number): void {
    const { capi } = this;
    const rc = capi.sqlite3_set_authorizer(
      db,
      (_ctx, action, arg1, arg2) => {
        this.firstAction ??= action;
        if (this.allowed.has(action)) return capi.SQLITE_OK;
        if (action === capi.SQLITE_PRAGMA && isReadingPragma(arg1 || '', arg2 || null)) return capi.SQLITE_OK;
        this.denial ??= { action, arg1: arg1 || null, arg2: arg2 || null };
        return capi.SQLITE_DENY;
      },
      0,
    );
    if (rc !== capi.SQLITE_OK) throw new Error(`The read-only guard could not be installed (SQLite code ${rc}).`);
  }

  /** Called before each statement is compiled. */
  reset(): void {
    this.denial = null;
    this.firstAction = null;
  }

  /** A statement SQLite compiled: is it a query? SELECT, VALUES and WITH … SELECT begin with a SELECT action. */
  get startedAsQuery(): boolean {
    return this.firstAction === this.capi.SQLITE_SELECT;
  }

  /** The refusal for what the authorizer denied, or null when it denied nothing. */
  refusal(sql: string): DatabaseError | null {
    const d = this.denial;
    if (!d) return null;
    return refused(this.describe(d, sql), d.action === this.capi.SQLITE_PRAGMA ? PRAGMA_HINT : '');
  }

  private describe(d: Denial, sql: string): string {
    const c = this.capi;
    // CREATE, DROP and ANALYZE first write SQLite's own schema table: name the statement instead.
    if ((d.action === c.SQLITE_INSERT || d.action === c.SQLITE_UPDATE || d.action === c.SQLITE_DELETE) && isSchemaTable(d.arg1)) {
      return `${leadingKeyword(sql) ?? 'This statement'} (it changes the schema)`;
    }
    switch (d.action) {
      case c.SQLITE_PRAGMA:
        return d.arg2 === null ? `PRAGMA ${d.arg1}` : `PRAGMA ${d.arg1} = ${d.arg2}`;
      case c.SQLITE_INSERT:
        return `INSERT into ${d.arg1}`;
      case c.SQLITE_UPDATE:
        return `UPDATE of ${d.arg1}`;
      case c.SQLITE_DELETE:
        return `DELETE from ${d.arg1}`;
      case c.SQLITE_ALTER_TABLE:
        return `ALTER TABLE ${d.arg2 ?? ''}`.trim();
      case c.SQLITE_REINDEX:
        return 'REINDEX';
      case c.SQLITE_ANALYZE:
        return 'ANALYZE';
      case c.SQLITE_TRANSACTION:
        return `${d.arg1 ?? 'A transaction'} (transaction control)`;
      case c.SQLITE_SAVEPOINT:
        return d.arg1 === 'RELEASE' ? 'RELEASE (savepoints)' : d.arg1 === 'ROLLBACK' ? 'ROLLBACK TO (savepoints)' : 'SAVEPOINT';
      case c.SQLITE_ATTACH:
        return 'ATTACH';
      case c.SQLITE_DETACH:
        return 'DETACH';
    }
    const label = ACTION_LABELS[this.actionName(d.action)] ?? 'This statement';
    return d.arg1 ? `${label} ${d.arg1}` : label;
  }

  private actionName(action: number): string {
    for (const name of Object.keys(ACTION_LABELS)) {
      if ((this.capi as unknown as Record<string, number>)[name] === action) return name;
    }
    return '';
  }
}

function isSchemaTable(name: string | null): boolean {
  return !!name && /^sqlite_/i.test(name);
}

/**
 * Pragma table functions (SELECT … FROM pragma_table_info('Track')) run their pragma through
 * the authorizer while the SELECT steps: these, and only as reads, may pass.
 */
const PRAGMAS_ON_AN_OBJECT = new Set(['table_info', 'table_xinfo', 'index_list', 'index_info', 'index_xinfo', 'foreign_key_list']);
const PRAGMAS_READ_BARE = new Set(['table_list', 'database_list', 'collation_list', 'user_version', 'application_id', 'schema_version', 'page_size', 'page_count', 'encoding', 'journal_mode', 'foreign_keys', 'compile_options']);

function isReadingPragma(name: string, arg: string | null): boolean {
  const pragma = name.toLowerCase();
  return PRAGMAS_ON_AN_OBJECT.has(pragma) || (arg === null && PRAGMAS_READ_BARE.has(pragma));
}

const ACTION_LABELS: Record<string, string> = {
  SQLITE_CREATE_TABLE: 'CREATE TABLE',
  SQLITE_CREATE_TEMP_TABLE: 'CREATE TEMP TABLE',
  SQLITE_CREATE_INDEX: 'CREATE INDEX',
  SQLITE_CREATE_TEMP_INDEX: 'CREATE TEMP INDEX',
  SQLITE_CREATE_VIEW: 'CREATE VIEW',
  SQLITE_CREATE_TEMP_VIEW: 'CREATE TEMP VIEW',
  SQLITE_CREATE_TRIGGER: 'CREATE TRIGGER',
  SQLITE_CREATE_TEMP_TRIGGER: 'CREATE TEMP TRIGGER',
  SQLITE_CREATE_VTABLE: 'CREATE VIRTUAL TABLE',
  SQLITE_DROP_TABLE: 'DROP TABLE',
  SQLITE_DROP_TEMP_TABLE: 'DROP TABLE',
  SQLITE_DROP_INDEX: 'DROP INDEX',
  SQLITE_DROP_TEMP_INDEX: 'DROP INDEX',
  SQLITE_DROP_VIEW: 'DROP VIEW',
  SQLITE_DROP_TEMP_VIEW: 'DROP VIEW',
  SQLITE_DROP_TRIGGER: 'DROP TRIGGER',
  SQLITE_DROP_TEMP_TRIGGER: 'DROP TRIGGER',
  SQLITE_DROP_VTABLE: 'DROP VIRTUAL TABLE',
  SQLITE_COPY: 'COPY',
};

export function refused(what: string, hint = ''): DatabaseError {
  return new DatabaseError('not_read_only', `${what} is refused: this database is read-only, and ${ONLY_QUERIES}.${hint ? ` ${hint}` : ''}`);
}

export const PRAGMA_HINT = "For schema details use a SELECT, e.g. SELECT * FROM pragma_table_info('TableName').";

/** The statement's first word, past comments — only to word a refusal, never to decide one. */
export function leadingKeyword(sql: string): string | null {
  const rest = sql.replace(/^(?:\s+|--[^\n]*(?:\n|$)|\/\*[\s\S]*?(?:\*\/|$))*/, '');
  const word = /^[A-Za-z]+/.exec(rest);
  return word ? word[0].toUpperCase() : null;
}
