/**
 * Database connections: what Settings → Databases lists and database skills name by db_id.
 * The records live in browser.storage.local (key DATABASES_KEY); each one's SQLite file lives in
 * OPFS (files.ts). The file never changes after the import, so the schema read from it then is
 * kept in the record: a run builds its tool description without opening the database.
 */
import type { DatabaseSchema } from './schema';
import type { DatabaseDescriptions } from './schema-text';
import { DB_ID_PATTERN } from './files';

export const DATABASES_KEY = 'databases';

export type DatabaseSource = 'sqlite' | 'csv';

export interface DatabaseConnection {
  db_id: string;
  name: string;
  source: DatabaseSource;
  /** The user's descriptions of tables and columns, given to the model with the schema. */
  descriptions: DatabaseDescriptions;
  /** Tables, columns, types and row counts, read from the file when it was imported. */
  schema: DatabaseSchema;
  /** The file's size in bytes. */
  size: number;
  /** Also the version the query worker caches an open database under: the file is written only
   *  when the connection is created, so db_id + created_at names one file's content. */
  created_at: number;
  updated_at: number;
}

export interface NewConnection {
  db_id: string;
  name: string;
  source: DatabaseSource;
  schema: DatabaseSchema;
  bytes: Uint8Array;
  descriptions?: DatabaseDescriptions;
}

/** The storage area the records sit on (browser.storage.local, or a Map in tests). */
export interface KeyValueArea {
  get(key: string): Promise<Record<string, unknown>>;
  set(items: Record<string, unknown>): Promise<void>;
}

/** Where the files go (OPFS in the extension, memory in tests). */
export interface DatabaseFiles {
  write(dbId: string, bytes: Uint8Array): Promise<void>;
  remove(dbId: string): Promise<void>;
}

export type ConnectionErrors = Partial<Record<'db_id' | 'name', string>>;
export type ConnectionResult = { ok: true; connection: DatabaseConnection } | { ok: false; errors: ConnectionErrors };

export const MAX_NAME_CHARS = 100;
export const MAX_DESCRIPTION_CHARS = 2_000;

export class ConnectionStore {
  constructor(
    private readonly area: KeyValueArea,
    private readonly files: DatabaseFiles,
    private readonly now: () => number = Date.now,
  ) {}

  async list(): Promise<DatabaseConnection[]> {
    const got = (await this.area.get(DATABASES_KEY))[DATABASES_KEY];
    return Array.isArray(got) ? (got as DatabaseConnection[]) : [];
  }

  async get(dbId: string): Promise<DatabaseConnection | undefined> {
    return (await this.list()).find((c) => c.db_id === dbId);
  }

  /** What is wrong with a new connection's id and name, in the form's words. */
  check(draft: { db_id: string; name: string }, existing: readonly DatabaseConnection[]): ConnectionErrors {
    const errors: ConnectionErrors = {};
    const id = draft.db_id.trim();
    if (!id) errors.db_id = 'Enter a db_id.';
    else if (!DB_ID_PATTERN.test(id)) errors.db_id = 'A db_id is 1–64 letters, digits, "_" or "-".';
    else if (existing.some((c) => c.db_id === id)) errors.db_id = `A database with the db_id "${id}" already exists.`;
    const nameError = checkName(draft.name);
    if (nameError) errors.name = nameError;
    return errors;
  }

  /** Stores the file, then the record: a record never names a file that is not there. */
  async create(draft: NewConnection): Promise<ConnectionResult> {
    const all = await this.list();
    const errors = this.check(draft, all);
    if (Object.keys(errors).length) return { ok: false, errors };
    const at = this.now();
    const connection: DatabaseConnection = {
      db_id: draft.db_id.trim(),
      name: draft.name.trim(),
      source: draft.source,
      descriptions: cleanDescriptions(draft.descriptions ?? {}),
      schema: draft.schema,
      size: draft.bytes.byteLength,
      created_at: at,
      updated_at: at,
    };
    await this.files.write(connection.db_id, draft.bytes);
    try {
      // Read again: another page may have saved meanwhile.
      const latest = await this.list();
      if (latest.some((c) => c.db_id === connection.db_id)) return { ok: false, errors: { db_id: `A database with the db_id "${connection.db_id}" already exists.` } };
      await this.area.set({ [DATABASES_KEY]: [...latest, connection] });
    } catch (e) {
      await this.files.remove(connection.db_id).catch(() => {});
      throw e;
    }
    return { ok: true, connection };
  }

  async rename(dbId: string, name: string): Promise<ConnectionResult> {
    const error = checkName(name);
    if (error) return { ok: false, errors: { name: error } };
    return this.update(dbId, (c) => ({ ...c, name: name.trim() }));
  }

  async describe(dbId: string, descriptions: DatabaseDescriptions): Promise<ConnectionResult> {
    return this.update(dbId, (c) => ({ ...c, descriptions: cleanDescriptions(descriptions) }));
  }

  /** Removes the record first: from then on no run can reach the file being deleted. */
  async remove(dbId: string): Promise<void> {
    const all = await this.list();
    await this.area.set({ [DATABASES_KEY]: all.filter((c) => c.db_id !== dbId) });
    await this.files.remove(dbId);
  }

  private async update(dbId: string, change: (c: DatabaseConnection) => DatabaseConnection): Promise<ConnectionResult> {
    const all = await this.list();
    const i = all.findIndex((c) => c.db_id === dbId);
    if (i < 0) return { ok: false, errors: { db_id: `The database "${dbId}" no longer exists.` } };
    const next = { ...change(all[i]!), updated_at: this.now() };
    all[i] = next;
    await this.area.set({ [DATABASES_KEY]: all });
    return { ok: true, connection: next };
  }
}

function checkName(name: string): string | undefined {
  const n = name.trim();
  if (!n) return 'Enter a name.';
  if (n.length > MAX_NAME_CHARS) return `A name is at most ${MAX_NAME_CHARS} characters.`;
  return undefined;
}

/** Blank descriptions are dropped, long ones cut: they go into every run's tool description. */
export function cleanDescriptions(input: DatabaseDescriptions): DatabaseDescriptions {
  const cut = (s: unknown) => (typeof s === 'string' ? s.trim().slice(0, MAX_DESCRIPTION_CHARS) : '');
  const tables: NonNullable<DatabaseDescriptions['tables']> = {};
  for (const [table, about] of Object.entries(input.tables ?? {})) {
    const description = cut(about?.description);
    const columns: Record<string, string> = {};
    for (const [column, text] of Object.entries(about?.columns ?? {})) {
      const c = cut(text);
      if (c) columns[column] = c;
    }
    if (description || Object.keys(columns).length) tables[table] = { ...(description ? { description } : {}), ...(Object.keys(columns).length ? { columns } : {}) };
  }
  return { tables };
}

/** The reference a DatabaseHost opens: see created_at. */
export function databaseRef(connection: DatabaseConnection): { dbId: string; version: number } {
  return { dbId: connection.db_id, version: connection.created_at };
}
