/**
 * Queries on the real Chinook database (tests/fixtures/databases, see its SOURCE.md): joins
 * and aggregates with known answers, the schema, the caps, the time limit and bad input.
 */
import { CHINOOK_PATH } from '../harness/fixtures';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatabaseError, formatSchemaForModel, MAX_SQL_CHARS, openDatabase, QUERY_DEFAULTS, type ReadOnlyDb } from '../../lib/database';

const CHINOOK = CHINOOK_PATH;

// ~10^9 recursion steps: minutes of work without the time limit.
const SLOW_SQL = 'WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000000000) SELECT count(*) FROM n';

function failure(run: () => unknown): DatabaseError {
  try {
    run();
  } catch (err) {
    if (err instanceof DatabaseError) return err;
    throw err;
  }
  throw new Error('did not fail');
}

let db: ReadOnlyDb;
beforeAll(async () => {
  db = await openDatabase(new Uint8Array(fs.readFileSync(CHINOOK)));
});
afterAll(() => db?.close());

describe('joins and aggregates', () => {
  it('top 5 artists by track count (three-table join)', () => {
    const r = db.query(`
      SELECT ar.Name AS artist, COUNT(*) AS tracks
      FROM Artist ar
      JOIN Album al ON al.ArtistId = ar.ArtistId
      JOIN Track t ON t.AlbumId = al.AlbumId
      GROUP BY ar.ArtistId
      ORDER BY tracks DESC, ar.Name
      LIMIT 5`);
    expect(r.columns).toEqual(['artist', 'tracks']);
    expect(r.rows).toEqual([
      ['Iron Maiden', 213],
      ['U2', 135],
      ['Led Zeppelin', 114],
      ['Metallica', 112],
      ['Deep Purple', 92],
    ]);
    expect(r).toMatchObject({ row_count: 5, truncated: false });
    expect(r.table).toBe('| artist | tracks |\n|---|---|\n| Iron Maiden | 213 |\n| U2 | 135 |\n| Led Zeppelin | 114 |\n| Metallica | 112 |\n| Deep Purple | 92 |\n');
    expect(r.elapsed_ms).toBeGreaterThanOrEqual(0);
  });

  it('invoice totals by country', () => {
    const r = db.query('SELECT BillingCountry AS country, COUNT(*) AS invoices, SUM(Total) AS total FROM Invoice GROUP BY BillingCountry ORDER BY total DESC LIMIT 5');
    expect(r.rows.map(([country, invoices, total]) => [country, invoices, Math.round(Number(total) * 100) / 100])).toEqual([
      ['USA', 91, 523.06],
      ['Canada', 56, 303.96],
      ['France', 35, 195.1],
      ['Brazil', 35, 190.1],
      ['Germany', 28, 156.48],
    ]);
    // REALs print as SQLite's shell does (15 significant digits), not as 523.0600000000004.
    expect(r.table).toContain('| USA | 91 | 523.06 |');
  });

  it('sales per support representative (join through customers)', () => {
    const r = db.query(`
      WITH sales AS (
        SELECT c.SupportRepId AS rep, COUNT(DISTINCT c.CustomerId) AS customers, ROUND(SUM(i.Total), 2) AS total
        FROM Customer c JOIN Invoice i ON i.CustomerId = c.CustomerId GROUP BY c.SupportRepId)
      SELECT e.FirstName || ' ' || e.LastName AS rep, s.customers, s.total
      FROM sales s JOIN Employee e ON e.EmployeeId = s.rep ORDER BY s.total DESC`);
    expect(r.rows).toEqual([
      ['Jane Peacock', 21, 833.04],
      ['Margaret Park', 20, 775.4],
      ['Steve Johnson', 18, 720.16],
    ]);
  });

  it('returns NULL as null and prints it as NULL; BLOBs are described, not dumped', () => {
    const r = db.query("SELECT Composer, Name, x'00ff10' AS raw FROM Track WHERE TrackId = 63");
    expect(r.rows).toEqual([[null, 'Desafinado', '<BLOB 3 bytes>']]);
    expect(r.table).toContain('| NULL | Desafinado | <BLOB 3 bytes> |');
    expect(db.query("SELECT 'a|b' AS pipe, 'line1\nline2' AS text").table).toContain('| a\\|b | line1\\nline2 |');
  });

  it('keeps 64-bit integers exact', () => {
    expect(db.query('SELECT 9223372036854775807 AS big, 9007199254740991 AS safe').rows).toEqual([['9223372036854775807', 9007199254740991]]);
  });

  it('an empty result says so', () => {
    const r = db.query("SELECT * FROM Artist WHERE Name = 'Nobody'");
    expect(r).toMatchObject({ rows: [], row_count: 0, truncated: false });
    expect(r.table).toBe('| ArtistId | Name |\n|---|---|\n(no rows)\n');
  });
});

describe('caps', () => {
  it('caps rows at 200 by default and counts the rest', () => {
    const r = db.query('SELECT TrackId, Name FROM Track ORDER BY TrackId');
    expect(r.rows).toHaveLength(200);
    expect(r.rows[199]).toEqual([200, 'She Suits Me To A Tee']);
    expect(r).toMatchObject({ truncated: true, row_count: 3503 });
    expect(r.table.trimEnd().split('\n').at(-1)).toBe('… showing 200 of 3,503 rows (truncated)');
  });

  it('caps characters, and cuts long cells', () => {
    const r = db.query('SELECT * FROM Track', { maxRows: 10_000, maxChars: 2_000 });
    expect(r.table.length).toBeLessThanOrEqual(2_000);
    expect(r.rows.length).toBeGreaterThan(5);
    expect(r.rows.length).toBeLessThan(30);
    expect(r).toMatchObject({ truncated: true, row_count: 3503 });

    const long = db.query("SELECT group_concat(Name, ', ') AS names FROM Track", { maxCellChars: 100 });
    const cell = long.rows[0]![0] as string;
    expect(cell).toHaveLength(100);
    expect(cell.endsWith('…')).toBe(true);
    expect(long.truncated).toBe(false);
  });

  it('stops counting past the cap within its bounds instead of running on', () => {
    const r = db.query('SELECT a.TrackId, b.TrackId FROM Track a CROSS JOIN Track b', { maxRows: 3 });
    expect(r.rows).toHaveLength(3);
    expect(r.truncated).toBe(true);
    // 12.3 million rows: past a million the total is reported as unknown.
    expect(r.row_count).toBeNull();
    expect(r.table).toMatch(/… showing 3 of more than [\d,]+ rows \(truncated\)\n$/);
    expect(r.elapsed_ms).toBeLessThan(5_000);
  });
});

describe('the time limit', () => {
  it('interrupts a slow query, and the next query works', () => {
    const started = performance.now();
    const err = failure(() => db.query(SLOW_SQL, { timeoutMs: 300 }));
    const took = performance.now() - started;
    expect(err.code).toBe('timeout');
    expect(err.message).toContain('interrupted after 0.3 s');
    expect(took).toBeGreaterThanOrEqual(290);
    expect(took).toBeLessThan(3_000);
    expect(db.query('SELECT count(*) FROM Track').rows).toEqual([[3503]]);
  });

  it('defaults to 10 s', () => {
    // Not waited for here: 10 s of CPU in every unit run. The 0.3 s case above runs the same path.
    expect(QUERY_DEFAULTS.timeoutMs).toBe(10_000);
    expect(failure(() => db.query(SLOW_SQL, { timeoutMs: 1_000 })).message).toMatch(/^The query was interrupted after 1 s \(the time limit\)\./);
    expect(db.query('SELECT Name FROM Genre WHERE GenreId = 1').rows).toEqual([['Rock']]);
  });
});

describe('bad input', () => {
  it('empty SQL', () => {
    for (const sql of ['', '   \n\t', '-- only a comment', '/* nothing */ ;']) {
      expect(failure(() => db.query(sql)).code, JSON.stringify(sql)).toBe('empty_sql');
    }
    expect(failure(() => db.query('')).message).toBe('The SQL is empty: send one query (only SELECT and WITH … SELECT queries run).');
  });

  it('syntax errors carry SQLite\'s message', () => {
    const err = failure(() => db.query('SELEC * FROM Track'));
    expect(err.code).toBe('sql_error');
    expect(err.message).toBe('The SQL could not be compiled: near "SELEC": syntax error.');
    expect(failure(() => db.query('SELECT * FROM Tracks')).message).toBe('The SQL could not be compiled: no such table: Tracks.');
    expect(failure(() => db.query('SELECT Nme FROM Track')).message).toContain('no such column: Nme');
    expect(db.query('SELECT 1 AS ok').rows).toEqual([[1]]);
  });

  it('a 1 MB query is refused with the limit', () => {
    const sql = `SELECT '${'x'.repeat(1024 * 1024)}'`;
    const err = failure(() => db.query(sql));
    expect(err.code).toBe('sql_too_long');
    expect(err.message).toBe(`The SQL is 1,048,585 characters long; the limit is ${MAX_SQL_CHARS.toLocaleString('en-US')} characters per query.`);
  });

  it('a query just under the limit runs', () => {
    const sql = `SELECT length('${'x'.repeat(MAX_SQL_CHARS - 30)}') AS n`;
    expect(sql.length).toBeLessThanOrEqual(MAX_SQL_CHARS);
    expect(db.query(sql).rows).toEqual([[MAX_SQL_CHARS - 30]]);
  });

  it('runtime errors carry SQLite\'s message and leave the database usable', () => {
    const err = failure(() => db.query('SELECT zeroblob(1000000000)'));
    expect(err.code).toBe('sql_error');
    expect(err.message).toContain('string or blob too big');
    expect(db.query('SELECT count(*) FROM Genre').rows).toEqual([[25]]);
  });
});

describe('schema', () => {
  it('lists the 11 tables with columns, keys and row counts', () => {
    const schema = db.schema();
    expect(schema.tables.map((t) => [t.name, t.row_count])).toEqual([
      ['Album', 347],
      ['Artist', 275],
      ['Customer', 59],
      ['Employee', 8],
      ['Genre', 25],
      ['Invoice', 412],
      ['InvoiceLine', 2240],
      ['MediaType', 5],
      ['Playlist', 18],
      ['PlaylistTrack', 8715],
      ['Track', 3503],
    ]);
    expect(schema.tables.reduce((n, t) => n + (t.row_count ?? 0), 0)).toBe(15_607);
    const track = schema.tables.find((t) => t.name === 'Track')!;
    expect(track.columns.slice(0, 3)).toEqual([
      { name: 'TrackId', type: 'INTEGER', pk: 1, notnull: true },
      { name: 'Name', type: 'NVARCHAR(200)', pk: 0, notnull: true },
      { name: 'AlbumId', type: 'INTEGER', pk: 0, notnull: false },
    ]);
    expect(track.foreign_keys).toEqual(
      expect.arrayContaining([
        { columns: ['AlbumId'], table: 'Album', to: ['AlbumId'] },
        { columns: ['GenreId'], table: 'Genre', to: ['GenreId'] },
        { columns: ['MediaTypeId'], table: 'MediaType', to: ['MediaTypeId'] },
      ]),
    );
    const playlistTrack = schema.tables.find((t) => t.name === 'PlaylistTrack')!;
    expect(playlistTrack.columns.map((c) => [c.name, c.pk])).toEqual([
      ['PlaylistId', 1],
      ['TrackId', 2],
    ]);
  });

  it('formats the schema and the user\'s descriptions for the model', () => {
    const text = formatSchemaForModel(db.schema(), {
      tables: {
        Track: { description: 'One row per song on sale.', columns: { Milliseconds: 'Length of the song', unitprice: 'Price in USD' } },
        invoice: { description: 'A  customer\'s\npurchase' },
        Ghost: { description: 'not in this database' },
      },
    });
    expect(text.startsWith('SQLite database, read-only (only SELECT and WITH … SELECT queries run). 11 tables:\n')).toBe(true);
    expect(text).toContain(
      [
        'Track (3,503 rows): One row per song on sale.',
        '  TrackId INTEGER PK',
        '  Name NVARCHAR(200) NOT NULL',
        '  AlbumId INTEGER → Album(AlbumId)',
        '  MediaTypeId INTEGER NOT NULL → MediaType(MediaTypeId)',
        '  GenreId INTEGER → Genre(GenreId)',
        '  Composer NVARCHAR(220)',
        '  Milliseconds INTEGER NOT NULL — Length of the song',
        '  Bytes INTEGER',
        '  UnitPrice NUMERIC(10,2) NOT NULL — Price in USD',
      ].join('\n'),
    );
    expect(text).toContain("Invoice (412 rows): A customer's purchase\n");
    expect(text).toContain('PlaylistTrack (8,715 rows)\n  PlaylistId INTEGER PK → Playlist(PlaylistId)\n  TrackId INTEGER PK → Track(TrackId)\n');
    expect(text).not.toContain('Ghost');
    expect(text.length).toBeLessThan(4_000);
  });

  it('cuts a schema that is too long and says how many tables are left out', () => {
    const text = formatSchemaForModel(db.schema(), {}, { maxChars: 600 });
    expect(text.length).toBeLessThanOrEqual(700);
    expect(text).toMatch(/… \d+ more not shown \(list them with: SELECT name, sql FROM sqlite_schema\)\.\n$/);
  });
});
