import { browser } from 'wxt/browser';
import { functionRunner } from './functions';
import { offscreenSandboxHost } from './offscreen-host';
import type { SandboxEngine } from './engines';
import { fetchPythonAssets, PYODIDE_DIR, PYTHON_WORKER_PATH } from './python-protocol';
import { pythonRealmHost } from './python-host';
import { quickjsSandboxHost } from './quickjs-host';
import type { SandboxHost } from './types';

export type { SandboxEngine } from './engines';
export type { FunctionCall, FunctionLanguage, SandboxHost, SandboxOutcome, SandboxRunOptions } from './types';

/**
 * Chrome's engine unless told otherwise: QuickJS, as in Firefox. V8 in the sandbox page is
 * faster, but it shares the extension's renderer process, and code that allocates without
 * end grows it until Chrome kills it, taking the background and every extension page with it
 * until the extension is reloaded. QuickJS's 128 MB heap turns that into an error instead.
 */
export const CHROME_DEFAULT_ENGINE: SandboxEngine = 'quickjs';

/**
 * The two hosts; lib/browser chooses one at start-up. Chrome runs code in its offscreen
 * document (its service worker has no DOM), in the manifest sandbox page ('v8') or in QuickJS:
 * offscreenSandboxHost(engine). Firefox, which has no sandbox pages, runs it in QuickJS inside
 * a Worker of its background page: workerSandboxHost(). Function skills' Python runs in a
 * Pyodide Worker beside them (python-host.ts).
 */
export { offscreenSandboxHost };

/**
 * JavaScript in QuickJS Workers, Python in a Pyodide Worker, both started from the extension's
 * own scripts (Firefox refuses blob: Workers under the extension CSP).
 */
export function workerSandboxHost(): SandboxHost {
  const javascript = quickjsSandboxHost();
  const indexURL = browser.runtime.getURL(PYODIDE_DIR as '/');
  const python = pythonRealmHost({
    spawn: () => new Worker(browser.runtime.getURL(PYTHON_WORKER_PATH as '/'), { name: 'pagewright-python' }),
    assets: () => fetchPythonAssets(indexURL),
    indexURL,
  });
  return { run: javascript.run, runFunction: functionRunner({ javascript, python }) };
}
