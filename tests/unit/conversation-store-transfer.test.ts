import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it } from 'vitest';
import { cpuMsAsync } from '../harness/cpu-time';
import { ConversationStore } from '../../lib/agent/conversation-store';
import { idleRun, type Conversation, type StoredMessage } from '../../lib/contracts/conversation';

const stores: ConversationStore[] = [];
async function openStore() {
  const store = await ConversationStore.open(`transfer-test-${crypto.randomUUID()}`);
  stores.push(store);
  return store;
}
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
});

const text = (role: StoredMessage['role'], t: string, at = 1): StoredMessage => ({ role, content: [{ type: 'text', text: t }], at });

function conversation(title: string, messages: StoredMessage[], updatedAt = 10): Conversation {
  return { id: 'from-the-file', title, createdAt: 5, updatedAt, messages, run: { ...idleRun(50), status: 'done' }, totals: { usage: { input: 1, output: 2, cacheRead: 3, cacheWrite: 4 }, cost: 0.5, unpricedTokens: 0 } };
}

describe('ConversationStore.import', () => {
  it('writes the conversation under a new id, and the same file twice as two conversations', async () => {
    const store = await openStore();
    const existing = await store.create(50, 'Already here');
    const file = conversation('Imported', [text('user', 'Hello'), text('assistant', 'Hi there')]);
    const a = await store.import(file);
    const b = await store.import(file);
    expect(new Set([existing.id, a.id, b.id, file.id]).size).toBe(4);
    const { id: _id, ...rest } = file;
    expect(await store.get(a.id)).toStrictEqual({ ...rest, id: a.id });
    expect(await store.get(b.id)).toStrictEqual({ ...rest, id: b.id });
    expect((await store.get(existing.id))?.title).toBe('Already here');
    expect(await store.get(file.id)).toBeUndefined();
    expect((await store.list()).map((c) => c.title).sort()).toEqual(['Already here', 'Imported', 'Imported']);
  });

  it('writes all of it or nothing: a message that cannot be stored leaves no half conversation', async () => {
    const store = await openStore();
    const bad = conversation('Broken', [text('user', 'fine'), { ...text('assistant', 'x'), at: (() => 1) as unknown as number }]);
    await expect(store.import(bad)).rejects.toThrow();
    expect(await store.list()).toEqual([]);
  });
});

describe('ConversationStore.search', () => {
  async function seeded() {
    const store = await openStore();
    const result = { role: 'user' as const, content: [{ type: 'tool_result' as const, tool_use_id: 't1', content: 'The invoice number is 4711' }], at: 1 };
    const call = { role: 'assistant' as const, content: [{ type: 'tool_use' as const, id: 't1', name: 'get_tab_content', input: { tab_id: 1 } }], at: 1 };
    const trip = await store.import(conversation('Trip to Seoul', [text('user', 'Plan three days'), text('assistant', 'Day one: Gyeongbokgung.')], 30));
    const tax = await store.import(conversation('Taxes', [text('user', 'Read my page'), call, result, text('assistant', 'I read it. Your Invoice is due on Friday, says the page.')], 20));
    const empty = await store.import(conversation('', [], 10));
    return { store, trip, tax, empty };
  }

  it('lists every conversation, newest first, for an empty query', async () => {
    const { store, trip, tax, empty } = await seeded();
    expect((await store.search('  ')).map((c) => c.id)).toEqual([trip.id, tax.id, empty.id]);
  });

  it('finds a title or the text either side wrote, in any case, with the words around it', async () => {
    const { store, trip, tax } = await seeded();
    expect(await store.search('seoul')).toEqual([{ id: trip.id, title: 'Trip to Seoul', updatedAt: 30, status: 'done' }]);
    expect(await store.search('GYEONGBOKGUNG')).toEqual([{ id: trip.id, title: 'Trip to Seoul', updatedAt: 30, status: 'done', snippet: 'Day one: Gyeongbokgung.' }]);
    expect(await store.search('invoice')).toEqual([{ id: tax.id, title: 'Taxes', updatedAt: 20, status: 'done', snippet: 'I read it. Your Invoice is due on Friday, says the page.' }]);
  });

  it("does not look in tool results (the page's text, not what was said)", async () => {
    const { store } = await seeded();
    expect(await store.search('4711')).toEqual([]);
  });

  it('cuts a long message to the words around the match', async () => {
    const store = await openStore();
    const long = `${'a'.repeat(500)} needle ${'b'.repeat(500)}`;
    const c = await store.import(conversation('Long', [text('user', long)]));
    const [found] = await store.search('needle');
    expect(found?.id).toBe(c.id);
    expect(found?.snippet).toBe(`…${'a'.repeat(59)} needle ${'b'.repeat(59)}…`);
  });

  it('stays quick over 300 conversations of 20 messages (fake IndexedDB; real browsers in the e2e)', async () => {
    const store = await openStore();
    for (let i = 0; i < 300; i++) {
      const messages = Array.from({ length: 20 }, (_, j) => text(j % 2 ? 'assistant' : 'user', `Message ${j} of conversation ${i}: ${'lorem ipsum dolor sit amet '.repeat(20)}`));
      if (i === 150) messages[17] = text('assistant', 'the zebra is here');
      await store.import(conversation(`Conversation ${i}`, messages, i));
    }
    const [found, ms] = await cpuMsAsync(() => store.search('zebra'));
    console.log(`search over 300 conversations × 20 messages (fake-indexeddb): ${ms.toFixed(0)} ms of CPU`);
    expect(found.map((c) => c.title)).toEqual(['Conversation 150']);
    expect(ms).toBeLessThan(5000);
  });
});
