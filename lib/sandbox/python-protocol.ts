/**
 * Python for function skills: Pyodide (CPython compiled to WebAssembly) from the npm package,
 * shipped inside the extension under /pyodide/ (wxt.config.ts copies it) and never downloaded.
 * It runs in a dedicated Worker (python-worker.ts) that gets the WebAssembly and the standard
 * library as bytes from its host, so the Worker itself needs no network at all.
 */
import type { RealmResult, RealmRunRequest } from './report';

/** Where the build puts Pyodide's files (extension-relative). */
export const PYODIDE_DIR = '/pyodide/';
/** The files the extension ships; the JS ones are imported by the Worker, the others fetched by its host. */
export const PYODIDE_FILES = ['pyodide.mjs', 'pyodide.asm.mjs', 'pyodide.asm.wasm', 'python_stdlib.zip'] as const;
/** The Worker script, an unlisted WXT entrypoint (entrypoints/python-worker.ts). */
export const PYTHON_WORKER_PATH = '/python-worker.js';

/** Pyodide's binary files, read by the host from the extension and handed to the Worker. */
export interface PythonAssets {
  wasm: ArrayBuffer;
  stdlib: ArrayBuffer;
}

/** Reads the assets from the extension's own files (a context of the extension's origin). */
export async function fetchPythonAssets(base: string): Promise<PythonAssets> {
  const read = async (name: string) => {
    const response = await fetch(new URL(name, base));
    if (!response.ok) throw new Error(`${name} is missing from the extension (HTTP ${response.status}).`);
    return response.arrayBuffer();
  };
  const [wasm, stdlib] = await Promise.all([read('pyodide.asm.wasm'), read('python_stdlib.zip')]);
  return { wasm, stdlib };
}

/** Host → Worker. `indexURL`: where the Worker imports Pyodide's JavaScript from. */
export type PythonWorkerRequest =
  | { type: 'load'; indexURL: string; assets: PythonAssets }
  | { type: 'run'; runId: string; request: RealmRunRequest };

/** Worker → host. */
export type PythonWorkerReply =
  | { type: 'loaded'; ms: number }
  | { type: 'load-failed'; message: string }
  /** The code starts now: the run's clock starts here. */
  | { type: 'started'; runId: string }
  | { type: 'log'; runId: string; line: string }
  | { type: 'result'; runId: string; result: RealmResult };
