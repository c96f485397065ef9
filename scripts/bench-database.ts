/**
 * The database engine (lib/database) timed in Node, on the same SQLite WebAssembly build the
 * extension ships:
 *
 *   load the WebAssembly                 first loadSqlite() in this process
 *   open Chinook                         openDatabase() of the 1 MB Chinook file (copy + deserialize + checks)
 *   Chinook queries                      a three-table join, a GROUP BY, schema()
 *   100,000-row aggregate                GROUP BY over a 100,000-row table imported from CSV      ≤ 500 ms
 *   CSV import of 100,000 rows           csvToDatabase() (parse, type, insert, serialize)
 *
 *   npx vite-node scripts/bench-database.ts [--repeat N]
 *
 * --repeat N: runs per measure (default 5; best and median shown).
 */
import fs from 'node:fs';
import path from 'node:path';
import { csvToDatabase, formatCsv, loadSqlite, openDatabase, type Cell } from '../lib/database';

const ROOT = path.resolve(import.meta.dirname, '..');
const CHINOOK = path.resolve(ROOT, '../shared/fixtures/databases/Chinook_Sqlite.sqlite');
const args = process.argv.slice(2);
const repeatAt = args.indexOf('--repeat');
const REPEAT = Math.max(1, Number(repeatAt >= 0 ? args[repeatAt + 1] : 5) || 5);
const AGGREGATE_TARGET_MS = 500;

async function time(run: () => unknown): Promise<{ best: number; median: number }> {
  const runs: number[] = [];
  for (let i = 0; i < REPEAT; i++) {
    const started = performance.now();
    await run();
    runs.push(performance.now() - started);
  }
  runs.sort((a, b) => a - b);
  return { best: runs[0]!, median: runs[Math.floor(runs.length / 2)]! };
}

const ms = (n: number) => `${n.toFixed(1).padStart(8)} ms`;
function line(label: string, t: { best: number; median: number }, target?: number): void {
  const verdict = target === undefined ? '' : `   target ≤ ${target} ms: ${t.median <= target ? 'met' : 'MISSED'}`;
  console.log(`${label.padEnd(50)} best ${ms(t.best)}   median ${ms(t.median)}${verdict}`);
}

/** A sales table: 100,000 rows, 20 regions, amounts with cents, a text column. */
function salesCsv(rows: number): string {
  const data: Cell[][] = [];
  for (let i = 1; i <= rows; i++) data.push([i, `region-${i % 20}`, ((i * 7919) % 100_000) / 100, `item ${i % 997}`]);
  return formatCsv(['id', 'region', 'amount', 'item'], data);
}

console.log(`lib/database bench — ${REPEAT} runs per measure, Node ${process.version}\n`);

let started = performance.now();
const sqlite = await loadSqlite();
console.log(`${'load the WebAssembly (cold, once)'.padEnd(50)} ${ms(performance.now() - started)}   SQLite ${sqlite.version.libVersion}`);

const chinookBytes = new Uint8Array(fs.readFileSync(CHINOOK));
line(`open Chinook (${(chinookBytes.length / 1e6).toFixed(1)} MB) + close`, await time(async () => (await openDatabase(chinookBytes)).close()));
const chinook = await openDatabase(chinookBytes);
line(
  'Chinook: top 5 artists (3-table join)',
  await time(() =>
    chinook.query(
      'SELECT ar.Name, COUNT(*) AS n FROM Artist ar JOIN Album al ON al.ArtistId = ar.ArtistId JOIN Track t ON t.AlbumId = al.AlbumId GROUP BY ar.ArtistId ORDER BY n DESC LIMIT 5',
    ),
  ),
);
line('Chinook: invoice totals by country', await time(() => chinook.query('SELECT BillingCountry, SUM(Total) FROM Invoice GROUP BY 1 ORDER BY 2 DESC')));
line('Chinook: all 3,503 tracks (200 rows returned)', await time(() => chinook.query('SELECT * FROM Track')));
line('Chinook: schema()', await time(() => chinook.schema()));
chinook.close();

const csv = salesCsv(100_000);
let imported: Uint8Array = new Uint8Array();
line(
  `CSV import, 100,000 rows (${(csv.length / 1e6).toFixed(1)} MB)`,
  await time(async () => {
    imported = (await csvToDatabase([{ name: 'sales', csv }])).bytes;
  }),
);
const sales = await openDatabase(imported);
const aggregate = sales.query('SELECT region, COUNT(*) AS n, SUM(amount) AS total, AVG(amount) AS mean, MAX(item) FROM sales GROUP BY region ORDER BY total DESC');
if (aggregate.row_count !== 20 || aggregate.rows.reduce((n, r) => n + Number(r[1]), 0) !== 100_000) throw new Error('the aggregate is wrong');
line(
  '100,000-row aggregate (GROUP BY on the import)',
  await time(() => sales.query('SELECT region, COUNT(*) AS n, SUM(amount) AS total, AVG(amount) AS mean, MAX(item) FROM sales GROUP BY region ORDER BY total DESC')),
  AGGREGATE_TARGET_MS,
);
line(
  '100,000-row aggregate (recursive CTE, no table)',
  await time(() => sales.query('WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100000) SELECT i % 20, COUNT(*), SUM(i) FROM n GROUP BY 1')),
  AGGREGATE_TARGET_MS,
);
sales.close();
console.log(`\nimported database file: ${(imported.length / 1e6).toFixed(1)} MB`);
