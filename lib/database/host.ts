/**
 * DatabaseHost: where queries run. The engine is synchronous, so it lives in a dedicated Worker
 * (worker.ts) started from a document — Chrome's offscreen document (its service worker cannot
 * start Workers) or Firefox's background page. Calls cross contexts as plain data
 * (DatabaseCall → DatabaseAnswer) and become DatabaseErrors again at the caller.
 */
import { DatabaseError, type DatabaseErrorCode } from './errors';
import type { QueryOptions, QueryResult } from './read-only-db';
import type { DatabaseSchema } from './schema';
import type { DatabaseWorkerReply, DatabaseWorkerRequest } from './worker-protocol';
import { errorMessage } from '../errors';

/** Which stored file: the connection's db_id and a version (its created_at; a change means "read it again"). */
export interface DatabaseRef {
  dbId: string;
  version: number;
}

export type DatabaseCall =
  | { op: 'query'; ref: DatabaseRef; sql: string; options?: QueryOptions }
  | { op: 'schema'; ref: DatabaseRef }
  | { op: 'forget'; dbId: string };

export type DatabaseAnswer = { ok: true; value: unknown } | { ok: false; code: DatabaseErrorCode; message: string };

export interface DatabaseHost {
  query(ref: DatabaseRef, sql: string, options?: QueryOptions): Promise<QueryResult>;
  schema(ref: DatabaseRef): Promise<DatabaseSchema>;
  /** Closes a database the worker holds open (before its file is deleted or replaced). */
  forget(dbId: string): Promise<void>;
  /** The same operations as data, for a message handler that relays them. */
  call(call: DatabaseCall): Promise<DatabaseAnswer>;
}

/** A host whose calls go through `send` (a message to another context, or a worker). */
export function databaseHostFrom(send: (call: DatabaseCall) => Promise<DatabaseAnswer>): DatabaseHost {
  const run = async (call: DatabaseCall) => {
    const answer = await send(call);
    if (!answer.ok) throw new DatabaseError(answer.code, answer.message);
    return answer.value;
  };
  return {
    query: async (ref, sql, options) => (await run({ op: 'query', ref, sql, options })) as QueryResult,
    schema: async (ref) => (await run({ op: 'schema', ref })) as DatabaseSchema,
    forget: async (dbId) => void (await run({ op: 'forget', dbId })),
    call: async (call) => {
      try {
        return await send(call);
      } catch (e) {
        return { ok: false, code: 'host', message: errorMessage(e) };
      }
    },
  };
}

/** Past a query's own time limit, how long the worker may stay silent before it is replaced. */
const WATCHDOG_GRACE_MS = 20_000;
const DEFAULT_TIMEOUT_MS = 10_000;

/**
 * In a document: the host that owns the query worker. One call at a time — the worker is
 * single-threaded anyway — so each call's watchdog starts when the worker starts on it. A worker
 * that overruns the watchdog (the engine's own interrupt should stop it well before) or dies is
 * terminated and a new one started for the next call.
 */
export function workerDatabaseHost(spawn: () => Worker): DatabaseHost {
  let worker: Worker | null = null;
  let nextId = 1;
  let chain: Promise<unknown> = Promise.resolve();

  const request = (call: DatabaseCall): DatabaseWorkerRequest => {
    const id = nextId++;
    switch (call.op) {
      case 'query':
        return { id, op: 'query', dbId: call.ref.dbId, version: call.ref.version, sql: call.sql, options: call.options };
      case 'schema':
        return { id, op: 'schema', dbId: call.ref.dbId, version: call.ref.version };
      case 'forget':
        return { id, op: 'forget', dbId: call.dbId };
    }
  };

  const once = (call: DatabaseCall): Promise<DatabaseAnswer> =>
    new Promise((resolve) => {
      if (call.op === 'forget' && !worker) return resolve({ ok: true, value: null });
      const w = (worker ??= spawn());
      const message = request(call);
      const limit = (call.op === 'query' ? (call.options?.timeoutMs ?? DEFAULT_TIMEOUT_MS) : DEFAULT_TIMEOUT_MS) + WATCHDOG_GRACE_MS;
      const finish = (answer: DatabaseAnswer, replace: boolean) => {
        clearTimeout(timer);
        w.removeEventListener('message', onMessage);
        w.removeEventListener('error', onError);
        if (replace) {
          w.terminate();
          if (worker === w) worker = null;
        }
        resolve(answer);
      };
      const onMessage = (e: MessageEvent<DatabaseWorkerReply>) => {
        if (e.data?.id !== message.id) return;
        const { id: _id, ...answer } = e.data;
        finish(answer, false);
      };
      const onError = (e: ErrorEvent) => {
        e.preventDefault();
        finish({ ok: false, code: 'host', message: `The database worker failed${e.message ? `: ${e.message}` : ''}. It has been restarted; try again.` }, true);
      };
      const timer = setTimeout(
        () => finish({ ok: false, code: 'timeout', message: `The database did not answer within ${Math.round(limit / 1000)} s and was restarted. Make the query cheaper and try again.` }, true),
        limit,
      );
      w.addEventListener('message', onMessage);
      w.addEventListener('error', onError);
      w.postMessage(message);
    });

  return databaseHostFrom((call) => {
    const answer = chain.then(() => once(call));
    chain = answer.catch(() => {});
    return answer;
  });
}
