/** Recognises an SQLite database file by its header, before the engine is asked to open it. */
import { DatabaseError } from './errors';

const MAGIC = 'SQLite format 3\0';
const HEADER_BYTES = 100;

export function validateSqliteFile(bytes: Uint8Array): void {
  const magic = String.fromCharCode(...bytes.subarray(0, MAGIC.length));
  if (bytes.length < HEADER_BYTES || magic !== MAGIC) {
    throw new DatabaseError('not_sqlite', 'This is not an SQLite database file: it does not start with the header "SQLite format 3".');
  }
  // Bytes 16–17: the page size, a power of two from 512 to 32768, or 1 meaning 65536.
  const raw = (bytes[16]! << 8) | bytes[17]!;
  const pageSize = raw === 1 ? 65536 : raw;
  if (pageSize < 512 || pageSize > 65536 || (pageSize & (pageSize - 1)) !== 0 || bytes.length % pageSize !== 0) {
    throw new DatabaseError('not_sqlite', 'This SQLite database file is damaged or incomplete: its size does not match its page size.');
  }
}
