import { defineUnlistedScript } from 'wxt/utils/define-unlisted-script';
import { startDatabaseWorker } from '../lib/database/worker';

/** The Worker in which database skills' queries run (lib/database/worker.ts): Chrome's offscreen
 *  document starts it, Firefox's background page, and the management page for imports. */
export default defineUnlistedScript(() => startDatabaseWorker());
