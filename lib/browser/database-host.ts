/**
 * Where database queries run (lib/database/host.ts): a module Worker started from a document.
 * Chrome: the offscreen document (a service worker cannot start Workers); Firefox: the
 * background page itself.
 * The worker is an unlisted script (entrypoints/database-worker.ts); SQLite's WebAssembly is
 * the file /sqlite3.wasm beside it (wxt.config.ts, sqliteWasmAsFile).
 */
import { browser } from 'wxt/browser';
import { databaseHostFrom, workerDatabaseHost, type DatabaseHost } from '../database/host';
import { workerImporter, type DatabaseImporter } from '../database/importer';
import { databaseMessaging } from '../database/protocol';
import { DATABASE_WORKER_PATH } from '../database/worker-protocol';
import { ensureOffscreenDocument, sendWhenListening } from './offscreen/document';

function spawnDatabaseWorker(): Worker {
  return new Worker(browser.runtime.getURL(DATABASE_WORKER_PATH), { name: 'pagewright-database' });
}

/** In a document (Firefox's background page, Chrome's offscreen document). */
export function inPageDatabaseHost(): DatabaseHost {
  return workerDatabaseHost(spawnDatabaseWorker);
}

/** Chrome's service worker: every call goes to the offscreen document's host. */
export function offscreenDatabaseHost(): DatabaseHost {
  return databaseHostFrom(async (call) => {
    await ensureOffscreenDocument();
    return sendWhenListening(() => databaseMessaging.sendMessage('databaseOffscreenCall', call));
  });
}

/** The offscreen document's side of offscreenDatabaseHost. */
export function startDatabaseHostRelay(): void {
  const host = inPageDatabaseHost();
  databaseMessaging.onMessage('databaseOffscreenCall', ({ data }) => host.call(data));
}

/** The background's answer to the management page (schema, test query, forget). */
export function registerDatabaseMessages(host: DatabaseHost): void {
  databaseMessaging.onMessage('databaseCall', ({ data }) => host.call(data));
}

/** The management page: schema, test query and forget go to the background's host (the one runs use). */
export function backgroundDatabaseHost(): DatabaseHost {
  return databaseHostFrom((call) => databaseMessaging.sendMessage('databaseCall', call));
}

/** The management page's imports, in a worker of its own. */
export function pageDatabaseImporter(): DatabaseImporter {
  return workerImporter(spawnDatabaseWorker);
}
