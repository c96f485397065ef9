import { defineUnlistedScript } from 'wxt/utils/define-unlisted-script';
import { startQuickJSWorker } from '../lib/sandbox/quickjs-worker';

/** The Worker in which sandboxed code runs on QuickJS (lib/sandbox/quickjs-host.ts): Firefox's
 *  background page starts it, and Chrome's offscreen document for the 'quickjs' engine. */
export default defineUnlistedScript(() => startQuickJSWorker());
