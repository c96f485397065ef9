import { startDomHostRelay } from '../../lib/browser/dom-host';
import { startSandboxRelay } from '../../lib/sandbox/offscreen-relay';

startSandboxRelay();
startDomHostRelay();
