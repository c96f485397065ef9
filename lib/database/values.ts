/** Reads one result column of the current row as a JSON-safe value. */
import type { Sqlite } from './sqlite';
import { cutCell, type Cell } from './table-text';

export function readColumn(sqlite: Sqlite, stmt: number, i: number, maxCellChars: number): Cell {
  const { capi } = sqlite;
  switch (capi.sqlite3_column_type(stmt, i)) {
    case capi.SQLITE_NULL:
      return null;
    case capi.SQLITE_INTEGER: {
      const n = capi.sqlite3_column_int64(stmt, i);
      // Beyond 2^53 a JS number would silently change the value: keep the digits.
      return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : String(n);
    }
    case capi.SQLITE_FLOAT:
      return capi.sqlite3_column_double(stmt, i);
    case capi.SQLITE_BLOB:
      return `<BLOB ${capi.sqlite3_column_bytes(stmt, i)} bytes>`;
    default:
      return cutCell(capi.sqlite3_column_text(stmt, i) ?? '', maxCellChars);
  }
}
