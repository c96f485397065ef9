/**
 * The database skill tool over the real engine in Node: the host is the engine called in
 * process (the extension's host sends the same calls to a worker).
 */
import { CHINOOK_PATH } from '../harness/fixtures';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectionStore, type KeyValueArea } from '../../lib/database/connections';
import { csvToDatabase, DatabaseError, openDatabase, type ReadOnlyDb } from '../../lib/database';
import { databaseHostFrom, type DatabaseHost } from '../../lib/database/host';
import { defaultSettings } from '../../lib/settings';
import { parseSkillConfig } from '../../lib/skills/config';
import { createDatabaseSkillTools, formatResult } from '../../lib/skills/database';
import type { SkillServices } from '../../lib/skills/services';
import { buildSkillTools } from '../../lib/skills/tools';
import type { SkillRecord } from '../../lib/skills/types';
import { detachedEnv } from '../../lib/tools/env';
import { ToolRegistry, type ToolContext } from '../../lib/tools/registry';
import { TaskBoard } from '../../lib/tools/task-board';

const CHINOOK = CHINOOK_PATH;
/** browser.storage.local as the store sees it, in memory; values are copied as storage would. */
class MemoryArea implements KeyValueArea {
  data = new Map<string, unknown>();
  async get(key: string) {
    return this.data.has(key) ? { [key]: structuredClone(this.data.get(key)) } : {};
  }
  async set(items: Record<string, unknown>) {
    for (const [k, v] of Object.entries(items)) this.data.set(k, structuredClone(v));
  }
}

const services = { profiles: async () => [], mcp: {} } as unknown as SkillServices;

let chinook: ReadOnlyDb;
let store: ConnectionStore;
const files = new Map<string, Uint8Array>();
const open = new Map<string, ReadOnlyDb>();

/** A host that runs the engine in this process, on the files the store wrote. */
const host: DatabaseHost = databaseHostFrom(async (call) => {
  try {
    if (call.op === 'forget') return { ok: true, value: null };
    let db = open.get(call.ref.dbId);
    if (!db) {
      const bytes = files.get(call.ref.dbId);
      if (!bytes) throw new DatabaseError('unknown_database', `The database "${call.ref.dbId}" has no stored file.`);
      open.set(call.ref.dbId, (db = await openDatabase(bytes)));
    }
    return { ok: true, value: call.op === 'query' ? db.query(call.sql, call.options) : db.schema() };
  } catch (e) {
    if (e instanceof DatabaseError) return { ok: false, code: e.code, message: e.message };
    throw e;
  }
});

beforeAll(async () => {
  const bytes = new Uint8Array(fs.readFileSync(CHINOOK));
  chinook = await openDatabase(bytes);
  store = new ConnectionStore(new MemoryArea(), { write: async (id, b) => void files.set(id, b), remove: async (id) => void files.delete(id) });
  const made = await store.create({ db_id: 'chinook', name: 'Chinook', source: 'sqlite', schema: chinook.schema(), bytes });
  if (!made.ok) throw new Error(JSON.stringify(made.errors));
  await store.describe('chinook', { tables: { Track: { description: 'One row per song.', columns: { Milliseconds: 'Length in ms.' } } } });
});
afterAll(() => {
  chinook?.close();
  for (const db of open.values()) db.close();
});

function skill(name: string, dbId: string, description = 'The music store.'): SkillRecord {
  return { id: `id-${name}`, name, description, skill_type: 'database', config_json: JSON.stringify({ db_id: dbId }), is_active: true, created_at: 0, updated_at: 0 };
}

const context = (): ToolContext => ({ conversationId: 'c', signal: new AbortController().signal, tasks: new TaskBoard(), env: { ...detachedEnv(defaultSettings()), database: host } });
const factory = () => createDatabaseSkillTools(() => store);

async function registryFor(record: SkillRecord) {
  const parsed = parseSkillConfig('database', record.config_json);
  if (!parsed.ok) throw new Error(parsed.errors.join(' '));
  return new ToolRegistry(await factory()(record, parsed.config as { db_id: string }, services));
}

describe('database skill tool', () => {
  it('describes itself with the skill description, the schema, row counts and the user descriptions', async () => {
    const [tool] = await factory()(skill('music', 'chinook'), { db_id: 'chinook' }, services);
    expect(tool!.name).toBe('music');
    expect(tool!.description).toMatch(/^The music store\.\n\nDatabase "Chinook"\. SQLite database, read-only/);
    expect(tool!.description).toContain('Track (3,503 rows): One row per song.');
    expect(tool!.description).toContain('Milliseconds INTEGER NOT NULL — Length in ms.');
    expect(tool!.description).toContain('ArtistId INTEGER NOT NULL → Artist(ArtistId)');
  });

  it('answers a join with a compact table, a count and the truncated flag', async () => {
    const registry = await registryFor(skill('music', 'chinook'));
    const out = await registry.call('music', { sql: 'SELECT g.Name, COUNT(*) AS n FROM Track t JOIN Genre g USING (GenreId) GROUP BY 1 ORDER BY 2 DESC LIMIT 2' }, context());
    expect(out).toEqual({ isError: false, content: '| Name | n |\n|---|---|\n| Rock | 1297 |\n| Latin | 579 |\nrows: 2, shown: 2, truncated: false' });
    const big = await registry.call('music', { sql: 'SELECT * FROM Track' }, context());
    expect(big.content).toMatch(/showing 200 of 3,503 rows \(truncated\)\nrows: 3503, shown: 200, truncated: true$/);
  });

  it('bad input: unknown db_id fails the factory, which buildSkillTools turns into a notice', async () => {
    await expect(factory()(skill('ghost', 'nope'), { db_id: 'nope' }, services)).rejects.toThrow('The database "nope" does not exist');
    // The registered factory reads browser storage; the message shape is the same.
    const built = await buildSkillTools([{ ...skill('ghost', 'nope') }], services, new Set());
    expect(built.tools).toEqual([]);
    expect(built.problems[0]).toMatchObject({ skill: 'ghost' });
  });

  it('bad input: empty SQL, a syntax error, a write, a 1 MB query, a missing argument', async () => {
    const registry = await registryFor(skill('music', 'chinook'));
    const run = (input: unknown) => registry.call('music', input, context());
    expect(await run({ sql: '  ' })).toEqual({ isError: true, content: expect.stringContaining('The SQL is empty') });
    expect(await run({ sql: 'SELEC 1' })).toEqual({ isError: true, content: expect.stringContaining('syntax error') });
    expect(await run({ sql: 'DELETE FROM Track' })).toEqual({ isError: true, content: expect.stringMatching(/refused|only SELECT/) });
    const huge = await run({ sql: `SELECT 1 -- ${'x'.repeat(1024 * 1024)}` });
    expect(huge).toEqual({ isError: true, content: expect.stringMatching(/"sql": the SQL is 1,048,588 characters long; the limit is 100,000/) });
    expect(await run({})).toEqual({ isError: true, content: expect.stringContaining('"sql" is required') });
  });

  it('bad input: a database deleted after the tools were built gives a clear tool error', async () => {
    const bytes = (await csvToDatabase([{ name: 'sales', csv: 'region,amount\nnorth,10\nsouth,20\n' }])).bytes;
    const schema = (await openDatabase(bytes)).schema();
    await store.create({ db_id: 'sales', name: 'Sales', source: 'csv', schema, bytes });
    const registry = await registryFor(skill('sales_sql', 'sales'));
    expect((await registry.call('sales_sql', { sql: 'SELECT SUM(amount) FROM sales' }, context())).content).toContain('| 30 |');
    await store.remove('sales');
    expect(await registry.call('sales_sql', { sql: 'SELECT 1' }, context())).toEqual({ isError: true, content: expect.stringContaining('The database "sales" does not exist') });
  });

  it('formatResult says when the total was too large to count', () => {
    expect(formatResult({ columns: ['a'], rows: [[1]], row_count: null, truncated: true, table: '| a |\n|---|\n| 1 |\n', elapsed_ms: 1 })).toMatch(/rows: more than 1, shown: 1, truncated: true$/);
  });
});

describe('database connections', () => {
  const conn = (s: ConnectionStore) => s.list();

  it('checks db_id and name, refuses duplicates, keeps the file and record together', async () => {
    const written = new Map<string, number>();
    let t = 100;
    const s = new ConnectionStore(new MemoryArea(), { write: async (id, b) => void written.set(id, b.length), remove: async (id) => void written.delete(id) }, () => t++);
    const bytes = new Uint8Array(fs.readFileSync(CHINOOK));
    const schema = chinook.schema();
    expect(s.check({ db_id: '', name: '' }, [])).toEqual({ db_id: 'Enter a db_id.', name: 'Enter a name.' });
    expect(s.check({ db_id: '../x', name: 'n' }, []).db_id).toMatch(/letters, digits/);
    const made = await s.create({ db_id: 'music', name: ' Music ', source: 'sqlite', schema, bytes });
    expect(made).toMatchObject({ ok: true, connection: { db_id: 'music', name: 'Music', size: bytes.length, created_at: 100, updated_at: 100 } });
    expect(written.get('music')).toBe(bytes.length);
    expect(await s.create({ db_id: 'music', name: 'Again', source: 'sqlite', schema, bytes })).toMatchObject({ ok: false, errors: { db_id: expect.stringContaining('already exists') } });

    expect(await s.rename('music', '  ')).toMatchObject({ ok: false, errors: { name: 'Enter a name.' } });
    expect(await s.rename('music', 'Music store')).toMatchObject({ ok: true, connection: { name: 'Music store', created_at: 100, updated_at: 101 } });
    const described = await s.describe('music', { tables: { Track: { description: '  songs ', columns: { Name: '', Bytes: 'size' } }, Empty: { description: ' ' } } });
    expect(described).toMatchObject({ ok: true, connection: { descriptions: { tables: { Track: { description: 'songs', columns: { Bytes: 'size' } } } } } });
    expect(await s.describe('gone', {})).toMatchObject({ ok: false });

    await s.remove('music');
    expect(await conn(s)).toEqual([]);
    expect(written.has('music')).toBe(false);
  });

  it('removes the written file when the record cannot be saved', async () => {
    const removed: string[] = [];
    const area = new MemoryArea();
    area.set = async () => {
      throw new Error('QuotaExceededError');
    };
    const s = new ConnectionStore(area, { write: async () => {}, remove: async (id) => void removed.push(id) });
    await expect(s.create({ db_id: 'x', name: 'X', source: 'csv', schema: { tables: [] }, bytes: new Uint8Array(4) })).rejects.toThrow('Quota');
    expect(removed).toEqual(['x']);
  });
});

