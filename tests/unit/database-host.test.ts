/** The worker-owning DatabaseHost, over a fake Worker: order, the watchdog, a dying worker. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DatabaseError } from '../../lib/database';
import { workerDatabaseHost } from '../../lib/database/host';
import type { DatabaseWorkerReply, DatabaseWorkerRequest } from '../../lib/database/worker-protocol';

/** Answers each request with `respond` (undefined: never answers); records what it was sent. */
class FakeWorker extends EventTarget {
  static made: FakeWorker[] = [];
  sent: DatabaseWorkerRequest[] = [];
  terminated = false;
  constructor(private readonly respond: (r: DatabaseWorkerRequest) => Omit<DatabaseWorkerReply, 'id'> | undefined | 'crash') {
    super();
    FakeWorker.made.push(this);
  }
  postMessage(request: DatabaseWorkerRequest) {
    this.sent.push(request);
    const reply = this.respond(request);
    if (reply === 'crash') {
      setTimeout(() => this.dispatchEvent(Object.assign(new Event('error'), { message: 'out of memory' })), 0);
      return;
    }
    if (reply) setTimeout(() => this.dispatchEvent(new MessageEvent('message', { data: { ...reply, id: request.id } })), 0);
  }
  terminate() {
    this.terminated = true;
  }
}

const ref = { dbId: 'music', version: 1 };
afterEach(() => {
  FakeWorker.made = [];
  vi.useRealTimers();
});

describe('workerDatabaseHost', () => {
  it('sends one call at a time, in order, to one worker, and turns refusals into DatabaseErrors', async () => {
    const host = workerDatabaseHost(
      () =>
        new FakeWorker((r) =>
          r.op === 'query' && r.sql.startsWith('DELETE')
            ? { ok: false, code: 'not_read_only', message: 'DELETE is refused.' }
            : { ok: true, value: { columns: [], rows: [], row_count: 0, truncated: false, table: r.op === 'query' ? r.sql : '', elapsed_ms: 0 } },
        ) as unknown as Worker,
    );
    const [a, b, c] = await Promise.allSettled([host.query(ref, 'SELECT 1'), host.query(ref, 'DELETE FROM t'), host.query(ref, 'SELECT 2')]);
    expect(a).toMatchObject({ status: 'fulfilled', value: { table: 'SELECT 1' } });
    expect(b).toMatchObject({ status: 'rejected', reason: expect.any(DatabaseError) });
    expect((b as PromiseRejectedResult).reason).toMatchObject({ code: 'not_read_only', message: 'DELETE is refused.' });
    expect(c).toMatchObject({ status: 'fulfilled', value: { table: 'SELECT 2' } });
    expect(FakeWorker.made).toHaveLength(1);
    expect(FakeWorker.made[0]!.sent.map((r) => r.op === 'query' && r.sql)).toEqual(['SELECT 1', 'DELETE FROM t', 'SELECT 2']);
  });

  it('replaces a worker that stays silent past the time limit, and the next call works', async () => {
    vi.useFakeTimers();
    let first = true;
    const host = workerDatabaseHost(() => {
      const silent = first;
      first = false;
      return new FakeWorker(() => (silent ? undefined : { ok: true, value: null })) as unknown as Worker;
    });
    const stuck = host.query(ref, 'SELECT forever()', { timeoutMs: 1_000 }).catch((e) => e);
    await vi.advanceTimersByTimeAsync(21_000);
    expect(await stuck).toMatchObject({ code: 'timeout', message: expect.stringContaining('was restarted') });
    expect(FakeWorker.made[0]!.terminated).toBe(true);
    const next = host.schema(ref);
    await vi.advanceTimersByTimeAsync(1);
    expect(await next).toBeNull();
    expect(FakeWorker.made).toHaveLength(2);
  });

  it('a worker that dies fails its call with a clear error and is replaced', async () => {
    let n = 0;
    const host = workerDatabaseHost(() => new FakeWorker(() => (n++ === 0 ? 'crash' : { ok: true, value: null })) as unknown as Worker);
    await expect(host.schema(ref)).rejects.toMatchObject({ code: 'host', message: expect.stringContaining('out of memory') });
    await expect(host.schema(ref)).resolves.toBeNull();
    expect(FakeWorker.made.map((w) => w.terminated)).toEqual([true, false]);
  });

  it('forget without a worker starts none', async () => {
    const host = workerDatabaseHost(() => new FakeWorker(() => ({ ok: true, value: null })) as unknown as Worker);
    await host.forget('music');
    expect(FakeWorker.made).toHaveLength(0);
  });
});
