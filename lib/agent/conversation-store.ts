import type { Conversation, ConversationSummary, RunState, StoredMessage } from '../contracts/conversation';
import { idleRun } from '../contracts/conversation';
import type { ConversationMatch } from '../contracts/conversation-file';

type ConversationMeta = Omit<Conversation, 'messages'>;
interface MessageRecord {
  conversationId: string;
  seq: number;
  message: StoredMessage;
}

const DB_VERSION = 1;
const META = 'conversations';
const MESSAGES = 'messages';

/**
 * Conversations in IndexedDB. Messages are one record each, so saving a finished step writes
 * that step only, in the same transaction as the conversation's run state.
 */
export class ConversationStore {
  private constructor(
    private readonly db: IDBDatabase,
    private readonly keyRange: typeof IDBKeyRange,
  ) {}

  static open(
    name = 'pagewright',
    factory: IDBFactory = indexedDB,
    keyRange: typeof IDBKeyRange = IDBKeyRange,
  ): Promise<ConversationStore> {
    return new Promise((resolve, reject) => {
      const req = factory.open(name, DB_VERSION);
      req.onupgradeneeded = () => {
        const db = req.result;
        if (!db.objectStoreNames.contains(META)) {
          db.createObjectStore(META, { keyPath: 'id' }).createIndex('updatedAt', 'updatedAt');
        }
        if (!db.objectStoreNames.contains(MESSAGES)) {
          db.createObjectStore(MESSAGES, { keyPath: ['conversationId', 'seq'] });
        }
      };
      req.onsuccess = () => resolve(new ConversationStore(req.result, keyRange));
      req.onerror = () => reject(req.error);
    });
  }

  close() {
    this.db.close();
  }

  async create(roundCap: number, title = ''): Promise<Conversation> {
    const now = Date.now();
    const meta: ConversationMeta = { id: newId(), title, createdAt: now, updatedAt: now, run: idleRun(roundCap) };
    await this.tx([META], 'readwrite', (t) => t.objectStore(META).put(meta));
    return { ...meta, messages: [] };
  }

  async get(id: string): Promise<Conversation | undefined> {
    let meta: ConversationMeta | undefined;
    let records: MessageRecord[] = [];
    await this.tx([META, MESSAGES], 'readonly', (t) => {
      req<ConversationMeta | undefined>(t.objectStore(META).get(id), (v) => (meta = v));
      req<MessageRecord[]>(t.objectStore(MESSAGES).getAll(this.messageRange(id)), (v) => (records = v));
    });
    if (!meta) return undefined;
    return { ...meta, messages: records.sort((a, b) => a.seq - b.seq).map((r) => r.message) };
  }

  async list(): Promise<ConversationSummary[]> {
    let metas: ConversationMeta[] = [];
    await this.tx([META], 'readonly', (t) => req<ConversationMeta[]>(t.objectStore(META).getAll(), (v) => (metas = v)));
    return metas
      .sort((a, b) => b.updatedAt - a.updatedAt)
      .map(({ id, title, updatedAt, run }) => ({ id, title, updatedAt, status: run.status }));
  }

  /** The most recently updated conversation, read through the index rather than the whole list. */
  async latestId(): Promise<string | undefined> {
    let id: string | undefined;
    await this.tx([META], 'readonly', (t) => {
      const r = t.objectStore(META).index('updatedAt').openCursor(null, 'prev');
      r.onsuccess = () => (id = (r.result?.value as ConversationMeta | undefined)?.id);
    });
    return id;
  }

  /** Saves message number `seq` and, atomically with it, the conversation's run state. */
  async append(id: string, seq: number, message: StoredMessage, patch: Partial<ConversationMeta> = {}): Promise<void> {
    await this.tx([META, MESSAGES], 'readwrite', (t) => {
      t.objectStore(MESSAGES).put({ conversationId: id, seq, message } satisfies MessageRecord);
      this.patchIn(t, id, { ...patch, updatedAt: Date.now() });
    });
  }

  /** Drops messages from `fromSeq` on (regenerate). */
  async truncate(id: string, fromSeq: number, patch: Partial<ConversationMeta> = {}): Promise<void> {
    await this.tx([META, MESSAGES], 'readwrite', (t) => {
      t.objectStore(MESSAGES).delete(this.keyRange.bound([id, fromSeq], [id, Infinity]));
      this.patchIn(t, id, { ...patch, updatedAt: Date.now() });
    });
  }

  async update(id: string, patch: Partial<Pick<ConversationMeta, 'title' | 'run' | 'context' | 'totals'>>): Promise<void> {
    await this.tx([META], 'readwrite', (t) => this.patchIn(t, id, patch));
  }

  async setRun(id: string, run: RunState): Promise<void> {
    await this.update(id, { run });
  }

  async delete(id: string): Promise<void> {
    await this.tx([META, MESSAGES], 'readwrite', (t) => {
      t.objectStore(META).delete(id);
      t.objectStore(MESSAGES).delete(this.messageRange(id));
    });
  }

  /**
   * Writes an imported conversation, its meta and every message in one transaction, under a
   * fresh id: nothing stored is overwritten, and the same file imported twice is two conversations.
   */
  async import(conversation: Conversation): Promise<Conversation> {
    const { messages, ...rest } = conversation;
    const meta: ConversationMeta = { ...rest, id: newId() };
    await this.tx([META, MESSAGES], 'readwrite', (t) => {
      try {
        t.objectStore(META).add(meta);
        const records = t.objectStore(MESSAGES);
        messages.forEach((message, seq) => records.add({ conversationId: meta.id, seq, message } satisfies MessageRecord));
      } catch (e) {
        // A record that cannot be stored throws here, before the transaction knows: undo the rest.
        t.abort();
        throw e;
      }
    });
    return { ...meta, messages };
  }

  /**
   * Conversations whose title or text (what the user and the assistant wrote, not tool results)
   * contains `query`, case-insensitively; newest first. One pass over every message: fine for
   * hundreds of conversations (docs/guide/conversations.md gives the figures), and an index would cost every write.
   */
  async search(query: string, limit = 500): Promise<ConversationMatch[]> {
    const needle = query.trim().toLocaleLowerCase();
    const all = await this.list();
    if (!needle) return all.slice(0, limit);
    const snippets = new Map<string, string>();
    for (const c of all) if (c.title.toLocaleLowerCase().includes(needle)) snippets.set(c.id, '');
    await this.tx([MESSAGES], 'readonly', (t) => {
      const cursor = t.objectStore(MESSAGES).openCursor();
      cursor.onsuccess = () => {
        const at = cursor.result;
        if (!at) return;
        const record = at.value as MessageRecord;
        if (snippets.has(record.conversationId)) {
          // The rest of a conversation already found needs no reading: skip past its messages.
          at.continue([record.conversationId, Infinity]);
          return;
        }
        for (const b of record.message.content) {
          if (b.type !== 'text') continue;
          const i = b.text.toLocaleLowerCase().indexOf(needle);
          if (i >= 0) {
            snippets.set(record.conversationId, snippetAt(b.text, i, needle.length));
            break;
          }
        }
        at.continue();
      };
    });
    return all
      .filter((c) => snippets.has(c.id))
      .slice(0, limit)
      .map((c) => (snippets.get(c.id) ? { ...c, snippet: snippets.get(c.id)! } : c));
  }

  private messageRange(id: string) {
    return this.keyRange.bound([id, 0], [id, Infinity]);
  }

  private patchIn(t: IDBTransaction, id: string, patch: Partial<ConversationMeta>) {
    const store = t.objectStore(META);
    req<ConversationMeta | undefined>(store.get(id), (meta) => {
      if (meta) store.put({ ...meta, ...patch, id });
    });
  }

  private tx(stores: string[], mode: IDBTransactionMode, body: (t: IDBTransaction) => void): Promise<void> {
    return new Promise((resolve, reject) => {
      const t = this.db.transaction(stores, mode);
      t.oncomplete = () => resolve();
      t.onerror = () => reject(t.error);
      t.onabort = () => reject(t.error ?? new Error('transaction aborted'));
      body(t);
    });
  }
}

function req<T>(r: IDBRequest, onValue: (v: T) => void) {
  r.onsuccess = () => onValue(r.result as T);
}

/** The words around a match, on one line. */
function snippetAt(text: string, index: number, length: number, around = 60): string {
  const start = Math.max(0, index - around);
  const end = Math.min(text.length, index + length + around);
  return `${start > 0 ? '…' : ''}${text.slice(start, end).replace(/\s+/g, ' ').trim()}${end < text.length ? '…' : ''}`;
}

function newId(): string {
  return crypto.randomUUID();
}
