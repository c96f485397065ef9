/**
 * Read-only is enforced by the engine: every write form is refused with a clear error, the
 * database still answers afterwards, and the file's bytes are exactly what they were.
 * Data: the real Chinook database (tests/fixtures/databases, see its SOURCE.md).
 */
import { CHINOOK_PATH } from '../harness/fixtures';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatabaseError, openDatabase, type ReadOnlyDb } from '../../lib/database';

const CHINOOK = CHINOOK_PATH;

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

function refusal(db: ReadOnlyDb, sql: string): DatabaseError {
  try {
    db.query(sql);
  } catch (err) {
    if (err instanceof DatabaseError) return err;
    throw err;
  }
  throw new Error(`not refused: ${sql}`);
}

describe('read-only enforcement on Chinook', () => {
  const bytes = new Uint8Array(fs.readFileSync(CHINOOK));
  const fileHash = sha256(fs.readFileSync(CHINOOK));
  const before = sha256(bytes);
  let db: ReadOnlyDb;

  beforeAll(async () => {
    db = await openDatabase(bytes);
  });
  afterAll(() => db?.close());

  // [the SQL, what the error must name]
  const writes: [string, RegExp][] = [
    ["INSERT INTO Genre (GenreId, Name) VALUES (26, 'Polka')", /^INSERT into Genre is refused/],
    ["INSERT INTO Genre SELECT 27, 'x'", /^INSERT into Genre is refused/],
    ['REPLACE INTO Genre VALUES (1, \'Rock\')', /^INSERT into Genre is refused/],
    ["UPDATE Track SET UnitPrice = 0 WHERE TrackId = 1", /^UPDATE of Track is refused/],
    ['DELETE FROM InvoiceLine', /^DELETE from InvoiceLine is refused/],
    ['DROP TABLE Genre', /^DROP \(it changes the schema\) is refused/],
    ['DROP INDEX IFK_TrackAlbumId', /^DROP \(it changes the schema\) is refused/],
    ['DROP VIEW IF EXISTS v', /is refused/],
    ['CREATE TABLE t (a)', /^CREATE \(it changes the schema\) is refused/],
    ['CREATE TEMP TABLE t (a)', /^CREATE \(it changes the schema\) is refused/],
    ['CREATE INDEX i ON Track (Name)', /^CREATE \(it changes the schema\) is refused/],
    ['CREATE VIEW v AS SELECT 1', /^CREATE \(it changes the schema\) is refused/],
    ['CREATE TRIGGER tr AFTER INSERT ON Genre BEGIN SELECT 1; END', /^CREATE TRIGGER tr is refused/],
    ['ALTER TABLE Genre ADD COLUMN x TEXT', /^ALTER TABLE Genre is refused/],
    ['ALTER TABLE Genre RENAME TO Genres', /^ALTER TABLE Genre is refused/],
    ["ATTACH DATABASE ':memory:' AS other", /^ATTACH is refused/],
    ["ATTACH 'file:/tmp/pagewright.db' AS other", /^ATTACH is refused/],
    ['DETACH DATABASE other', /^DETACH is refused/],
    ['PRAGMA user_version = 5', /^PRAGMA user_version = 5 is refused/],
    ['PRAGMA journal_mode = WAL', /^PRAGMA journal_mode = WAL is refused/],
    ['PRAGMA query_only = 0', /^PRAGMA query_only = 0 is refused/],
    ['PRAGMA writable_schema = ON', /^PRAGMA writable_schema = ON is refused/],
    ['PRAGMA table_info(Track)', /^PRAGMA is refused.*pragma_table_info/],
    ["VACUUM INTO '/tmp/pagewright-copy.db'", /^VACUUM is refused/],
    ['VACUUM', /^VACUUM is refused/],
    ['REINDEX', /^REINDEX is refused/],
    ['ANALYZE', /^ANALYZE \(it changes the schema\) is refused/],
    ['BEGIN', /^BEGIN \(transaction control\) is refused/],
    ['BEGIN IMMEDIATE TRANSACTION', /^BEGIN \(transaction control\) is refused/],
    ['COMMIT', /^COMMIT \(transaction control\) is refused/],
    ['ROLLBACK', /^ROLLBACK \(transaction control\) is refused/],
    ['SAVEPOINT s1', /^SAVEPOINT is refused/],
    ['RELEASE s1', /^RELEASE \(savepoints\) is refused/],
    ['EXPLAIN SELECT 1', /^EXPLAIN is refused/],
    ['WITH doomed AS (SELECT TrackId FROM Track) DELETE FROM Track WHERE TrackId IN (SELECT TrackId FROM doomed)', /^DELETE from Track is refused/],
    ['WITH x AS (SELECT 1 AS a) INSERT INTO Genre (Name) SELECT a FROM x', /^INSERT into Genre is refused/],
    ['WITH x AS (SELECT 1) UPDATE Track SET Name = upper(Name)', /^UPDATE of Track is refused/],
    ['/* looks harmless */ DELETE FROM Track', /^DELETE from Track is refused/],
  ];

  it.each(writes)('refuses %s', (sql, named) => {
    const err = refusal(db, sql);
    expect(err.code).toBe('not_read_only');
    expect(err.message).toMatch(named);
    expect(err.message).toContain('only SELECT and WITH … SELECT queries run');
  });

  it('refuses load_extension: the function does not exist in this build', () => {
    const err = refusal(db, "SELECT load_extension('/tmp/evil.so')");
    expect(err.code).toBe('sql_error');
    expect(err.message).toContain('no such function: load_extension');
  });

  it('pragma table functions read, and cannot set anything', () => {
    expect(refusal(db, 'SELECT * FROM pragma_query_only').message).toMatch(/^PRAGMA query_only is refused/);
    expect(refusal(db, 'SELECT * FROM pragma_query_only(0)').message).toContain('too many arguments on pragma_query_only()');
    expect(refusal(db, 'SELECT * FROM pragma_user_version(5)').message).toContain('too many arguments on pragma_user_version()');
    // The argument of pragma_journal_mode names a schema, never a mode.
    expect(refusal(db, "SELECT * FROM pragma_journal_mode('delete')").message).toContain("unknown database 'delete'");
    expect(db.query('SELECT * FROM pragma_journal_mode').rows).toEqual([['memory']]);
  });

  it('refuses several statements in one call, whatever the second one is', () => {
    for (const sql of ['SELECT 1; SELECT 2', 'SELECT 1; DROP TABLE Genre', 'SELECT count(*) FROM Track;\nDELETE FROM Track;', 'SELECT 1; garbage']) {
      const err = refusal(db, sql);
      expect(err.code, sql).toBe('multiple_statements');
      expect(err.message).toContain('One statement per call');
    }
  });

  it('allows a trailing semicolon, blanks and comments after the one statement', () => {
    expect(db.query('SELECT 1 AS one;').rows).toEqual([[1]]);
    expect(db.query('SELECT 2 AS two; -- done\n  /* really */ ;').rows).toEqual([[2]]);
    // The tail is measured in UTF-8 bytes, not characters.
    expect(db.query("SELECT 'Genève — 東京' AS v; -- fin é").rows).toEqual([['Genève — 東京']]);
    expect(refusal(db, "SELECT 'é'; SELECT 'ü'").code).toBe('multiple_statements');
  });

  it('runs SELECT, WITH … SELECT, VALUES and pragma table functions', () => {
    expect(db.query('SELECT count(*) AS n FROM Genre').rows).toEqual([[25]]);
    expect(db.query('WITH g AS (SELECT * FROM Genre WHERE GenreId < 3) SELECT Name FROM g ORDER BY GenreId').rows).toEqual([['Rock'], ['Jazz']]);
    expect(db.query('VALUES (1, 2), (3, 4)').rows).toEqual([
      [1, 2],
      [3, 4],
    ]);
    expect(db.query("SELECT name FROM pragma_table_info('Genre') ORDER BY cid").rows).toEqual([['GenreId'], ['Name']]);
  });

  it('changed nothing: the data, and the bytes of the file', () => {
    for (const [sql] of writes) refusal(db, sql);
    expect(db.query('SELECT count(*), max(GenreId) FROM Genre').rows).toEqual([[25, 25]]);
    expect(db.query('SELECT count(*), round(sum(UnitPrice), 2) FROM Track').rows).toEqual([[3503, 3680.97]]);
    expect(db.query('SELECT count(*) FROM InvoiceLine').rows).toEqual([[2240]]);
    expect(db.query("SELECT count(*) FROM sqlite_schema WHERE name IN ('t', 'v', 'i', 'tr', 'Genres')").rows).toEqual([[0]]);
    expect(db.query('SELECT user_version FROM pragma_user_version').rows).toEqual([[0]]);
    expect(db.query('SELECT journal_mode FROM pragma_journal_mode').rows).toEqual([['memory']]);
    // What SQLite itself holds, serialized again, is still the file byte for byte.
    expect(sha256(db.snapshot())).toBe(fileHash);
    expect(sha256(bytes)).toBe(before);
    expect(sha256(fs.readFileSync(CHINOOK))).toBe(fileHash);
    expect(before).toBe(fileHash);
    expect(fs.existsSync('/tmp/pagewright-copy.db')).toBe(false);
  });
});

describe('opening files', () => {
  it('refuses what is not an SQLite file', async () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...new Array(600).fill(0)]);
    await expect(openDatabase(png)).rejects.toMatchObject({ code: 'not_sqlite', message: expect.stringContaining('not an SQLite database file') });
    await expect(openDatabase(new TextEncoder().encode('id,name\n1,a\n'))).rejects.toMatchObject({ code: 'not_sqlite' });
    await expect(openDatabase(new Uint8Array(0))).rejects.toMatchObject({ code: 'not_sqlite' });
  });

  it('refuses a truncated or damaged SQLite file', async () => {
    const chinook = new Uint8Array(fs.readFileSync(CHINOOK));
    await expect(openDatabase(chinook.subarray(0, 5000))).rejects.toMatchObject({ code: 'not_sqlite', message: expect.stringContaining('damaged or incomplete') });
    const damaged = chinook.slice();
    damaged.fill(0x55, 100, 4096);
    await expect(openDatabase(damaged)).rejects.toMatchObject({ code: 'not_sqlite', message: expect.stringContaining('cannot be read') });
  });

  it('reads a file saved in WAL mode without changing it', async () => {
    const wal = new Uint8Array(fs.readFileSync(CHINOOK));
    wal[18] = 2;
    wal[19] = 2;
    const hash = sha256(wal);
    const db = await openDatabase(wal);
    expect(db.query('SELECT count(*) FROM Track').rows).toEqual([[3503]]);
    db.close();
    expect(sha256(wal)).toBe(hash);
  });

  it('says so when used after close', async () => {
    const db = await openDatabase(new Uint8Array(fs.readFileSync(CHINOOK)));
    db.close();
    expect(() => db.query('SELECT 1')).toThrow(expect.objectContaining({ code: 'closed' }));
  });
});
