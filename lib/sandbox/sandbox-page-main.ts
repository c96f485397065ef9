// The script of entrypoints/sandbox.html; kept apart from sandbox-page.ts so tests can import
// that without starting a page.
import { startSandboxPage } from './sandbox-page';

startSandboxPage();
