import { startDatabaseHostRelay } from '../../lib/browser/database-host';
import { startDomHostRelay } from '../../lib/browser/dom-host';
import { startSandboxRelay } from '../../lib/sandbox/offscreen-relay';

startSandboxRelay();
startDomHostRelay();
startDatabaseHostRelay();
