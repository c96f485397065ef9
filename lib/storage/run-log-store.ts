/**
 * The run log's store: IndexedDB (its own database, as the activity log has), written by the
 * background one exchange at a time as each request ends, read, downloaded and cleared by the
 * management page (the same extension origin, so it opens the database itself: a run's requests
 * can be tens of megabytes, more than a runtime message should carry).
 *
 * A run re-sends its whole conversation every round, so a request is stored against the latest
 * earlier one of the same thread (same first message): the system prompt, the tools and the
 * messages they share are kept once, and put back in full when read. Past the caps the oldest
 * runs are dropped, in the same transaction as the write that outgrew them.
 */
import * as v from 'valibot';
import { RUN_LOG_MAX_BYTES, RUN_LOG_MAX_RUNS, type RunLogExchange, type RunLogFile, type RunLogRun } from '../contracts/run-log';

const DB_NAME = 'pagewright-run-log';
const RUNS = 'runs';
const EXCHANGES = 'exchanges';
/** Threads remembered per run for sharing: the parent and a few sub-agents or summaries at once. */
const THREADS = 8;

/** Where a stored request takes a part from an earlier request of the same run. */
interface Shared {
  system?: number;
  tools?: number;
  /** The first `count` messages are those of request `from`. */
  messages?: { from: number; count: number };
}

/** An exchange as stored: its request holds only what it does not share. */
interface StoredExchange extends Omit<RunLogExchange, 'request'> {
  runId: string;
  request: Record<string, unknown>;
  shared?: Shared;
}

const json = v.record(v.string(), v.unknown());
const OUTCOME = v.picklist(['ok', 'error', 'aborted']);
const RunSchema = v.object({
  id: v.string(),
  conversationId: v.string(),
  title: v.string(),
  endpoint: v.string(),
  startedAt: v.number(),
  updatedAt: v.number(),
  models: v.array(v.string()),
  requests: v.number(),
  failed: v.number(),
  status: OUTCOME,
  httpStatus: v.optional(v.number()),
  bytes: v.number(),
  dropped: v.number(),
});
const count = v.pipe(v.number(), v.integer(), v.minValue(0));
const ExchangeSchema = v.object({
  runId: v.string(),
  index: count,
  startedAt: v.number(),
  firstEventMs: v.optional(v.number()),
  durationMs: v.number(),
  request: json,
  outcome: OUTCOME,
  response: v.optional(v.object({ message: v.unknown(), events: v.array(v.object({ t: v.number(), event: v.unknown() })), eventCount: count, eventsDropped: count })),
  error: v.optional(
    v.object({
      name: v.string(),
      message: v.string(),
      status: v.optional(v.number()),
      body: v.optional(v.unknown()),
      headers: v.optional(v.record(v.string(), v.string())),
      requestId: v.optional(v.string()),
    }),
  ),
  shared: v.optional(
    v.object({ system: v.optional(count), tools: v.optional(count), messages: v.optional(v.object({ from: count, count })) }),
  ),
});

/** What reading found: the readable records, and how many were not (written by another version, or damaged). */
export interface Read<T> {
  items: T[];
  skipped: number;
}

export interface RunLogLimits {
  maxRuns?: number;
  maxBytes?: number;
}

export interface NewRun {
  id?: string;
  conversationId: string;
  title: string;
  endpoint: string;
  startedAt?: number;
}

export class RunLogStore {
  private tail: Promise<void> = Promise.resolve();

  private constructor(
    private readonly db: IDBDatabase,
    readonly maxRuns: number,
    readonly maxBytes: number,
  ) {}

  static open(factory: IDBFactory = indexedDB, { name = DB_NAME, maxRuns = RUN_LOG_MAX_RUNS, maxBytes = RUN_LOG_MAX_BYTES }: RunLogLimits & { name?: string } = {}): Promise<RunLogStore> {
    return new Promise((resolve, reject) => {
      const req = factory.open(name, 1);
      req.onupgradeneeded = () => {
        const db = req.result;
        if (!db.objectStoreNames.contains(RUNS)) db.createObjectStore(RUNS, { keyPath: 'id' });
        if (!db.objectStoreNames.contains(EXCHANGES)) db.createObjectStore(EXCHANGES, { keyPath: ['runId', 'index'] });
      };
      req.onsuccess = () => resolve(new RunLogStore(req.result, maxRuns, maxBytes));
      req.onerror = () => reject(req.error);
    });
  }

  /** A writer for one run: nothing is stored until its first exchange. */
  startRun(run: NewRun): RunLogWriter {
    return new RunLogWriter(this, {
      id: run.id ?? crypto.randomUUID(),
      conversationId: run.conversationId,
      title: run.title,
      endpoint: run.endpoint,
      startedAt: run.startedAt ?? Date.now(),
      updatedAt: run.startedAt ?? Date.now(),
      models: [],
      requests: 0,
      failed: 0,
      status: 'ok',
      bytes: 0,
      dropped: 0,
    });
  }

  /** Newest first. */
  async runs(): Promise<Read<RunLogRun>> {
    let raw: unknown[] = [];
    await this.tx([RUNS], 'readonly', (t) => {
      const req = t.objectStore(RUNS).getAll();
      req.onsuccess = () => (raw = req.result);
    });
    const items: RunLogRun[] = [];
    for (const r of raw) {
      const parsed = v.safeParse(RunSchema, r);
      if (parsed.success) items.push(parsed.output);
    }
    items.sort((a, b) => b.startedAt - a.startedAt);
    return { items, skipped: raw.length - items.length };
  }

  /** A run's requests in the order they were sent, each in full. */
  async exchanges(runId: string): Promise<Read<RunLogExchange>> {
    let raw: unknown[] = [];
    await this.tx([EXCHANGES], 'readonly', (t) => {
      const req = t.objectStore(EXCHANGES).getAll(IDBKeyRange.bound([runId, 0], [runId, Infinity]));
      req.onsuccess = () => (raw = req.result);
    });
    const stored: StoredExchange[] = [];
    for (const r of raw) {
      const parsed = v.safeParse(ExchangeSchema, r);
      if (parsed.success) stored.push(parsed.output as StoredExchange);
    }
    return { items: expand(stored), skipped: raw.length - stored.length };
  }

  /** The downloadable file of the given runs (all when none are named), built one run at a time. */
  async file(runIds?: readonly string[]): Promise<RunLogFile> {
    const { items } = await this.runs();
    const chosen = runIds ? items.filter((r) => runIds.includes(r.id)) : items;
    const runs: RunLogFile['runs'] = [];
    for (const run of chosen) runs.push({ ...run, exchanges: (await this.exchanges(run.id)).items });
    return { format: 'pagewright-run-log', version: 1, exportedAt: new Date().toISOString(), runs };
  }

  async clear(): Promise<void> {
    await this.tx([RUNS, EXCHANGES], 'readwrite', (t) => {
      t.objectStore(RUNS).clear();
      t.objectStore(EXCHANGES).clear();
    });
  }

  /** Waits for the writes queued so far (tests, and a page that reads right after a run). */
  flushed(): Promise<void> {
    return this.tail;
  }

  close() {
    this.db.close();
  }

  /** Queues `body` after every earlier write: a run's exchanges are stored in the order they ended. */
  enqueue(body: (t: IDBTransaction) => void): Promise<void> {
    this.tail = this.tail.then(() => this.tx([RUNS, EXCHANGES], 'readwrite', body)).catch(() => {});
    return this.tail;
  }

  private tx(stores: string[], mode: IDBTransactionMode, body: (t: IDBTransaction) => void): Promise<void> {
    return new Promise((resolve, reject) => {
      const t = this.db.transaction(stores, mode);
      body(t);
      t.oncomplete = () => resolve();
      t.onerror = () => reject(t.error);
      t.onabort = () => reject(t.error);
    });
  }
}

interface Thread {
  index: number;
  system: string;
  tools: string;
  messages: string[];
}

/** Writes one run's exchanges, sharing what each request repeats of the one before it in its thread. */
export class RunLogWriter {
  private threads: Thread[] = [];
  private stored = false;

  constructor(
    private readonly store: RunLogStore,
    private summary: RunLogRun,
  ) {}

  get runId() {
    return this.summary.id;
  }

  record(exchange: RunLogExchange): Promise<void> {
    return this.store.enqueue((t) => {
      const runs = t.objectStore(RUNS);
      const check = runs.get(this.summary.id);
      check.onsuccess = () => {
        // The page cleared the log while the run went on: start the run's record again, sharing nothing gone.
        if (this.stored && !check.result) this.restart();
        this.write(t, exchange);
      };
    });
  }

  private restart() {
    this.threads = [];
    this.summary = { ...this.summary, models: [], requests: 0, failed: 0, status: 'ok', bytes: 0, dropped: 0 };
    delete this.summary.httpStatus;
  }

  private write(t: IDBTransaction, exchange: RunLogExchange) {
    const s = this.summary;
    const model = typeof exchange.request.model === 'string' ? exchange.request.model : '';
    if (model && !s.models.includes(model)) s.models.push(model);
    s.requests++;
    s.updatedAt = Date.now();
    s.status = exchange.outcome;
    if (exchange.outcome === 'error') {
      s.failed++;
      if (exchange.error?.status !== undefined) s.httpStatus = exchange.error.status;
      else delete s.httpStatus;
    } else delete s.httpStatus;

    const { record, thread } = this.compact(exchange);
    const size = JSON.stringify(record).length;
    if (s.bytes + size > this.store.maxBytes) {
      // This run alone has outgrown the log: keep counting its requests, stop keeping them.
      s.dropped++;
    } else {
      t.objectStore(EXCHANGES).put(record);
      s.bytes += size;
      this.remember(thread);
    }
    t.objectStore(RUNS).put({ ...s, models: [...s.models] });
    this.stored = true;
    this.trim(t);
  }

  private compact(exchange: RunLogExchange): { record: StoredExchange; thread: Thread } {
    const { messages, system, tools, ...rest } = exchange.request;
    const thread: Thread = {
      index: exchange.index,
      system: JSON.stringify(system) ?? '',
      tools: JSON.stringify(tools) ?? '',
      messages: Array.isArray(messages) ? messages.map((m) => JSON.stringify(m)) : [],
    };
    const previous = this.threads.find((p) => p.messages[0] !== undefined && p.messages[0] === thread.messages[0]) ?? this.threads[0];
    const request: Record<string, unknown> = { ...rest };
    const shared: Shared = {};
    if (previous && previous.system === thread.system && system !== undefined) shared.system = previous.index;
    else if (system !== undefined) request.system = system;
    if (previous && previous.tools === thread.tools && tools !== undefined) shared.tools = previous.index;
    else if (tools !== undefined) request.tools = tools;
    if (Array.isArray(messages)) {
      let n = 0;
      if (previous && previous.messages[0] === thread.messages[0]) {
        while (n < thread.messages.length && n < previous.messages.length && thread.messages[n] === previous.messages[n]) n++;
      }
      if (n) shared.messages = { from: previous!.index, count: n };
      request.messages = messages.slice(n);
    } else if (messages !== undefined) request.messages = messages;
    const record: StoredExchange = { ...exchange, runId: this.summary.id, request, ...(Object.keys(shared).length ? { shared } : {}) };
    return { record, thread };
  }

  private remember(thread: Thread) {
    this.threads = [thread, ...this.threads.filter((p) => p.messages[0] !== thread.messages[0])].slice(0, THREADS);
  }

  /** Drops the oldest runs (never this one) while the log holds too many or too much. */
  private trim(t: IDBTransaction) {
    const runs = t.objectStore(RUNS);
    const all = runs.getAll();
    all.onsuccess = () => {
      const list = (all.result as Partial<RunLogRun>[]).sort((a, b) => (a.startedAt ?? 0) - (b.startedAt ?? 0));
      let total = list.reduce((n, r) => n + (typeof r.bytes === 'number' ? r.bytes : 0), 0);
      let kept = list.length;
      for (const old of list) {
        if (kept <= this.store.maxRuns && total <= this.store.maxBytes) break;
        if (old.id === this.summary.id || typeof old.id !== 'string') continue;
        runs.delete(old.id);
        t.objectStore(EXCHANGES).delete(IDBKeyRange.bound([old.id, 0], [old.id, Infinity]));
        total -= typeof old.bytes === 'number' ? old.bytes : 0;
        kept--;
      }
    };
  }
}

/**
 * Puts each request back in full from the parts it shares. A part whose request is no longer kept
 * (a clear in between, a damaged record) is named in its place rather than silently left out.
 */
function expand(stored: readonly StoredExchange[]): RunLogExchange[] {
  const byIndex = new Map(stored.map((s) => [s.index, s]));
  const done = new Map<number, Record<string, unknown>>();
  const missing = (index: number) => `[run log: request ${index} is no longer kept]`;
  const full = (index: number, depth = 0): Record<string, unknown> | undefined => {
    const hit = done.get(index);
    if (hit) return hit;
    const s = byIndex.get(index);
    if (!s || depth > stored.length) return undefined;
    const { messages, ...rest } = s.request;
    const out: Record<string, unknown> = { ...rest };
    const sh = s.shared ?? {};
    if (sh.system !== undefined) out.system = full(sh.system, depth + 1)?.system ?? missing(sh.system);
    if (sh.tools !== undefined) out.tools = full(sh.tools, depth + 1)?.tools ?? missing(sh.tools);
    const own = Array.isArray(messages) ? messages : [];
    if (sh.messages) {
      const base = full(sh.messages.from, depth + 1)?.messages;
      const head = Array.isArray(base) ? base.slice(0, sh.messages.count) : [missing(sh.messages.from)];
      out.messages = [...head, ...own];
    } else if (messages !== undefined) out.messages = messages;
    // The body's own key order, as it was sent.
    const ordered: Record<string, unknown> = {};
    for (const key of ['model', 'max_tokens', 'system', 'tools', 'messages']) if (key in out) ordered[key] = out[key];
    Object.assign(ordered, out);
    done.set(index, ordered);
    return ordered;
  };
  return [...stored]
    .sort((a, b) => a.index - b.index)
    .map(({ runId: _r, shared: _s, ...s }) => ({ ...s, request: full(s.index) ?? s.request }));
}
