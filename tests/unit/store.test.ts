import 'fake-indexeddb/auto';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ConversationStore } from '../../lib/agent/conversation-store';
import { idleRun, type RunState, type StoredMessage } from '../../lib/contracts/conversation';

const stores: ConversationStore[] = [];
let clock = 0;

/** A fresh database per test; the shared fake-indexeddb factory keeps databases across connections. */
async function openStore(name = `store-test-${crypto.randomUUID()}`) {
  const store = await ConversationStore.open(name);
  stores.push(store);
  return { store, name };
}

const msg = (role: StoredMessage['role'], text: string): StoredMessage => ({ role, content: [{ type: 'text', text }], at: clock });
const running = (round: number): RunState => ({ ...idleRun(50), status: 'running', round, startedAt: 1 });

/** Counts raw records of one object store through a second connection to the same database. */
function countRecords(dbName: string, storeName: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const open = indexedDB.open(dbName);
    open.onerror = () => reject(open.error);
    open.onsuccess = () => {
      const db = open.result;
      const r = db.transaction(storeName, 'readonly').objectStore(storeName).count();
      r.onsuccess = () => {
        db.close();
        resolve(r.result);
      };
      r.onerror = () => reject(r.error);
    };
  });
}

beforeEach(() => {
  // Deterministic timestamps: updatedAt ordering must not depend on how fast the test runs.
  clock = 1_000;
  vi.spyOn(Date, 'now').mockImplementation(() => clock);
});

afterEach(() => {
  vi.restoreAllMocks();
  for (const s of stores.splice(0)) s.close();
});

describe('ConversationStore on fake-indexeddb', () => {
  it('creates a conversation and reads it back', async () => {
    const { store } = await openStore();
    const created = await store.create(25, 'First');
    expect(created).toMatchObject({ title: 'First', createdAt: 1_000, updatedAt: 1_000, messages: [] });
    expect(created.run).toEqual(idleRun(25));
    expect(created.id).toMatch(/^[0-9a-f-]{36}$/);

    expect(await store.get(created.id)).toEqual(created);
    expect(await store.get('no-such-id')).toBeUndefined();
  });

  it('lists conversations newest first by updatedAt, with their status', async () => {
    const { store } = await openStore();
    const a = await store.create(50, 'A');
    clock = 2_000;
    const b = await store.create(50, 'B');
    clock = 3_000;
    const c = await store.create(50, 'C');
    expect((await store.list()).map((s) => s.title)).toEqual(['C', 'B', 'A']);

    // Writing a message moves a conversation to the top.
    clock = 4_000;
    await store.append(a.id, 0, msg('user', 'hi'), { run: running(1) });
    const list = await store.list();
    expect(list.map((s) => s.id)).toEqual([a.id, c.id, b.id]);
    expect(list[0]).toEqual({ id: a.id, title: 'A', updatedAt: 4_000, status: 'running' });
    expect(list[1]).toEqual({ id: c.id, title: 'C', updatedAt: 3_000, status: 'idle' });
  });

  it('appends messages in order together with the run state', async () => {
    const { store } = await openStore();
    const { id } = await store.create(50);
    clock = 1_500;
    await store.append(id, 0, msg('user', 'question'), { run: running(0) });
    clock = 1_600;
    await store.append(id, 1, msg('assistant', 'answer'), { run: running(1) });

    const conv = (await store.get(id))!;
    expect(conv.messages.map((m) => m.content[0])).toEqual([
      { type: 'text', text: 'question' },
      { type: 'text', text: 'answer' },
    ]);
    expect(conv.run).toEqual(running(1));
    expect(conv.updatedAt).toBe(1_600);
    expect(conv.createdAt).toBe(1_000);
  });

  it('sorts messages by seq, numerically, not by insertion or as strings', async () => {
    const { store } = await openStore();
    const { id } = await store.create(50);
    for (const seq of [10, 2, 0, 1]) await store.append(id, seq, msg('user', `m${seq}`));
    const conv = (await store.get(id))!;
    expect(conv.messages.map((m) => (m.content[0] as { text: string }).text)).toEqual(['m0', 'm1', 'm2', 'm10']);
  });

  it('writes a message and the run state atomically: a failed run write leaves no message behind', async () => {
    const { store } = await openStore();
    const { id } = await store.create(50);
    await store.append(id, 0, msg('user', 'kept'), { run: running(1) });

    // A run state that cannot be stored (functions are not structured-cloneable) fails the
    // conversation write after the message write was queued in the same transaction.
    const unstorable = { ...running(2), bogus: () => {} } as unknown as RunState;
    await expect(store.append(id, 1, msg('assistant', 'lost'), { run: unstorable })).rejects.toBeDefined();

    const conv = (await store.get(id))!;
    expect(conv.messages).toHaveLength(1);
    expect(conv.run).toEqual(running(1));
  });

  it('truncates from a seq on and keeps the rest; later appends continue from there', async () => {
    const { store } = await openStore();
    const { id } = await store.create(50);
    for (let i = 0; i < 5; i++) await store.append(id, i, msg(i % 2 ? 'assistant' : 'user', `m${i}`));
    clock = 9_000;
    await store.truncate(id, 2, { run: running(0) });

    let conv = (await store.get(id))!;
    expect(conv.messages.map((m) => (m.content[0] as { text: string }).text)).toEqual(['m0', 'm1']);
    expect(conv.run).toEqual(running(0));
    expect(conv.updatedAt).toBe(9_000);

    await store.append(id, 2, msg('user', 'again'));
    conv = (await store.get(id))!;
    expect(conv.messages.map((m) => (m.content[0] as { text: string }).text)).toEqual(['m0', 'm1', 'again']);
  });

  it('renames a conversation and keeps everything else', async () => {
    const { store } = await openStore();
    const { id } = await store.create(50, 'Old name');
    await store.append(id, 0, msg('user', 'hi'));
    await store.update(id, { title: 'New name' });

    const conv = (await store.get(id))!;
    expect(conv.title).toBe('New name');
    expect(conv.messages).toHaveLength(1);
    expect(conv.createdAt).toBe(1_000);
    expect((await store.list())[0]!.title).toBe('New name');

    await store.setRun(id, { ...running(3), status: 'done' });
    expect((await store.get(id))!).toMatchObject({ title: 'New name', run: { status: 'done', round: 3 } });
  });

  it('update of an unknown id does not create a record', async () => {
    const { store } = await openStore();
    await store.update('ghost', { title: 'x' });
    expect(await store.get('ghost')).toBeUndefined();
    expect(await store.list()).toEqual([]);
  });

  it('deletes a conversation together with its messages, and only its own', async () => {
    const { store, name } = await openStore();
    const gone = await store.create(50, 'gone');
    const kept = await store.create(50, 'kept');
    for (let i = 0; i < 3; i++) await store.append(gone.id, i, msg('user', `g${i}`));
    for (let i = 0; i < 2; i++) await store.append(kept.id, i, msg('user', `k${i}`));
    expect(await countRecords(name, 'messages')).toBe(5);

    await store.delete(gone.id);
    expect(await store.get(gone.id)).toBeUndefined();
    expect((await store.list()).map((s) => s.id)).toEqual([kept.id]);
    expect(await countRecords(name, 'messages')).toBe(2);
    expect((await store.get(kept.id))!.messages).toHaveLength(2);
  });

  it('keeps the data when the store is closed and opened again', async () => {
    const { store, name } = await openStore();
    const { id } = await store.create(50, 'Durable');
    await store.append(id, 0, msg('user', 'remember me'), { run: running(1) });
    await store.append(id, 1, {
      role: 'assistant',
      at: 1,
      content: [{ type: 'tool_use', id: 'toolu_1', name: 'list_tasks', input: { nested: { a: [1, 2] } } }],
    });
    const before = await store.get(id);
    store.close();

    const { store: reopened } = await openStore(name);
    expect(await reopened.get(id)).toEqual(before);
    expect(await reopened.list()).toEqual([{ id, title: 'Durable', updatedAt: 1_000, status: 'running' }]);
  });
});
