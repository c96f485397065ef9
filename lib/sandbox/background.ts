import { browser } from 'wxt/browser';
import type { SandboxEngine } from './engines';
import { sandboxMessaging } from './protocol';
import type { SandboxHost } from './types';

/**
 * Answers `sandboxRun` / `sandboxFunction` / `sandboxAbort` from extension pages (never from content scripts,
 * which speak for web pages). Call once from the background, with the adapters' host and, where the
 * browser has more than one engine (Chrome), the host for a named one.
 */
export function registerSandboxMessages(host: SandboxHost, hostForEngine?: (engine: SandboxEngine) => SandboxHost): void {
  const running = new Map<string, AbortController>();
  const byEngine = new Map<SandboxEngine, SandboxHost>();
  const hostFor = (engine: SandboxEngine | undefined) => {
    if (!engine || !hostForEngine) return host;
    let h = byEngine.get(engine);
    if (!h) byEngine.set(engine, (h = hostForEngine(engine)));
    return h;
  };
  const fromExtensionPage = (sender: { id?: string; url?: string } | undefined) =>
    sender?.id === browser.runtime.id && !!sender.url?.startsWith(browser.runtime.getURL('/'));

  sandboxMessaging.onMessage('sandboxRun', async ({ data, sender }) => {
    if (!fromExtensionPage(sender)) throw new Error('sandboxRun is only answered for extension pages.');
    if (running.has(data.runId)) throw new Error(`A run with id ${data.runId} is already running.`);
    const controller = new AbortController();
    running.set(data.runId, controller);
    try {
      return await hostFor(data.engine).run(data.code, { timeoutMs: data.timeoutMs, maxOutputChars: data.maxOutputChars, signal: controller.signal });
    } finally {
      running.delete(data.runId);
    }
  });
  sandboxMessaging.onMessage('sandboxFunction', async ({ data, sender }) => {
    if (!fromExtensionPage(sender)) throw new Error('sandboxFunction is only answered for extension pages.');
    if (!host.runFunction) throw new Error('This sandbox has no function runner.');
    if (running.has(data.runId)) throw new Error(`A run with id ${data.runId} is already running.`);
    const controller = new AbortController();
    running.set(data.runId, controller);
    try {
      const { language, code, args, timeoutMs } = data;
      return await host.runFunction({ language, code, args, timeoutMs, signal: controller.signal });
    } finally {
      running.delete(data.runId);
    }
  });
  sandboxMessaging.onMessage('sandboxAbort', ({ data, sender }) => {
    if (!fromExtensionPage(sender)) return;
    running.get(data.runId)?.abort();
  });
}
