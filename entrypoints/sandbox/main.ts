import { startSandboxPage } from '../../lib/sandbox/sandbox-page';

startSandboxPage();
