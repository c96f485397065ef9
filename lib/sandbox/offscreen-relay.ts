/**
 * Chrome: the sandbox's part of the offscreen document. It embeds sandbox.html in an iframe,
 * hands it a MessagePort, and relays runs from the background service worker to it. If the
 * frame stops answering, it is replaced and the runs in it fail.
 */
import { browser } from 'wxt/browser';
import { SANDBOX_CONNECT, type PageReply, type PageRequest } from './frame-protocol';
import { offscreenMessaging } from '../browser/offscreen/protocol';
import { startAllowanceMs, type RealmEngine } from './engines';
import { fetchPythonAssets, PYODIDE_DIR } from './python-protocol';
import { failure, toOutcome, type RealmRunRequest } from './report';
import type { SandboxErrorKind, SandboxOutcome } from './types';
import { errorMessage } from '../errors';

const FRAME_START_TIMEOUT_MS = 10_000;
/** Past the run's own timeout, how long the frame may stay silent before it is replaced. */
const FRAME_SILENCE_MS = 5_000;

interface Pending {
  resolve(outcome: SandboxOutcome): void;
  request: RealmRunRequest;
  started: number;
  port: MessagePort | null;
}

class SandboxFrame {
  private port: Promise<MessagePort> | null = null;
  private iframe: HTMLIFrameElement | null = null;
  private readonly pending = new Map<string, Pending>();

  run(runId: string, engine: RealmEngine, request: RealmRunRequest): Promise<SandboxOutcome> {
    return new Promise<SandboxOutcome>((resolve) => {
      let watchdog: ReturnType<typeof setTimeout> | undefined;
      const entry: Pending = {
        request,
        started: performance.now(),
        port: null,
        resolve: (r) => {
          clearTimeout(watchdog);
          this.pending.delete(runId);
          resolve(r);
        },
      };
      this.pending.set(runId, entry);
      this.connect().then(
        (port) => {
          if (this.pending.get(runId) !== entry) return; // aborted while the frame was starting
          entry.port = port;
          const silence = request.timeoutMs + FRAME_SILENCE_MS + startAllowanceMs(engine);
          watchdog = setTimeout(() => this.reset(`The sandbox did not answer within ${silence} ms and was restarted.`), silence);
          port.postMessage({ type: 'run', runId, engine, request } satisfies PageRequest);
        },
        (e: unknown) => entry.resolve(failed('host', String(e), entry.started)),
      );
    });
  }

  abort(runId: string): void {
    const entry = this.pending.get(runId);
    if (!entry) return;
    if (entry.port) entry.port.postMessage({ type: 'abort', runId } satisfies PageRequest);
    else entry.resolve(failed('aborted', 'The run was stopped before the code started.', entry.started));
  }

  private connect(): Promise<MessagePort> {
    this.port ??= new Promise<MessagePort>((resolve, reject) => {
      const iframe = document.createElement('iframe');
      iframe.setAttribute('sandbox', 'allow-scripts');
      iframe.src = browser.runtime.getURL('/sandbox.html');
      const fail = setTimeout(() => {
        this.reset('The sandbox frame did not start.');
        reject(new Error('The sandbox frame did not start.'));
      }, FRAME_START_TIMEOUT_MS);
      iframe.addEventListener(
        'load',
        () => {
          const channel = new MessageChannel();
          channel.port1.onmessage = (e: MessageEvent<PageReply>) => {
            const m = e.data;
            if (m?.type === 'ready') {
              clearTimeout(fail);
              resolve(channel.port1);
            } else if (m?.type === 'result') {
              const p = this.pending.get(m.runId);
              p?.resolve(toOutcome(m.result, p.request.limits, performance.now() - p.started));
            } else if (m?.type === 'python-assets') {
              void sendPythonAssets(channel.port1, m.requestId);
            } else if (m?.type === 'outcome') {
              const p = this.pending.get(m.runId);
              p?.resolve(typeof m.outcome?.ok === 'boolean' ? m.outcome : failed('host', 'The sandbox sent no usable answer.', p.started));
            }
          };
          // A sandbox page has an opaque origin: '*' is the only target origin that reaches it.
          iframe.contentWindow?.postMessage({ type: SANDBOX_CONNECT }, '*', [channel.port2]);
        },
        { once: true },
      );
      this.iframe = iframe;
      document.body.append(iframe);
    });
    return this.port;
  }

  private reset(message: string): void {
    this.iframe?.remove();
    this.iframe = null;
    this.port = null;
    for (const p of [...this.pending.values()]) p.resolve(failed('host', message, p.started));
  }
}

/** The sandbox page cannot fetch (connect-src 'none'): the extension's own Pyodide files are
 *  read here and their bytes transferred to it. */
async function sendPythonAssets(port: MessagePort, requestId: string): Promise<void> {
  try {
    const assets = await fetchPythonAssets(browser.runtime.getURL(PYODIDE_DIR as '/'));
    port.postMessage({ type: 'python-assets', requestId, assets } satisfies PageRequest, [assets.wasm, assets.stdlib]);
  } catch (e) {
    port.postMessage({ type: 'python-assets', requestId, error: errorMessage(e) } satisfies PageRequest);
  }
}

const failed = (kind: SandboxErrorKind, message: string, started: number): SandboxOutcome =>
  failure(kind, message, [], performance.now() - started);

export function startSandboxRelay(): void {
  const frame = new SandboxFrame();
  offscreenMessaging.onMessage('sandboxOffscreenRun', ({ data }) => frame.run(data.runId, data.engine, data.request));
  offscreenMessaging.onMessage('sandboxOffscreenAbort', ({ data }) => frame.abort(data.runId));
}
