import { browser } from 'wxt/browser';
import { errorMessage, ModelFacingError } from '../errors';
import { ControlRecords, type ControlEntry } from './control-records';
import { chromeTrustedInput, createPageActions, type PageActions } from './page-actions';
import { pageRunner, type PageRunResult } from './page-runner';

/** The annotated Markdown of a page, as the page reader returns it. */
export interface PageContent {
  title: string;
  url: string;
  content: string;
  truncated: boolean;
  usedSelector: string;
  /** Each control's selector with the role and name it had (page_action finds it again by them after a re-render). */
  controls?: ControlEntry[];
}

export type PageErrorCode =
  | 'restricted'
  | 'invalid_selector'
  | 'no_match'
  | 'empty'
  | 'user_scripts_needed'
  | 'timeout'
  | 'injection_failed';

export class PageError extends ModelFacingError<PageErrorCode> {
  override name = 'PageError';
}

export interface PageRunOptions {
  timeoutMs: number;
  maxChars: number;
  signal: AbortSignal;
}

export interface PageRunOutcome extends PageRunResult {
  /** How the code ran: the page's MAIN world, or Firefox's content-script fallback. */
  world: 'main' | 'isolated';
}

export interface PagesAdapter extends PageActions {
  read(tabId: number, options: { selector?: string; maxLength?: number }, signal: AbortSignal): Promise<PageContent>;
  run(tabId: number, code: string, options: PageRunOptions): Promise<PageRunOutcome>;
  /** The text the user selected in the tab (any frame), at most `maxChars`; empty when none or unreadable. */
  selection(tabId: number, maxChars: number): Promise<string>;
}

const SELECTION_TIMEOUT_MS = 1_000;

/**
 * Read in the isolated world of every frame, the first non-empty wins. The user is sending a
 * message: a page that does not answer within a second is not worth waiting on.
 */
async function selectionIn(tabId: number, maxChars: number): Promise<string> {
  try {
    const results = (await Promise.race([
      browser.scripting.executeScript({
        target: { tabId, allFrames: true },
        func: (max: number) => (globalThis.getSelection?.()?.toString() ?? '').slice(0, max),
        args: [maxChars],
      }),
      new Promise<undefined>((r) => setTimeout(r, SELECTION_TIMEOUT_MS)),
    ])) as { result?: unknown }[] | undefined;
    const found = results?.map((r) => (typeof r.result === 'string' ? r.result.trim() : '')).find(Boolean) ?? '';
    return found.slice(0, maxChars);
  } catch {
    // Restricted pages (the browser's own, the web store) have no readable selection.
    return '';
  }
}

const READER_FILE = '/page-reader.js';
const READ_TIMEOUT_MS = 20_000;

type Injector = (details: Parameters<typeof browser.scripting.executeScript>[0]) => Promise<unknown>;

/** The browser's injection errors, told in terms the model can act on. */
function injectionError(e: unknown): PageError {
  const message = errorMessage(e);
  if (/cannot (access|be scripted)|cannot script|missing host permission|extensions gallery|restricted|chrome:\/\/|about:|moz-extension|pdf/i.test(message)) {
    return new PageError('restricted', `The browser does not let extensions into this page (${message}).`);
  }
  if (/no tab with id|invalid tab id/i.test(message)) return new PageError('injection_failed', message);
  return new PageError('injection_failed', `Could not run in the page: ${message}`);
}

function withTimeout<T>(promise: Promise<T>, ms: number, signal: AbortSignal, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new PageError('timeout', what)), ms);
    const onAbort = () => reject(new PageError('timeout', 'Stopped by the user.'));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    });
  });
}

async function firstResult<T>(inject: Injector, details: Parameters<Injector>[0]): Promise<T> {
  let results: unknown;
  try {
    results = await inject(details);
  } catch (e) {
    throw injectionError(e);
  }
  const first = (results as { result?: T; error?: unknown }[] | undefined)?.[0];
  if (!first) throw new PageError('injection_failed', 'The page returned nothing (it may have navigated away meanwhile).');
  if (first.error !== undefined && first.error !== null) throw injectionError(first.error);
  return first.result as T;
}

type World = 'MAIN' | 'ISOLATED';
type ReaderReply = PageContent | { error: { code: PageErrorCode | 'internal'; message: string } } | undefined;

async function readIn(world: World, tabId: number, options: { selector?: string; maxLength?: number }): Promise<ReaderReply> {
  const inject: Injector = (d) => browser.scripting.executeScript(d);
  await firstResult(inject, { target: { tabId }, world, files: [READER_FILE] });
  return firstResult<ReaderReply>(inject, {
    target: { tabId },
    world,
    func: (opts: { selector?: string; maxLength?: number; url?: string }) => {
      const reader = (globalThis as { __pagewrightReadPage?: (o: unknown) => unknown }).__pagewrightReadPage;
      return reader ? reader(opts) : { error: { code: 'injection_failed', message: 'The page reader did not load.' } };
    },
    args: [options],
  });
}

/**
 * Reads the page in the first world that works. A page's own scripts could break the reader in the
 * MAIN world (patched built-ins, a property in the way); then the next world reads it.
 */
async function readPage(worlds: World[], tabId: number, options: { selector?: string; maxLength?: number }, signal: AbortSignal): Promise<PageContent> {
  const run = async () => {
    let reply: ReaderReply;
    for (const [i, world] of worlds.entries()) {
      const last = i === worlds.length - 1;
      try {
        reply = await readIn(world, tabId, options);
      } catch (e) {
        if (last || (e instanceof PageError && e.code === 'restricted')) throw e;
        continue;
      }
      const broken = !reply || ('error' in reply && (reply.error.code === 'internal' || reply.error.code === 'injection_failed'));
      if (!broken || last) break;
    }
    return reply;
  };
  const result = await withTimeout(run(), READ_TIMEOUT_MS, signal, `Reading the page took longer than ${READ_TIMEOUT_MS / 1000} s.`);
  if (!result) throw new PageError('injection_failed', 'The page reader returned nothing.');
  if ('error' in result) throw new PageError(result.error.code === 'internal' ? 'injection_failed' : result.error.code, result.error.message);
  return result;
}

/** Keeps what a read said each control was, for page_action; the model gets the page without it. */
async function recording(records: ControlRecords, tabId: number, read: Promise<PageContent>): Promise<PageContent> {
  const { controls, ...page } = await read;
  records.record(tabId, page.url, controls);
  return page;
}

function timeoutMessage(ms: number) {
  return (
    `The code did not finish within ${ms / 1000} s. If it is waiting on something, return sooner; ` +
    'if it is stuck in a loop, the page may be unresponsive now (reloading the tab with open_tab on its URL recovers it).'
  );
}

const runInMain = (tabId: number, code: string, o: PageRunOptions) =>
  withTimeout(
    firstResult<PageRunResult>((d) => browser.scripting.executeScript(d), {
      target: { tabId },
      world: 'MAIN',
      func: pageRunner,
      args: [code, o.maxChars, 'eval'],
    }),
    o.timeoutMs,
    o.signal,
    timeoutMessage(o.timeoutMs),
  );

/**
 * Chrome: the MAIN world through scripting; on a page whose CSP forbids eval, through
 * userScripts.execute (which the page's CSP does not govern) once the user allowed user scripts.
 */
export function createChromePages(): PagesAdapter {
  const records = new ControlRecords();
  return {
    // Chrome's isolated world reads the DOM as fast as the page does, out of the page's reach.
    read: (...a) => recording(records, a[0], readPage(['ISOLATED'], ...a)),
    // Chrome alone can send input as the browser's own (DevTools protocol), when the user turned it on.
    act: createPageActions(records, chromeTrustedInput()).act,
    selection: selectionIn,
    async run(tabId, code, o) {
      const first = await runInMain(tabId, code, o);
      if (first.ok || first.error?.kind !== 'csp') return { ...first, world: 'main' };
      const userScripts = (globalThis as { chrome?: { userScripts?: { execute?: Injector } } }).chrome?.userScripts;
      if (!userScripts?.execute) {
        throw new PageError(
          'user_scripts_needed',
          "This page's Content-Security-Policy forbids running code strings. Chrome allows it only through user scripts: " +
            'the user must open chrome://extensions, click "Details" on Pagewright and turn on "Allow User Scripts", then you can retry. ' +
            'Until then, read the page with get_tab_content.',
        );
      }
      const source = `(${pageRunner.toString()})(null, ${o.maxChars}, 'inline', async () => {\n${code}\n})`;
      const result = await withTimeout(
        firstResult<PageRunResult | undefined>(userScripts.execute.bind(userScripts), {
          target: { tabId },
          world: 'MAIN',
          js: [{ code: source }],
        } as never),
        o.timeoutMs,
        o.signal,
        timeoutMessage(o.timeoutMs),
      ).catch((e: unknown) => {
        // The code is inlined into the injected source, so a syntax error fails the injection.
        if (e instanceof PageError && /SyntaxError|Unexpected|Invalid or unexpected/i.test(e.message)) {
          return { ok: false, error: { kind: 'syntax', name: 'SyntaxError', message: e.message.replace(/^Could not run in the page: /, '') } } as PageRunResult;
        }
        throw e;
      });
      if (!result) throw new PageError('injection_failed', 'The user script returned nothing.');
      return { ...result, world: 'main' };
    },
  };
}

/**
 * Firefox: the MAIN world through scripting; under a CSP that forbids eval (Firefox still
 * applies the page's CSP to extension-injected page scripts, bug 1267027), the content-script
 * world, where the code sees the page's own window and DOM through Xray waivers.
 */
export function createFirefoxPages(): PagesAdapter {
  const records = new ControlRecords();
  return {
    // Firefox's content-script world sees the DOM through Xray wrappers: get_tab_content on a 5 MB
    // page took ~3 s there, ~1 s in the page's own world (most of it Firefox preparing that world on
    // the first injection into the tab; the read itself ~0.1 s). The page can then see the reader; it
    // could only lie about its own content, which it can do anyway.
    read: (...a) => recording(records, a[0], readPage(['MAIN', 'ISOLATED'], ...a)),
    // Firefox has no API to send input as the browser's own: synthetic events only.
    act: createPageActions(records).act,
    selection: selectionIn,
    async run(tabId, code, o) {
      const first = await runInMain(tabId, code, o);
      if (first.ok || first.error?.kind !== 'csp') return { ...first, world: 'main' };
      const second = await withTimeout(
        firstResult<PageRunResult>((d) => browser.scripting.executeScript(d), {
          target: { tabId },
          func: pageRunner,
          args: [code, o.maxChars, 'isolated'],
        }),
        o.timeoutMs,
        o.signal,
        timeoutMessage(o.timeoutMs),
      );
      return { ...second, world: 'isolated' };
    },
  };
}
