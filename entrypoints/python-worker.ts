import { defineUnlistedScript } from 'wxt/utils/define-unlisted-script';
import { startPythonWorker } from '../lib/sandbox/python-worker';

/** The Worker in which function skills' Python runs on Pyodide (lib/sandbox/python-host.ts):
 *  Firefox's background page starts it, and Chrome's manifest sandbox page. */
export default defineUnlistedScript(() => startPythonWorker());
