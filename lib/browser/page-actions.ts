/**
 * page_action's way into a tab: the page module (entrypoints/page-actions.ts → lib/actions/page.ts)
 * injected into the MAIN world, called to act and then, once the page has settled, to report.
 * The waits happen here: a background tab's own timers are throttled to a wake-up a second.
 *
 * Chrome can also send the input itself through the DevTools protocol ("trusted input", a setting):
 * the page module only finds and checks the element and says where it is; chrome.debugger sends
 * the mouse and key events, which the page cannot tell from a person's. Firefox has no such API.
 */
import { browser } from 'wxt/browser';
import type { ActionFailure, ActionOutcome, ActionReply, ActionRequest } from '../actions/types';
import { keyForChar, type Chord } from '../actions/keys';
import { errorMessage, ModelFacingError } from '../errors';
import type { ControlRecords } from './control-records';

export type PageActionErrorCode = 'restricted' | 'closed' | 'failed' | 'timeout' | 'trusted_unavailable';

export class PageActionError extends ModelFacingError<PageActionErrorCode | string> {
  override name = 'PageActionError';
}

export type PageActionRequest = Omit<ActionRequest, 'recorded' | 'mode'>;

export interface PageActionResult extends Omit<ActionOutcome, 'ok' | 'point' | 'focused'> {
  /** A page load the action started: where it went, and whether it finished loading. */
  navigation?: { url: string; loaded: boolean; title?: string };
  input: 'synthetic' | 'trusted';
}

export interface PageActionOptions {
  /** The user turned on trusted input (Settings); the adapter uses it where the browser can. */
  trusted: boolean;
  /** The tab's URL when the call started: the recorded controls are per site, and a load is a change of it. */
  url: string;
  signal: AbortSignal;
}

/** Sends input as the browser's own (Chrome: DevTools protocol). */
export interface TrustedInput {
  /** Whether it can be used now (the optional permission granted). */
  ready(): Promise<boolean>;
  click(tabId: number, x: number, y: number, count: number): Promise<void>;
  hover(tabId: number, x: number, y: number): Promise<void>;
  type(tabId: number, text: string): Promise<void>;
  press(tabId: number, chord: Chord): Promise<void>;
}

export interface PageActions {
  act(tabId: number, request: PageActionRequest, options: PageActionOptions): Promise<PageActionResult>;
}

const MODULE_FILE = '/page-actions.js';
/** The page has settled when nothing changed in it for this long (a framework's re-render, a modal opening). */
const QUIET_MS = 40;
/** …or after this long anyway (an animation that never stops). */
const SETTLE_MAX_MS = 1_000;
const POLL_MS = 100;
const LOAD_WAIT_MS = 10_000;
const CALL_TIMEOUT_MS = 10_000;

type Method = 'act' | 'finish' | 'quietFor' | 'scroll' | 'check';

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(new PageActionError('timeout', 'Stopped by the user.'));
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(t), reject(new PageActionError('timeout', 'Stopped by the user.'))), { once: true });
  });

function injectionError(e: unknown): PageActionError {
  const message = errorMessage(e);
  if (/cannot (access|be scripted)|cannot script|missing host permission|extensions gallery|restricted|chrome:\/\/|about:|moz-extension|pdf/i.test(message)) {
    return new PageActionError('restricted', `The browser does not let extensions act in this page (${message}).`);
  }
  if (/no tab with id|invalid tab id/i.test(message)) return new PageActionError('closed', `${message} (the tab was closed).`);
  return new PageActionError('failed', `Could not act in the page: ${message}`);
}

/** Calls the page module's `method`; undefined when the module is not in the page (not injected yet, or the page was replaced). */
async function call<T>(tabId: number, method: Method, arg?: unknown): Promise<T | undefined> {
  let results: { result?: unknown }[];
  try {
    results = (await browser.scripting.executeScript({
      target: { tabId },
      world: 'MAIN',
      // Async, so that a promise the module returns is awaited in the page (only a top-level one would be).
      func: async (m: string, a: unknown) => {
        const api = (globalThis as unknown as { __pagewrightActions?: Record<string, (x: unknown) => unknown> }).__pagewrightActions;
        return api ? { value: await api[m]!(a) } : { missing: true };
      },
      args: [method, arg ?? null],
    })) as { result?: unknown }[];
  } catch (e) {
    throw injectionError(e);
  }
  const first = results?.[0]?.result as { value?: unknown; missing?: boolean } | undefined;
  if (!first || first.missing) return undefined;
  return first.value as T;
}

async function inject(tabId: number): Promise<void> {
  try {
    await browser.scripting.executeScript({ target: { tabId }, world: 'MAIN', files: [MODULE_FILE] });
  } catch (e) {
    throw injectionError(e);
  }
}

/** The module's `method`, injecting it first when the page does not have it. */
async function callInjected<T>(tabId: number, method: Method, arg?: unknown): Promise<T> {
  const first = await call<T>(tabId, method, arg);
  if (first !== undefined) return first;
  await inject(tabId);
  const second = await call<T>(tabId, method, arg);
  if (second === undefined) throw new PageActionError('failed', 'The page-action module did not load in the page.');
  return second;
}

function failure(reply: ActionFailure): PageActionError {
  return new PageActionError(reply.code, reply.message);
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const t = setTimeout(() => reject(new PageActionError('timeout', what)), ms);
    promise.then(resolve, reject).finally(() => clearTimeout(t));
  });
}

export function createPageActions(records: ControlRecords, trustedInput?: TrustedInput): PageActions {
  /** Waits until the tab has loaded what the action started (bounded), and says where it is. */
  async function afterLoad(tabId: number, signal: AbortSignal): Promise<PageActionResult['navigation']> {
    const start = Date.now();
    for (;;) {
      let tab;
      try {
        tab = await browser.tabs.get(tabId);
      } catch {
        throw new PageActionError('closed', `Tab ${tabId} was closed by the action.`);
      }
      const url = tab.url ?? tab.pendingUrl ?? '';
      if (tab.status === 'complete' || Date.now() - start > LOAD_WAIT_MS) return { url, loaded: tab.status === 'complete', ...(tab.title ? { title: tab.title } : {}) };
      await sleep(POLL_MS, signal);
    }
  }

  async function settle(tabId: number, signal: AbortSignal): Promise<ActionOutcome | undefined> {
    const start = Date.now();
    await sleep(QUIET_MS, signal);
    for (;;) {
      const quiet = await call<number>(tabId, 'quietFor').catch(() => undefined);
      if (quiet === undefined) return undefined; // replaced by a page load
      if (quiet >= QUIET_MS || Date.now() - start >= SETTLE_MAX_MS) return call<ActionOutcome>(tabId, 'finish').catch(() => undefined);
      await sleep(Math.max(10, QUIET_MS - quiet), signal);
    }
  }

  async function sendTrusted(tabId: number, request: PageActionRequest, located: ActionOutcome): Promise<void> {
    const input = trustedInput!;
    const p = located.point;
    switch (request.action) {
      case 'click':
      case 'check':
      case 'uncheck':
        if (p) await input.click(tabId, p.x, p.y, 1);
        return;
      case 'double_click':
        if (p) await input.click(tabId, p.x, p.y, 2);
        return;
      case 'hover':
        if (p) await input.hover(tabId, p.x, p.y);
        return;
      case 'type':
        return input.type(tabId, request.text ?? '');
      case 'press':
        return input.press(tabId, request.chord!);
    }
  }

  return {
    async act(tabId, request, { trusted, url, signal }) {
      const recorded = request.selector ? records.lookup(tabId, url, request.selector) : undefined;
      const full: ActionRequest = { ...request, mode: 'synthetic', ...(recorded ? { recorded } : {}) };

      if (request.action === 'scroll') {
        const reply = await withTimeout(callInjected<ActionReply>(tabId, 'scroll', full), CALL_TIMEOUT_MS, 'The page did not answer within 10 s.');
        if (!reply.ok) throw failure(reply);
        const { ok: _ok, ...rest } = reply;
        return { ...rest, input: 'synthetic' };
      }

      if (request.action === 'wait_for') {
        const start = Date.now();
        let last = '';
        for (;;) {
          const reply = await callInjected<{ met: boolean; detail: string } | ActionFailure>(tabId, 'check', full).catch((e: unknown) => {
            // A page load in between: the new page is asked on the next round.
            if (e instanceof PageActionError && e.code === 'failed') return { met: false, detail: 'the page was loading' };
            throw e;
          });
          if ('ok' in reply) throw failure(reply);
          last = reply.detail;
          const waitedMs = Date.now() - start;
          if (reply.met) return { input: 'synthetic', waitedMs, note: `Condition met after ${waitedMs} ms: ${last}.` };
          if (waitedMs >= request.timeoutMs) {
            const what = request.selector ? `${JSON.stringify(request.selector)} to ${request.until === 'disappears' ? 'disappear' : 'appear'}` : `the text ${JSON.stringify(request.text)} to ${request.until === 'disappears' ? 'go' : 'appear'}`;
            throw new PageActionError('timeout', `Waited ${request.timeoutMs} ms for ${what}; it did not happen (now: ${last}). Read the page with get_tab_content to see what it shows, or wait longer with a larger timeout_ms.`);
          }
          await sleep(Math.min(POLL_MS, request.timeoutMs - waitedMs + 1), signal);
        }
      }

      const useTrusted = trusted && !!trustedInput && ['click', 'double_click', 'hover', 'type', 'press', 'check', 'uncheck'].includes(request.action) && (await trustedInput.ready());
      const reply = await withTimeout(
        callInjected<ActionReply>(tabId, 'act', { ...full, mode: useTrusted ? 'locate' : 'synthetic' }),
        CALL_TIMEOUT_MS,
        'The page did not answer within 10 s (it may be busy or stuck).',
      );
      if (!reply.ok) throw failure(reply);
      if (useTrusted) await sendTrusted(tabId, request, reply);
      const outcome = await settle(tabId, signal);
      const { ok: _ok, point: _p, focused: _f, ...rest } = outcome ?? { ok: true };
      const result: PageActionResult = { ...rest, input: useTrusted ? 'trusted' : 'synthetic' };
      if (trusted && !useTrusted) {
        result.note = [result.note, trustedInput ? 'Trusted input is on but was not used for this action (no DevTools form for it, the permission is missing, or the user cancelled the debugging bar): synthetic events were used.' : 'Trusted input is not available in this browser: synthetic events were used.'].filter(Boolean).join(' ');
      }
      // A page load: started (pagehide seen, or the module gone) or visible as a new URL on the tab.
      if (!outcome || outcome.navigating || !outcome.element) {
        const tab = await browser.tabs.get(tabId).catch(() => undefined);
        if (!tab) throw new PageActionError('closed', `Tab ${tabId} was closed by the action.`);
        if (!outcome || outcome.navigating || tab.status === 'loading' || (tab.url && tab.url !== url && !outcome.url)) {
          result.navigation = await afterLoad(tabId, signal);
          delete result.url;
        }
      }
      return result;
    },
  };
}

/** Chrome's DevTools input (chrome.debugger), attached on first use and detached after a quiet minute. */
export function chromeTrustedInput(): TrustedInput {
  type Debuggee = { tabId: number };
  const api = (globalThis as { chrome?: { debugger?: { attach(t: Debuggee, v: string): Promise<void>; detach(t: Debuggee): Promise<void>; sendCommand(t: Debuggee, m: string, p?: object): Promise<unknown>; onDetach: { addListener(f: (t: Debuggee, reason: string) => void): void } }; permissions?: { contains(p: object): Promise<boolean> } } }).chrome;
  const attached = new Map<number, ReturnType<typeof setTimeout>>();
  let listening = false;
  /** The user cancelled the "is debugging this browser" bar: their word holds until the extension restarts. */
  let cancelled = false;
  const IDLE_MS = 60_000;

  async function session(tabId: number) {
    const dbg = api?.debugger;
    if (!dbg) throw new PageActionError('trusted_unavailable', 'The debugger permission is not granted: turn trusted input off and on again in Settings.');
    if (!listening) {
      listening = true;
      dbg.onDetach.addListener((t, reason) => {
        clearTimeout(attached.get(t.tabId));
        attached.delete(t.tabId);
        if (reason === 'canceled_by_user') cancelled = true;
      });
    }
    if (!attached.has(tabId)) {
      try {
        await dbg.attach({ tabId }, '1.3');
      } catch (e) {
        if (!/already attached/i.test(errorMessage(e))) throw new PageActionError('trusted_unavailable', `Trusted input could not attach to tab ${tabId}: ${errorMessage(e)}`);
      }
    }
    clearTimeout(attached.get(tabId));
    // Kept attached between actions: each attach shows the "is debugging this browser" bar again.
    attached.set(tabId, setTimeout(() => (attached.delete(tabId), void dbg.detach({ tabId }).catch(() => {})), IDLE_MS));
    return (method: string, params: object) => dbg.sendCommand({ tabId }, method, params);
  }

  const mouse = async (tabId: number, type: string, x: number, y: number, extra: object = {}) =>
    (await session(tabId))('Input.dispatchMouseEvent', { type, x, y, button: 'left', pointerType: 'mouse', ...extra });

  const key = async (tabId: number, spec: { key: string; code: string; keyCode: number; text?: string }, modifiers = 0) => {
    const send = await session(tabId);
    const base = { key: spec.key, code: spec.code, windowsVirtualKeyCode: spec.keyCode, nativeVirtualKeyCode: spec.keyCode, modifiers };
    await send('Input.dispatchKeyEvent', { type: spec.text ? 'keyDown' : 'rawKeyDown', ...base, ...(spec.text ? { text: spec.text, unmodifiedText: spec.text } : {}) });
    await send('Input.dispatchKeyEvent', { type: 'keyUp', ...base });
  };

  return {
    async ready() {
      return !cancelled && !!api?.debugger && !!(await api.permissions?.contains({ permissions: ['debugger'] }).catch(() => false));
    },
    async click(tabId, x, y, count) {
      await mouse(tabId, 'mouseMoved', x, y, { button: 'none' });
      for (let n = 1; n <= count; n++) {
        await mouse(tabId, 'mousePressed', x, y, { clickCount: n, buttons: 1 });
        await mouse(tabId, 'mouseReleased', x, y, { clickCount: n });
      }
    },
    async hover(tabId, x, y) {
      await mouse(tabId, 'mouseMoved', x, y, { button: 'none' });
    },
    async type(tabId, text) {
      for (const ch of text) {
        const spec = keyForChar(ch);
        if (spec.code) await key(tabId, spec, /^[A-Z]$/.test(ch) ? 8 : 0);
        else await (await session(tabId))('Input.insertText', { text: ch });
      }
    },
    async press(tabId, chord) {
      const modifiers = (chord.alt ? 1 : 0) | (chord.ctrl ? 2 : 0) | (chord.meta ? 4 : 0) | (chord.shift ? 8 : 0);
      await key(tabId, chord, modifiers);
    },
  };
}
