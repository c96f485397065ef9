// Runs before the popup's module code is even parsed: asks the background for the latest
// conversation so that round trip overlaps start-up. lib/ui/extension-client.ts adopts this
// port (the name and request are the ones lib/protocol.ts defines). Kept a classic script on
// purpose: Vite would bundle a module script into the popup's own chunk.
(() => {
  const api = globalThis.browser ?? globalThis.chrome;
  const port = api.runtime.connect({ name: 'pagewright:run-events' });
  const early = { port, buffered: [], listener: undefined, disconnected: false };
  port.onMessage.addListener((msg) => (early.listener ? early.listener(msg) : early.buffered.push(msg)));
  port.onDisconnect.addListener(() => (early.disconnected = true));
  port.postMessage({ type: 'attach', conversationId: null });
  globalThis.__pagewrightEarlyPort = early;
})();
