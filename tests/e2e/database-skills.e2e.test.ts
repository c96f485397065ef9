import { createHash } from 'node:crypto';
import { CHINOOK_PATH } from '../harness/fixtures';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { ElementHandle, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatCsv, openDatabase, type ReadOnlyDb } from '../../lib/database';
import type { BrowserName } from '../harness/browsers';
import { text, toolCall } from '../harness/fake-anthropic';
import { setSkills, type SeedSkill } from '../harness/popup';
import { agentSession } from '../harness/session';

const browsers: BrowserName[] = ['chromium', 'firefox'];
const CHINOOK = CHINOOK_PATH;

const TOP_ARTISTS =
  'SELECT ar.Name AS artist, COUNT(*) AS tracks FROM Artist ar JOIN Album al ON al.ArtistId = ar.ArtistId JOIN Track t ON t.AlbumId = al.AlbumId GROUP BY ar.ArtistId ORDER BY tracks DESC, artist LIMIT 5';
const SALES_BY_COUNTRY = 'SELECT BillingCountry AS country, COUNT(*) AS invoices, ROUND(SUM(Total), 2) AS total FROM Invoice GROUP BY 1 ORDER BY total DESC, country LIMIT 5';
const GENRE_MINUTES =
  'SELECT g.Name AS genre, COUNT(*) AS tracks, ROUND(SUM(t.Milliseconds) / 60000.0, 1) AS minutes FROM Track t JOIN Genre g ON g.GenreId = t.GenreId GROUP BY g.GenreId ORDER BY tracks DESC LIMIT 5';
const CSV_GENRES = 'SELECT GenreId, COUNT(*) AS tracks, ROUND(SUM(Milliseconds) / 60000.0, 1) AS minutes FROM Track GROUP BY GenreId ORDER BY tracks DESC LIMIT 5';

/** Every way to write, each of which the engine must refuse. */
const WRITES = [
  "INSERT INTO Genre (GenreId, Name) VALUES (99, 'Polka')",
  "UPDATE Track SET UnitPrice = 0 WHERE TrackId = 1",
  'DELETE FROM InvoiceLine',
  'DROP TABLE Track',
  'CREATE TABLE t (x)',
  'ALTER TABLE Artist ADD COLUMN born INTEGER',
  "ATTACH DATABASE 'file:other?mode=memory' AS other",
  'PRAGMA user_version = 7',
  'PRAGMA journal_mode = DELETE',
  "VACUUM INTO '/tmp/copy.sqlite'",
  "SELECT load_extension('libevil')",
  'SELECT 1; DELETE FROM Track',
  // SQLite has no writes inside a CTE: it does not compile.
  "WITH gone AS (DELETE FROM Track RETURNING *) SELECT * FROM gone",
  "WITH x AS (SELECT 1) INSERT INTO Genre (Name) SELECT 'Polka' FROM x",
];

/** Sets a form field the way typing does (Svelte listens to input events). */
async function setField(page: Page, selector: string, value: string) {
  await page.$eval(
    selector,
    (el, v) => {
      const field = el as HTMLInputElement;
      field.value = v;
      field.dispatchEvent(new Event('input', { bubbles: true }));
    },
    value,
  );
}

/** SHA-256 of a stored database file, read from OPFS by an extension page. */
function storedHash(page: Page, dbId: string): Promise<string> {
  return page.evaluate(async (id) => {
    const root = await navigator.storage.getDirectory();
    const file = await (await (await root.getDirectoryHandle('databases')).getFileHandle(`${id}.sqlite`)).getFile();
    const digest = await crypto.subtle.digest('SHA-256', await file.arrayBuffer());
    return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
  }, dbId);
}

describe.each(browsers)('database skills in %s', (name) => {
  // A window the 1 MB query fits in: the suite tests the database's errors, not compaction.
  const session = agentSession(name, { contextWindow: 2_000_000 });
  const { fake } = session;
  let chinook: ReadOnlyDb;
  let chinookBytes: Buffer;
  let dir: string;

  /** The engine's own answer in Node: the extension must return the same table. */
  const expected = (sql: string) => chinook.query(sql).table;
  const sql = (tool: string, query: string) => () => ({ name: tool, input: { sql: query } });

  beforeAll(async () => {
    chinookBytes = await fs.readFile(CHINOOK);
    chinook = await openDatabase(new Uint8Array(chinookBytes));
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'pw-db-'));
    // The CSV import: the whole Track table (3,503 rows), as a spreadsheet would export it.
    const tracks = chinook.query('SELECT * FROM Track ORDER BY TrackId', { maxRows: 10_000, maxChars: 10_000_000, maxCellChars: 10_000 });
    await fs.writeFile(path.join(dir, 'Track.csv'), formatCsv(tracks.columns, tracks.rows));
    await fs.copyFile(CHINOOK, path.join(dir, 'Chinook_Sqlite.sqlite'));
    // A binary file with a .csv name: the SQLite file itself.
    await fs.copyFile(CHINOOK, path.join(dir, 'binary.csv'));
    // A small CSV for the test that deletes its database mid-run.
    const genres = chinook.query('SELECT * FROM Genre ORDER BY GenreId');
    await fs.writeFile(path.join(dir, 'Genre.csv'), formatCsv(genres.columns, genres.rows));
  });
  afterAll(async () => {
    chinook?.close();
    if (dir) await fs.rm(dir, { recursive: true, force: true });
  });

  async function importThroughPage(options: Page, dbId: string, dbName: string, source: 'sqlite' | 'csv', file: string) {
    // In front: headless Chromium lands no mouse clicks in a background tab (the page may be older than the popup).
    await options.bringToFront();
    await options.waitForSelector('[data-testid="database-form"]');
    await setField(options, '#db-id', dbId);
    await setField(options, '#db-name', dbName);
    await options.click(`[data-testid="db-source-${source}"]`);
    const input = (await options.$('#db-file')) as ElementHandle<HTMLInputElement> | null;
    await input!.uploadFile(path.join(dir, file));
    await options.click('[data-testid="db-import"]');
  }

  // What a test needs from the browser is made once per launched browser (sharedBrowser): the
  // first test makes it as what it checks; a test run alone, or retried on a fresh profile, makes
  // it itself.
  /** The management page's Databases section, open for the tests (a page of this browser). */
  const databasesPage = () =>
    session.once('databases page', async () => {
      const page = await session.ext.open('options.html#databases', { width: 1000, height: 900 });
      page.on('dialog', (d) => void d.accept());
      return page;
    });
  /** The skills on the two imports (and, with `extra`, more). */
  const setStoreSkills = (extra: SeedSkill[] = []) =>
    setSkills(session.popup.page, [
      { name: 'music_store', skill_type: 'database', description: 'The music store: artists, albums, tracks, customers and invoices.', config: { db_id: 'chinook' } },
      { name: 'track_sheet', skill_type: 'database', description: 'The track list exported from the catalogue.', config: { db_id: 'tracks' } },
      ...extra,
    ]);
  /** Chinook and the CSV of its Track table imported through the page, with their skills; returns the page. */
  const imported = () =>
    session.once('chinook and tracks imported', async () => {
      const options = await databasesPage();
      await importThroughPage(options, 'chinook', 'Chinook', 'sqlite', 'Chinook_Sqlite.sqlite');
      await options.waitForSelector('tr[data-db="chinook"]', { timeout: 30_000 });
      await importThroughPage(options, 'tracks', 'Tracks (CSV)', 'csv', 'Track.csv');
      await options.waitForSelector('tr[data-db="tracks"]', { timeout: 30_000 });
      await setStoreSkills();
      return options;
    });

  it('imports Chinook and a CSV of its Track table on the management page; the tools carry schema and descriptions', async () => {
    const { popup } = session;
    const options = await databasesPage();
    await setSkills(popup.page, []);
    // Imported here, whatever another test of the file imported before in this browser.
    for (const id of ['chinook', 'tracks']) {
      if (!(await options.$(`tr[data-db="${id}"]`))) continue;
      await options.bringToFront();
      await options.click(`tr[data-db="${id}"] [data-testid="db-delete"]`);
      await options.waitForFunction((id) => !document.querySelector(`tr[data-db="${id}"]`), { polling: 100 }, id);
    }

    await importThroughPage(options, 'chinook', 'Chinook', 'sqlite', 'Chinook_Sqlite.sqlite');
    await options.waitForSelector('tr[data-db="chinook"]', { timeout: 30_000 });
    expect(await options.$eval('tr[data-db="chinook"] [data-testid="db-tables"]', (e) => e.textContent)).toBe('11');
    // The details open after an import: describe a table and a column.
    await options.waitForSelector('[data-testid="db-details"] fieldset[data-table="Track"]');
    await setField(options, 'fieldset[data-table="Track"] [data-testid="db-table-description"]', 'One row per song for sale.');
    await setField(options, 'fieldset[data-table="Track"] li[data-column="Milliseconds"] input', 'Length of the song in milliseconds.');
    await options.click('[data-testid="db-save-descriptions"]');
    await options.waitForFunction(() => document.querySelector('[data-testid="db-status"]')?.textContent === 'Saved.', { polling: 100 });
    // The test query box runs on the background's host, as the agent's queries do.
    await setField(options, '#db-test-sql', 'SELECT COUNT(*) AS n FROM Track');
    await options.click('[data-testid="db-test-run"]');
    await options.waitForSelector('[data-testid="db-test-result"][data-ok="true"]', { timeout: 30_000 });
    expect(await options.$eval('[data-testid="db-test-result"]', (e) => e.textContent)).toContain('| 3503 |');

    // Bad input: a binary file named .csv is refused with a clear error, and nothing is added.
    await importThroughPage(options, 'broken', 'Broken', 'csv', 'binary.csv');
    await options.waitForFunction(() => /not a CSV text file/.test(document.querySelector('[data-testid="db-import-error"]')?.textContent ?? ''), { polling: 100, timeout: 30_000 });
    expect(await options.$('tr[data-db="broken"]')).toBeNull();

    await importThroughPage(options, 'tracks', 'Tracks (CSV)', 'csv', 'Track.csv');
    await options.waitForSelector('tr[data-db="tracks"]', { timeout: 30_000 });
    // The stored file of the SQLite import is the file the user chose, byte for byte.
    expect(await storedHash(options, 'chinook')).toBe(createHash('sha256').update(chinookBytes).digest('hex'));

    await setStoreSkills([{ name: 'ghost_db', skill_type: 'database', config: { db_id: 'no_such_db' } }]);
    const results = await session.agentRuns([sql('track_sheet', 'SELECT COUNT(*) AS n, COUNT(DISTINCT AlbumId) AS albums FROM Track')]);
    expect(results[0]).toMatchObject({ isError: false });
    expect(results[0]!.content).toContain('| 3503 | 347 |');
    const tools: { name: string; description: string; input_schema: any }[] = fake.requests.at(-2)!.body.tools;
    const store = tools.find((t) => t.name === 'music_store')!;
    expect(store.description).toContain('The music store: artists');
    expect(store.description).toContain('Track (3,503 rows): One row per song for sale.');
    expect(store.description).toContain('Milliseconds INTEGER NOT NULL — Length of the song in milliseconds.');
    expect(store.description).toContain('AlbumId INTEGER → Album(AlbumId)');
    expect(store.input_schema.properties.sql.type).toBe('string');
    const sheet = tools.find((t) => t.name === 'track_sheet')!;
    expect(sheet.description).toMatch(/Track \(3,503 rows\)[\s\S]*Milliseconds INTEGER/);
    // Bad input: an unknown db_id leaves that skill out, with the reason shown to the user.
    expect(tools.some((t) => t.name === 'ghost_db')).toBe(false);
    await popup.waitFor('[data-notice="skills-unavailable"]');
    expect(await popup.text('[data-notice="skills-unavailable"]')).toMatch(/ghost_db[\s\S]*no_such_db/);
    session.made('chinook and tracks imported', options);
  });

  it('join and aggregate queries return the right rows, from the SQLite import and the CSV import', async () => {
    await imported();
    const results = await session.agentRuns([
      sql('music_store', TOP_ARTISTS),
      sql('music_store', SALES_BY_COUNTRY),
      sql('music_store', GENRE_MINUTES),
      sql('track_sheet', CSV_GENRES),
      sql('music_store', 'SELECT * FROM Track'),
    ]);
    for (const r of results) expect(r.isError).toBe(false);
    expect(results[0]!.content).toContain(expected(TOP_ARTISTS));
    expect(results[0]!.content).toContain('| Iron Maiden | 213 |');
    expect(results[1]!.content).toContain(expected(SALES_BY_COUNTRY));
    expect(results[1]!.content).toContain('| USA | 91 | 523.06 |');
    expect(results[2]!.content).toContain(expected(GENRE_MINUTES));
    // The CSV table holds the same data as the original, typed from its values.
    expect(results[3]!.content).toContain(expected(CSV_GENRES));
    // A big result is capped and says so.
    expect(results[4]!.content).toMatch(/showing 200 of 3,503 rows \(truncated\)[\s\S]*truncated: true$/);
  });

  it('every write form is refused with a clear error and both stored files stay byte-identical', async () => {
    const options = await imported();
    const before = { chinook: await storedHash(options, 'chinook'), tracks: await storedHash(options, 'tracks') };
    const results = await session.agentRuns([
      ...WRITES.map((w) => sql('music_store', w)),
      sql('track_sheet', 'DELETE FROM Track'),
      sql('track_sheet', 'UPDATE Track SET Name = NULL'),
      sql('music_store', 'SELECT COUNT(*) AS n FROM Genre'),
    ]);
    WRITES.forEach((w, i) => {
      expect(results[i], w).toMatchObject({ isError: true });
      expect(results[i]!.content, w).toMatch(/refused|only SELECT|read-only|one statement|not authorized|no such function|syntax error/i);
    });
    expect(results.at(-3)).toMatchObject({ isError: true });
    expect(results.at(-2)).toMatchObject({ isError: true });
    expect(results.at(-1)!.content).toContain('| 25 |');
    expect(await storedHash(options, 'chinook')).toBe(before.chinook);
    expect(await storedHash(options, 'tracks')).toBe(before.tracks);
    expect(before.chinook).toBe(createHash('sha256').update(chinookBytes).digest('hex'));
  });

  it('bad input gets clear errors: empty SQL, a syntax error, a 1 MB query, a database deleted mid-run; the workspace tools cannot see the files', async () => {
    const options = await imported();
    // The database deleted mid-run is this test's own: the other tests' imports stay.
    await importThroughPage(options, 'scratch', 'Scratch (CSV)', 'csv', 'Genre.csv');
    await options.waitForSelector('tr[data-db="scratch"]', { timeout: 30_000 });
    await setStoreSkills([{ name: 'scratch_sheet', skill_type: 'database', config: { db_id: 'scratch' } }]);
    const huge = `SELECT 1 /* ${'x'.repeat(1024 * 1024)} */`;
    const calls = [
      sql('music_store', '   '),
      sql('music_store', 'SELEC Name FROM Artist'),
      sql('music_store', 'SELECT Nme FROM Artist'),
      sql('music_store', huge),
      () => ({ name: 'opfs_list', input: { path: '/' } }),
      () => ({ name: 'opfs_read', input: { path: '../databases/chinook.sqlite' } }),
      sql('scratch_sheet', 'SELECT COUNT(*) FROM Genre'),
    ];
    // The last call's database is deleted on the management page while the run is under way.
    const finalText = 'Checked the bad input.';
    const start = fake.requests.length;
    fake.script(
      ...calls.map((make, i) => async () => {
        if (i === calls.length - 1) {
          await options.bringToFront();
          await options.click('tr[data-db="scratch"] [data-testid="db-delete"]');
          await options.waitForFunction(() => !document.querySelector('tr[data-db="scratch"]'), { polling: 100 });
        }
        const { name: tool, input } = make();
        return toolCall(tool, input);
      }),
      text(finalText),
    );
    await session.popup.page.bringToFront();
    await session.popup.send('Try some bad input');
    await session.popup.waitForAssistantText(finalText, 60_000);
    const { lastToolResult } = await import('../harness/fake-anthropic');
    const [empty, syntax, column, tooLong, list, escape, vanished] = fake.requests.slice(start + 1).map((r) => lastToolResult(r.body));
    expect(empty).toMatchObject({ isError: true, content: expect.stringMatching(/SQL is empty/) });
    expect(syntax).toMatchObject({ isError: true, content: expect.stringMatching(/syntax error/) });
    expect(column).toMatchObject({ isError: true, content: expect.stringMatching(/no such column: Nme/) });
    expect(tooLong).toMatchObject({ isError: true, content: expect.stringMatching(/sql[\s\S]*1,048,\d+ characters long; the limit is 100,000/) });
    expect(JSON.stringify(list!.content)).not.toContain('databases');
    expect(escape).toMatchObject({ isError: true });
    expect(vanished).toMatchObject({ isError: true, content: expect.stringMatching(/"scratch" does not exist/) });
  });

  it('a slow query is interrupted at the 10 s limit and the next query works', async () => {
    await imported();
    const slow = 'WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT COUNT(*) FROM n';
    const started = Date.now();
    const [interrupted, next] = await session.agentRuns([sql('music_store', slow), sql('music_store', 'SELECT COUNT(*) AS n FROM Album')]);
    expect(interrupted).toMatchObject({ isError: true, content: expect.stringMatching(/interrupted after 10 s/) });
    expect(next).toMatchObject({ isError: false, content: expect.stringContaining('| 347 |') });
    expect(Date.now() - started).toBeLessThan(30_000);
  });
});
