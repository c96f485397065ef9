/**
 * Injected into a tab by get_tab_content (scripting.executeScript with files: ['page-reader.js']).
 * It installs one function, window.__pagewrightReadPage(opts), which the tool then calls; the result
 * is plain JSON so it survives executeScript, and errors come back as { error: { code, message } }
 * rather than as a rejected injection. Injecting twice just installs the function again.
 */
import { defineUnlistedScript } from 'wxt/utils/define-unlisted-script';
import { ExtractError, extractPage, type ExtractOptions, type ExtractResult, type StageTimings } from '../lib/extract';
import { errorMessage } from '../lib/errors';

export type ReadPageResult = ExtractResult | { error: { code: string; message: string } };

declare global {
  // eslint-disable-next-line no-var
  var __pagewrightReadPage: ((opts?: ExtractOptions, timings?: StageTimings) => ReadPageResult) | undefined;
}

/** `timings`: for the bench, which passes an object to fill with milliseconds per stage. */
export function readPage(opts: ExtractOptions = {}, timings?: StageTimings): ReadPageResult {
  try {
    const { title, url, content, truncated, usedSelector, controls } = extractPage(document, opts, timings);
    return { title, url, content, truncated, usedSelector, ...(controls ? { controls } : {}) };
  } catch (e) {
    if (e instanceof ExtractError) return { error: { code: e.code, message: e.message } };
    return { error: { code: 'internal', message: errorMessage(e) } };
  }
}

export default defineUnlistedScript(() => {
  globalThis.__pagewrightReadPage = readPage;
});
