/**
 * CSV import: the RFC 4180 parser, column naming and typing, and a real table — Chinook's Track
 * (3,503 rows; names with commas, quotes and accents; NULL composers) exported to CSV by the
 * engine, imported back, and compared row by row and by its aggregates.
 */
import { CHINOOK_PATH } from '../harness/fixtures';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  csvToDatabase,
  DatabaseError,
  decodeCsvText,
  formatCsv,
  inferColumnType,
  openDatabase,
  parseCsv,
  sanitizeIdentifier,
  type ReadOnlyDb,
} from '../../lib/database';

const CHINOOK = CHINOOK_PATH;
const ALL = { maxRows: 100_000, maxChars: 100_000_000, maxCellChars: 100_000 };

async function rejection(promise: Promise<unknown>): Promise<DatabaseError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof DatabaseError) return err;
    throw err;
  }
  throw new Error('did not fail');
}

describe('parseCsv', () => {
  it('reads quoted fields, doubled quotes, commas and line breaks inside quotes', () => {
    expect(parseCsv('name,note\r\n"Smith, J.","said ""hi""\r\nthen left"\r\nplain,\r\n')).toEqual([
      ['name', 'note'],
      ['Smith, J.', 'said "hi"\r\nthen left'],
      ['plain', ''],
    ]);
  });

  it('accepts LF, CR and CRLF line ends, a missing final line end, and skips blank lines', () => {
    expect(parseCsv('a,b\n1,2\r3,4\r\n\r\n5,6')).toEqual([
      ['a', 'b'],
      ['1', '2'],
      ['3', '4'],
      ['5', '6'],
    ]);
    expect(parseCsv('')).toEqual([]);
    expect(parseCsv('only\n""\n')).toEqual([['only'], ['']]);
  });

  it('keeps text after a closing quote rather than failing the file', () => {
    expect(parseCsv('"12" inch,x')).toEqual([['12 inch', 'x']]);
  });

  it('refuses a quote that is never closed', () => {
    expect(() => parseCsv('a,b\n1,"open\n2,3\n')).toThrow(expect.objectContaining({ code: 'invalid_csv', message: expect.stringContaining('record 2 is never closed') }));
  });

  it('round-trips through formatCsv', () => {
    const rows = [
      ['x', 1, null],
      ['a "quoted", value', 2.5, 'line\nbreak'],
    ];
    expect(parseCsv(formatCsv(['c1', 'c2', 'c3'], rows))).toEqual([
      ['c1', 'c2', 'c3'],
      ['x', '1', ''],
      ['a "quoted", value', '2.5', 'line\nbreak'],
    ]);
  });
});

describe('decodeCsvText', () => {
  it('strips a UTF-8 byte-order mark', () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode('Name,Ville\nZoë,Genève\n')]);
    expect(parseCsv(decodeCsvText(bytes))).toEqual([
      ['Name', 'Ville'],
      ['Zoë', 'Genève'],
    ]);
    expect(decodeCsvText('\ufeffa,b')).toBe('a,b');
  });

  it('refuses binary data and text that is not UTF-8', () => {
    const sqliteFile = new Uint8Array(fs.readFileSync(CHINOOK));
    expect(() => decodeCsvText(sqliteFile, '"Chinook.csv"')).toThrow(
      expect.objectContaining({ code: 'not_csv', message: '"Chinook.csv" is not a CSV text file: it contains NUL bytes (binary data).' }),
    );
    const latin1 = new Uint8Array([0x6e, 0x61, 0x6d, 0x65, 0x0a, 0x47, 0x65, 0x6e, 0xe8, 0x76, 0x65, 0x0a]);
    expect(() => decodeCsvText(latin1)).toThrow(expect.objectContaining({ code: 'not_csv', message: expect.stringContaining('not valid UTF-8') }));
    expect(() => decodeCsvText('a,b\n1,\0\n')).toThrow(expect.objectContaining({ code: 'not_csv' }));
  });
});

describe('column names and types', () => {
  it('infers INTEGER, REAL or TEXT from every value; empty values do not count', () => {
    expect(inferColumnType(['1', '-2', '', '+30'])).toBe('INTEGER');
    expect(inferColumnType(['1', '2.5', '1e3', '.5', ''])).toBe('REAL');
    expect(inferColumnType(['1', 'two'])).toBe('TEXT');
    expect(inferColumnType(['007', '12'])).toBe('TEXT');
    expect(inferColumnType(['1,234'])).toBe('TEXT');
    expect(inferColumnType(['99999999999999999999'])).toBe('TEXT');
    expect(inferColumnType(['1.5', '1e999'])).toBe('TEXT');
    expect(inferColumnType(['', ''])).toBe('TEXT');
    expect(inferColumnType([' 42 '])).toBe('INTEGER');
  });

  it('makes header names plain identifiers', () => {
    const keyword = (n: string) => ['order', 'select'].includes(n.toLowerCase());
    expect(sanitizeIdentifier('Unit Price ($)', 'c')).toBe('Unit_Price');
    expect(sanitizeIdentifier('2024 sales', 'c')).toBe('_2024_sales');
    expect(sanitizeIdentifier('Müşteri Adı', 'c')).toBe('Müşteri_Adı');
    expect(sanitizeIdentifier('  ', 'column_3')).toBe('column_3');
    expect(sanitizeIdentifier('sqlite_stat1', 'c')).toBe('t_sqlite_stat1');
    expect(sanitizeIdentifier('Order', 'c', keyword)).toBe('Order_');
    expect(sanitizeIdentifier('"; DROP TABLE x; --', 'c')).toBe('DROP_TABLE_x');
  });
});

describe('csvToDatabase', () => {
  it('builds typed tables with unique names and reports what it made', async () => {
    const { bytes, tables } = await csvToDatabase([
      { name: 'sales.csv', csv: 'Order,Unit Price,unit price,Zip,When\n1,2.50,3,01234,2024-01-02\n2,,4,90210,\n' },
      { name: 'Sales', csv: new TextEncoder().encode('\ufeffid\n7\n') },
      { name: 'empty', csv: 'a,b\n' },
    ]);
    expect(tables).toEqual([
      {
        name: 'sales',
        source: 'sales.csv',
        rows: 2,
        columns: [
          { name: 'Order_', source: 'Order', type: 'INTEGER' },
          { name: 'Unit_Price', source: 'Unit Price', type: 'REAL' },
          { name: 'unit_price_2', source: 'unit price', type: 'INTEGER' },
          { name: 'Zip', source: 'Zip', type: 'TEXT' },
          { name: 'When_', source: 'When', type: 'TEXT' },
        ],
      },
      { name: 'Sales_2', source: 'Sales', rows: 1, columns: [{ name: 'id', source: 'id', type: 'INTEGER' }] },
      {
        name: 'empty',
        source: 'empty',
        rows: 0,
        columns: [
          { name: 'a', source: 'a', type: 'TEXT' },
          { name: 'b', source: 'b', type: 'TEXT' },
        ],
      },
    ]);
    const db = await openDatabase(bytes);
    expect(db.query('SELECT Order_, typeof(Unit_Price), Unit_Price, Zip, typeof(Zip), When_ FROM sales ORDER BY 1').rows).toEqual([
      [1, 'real', 2.5, '01234', 'text', '2024-01-02'],
      [2, 'null', null, '90210', 'text', null],
    ]);
    expect(db.query('SELECT id FROM Sales_2').rows).toEqual([[7]]);
    expect(db.query('SELECT count(*) FROM empty').rows).toEqual([[0]]);
    db.close();
  });

  it('refuses binary files, empty files and rows wider than the header', async () => {
    const sqliteFile = new Uint8Array(fs.readFileSync(CHINOOK));
    expect(await rejection(csvToDatabase([{ name: 'data.csv', csv: sqliteFile }]))).toMatchObject({
      code: 'not_csv',
      message: expect.stringContaining('"data.csv" is not a CSV text file'),
    });
    expect(await rejection(csvToDatabase([{ name: 'none.csv', csv: '\n\n' }]))).toMatchObject({ code: 'invalid_csv', message: expect.stringContaining('"none.csv" is empty') });
    expect(await rejection(csvToDatabase([{ name: 'wide.csv', csv: 'a,b\n1,2\n1,2,3\n' }]))).toMatchObject({
      code: 'invalid_csv',
      message: '"wide.csv", record 3: 3 fields, but the header names 2 columns.',
    });
    expect(await rejection(csvToDatabase([]))).toMatchObject({ code: 'invalid_csv' });
    // Trailing empty fields (a spreadsheet's stray commas) are not an error; short rows are padded with NULL.
    const { bytes } = await csvToDatabase([{ name: 'loose', csv: 'a,b\n1,2,,\n3\n' }]);
    const db = await openDatabase(bytes);
    expect(db.query('SELECT a, b FROM loose').rows).toEqual([
      [1, 2],
      [3, null],
    ]);
    db.close();
  });
});

describe('Chinook Track: exported to CSV, imported back', () => {
  let chinook: ReadOnlyDb;
  let imported: ReadOnlyDb;
  let csv: string;

  beforeAll(async () => {
    chinook = await openDatabase(new Uint8Array(fs.readFileSync(CHINOOK)));
    const all = chinook.query('SELECT * FROM Track ORDER BY TrackId', ALL);
    expect(all).toMatchObject({ truncated: false, row_count: 3503 });
    csv = formatCsv(all.columns, all.rows);
    const { bytes, tables } = await csvToDatabase([{ name: 'Track.csv', csv: new TextEncoder().encode(csv) }]);
    expect(tables[0]).toMatchObject({ name: 'Track', rows: 3503 });
    expect(tables[0]!.columns.map((c) => `${c.name} ${c.type}`)).toEqual([
      'TrackId INTEGER',
      'Name TEXT',
      'AlbumId INTEGER',
      'MediaTypeId INTEGER',
      'GenreId INTEGER',
      'Composer TEXT',
      'Milliseconds INTEGER',
      'Bytes INTEGER',
      'UnitPrice REAL',
    ]);
    imported = await openDatabase(bytes);
  });
  afterAll(() => {
    chinook?.close();
    imported?.close();
  });

  it('is a real CSV file: quoted names with commas and quotes, CRLF line ends', () => {
    expect(csv.length).toBeGreaterThan(200_000);
    expect(csv.split('\r\n')).toHaveLength(3505);
    expect(csv).toContain('\r\n1,For Those About To Rock (We Salute You),1,1,1,"Angus Young, Malcolm Young, Brian Johnson",343719,11170334,0.99\r\n');
    expect(csv).toContain(',"""40""",');
    expect(csv).toContain('\r\n63,Desafinado,8,1,2,,185338,5990473,0.99\r\n');
  });

  it('holds the same rows, value for value', () => {
    const sql = 'SELECT * FROM Track ORDER BY TrackId';
    expect(imported.query(sql, ALL).rows).toEqual(chinook.query(sql, ALL).rows);
  });

  it('gives the same aggregates', () => {
    const aggregates = [
      'SELECT COUNT(*), SUM(Milliseconds), SUM(Bytes), ROUND(SUM(UnitPrice), 2), COUNT(Composer), COUNT(DISTINCT GenreId), MIN(Name), MAX(Name) FROM Track',
      'SELECT GenreId, COUNT(*), SUM(Milliseconds) FROM Track GROUP BY GenreId ORDER BY 2 DESC, 1 LIMIT 3',
      'SELECT MediaTypeId, ROUND(AVG(Bytes)), MAX(Milliseconds) FROM Track GROUP BY MediaTypeId ORDER BY 1',
      "SELECT COUNT(*) FROM Track WHERE Name LIKE '%,%' OR Name LIKE '%\"%'",
    ];
    for (const sql of aggregates) expect(imported.query(sql).rows, sql).toEqual(chinook.query(sql).rows);
    expect(imported.query(aggregates[0]!).rows).toEqual([[3503, 1378778040, 117386255350, 3680.97, 2526, 25, '"40"', 'Último Pau-De-Arara']]);
    expect(imported.query(aggregates[1]!).rows).toEqual([
      [1, 1297, 368231326],
      [7, 579, 134825513],
      [3, 374, 115846292],
    ]);
  });
});
