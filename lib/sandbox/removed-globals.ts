/**
 * What the sandbox Workers delete before any user code runs: the one list for Chrome's 'v8'
 * Worker (worker-source.ts, which gets it as JSON inside its source text) and the Python Worker
 * (python-worker.ts). Anything that reaches beyond the Worker belongs here: network, storage,
 * other workers and channels to other contexts. In Chrome the sandbox page's CSP would refuse
 * most of these anyway; removing them makes code learn at once that they do not exist, and in
 * Firefox, where the Python Worker has the extension's origin, the removal is what keeps the
 * extension's storage out of reach.
 *
 * The QuickJS Worker (quickjs-worker.ts) does not need the list: QuickJS code sees only its own
 * VM's global object, and the only host functions handed into the VM are the prelude's hooks
 * (log, setTimer, clearTimer in quickjs-runner.ts), which take strings, numbers and QuickJS
 * functions and give back nothing of the Worker. tests/unit/sandbox-quickjs.test.ts pins the
 * VM's global names to ECMAScript's own plus the prelude's.
 *
 * Both lists were checked against every name a loaded Worker's global scope, its prototypes and
 * its navigator hold in Chromium and Firefox ESR; what remains reaches nothing outside.
 * tests/harness/sandbox-probes.ts turns them into the probes every engine is tested against.
 */

/** Deleted from the Worker's global scope and every prototype on its chain. */
export const REMOVED_GLOBALS: readonly string[] = [
  'fetch',
  'fetchLater',
  'XMLHttpRequest',
  'WebSocket',
  'WebSocketStream',
  'EventSource',
  'WebTransport',
  'importScripts',
  'Worker',
  'SharedWorker',
  'indexedDB',
  'caches',
  'cookieStore',
  'BroadcastChannel',
  'Notification',
  // FontFace fetches font files from URLs, in Workers too (Firefox's extension CSP has no
  // font-src to stop it).
  'FontFace',
  'FontFaceSet',
  'fonts',
  // Chrome's old file system API (the extension's origin in Firefox has none of these).
  'webkitRequestFileSystem',
  'webkitRequestFileSystemSync',
  'webkitResolveLocalFileSystemURL',
  'webkitResolveLocalFileSystemSyncURL',
  // The channel to the host and the Worker's own end: each Worker takes its references to
  // them before calling removeGlobals, so code can neither forge replies nor end the Worker.
  'postMessage',
  'onmessage',
  'close',
];

/** Deleted from navigator and its prototype: OPFS and the storage quota, web locks, devices. */
export const REMOVED_NAVIGATOR: readonly string[] = ['storage', 'locks', 'serviceWorker', 'serial', 'usb', 'hid', 'bluetooth', 'permissions'];

/**
 * Deletes `globals` from `scope` and every prototype on its chain, and `navigatorNames` from
 * its navigator likewise. A name that cannot be deleted is left (and the probes fail on it).
 *
 * Shipped as source text to Chrome's 'v8' Worker (worker-source.ts), so it must stay
 * self-contained: no imports, nothing from outside its own body.
 */
export function removeGlobals(scope: object, globals: readonly string[], navigatorNames: readonly string[]): void {
  const getPrototypeOf = Object.getPrototypeOf;
  const strip = (target: unknown, names: readonly string[]) => {
    for (let o = target; o && o !== Object.prototype; o = getPrototypeOf(o)) {
      for (const name of names) {
        try {
          delete (o as Record<string, unknown>)[name];
        } catch {}
      }
    }
  };
  let navigator: unknown = null;
  try {
    navigator = (scope as { navigator?: unknown }).navigator;
  } catch {}
  if (typeof navigator === 'object') strip(navigator, navigatorNames);
  strip(scope, globals);
}
