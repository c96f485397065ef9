/**
 * The run log's store in (fake) IndexedDB: the caps drop the oldest runs first and never the one
 * being written; a run that alone outgrows the size cap keeps counting what it no longer keeps;
 * shared parts of a thread's requests are stored once and read back whole; a clear while a run
 * goes on; records that do not read are skipped and counted.
 */
import 'fake-indexeddb/auto';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunLogExchange } from '../../lib/contracts/run-log';
import { RunLogStore } from '../../lib/storage/run-log-store';

const open: RunLogStore[] = [];
afterEach(() => {
  for (const s of open.splice(0)) s.close();
});

async function store(limits: { maxRuns?: number; maxBytes?: number } = {}, name = `rls-${crypto.randomUUID()}`) {
  const s = await RunLogStore.open(indexedDB, { name, ...limits });
  open.push(s);
  return s;
}

const SYSTEM = [{ type: 'text', text: 'You are Pagewright. '.repeat(20) }];
const TOOLS = [{ name: 'get_tab_content', description: 'Reads a tab.', input_schema: { type: 'object', properties: {} } }];

/** A request of a growing conversation: `turns` user/assistant pairs after `first`. */
function exchange(index: number, turns: number, { first = 'Summarise the page', model = 'm', outcome = 'ok' as RunLogExchange['outcome'], pad = 0 } = {}): RunLogExchange {
  const messages: unknown[] = [{ role: 'user', content: first }];
  for (let i = 0; i < turns; i++) {
    messages.push({ role: 'assistant', content: [{ type: 'text', text: `answer ${i} ${'x'.repeat(pad)}` }] });
    messages.push({ role: 'user', content: [{ type: 'text', text: `more ${i}` }] });
  }
  return {
    index,
    startedAt: 1000 + index,
    firstEventMs: 5,
    durationMs: 20,
    request: { model, max_tokens: 100, system: SYSTEM, tools: TOOLS, messages, stream: true },
    outcome,
    ...(outcome === 'ok'
      ? { response: { message: { content: [{ type: 'text', text: `reply ${index}` }] }, events: [{ t: 1, event: { type: 'message_stop' } }], eventCount: 1, eventsDropped: 0 } }
      : { error: { name: 'APIError', message: '529 Overloaded', status: 529, body: { type: 'error' } } }),
  };
}

const run = (s: RunLogStore, n: number, startedAt = n) => s.startRun({ conversationId: `c${n}`, title: `Run ${n}`, endpoint: 'http://127.0.0.1:1', startedAt });

describe('the run log store', () => {
  it('keeps at most maxRuns runs, dropping the oldest with their requests', async () => {
    const s = await store({ maxRuns: 3 });
    for (let n = 1; n <= 5; n++) {
      const w = run(s, n);
      await w.record(exchange(0, 0));
      await w.record(exchange(1, 1));
    }
    const { items } = await s.runs();
    expect(items.map((r) => r.title)).toEqual(['Run 5', 'Run 4', 'Run 3']);
    expect(items[0]).toMatchObject({ conversationId: 'c5', requests: 2, failed: 0, status: 'ok', models: ['m'], dropped: 0 });
    const dropped = (await s.runs()).items.find((r) => r.title === 'Run 1');
    expect(dropped).toBeUndefined();
    // The oldest run's requests went with it.
    const file = await s.file();
    expect(file.runs.map((r) => r.exchanges.length)).toEqual([2, 2, 2]);
  });

  it('drops the oldest runs first when the size cap is passed, never the run being written', async () => {
    const probe = await store();
    const w0 = run(probe, 0);
    await w0.record(exchange(0, 0, { pad: 2000 }));
    const one = (await probe.runs()).items[0]!.bytes;
    // Room for about three runs of one such request.
    const s = await store({ maxBytes: one * 3 + one / 2 });
    for (let n = 1; n <= 4; n++) await run(s, n).record(exchange(0, 0, { pad: 2000 }));
    const { items } = await s.runs();
    expect(items.map((r) => r.title)).toEqual(['Run 4', 'Run 3', 'Run 2']);
    expect(items.reduce((n, r) => n + r.bytes, 0)).toBeLessThanOrEqual(s.maxBytes);
  });

  it('a run that alone outgrows the cap keeps counting its requests, stops keeping them, and is kept itself', async () => {
    const s = await store({ maxBytes: 20_000 });
    await run(s, 1).record(exchange(0, 0));
    const w = run(s, 2);
    for (let i = 0; i < 6; i++) await w.record(exchange(i, i, { first: `thread ${i}`, pad: 3000 }));
    const { items } = await s.runs();
    expect(items[0]!.title).toBe('Run 2');
    expect(items.reduce((n, r) => n + r.bytes, 0)).toBeLessThanOrEqual(20_000);
    expect(items[0]!.requests).toBe(6);
    expect(items[0]!.dropped).toBeGreaterThan(0);
    expect(items[0]!.bytes).toBeLessThanOrEqual(20_000);
    expect((await s.exchanges(items[0]!.id)).items).toHaveLength(6 - items[0]!.dropped);
  });

  it('stores what a request repeats of the previous one in its thread once, and reads every request back whole', async () => {
    const s = await store();
    const w = run(s, 1);
    const sent = [exchange(0, 0), exchange(1, 1), exchange(2, 0, { first: 'a sub-agent task' }), exchange(3, 2), exchange(4, 1, { first: 'a sub-agent task' })];
    // A summary request of another system prompt, in between.
    const summary = exchange(5, 0, { first: 'Summarise this text', model: 'small' });
    summary.request.system = [{ type: 'text', text: 'You distil documents.' }];
    summary.request.tools = [];
    sent.push(summary, exchange(6, 3));
    for (const e of sent) await w.record(e);

    const { items, skipped } = await s.exchanges(w.runId);
    expect(skipped).toBe(0);
    expect(items).toEqual(sent);
    // Same key order as the body sent.
    expect(Object.keys(items[3]!.request)).toEqual(['model', 'max_tokens', 'system', 'tools', 'messages', 'stream']);

    const [r] = (await s.runs()).items;
    expect(r!.models).toEqual(['m', 'small']);
    const full = sent.reduce((n, e) => n + JSON.stringify(e).length, 0);
    expect(r!.bytes).toBeLessThan(full * 0.6);
  });

  it('records the latest outcome and counts the failed requests', async () => {
    const s = await store();
    const w = run(s, 1);
    await w.record(exchange(0, 0, { outcome: 'error' }));
    let [r] = (await s.runs()).items;
    expect(r).toMatchObject({ status: 'error', httpStatus: 529, failed: 1, requests: 1 });
    await w.record(exchange(1, 0));
    [r] = (await s.runs()).items;
    expect(r).toMatchObject({ status: 'ok', failed: 1, requests: 2 });
    expect(r!.httpStatus).toBeUndefined();
  });

  it('a clear while a run goes on: the run starts its record again, sharing nothing that is gone', async () => {
    const s = await store();
    const w = run(s, 1);
    await w.record(exchange(0, 0));
    await w.record(exchange(1, 1));
    await s.clear();
    expect((await s.runs()).items).toEqual([]);
    await w.record(exchange(2, 2));
    const { items } = await s.runs();
    expect(items).toHaveLength(1);
    expect(items[0]!.requests).toBe(1);
    const ex = await s.exchanges(w.runId);
    expect(ex.items).toEqual([exchange(2, 2)]);
  });

  it('skips and counts records it cannot read, and still reads the rest', async () => {
    const name = `rls-${crypto.randomUUID()}`;
    const s = await store({}, name);
    const w = run(s, 1);
    await w.record(exchange(0, 0));
    await w.record(exchange(1, 1));
    // Another version's (or a damaged) record in each store.
    await new Promise<void>((resolve, reject) => {
      const req = indexedDB.open(name, 1);
      req.onsuccess = () => {
        const t = req.result.transaction(['runs', 'exchanges'], 'readwrite');
        t.objectStore('runs').put({ id: 'broken', startedAt: 'yesterday' });
        t.objectStore('exchanges').put({ runId: w.runId, index: 7, request: 'not an object' });
        t.oncomplete = () => (req.result.close(), resolve());
        t.onerror = () => reject(t.error);
      };
    });
    const runs = await s.runs();
    expect(runs.items.map((r) => r.title)).toEqual(['Run 1']);
    expect(runs.skipped).toBe(1);
    const ex = await s.exchanges(w.runId);
    expect(ex.items).toHaveLength(2);
    expect(ex.skipped).toBe(1);
  });

  it('names a shared part whose request is gone rather than leaving it out', async () => {
    const name = `rls-${crypto.randomUUID()}`;
    const s = await store({}, name);
    const w = run(s, 1);
    await w.record(exchange(0, 0));
    await w.record(exchange(1, 1));
    await new Promise<void>((resolve, reject) => {
      const req = indexedDB.open(name, 1);
      req.onsuccess = () => {
        const t = req.result.transaction('exchanges', 'readwrite');
        t.objectStore('exchanges').delete([w.runId, 0]);
        t.oncomplete = () => (req.result.close(), resolve());
        t.onerror = () => reject(t.error);
      };
    });
    const [only] = (await s.exchanges(w.runId)).items;
    expect(only!.request.system).toBe('[run log: request 0 is no longer kept]');
    expect((only!.request.messages as unknown[])[0]).toBe('[run log: request 0 is no longer kept]');
    expect((only!.request.messages as unknown[]).slice(1)).toEqual((exchange(1, 1).request.messages as unknown[]).slice(1));
  });
});
