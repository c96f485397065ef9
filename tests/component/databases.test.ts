/**
 * Settings → Databases on a ConnectionStore over memory, with an importer and a host that stand
 * in for the database worker (the real ones are covered end to end).
 */
import { afterEach, expect, test, vi } from 'vitest';
import { page, userEvent } from 'vitest/browser';
import { render } from 'vitest-browser-svelte';
import Databases from '../../entrypoints/options/Databases.svelte';
import Skills from '../../entrypoints/options/Skills.svelte';
import { ConnectionStore, DATABASES_KEY, type DatabaseConnection, type KeyValueArea } from '../../lib/database/connections';
import { DatabaseError } from '../../lib/database/errors';
import { databaseHostFrom, type DatabaseCall } from '../../lib/database/host';
import type { DatabaseImporter } from '../../lib/database/importer';
import type { DatabaseSchema } from '../../lib/database/schema';
import { memorySkillStore } from './skills-fakes';

class MemoryArea implements KeyValueArea {
  data = new Map<string, unknown>();
  async get(key: string) {
    return this.data.has(key) ? { [key]: structuredClone(this.data.get(key)) } : {};
  }
  async set(items: Record<string, unknown>) {
    for (const [k, v] of Object.entries(items)) this.data.set(k, structuredClone(v));
  }
}

const SCHEMA: DatabaseSchema = {
  tables: [
    {
      name: 'Track',
      kind: 'table',
      row_count: 3503,
      foreign_keys: [],
      columns: [
        { name: 'TrackId', type: 'INTEGER', pk: 1, notnull: true },
        { name: 'Milliseconds', type: 'INTEGER', pk: 0, notnull: true },
      ],
    },
  ],
};

function setup() {
  const area = new MemoryArea();
  const files = new Map<string, Uint8Array>();
  const store = new ConnectionStore(area, { write: async (id, b) => void files.set(id, b), remove: async (id) => void files.delete(id) });
  const importer: DatabaseImporter = {
    inspectSqlite: vi.fn(async (bytes: Uint8Array) => {
      if (new TextDecoder().decode(bytes.subarray(0, 6)) !== 'SQLite') throw new DatabaseError('not_sqlite', 'This is not an SQLite database file.');
      return SCHEMA;
    }),
    csvToSqlite: vi.fn(async (input: { name: string; bytes: Uint8Array }[]) => {
      if (input.some((f) => f.bytes.includes(0))) throw new DatabaseError('not_csv', `"${input[0]!.name}" is not a CSV text file: it contains NUL bytes (binary data).`);
      return { bytes: new Uint8Array([1, 2, 3]), tables: [], schema: SCHEMA };
    }),
  };
  const calls: DatabaseCall[] = [];
  const host = databaseHostFrom(async (call) => {
    calls.push(call);
    if (call.op === 'query') {
      return call.sql.startsWith('DELETE')
        ? { ok: false, code: 'not_read_only', message: 'DELETE is refused: only SELECT and WITH … SELECT queries run.' }
        : { ok: true, value: { columns: ['n'], rows: [[3503]], row_count: 1, truncated: false, table: '| n |\n|---|\n| 3503 |\n', elapsed_ms: 1 } };
    }
    return { ok: true, value: null };
  });
  return { area, files, store, importer, host, calls };
}

const file = (name: string, text: string | Uint8Array) => new File([text as BlobPart], name);
const saved = (area: MemoryArea) => (area.data.get(DATABASES_KEY) ?? []) as DatabaseConnection[];

afterEach(() => vi.restoreAllMocks());

test('imports an SQLite file, shows its tables, saves descriptions, runs a test query, deletes after confirming', async () => {
  const { area, files, store, importer, host, calls } = setup();
  await render(Databases, { store, importer, host });
  await expect.element(page.getByText('No databases yet.')).toBeVisible();

  // Nothing filled in: each field says what it needs.
  await page.getByRole('button', { name: 'Import', exact: true }).click();
  await expect.element(page.getByText('Enter a db_id.')).toBeVisible();
  await expect.element(page.getByText('Choose a file to import.')).toBeVisible();

  await userEvent.fill(page.getByLabelText('db_id', { exact: true }), 'chinook');
  await userEvent.fill(page.getByLabelText('Name', { exact: true }).first(), 'Chinook');
  await userEvent.upload(page.getByLabelText('SQLite database file'), file('Chinook.sqlite', 'SQLite format 3\0…'));
  await page.getByRole('button', { name: 'Import', exact: true }).click();

  await expect.element(page.getByTestId('db-details')).toBeVisible();
  const row = document.querySelector('tr[data-db="chinook"]');
  expect(row?.querySelector('[data-testid="db-tables"]')?.textContent).toBe('1');
  expect(files.get('chinook')?.length).toBe(19);
  expect(importer.inspectSqlite).toHaveBeenCalledOnce();

  await userEvent.fill(page.getByLabelText('Description of the table Track'), 'One row per song.');
  await userEvent.fill(page.getByLabelText('Description of the column Milliseconds of Track'), 'Length in ms.');
  await page.getByRole('button', { name: 'Save descriptions' }).click();
  await expect.element(page.getByTestId('db-status')).toHaveTextContent('Saved.');
  expect(saved(area)[0]!.descriptions).toEqual({ tables: { Track: { description: 'One row per song.', columns: { Milliseconds: 'Length in ms.' } } } });

  await userEvent.fill(page.getByLabelText('Test query'), 'SELECT COUNT(*) AS n FROM Track');
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await expect.element(page.getByTestId('db-test-result')).toHaveTextContent('| 3503 |');
  expect(calls.at(-1)).toMatchObject({ op: 'query', ref: { dbId: 'chinook' }, sql: 'SELECT COUNT(*) AS n FROM Track' });
  await userEvent.fill(page.getByLabelText('Test query'), 'DELETE FROM Track');
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await expect.element(page.getByTestId('db-test-result')).toHaveAttribute('data-ok', 'false');
  await expect.element(page.getByTestId('db-test-result')).toHaveTextContent('DELETE is refused');

  const confirm = vi.spyOn(window, 'confirm').mockReturnValueOnce(false).mockReturnValueOnce(true);
  await page.getByRole('button', { name: 'Delete Chinook' }).click();
  expect(saved(area)).toHaveLength(1);
  await page.getByRole('button', { name: 'Delete Chinook' }).click();
  await expect.element(page.getByText('No databases yet.')).toBeVisible();
  expect(confirm).toHaveBeenCalledWith('Delete the database Chinook? Skills that use it stop working.');
  expect(files.has('chinook')).toBe(false);
  expect(calls.at(-1)).toEqual({ op: 'forget', dbId: 'chinook' });
});

test('CSV import: several files at once; a binary file is refused with the reason and nothing is saved', async () => {
  const { area, store, importer, host } = setup();
  await render(Databases, { store, importer, host });
  await userEvent.fill(page.getByLabelText('db_id', { exact: true }), 'sheets');
  await userEvent.fill(page.getByLabelText('Name', { exact: true }).first(), 'Sheets');
  await page.getByLabelText('CSV files', { exact: true }).click();
  const input = page.getByLabelText('CSV files (each becomes a table named after the file)');
  await expect.element(input).toHaveAttribute('multiple');

  await userEvent.upload(input, [file('Track.csv', 'a,b\n1,2\n'), file('photo.csv', new Uint8Array([0x89, 0x50, 0, 0]))]);
  await page.getByRole('button', { name: 'Import', exact: true }).click();
  await expect.element(page.getByRole('alert')).toHaveTextContent('"Track.csv" is not a CSV text file');
  expect(saved(area)).toEqual([]);

  await userEvent.upload(input, [file('Track.csv', 'a,b\n1,2\n'), file('Genre.csv', 'g\nrock\n')]);
  await page.getByRole('button', { name: 'Import', exact: true }).click();
  await expect.element(page.getByTestId('db-details')).toBeVisible();
  expect(vi.mocked(importer.csvToSqlite).mock.lastCall![0].map((f) => f.name)).toEqual(['Track.csv', 'Genre.csv']);
  expect(saved(area)[0]).toMatchObject({ db_id: 'sheets', source: 'csv', size: 3 });

  // A second database may not take the same db_id.
  await userEvent.fill(page.getByLabelText('db_id', { exact: true }), 'sheets');
  await userEvent.fill(page.getByLabelText('Name', { exact: true }).first(), 'Again');
  await userEvent.upload(input, [file('x.csv', 'a\n1\n')]);
  await page.getByRole('button', { name: 'Import', exact: true }).click();
  await expect.element(page.getByText('A database with the db_id "sheets" already exists.')).toBeVisible();
});

test('the skill form offers the database type with its template and help', async () => {
  const { store } = memorySkillStore();
  await render(Skills, { store });
  await page.getByRole('button', { name: 'New skill', exact: true }).click();
  const type = page.getByLabelText('Type', { exact: true });
  await userEvent.selectOptions(type, 'database');
  await expect.element(page.getByLabelText('Configuration (config_json)', { exact: true })).toHaveValue('{\n  "db_id": "…"\n}');
  await expect.element(page.getByTestId('skill-type-help')).toHaveTextContent(/db_id — the id of a database under Databases/);
});
