/**
 * The background: wiring only. The adapters for this browser are chosen once (lib/browser), the
 * long-lived services built on them (lib/background/services.ts), then the handlers registered
 * synchronously (lib/background: the protocol's handlers, the run-events port) — a woken service
 * worker must see the message that woke it.
 */
import { defineBackground } from 'wxt/utils/define-background';
import { createAdapters } from '../lib/browser';
import { registerAskMenu, type AskHandlers } from '../lib/browser/ask-menu';
import { registerDatabaseMessages } from '../lib/browser/database-host';
import { createPanelAdapter, OpenPanels, serveToolbarButton } from '../lib/browser/panel';
import { loadSettings } from '../lib/storage/settings-store';
import { registerSandboxMessages } from '../lib/sandbox/background';
import { registerProtocolHandlers } from '../lib/background/messages';
import { serveRunEventPorts } from '../lib/background/run-events-port';
import { startServices } from '../lib/background/services';

export default defineBackground(() => {
  const adapters = createAdapters();
  const services = startServices(adapters);
  registerProtocolHandlers(services);
  serveRunEventPorts(services.ready.then(({ runs }) => runs));
  registerSandboxMessages(adapters.sandbox, adapters.sandboxForEngine);
  registerDatabaseMessages(adapters.database);
  const panels = new OpenPanels().listen();
  const panel = createPanelAdapter(panels);
  serveToolbarButton(panel, loadSettings);
  // Reachable as the browser reaches them (the e2e suite calls them with the browser's arguments).
  globalThis.pagewrightHandlers = registerAskMenu(panel);
});

declare global {
  // eslint-disable-next-line no-var
  var pagewrightHandlers: AskHandlers | undefined;
}
