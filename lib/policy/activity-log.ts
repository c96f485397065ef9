/**
 * The activity log: every consequential call (time, conversation, tool, site, decision and by
 * whom), in IndexedDB, newest kept — past the cap the oldest entries are dropped. The background
 * writes it; the management page reads, exports and clears it (same extension origin).
 */
import { ACTIVITY_LOG_CAP, type ActivityEntry } from '../contracts/permissions';

const DB_NAME = 'pagewright-activity';
const STORE = 'entries';
/** Counting on every write would cost a transaction each; trimming every few writes keeps the log within a few entries of the cap. */
const TRIM_EVERY = 25;

export class ActivityLog {
  private writes = 0;
  private tail: Promise<void> = Promise.resolve();

  private constructor(
    private readonly db: IDBDatabase,
    private readonly cap: number,
  ) {}

  static open(factory: IDBFactory = indexedDB, { name = DB_NAME, cap = ACTIVITY_LOG_CAP } = {}): Promise<ActivityLog> {
    return new Promise((resolve, reject) => {
      const req = factory.open(name, 1);
      req.onupgradeneeded = () => {
        if (!req.result.objectStoreNames.contains(STORE)) req.result.createObjectStore(STORE, { autoIncrement: true });
      };
      req.onsuccess = () => resolve(new ActivityLog(req.result, cap));
      req.onerror = () => reject(req.error);
    });
  }

  /** Appends in call order; a failing write is dropped rather than failing the call it records. */
  append(entry: ActivityEntry): Promise<void> {
    this.tail = this.tail
      .then(async () => {
        await this.tx('readwrite', (s) => s.add(entry));
        if (++this.writes % TRIM_EVERY === 1) await this.trim();
      })
      .catch(() => {});
    return this.tail;
  }

  /** Drops the oldest entries beyond the cap. */
  async trim(): Promise<void> {
    await this.tx('readwrite', (s) => {
      const count = s.count();
      count.onsuccess = () => {
        let extra = count.result - this.cap;
        if (extra <= 0) return;
        const cursor = s.openCursor();
        cursor.onsuccess = () => {
          const c = cursor.result;
          if (!c || extra-- <= 0) return;
          c.delete();
          c.continue();
        };
      };
    });
  }

  /** Newest first, at most `limit`. */
  async recent(limit = 200): Promise<ActivityEntry[]> {
    const out: ActivityEntry[] = [];
    await this.tx('readonly', (s) => {
      const cursor = s.openCursor(null, 'prev');
      cursor.onsuccess = () => {
        const c = cursor.result;
        if (!c || out.length >= limit) return;
        out.push(c.value as ActivityEntry);
        c.continue();
      };
    });
    return out;
  }

  /** Everything, oldest first (the JSON export). */
  async all(): Promise<ActivityEntry[]> {
    let out: ActivityEntry[] = [];
    await this.tx('readonly', (s) => {
      const req = s.getAll();
      req.onsuccess = () => (out = req.result as ActivityEntry[]);
    });
    return out;
  }

  async count(): Promise<number> {
    let n = 0;
    await this.tx('readonly', (s) => {
      const req = s.count();
      req.onsuccess = () => (n = req.result);
    });
    return n;
  }

  async clear(): Promise<void> {
    await this.tx('readwrite', (s) => s.clear());
  }

  close() {
    this.db.close();
  }

  private tx(mode: IDBTransactionMode, body: (store: IDBObjectStore) => void): Promise<void> {
    return new Promise((resolve, reject) => {
      const t = this.db.transaction(STORE, mode);
      body(t.objectStore(STORE));
      t.oncomplete = () => resolve();
      t.onerror = () => reject(t.error);
      t.onabort = () => reject(t.error);
    });
  }
}
