/**
 * The body of the Python Worker (entrypoints/python-worker.ts). Firefox's background page starts
 * it from its extension URL; in Chrome the manifest sandbox page starts a blob Worker that
 * imports it (an opaque origin under the sandbox CSP: connect-src 'none').
 *
 * Loading: the host sends Pyodide's WebAssembly and standard library as bytes; Pyodide's own
 * loader asks for them with fetch, which is answered from those bytes and nothing else. Then,
 * before any user code, everything that reaches beyond the Worker is removed from its global
 * scope and prototypes (removed-globals.ts: network, storage, other workers, channels to other
 * contexts), so that Python's `js` module finds nothing to call. In Firefox, where the Worker
 * has the extension's origin and CSP (script-src 'self', no connect-src), that removal is what
 * keeps the network and the extension's IndexedDB out of reach; remote import() is refused by
 * the CSP in both.
 */
import { info as lockInfo } from 'pyodide/pyodide-lock.json';
import type { PyodideAPI } from 'pyodide';
import { capWasmMemory, preparePython, type PythonRealm } from './python-runner';
import type { PythonAssets, PythonWorkerReply, PythonWorkerRequest } from './python-protocol';
import { REMOVED_GLOBALS, REMOVED_NAVIGATOR, removeGlobals } from './removed-globals';
import { errorMessage } from '../errors';

export function startPythonWorker(): void {
  const scope = globalThis as unknown as Window;
  // Taken before removeGlobals deletes postMessage.
  const post = scope.postMessage.bind(scope) as (m: PythonWorkerReply) => void;
  let realm: PythonRealm | null = null;
  let busy = false;

  const onMessage = async (e: MessageEvent<PythonWorkerRequest>) => {
    const msg = e.data;
    if (msg?.type === 'load' && !realm) {
      const started = performance.now();
      try {
        realm = preparePython(await load(msg.indexURL, msg.assets));
        removeGlobals(scope, REMOVED_GLOBALS, REMOVED_NAVIGATOR);
        post({ type: 'loaded', ms: performance.now() - started });
      } catch (err) {
        post({ type: 'load-failed', message: errorMessage(err) });
      }
    } else if (msg?.type === 'run' && realm && !busy) {
      busy = true;
      const { runId, request } = msg;
      try {
        post({ type: 'started', runId });
        const result = await realm.run(request, (line) => post({ type: 'log', runId, line }));
        post({ type: 'result', runId, result });
      } finally {
        busy = false;
      }
    }
  };
  scope.addEventListener('message', (e) => void onMessage(e as MessageEvent<PythonWorkerRequest>));
}

async function load(indexURL: string, assets: PythonAssets): Promise<PyodideAPI> {
  const scope = globalThis as unknown as { fetch: typeof fetch };
  const served: Record<string, { bytes: ArrayBuffer; type: string }> = {
    'pyodide.asm.wasm': { bytes: assets.wasm, type: 'application/wasm' },
    'python_stdlib.zip': { bytes: assets.stdlib, type: 'application/zip' },
  };
  scope.fetch = async (input: RequestInfo | URL) => {
    const url = String(input instanceof Request ? input.url : input);
    const file = served[url.slice(url.lastIndexOf('/') + 1)];
    if (!url.startsWith(indexURL) || !file) throw new TypeError('The Python sandbox has no network.');
    return new Response(file.bytes, { headers: { 'content-type': file.type } });
  };
  capWasmMemory();
  // Pyodide's own modules, from the extension (script-src 'self' allows exactly that).
  const loader = (await import(/* @vite-ignore */ `${indexURL}pyodide.mjs`)) as typeof import('pyodide');
  const asm = (await import(/* @vite-ignore */ `${indexURL}pyodide.asm.mjs`)) as { default: unknown };
  return loader.loadPyodide({
    indexURL,
    createPyodideModule: asm.default as never,
    // No packages: the lock file lists none, so loadPackage and micropip have nothing to fetch.
    lockFileContents: { info: lockInfo, packages: {} } as never,
    packageBaseUrl: indexURL,
    env: { HOME: '/home/pyodide' },
    stdout: () => {},
    stderr: () => {},
  });
}
