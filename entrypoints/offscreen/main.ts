import { startSandboxRelay } from '../../lib/sandbox/offscreen-relay';

startSandboxRelay();
