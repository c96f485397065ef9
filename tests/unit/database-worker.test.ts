/** The query worker's message handling in Node, with the OPFS files replaced by a Map. */
import { CHINOOK_PATH } from '../harness/fixtures';
import fs from 'node:fs';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { DatabaseWorkerReply, DatabaseWorkerRequest } from '../../lib/database/worker-protocol';

const stored = new Map<string, Uint8Array>();
const reads: string[] = [];
vi.mock('../../lib/database/files', () => ({
  readDatabaseFile: async (id: string) => {
    reads.push(id);
    return stored.get(id) ?? null;
  },
}));
const { startDatabaseWorker } = await import('../../lib/database/worker');

const CHINOOK = new Uint8Array(fs.readFileSync(CHINOOK_PATH));

function worker() {
  let listener: ((e: MessageEvent<DatabaseWorkerRequest>) => void) | undefined;
  const replies = new Map<number, (r: DatabaseWorkerReply) => void>();
  startDatabaseWorker({
    addEventListener: (_type, l) => void (listener = l),
    postMessage: (reply) => replies.get(reply.id)?.(reply),
  });
  let id = 0;
  return (request: Record<string, unknown>) =>
    new Promise<DatabaseWorkerReply>((resolve) => {
      const n = ++id;
      replies.set(n, resolve);
      listener!({ data: { ...request, id: n } } as unknown as MessageEvent<DatabaseWorkerRequest>);
    });
}

beforeEach(() => {
  stored.clear();
  reads.length = 0;
});

describe('database worker', () => {
  it('keeps a database open per version and reads the file again for a new one', async () => {
    stored.set('music', CHINOOK);
    const ask = worker();
    const q = (version: number) => ask({ op: 'query', dbId: 'music', version, sql: 'SELECT COUNT(*) FROM Artist' });
    expect(await q(1)).toMatchObject({ ok: true, value: { rows: [[275]] } });
    expect(await q(1)).toMatchObject({ ok: true });
    expect(reads).toEqual(['music']);
    expect(await q(2)).toMatchObject({ ok: true });
    expect(reads).toEqual(['music', 'music']);
    expect(await ask({ op: 'schema', dbId: 'music', version: 2 })).toMatchObject({ ok: true, value: { tables: expect.arrayContaining([expect.objectContaining({ name: 'Track', row_count: 3503 })]) } });
  });

  it('answers requests in the order they came, a refusal included', async () => {
    stored.set('music', CHINOOK);
    const ask = worker();
    const replies = await Promise.all([
      ask({ op: 'query', dbId: 'music', version: 1, sql: 'SELECT 1' }),
      ask({ op: 'query', dbId: 'music', version: 1, sql: 'DROP TABLE Track' }),
      ask({ op: 'query', dbId: 'music', version: 1, sql: 'SELECT COUNT(*) FROM Track' }),
    ]);
    expect(replies.map((r) => r.ok)).toEqual([true, false, true]);
    expect(replies[1]).toMatchObject({ code: 'not_read_only' });
  });

  it('bad input: a database without a file, a binary CSV, a file that is not SQLite', async () => {
    const ask = worker();
    expect(await ask({ op: 'query', dbId: 'gone', version: 1, sql: 'SELECT 1' })).toMatchObject({ ok: false, code: 'unknown_database', message: expect.stringContaining('"gone" has no stored file') });
    expect(await ask({ op: 'import-csv', files: [{ name: 'data.csv', bytes: CHINOOK }] })).toMatchObject({ ok: false, code: 'not_csv', message: expect.stringContaining('not a CSV text file') });
    expect(await ask({ op: 'inspect', bytes: new TextEncoder().encode('a,b\n1,2\n') })).toMatchObject({ ok: false, code: 'not_sqlite' });
  });

  it('imports CSV files into a database it can inspect', async () => {
    const ask = worker();
    const csv = (text: string) => new TextEncoder().encode(text);
    const made = await ask({ op: 'import-csv', files: [{ name: 'sales.csv', bytes: csv('region,amount\nnorth,1.5\nsouth,2\n') }, { name: 'regions.csv', bytes: csv('name\nnorth\nsouth\n') }] });
    expect(made).toMatchObject({ ok: true, value: { tables: [{ name: 'sales', rows: 2 }, { name: 'regions', rows: 2 }] } });
    const bytes = (made as { value: { bytes: Uint8Array } }).value.bytes;
    expect(bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength).toBe(true);
    expect(await ask({ op: 'inspect', bytes })).toMatchObject({ ok: true, value: { tables: [{ name: 'regions' }, { name: 'sales', columns: [{ name: 'region', type: 'TEXT' }, { name: 'amount', type: 'REAL' }] }] } });
  });
});
