/**
 * Chrome: the one offscreen document (Chrome allows one per extension), created on demand.
 * Concurrent callers share one creation; a document that already exists (created before the
 * service worker restarted) is reused.
 */
import { browser } from 'wxt/browser';

const OFFSCREEN_PATH = '/offscreen.html';
let creating: Promise<void> | null = null;

export async function ensureOffscreenDocument(): Promise<void> {
  if (await offscreenDocumentExists()) return;
  creating ??= browser.offscreen
    .createDocument({
      url: OFFSCREEN_PATH,
      reasons: [browser.offscreen.Reason.IFRAME_SCRIPTING],
      justification: 'Runs untrusted JavaScript in a sandboxed iframe, isolated from the extension.',
    })
    .catch(async (e: unknown) => {
      // Another caller (or a previous service worker) created it between our check and now.
      if (!(await offscreenDocumentExists())) throw e;
    })
    .finally(() => {
      creating = null;
    });
  await creating;
}

export async function closeOffscreenDocument(): Promise<void> {
  try {
    if (await offscreenDocumentExists()) await browser.offscreen.closeDocument();
  } catch {}
}

async function offscreenDocumentExists(): Promise<boolean> {
  const contexts = await browser.runtime.getContexts({
    contextTypes: [browser.runtime.ContextType.OFFSCREEN_DOCUMENT],
    documentUrls: [browser.runtime.getURL(OFFSCREEN_PATH)],
  });
  return contexts.length > 0;
}
