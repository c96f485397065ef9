/**
 * Chrome: the one offscreen document (Chrome allows one per extension), created on demand.
 * Concurrent callers share one creation; a document that already exists (created before the
 * service worker restarted) is reused.
 */
import { browser } from 'wxt/browser';
import { errorMessage } from '../../errors';

const OFFSCREEN_PATH = '/offscreen.html';
let creating: Promise<void> | null = null;

export async function ensureOffscreenDocument(): Promise<void> {
  if (await offscreenDocumentExists()) return;
  creating ??= browser.offscreen
    .createDocument({
      url: OFFSCREEN_PATH,
      reasons: [browser.offscreen.Reason.IFRAME_SCRIPTING, browser.offscreen.Reason.DOM_PARSER],
      justification: 'Runs untrusted JavaScript in a sandboxed iframe, isolated from the extension; parses fetched web pages into text.',
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

/**
 * Sends a message to the offscreen document, asking again briefly while it is just created and
 * its listeners are not registered yet.
 */
export async function sendWhenListening<T>(send: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await send();
    } catch (e) {
      if (attempt >= 40 || !/Receiving end does not exist/i.test(errorMessage(e))) throw e;
      await new Promise((r) => setTimeout(r, 25));
    }
  }
}
