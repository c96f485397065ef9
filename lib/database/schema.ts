/** What the model needs to know to write queries: tables, columns, keys, row counts. */
import type { Cell } from './table-text';

export interface ColumnInfo {
  name: string;
  /** The declared type as written in CREATE TABLE ("NVARCHAR(160)"); empty when none. */
  type: string;
  /** 0 when not part of the primary key, else its position in the key (1, 2…). */
  pk: number;
  notnull: boolean;
}

export interface ForeignKey {
  columns: string[];
  table: string;
  /** The referenced columns; empty when the key names only the table (its primary key). */
  to: string[];
}

export interface TableInfo {
  name: string;
  kind: 'table' | 'view';
  columns: ColumnInfo[];
  /** Null for views: counting one may mean running an expensive query. */
  row_count: number | null;
  foreign_keys: ForeignKey[];
}

export interface DatabaseSchema {
  tables: TableInfo[];
}

type Rows = (sql: string) => Cell[][];

export function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

function quoteLiteral(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

/** Reads the schema through plain SELECTs (pragma table functions), so the read-only guard applies to it too. */
export function readSchema(rows: Rows): DatabaseSchema {
  const entries = rows("SELECT name, type FROM sqlite_schema WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name");
  const tables = entries.map(([name, type]): TableInfo => {
    const table = String(name);
    const kind = type === 'view' ? 'view' : 'table';
    const columns = rows(`SELECT name, type, pk, "notnull" FROM pragma_table_info(${quoteLiteral(table)}) ORDER BY cid`).map(
      ([col, declared, pk, notnull]): ColumnInfo => ({ name: String(col), type: String(declared ?? ''), pk: Number(pk), notnull: Number(notnull) === 1 }),
    );
    const keys = new Map<number, ForeignKey>();
    for (const [id, target, from, to] of rows(`SELECT id, "table", "from", "to" FROM pragma_foreign_key_list(${quoteLiteral(table)}) ORDER BY id, seq`)) {
      const key = keys.get(Number(id)) ?? { columns: [], table: String(target), to: [] };
      key.columns.push(String(from));
      if (to !== null) key.to.push(String(to));
      keys.set(Number(id), key);
    }
    const row_count = kind === 'table' ? Number(rows(`SELECT count(*) FROM ${quoteIdentifier(table)}`)[0]?.[0] ?? 0) : null;
    return { name: table, kind, columns, row_count, foreign_keys: [...keys.values()] };
  });
  return { tables };
}
