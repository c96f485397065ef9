/**
 * Injected into a tab's MAIN world by page_action (scripting.executeScript with
 * files: ['page-actions.js']): installs window.__pagewrightActions, which the background then calls
 * (lib/browser/page-actions.ts). MAIN, because answering the page's alert/confirm/prompt means
 * replacing the page's own functions. Injecting twice just installs it again; a page that replaced
 * it can only break actions on itself.
 */
import { defineUnlistedScript } from 'wxt/utils/define-unlisted-script';
import { act, finish, quietFor, scroll, waitCheck } from '../lib/actions/page';

declare global {
  // eslint-disable-next-line no-var
  var __pagewrightActions: { act: typeof act; finish: typeof finish; quietFor: typeof quietFor; scroll: typeof scroll; check: typeof waitCheck } | undefined;
}

export default defineUnlistedScript(() => {
  globalThis.__pagewrightActions = { act, finish, quietFor, scroll, check: waitCheck };
});
