/**
 * Chrome's two sandbox engines, both in blob Workers of the manifest sandbox page (its CSP:
 * no network; the offscreen document hosts the page):
 * - 'v8': Chrome's own engine, at full speed with the whole language and its APIs. But Chrome
 *   runs every frame and worker of an extension in one renderer process and V8 has no
 *   per-worker heap limit: code that allocates without end grows that process to V8's limit
 *   (~4 GB) and Chrome kills it, and with it the service worker, the offscreen document and
 *   any open popup — the extension stays "crashed" until it is reloaded.
 * - 'quickjs': QuickJS compiled to WebAssembly, as in Firefox: its memory cannot grow past
 *   128 MB, so the same code gets "out of memory". Slower (about 20× for tight loops) and
 *   without Intl, URL, TextEncoder and the like.
 */
export type SandboxEngine = 'v8' | 'quickjs';
/** Where one request runs: a JavaScript engine, or Python (Pyodide) for function skills. */
export type RealmEngine = SandboxEngine | 'python';

/**
 * A run's clock starts once its engine is loaded; the watchdogs around it allow for the load.
 * Pyodide's cold start (10 MB of WebAssembly and the standard library) takes seconds, more on
 * a busy machine.
 */
export const startAllowanceMs = (engine: RealmEngine) => (engine === 'python' ? 40_000 : 0);
