/**
 * Chrome: the messages between the offscreen document, the sandbox page (sandbox.html, an
 * opaque origin inside an iframe of the offscreen document) and the blob Worker that runs
 * one piece of code. The offscreen document hands the sandbox page a MessagePort once; all
 * later traffic goes over that port, so no other window can talk to the sandbox page.
 */
import type { RealmEngine } from './engines';
import type { PythonAssets } from './python-protocol';
import type { PreludeLimits } from './prelude';
import type { RealmResult, RealmRunRequest } from './report';
import type { SandboxOutcome } from './types';

/** window.postMessage from the offscreen document to the sandbox frame, carrying the port. */
export const SANDBOX_CONNECT = 'pagewright:sandbox-connect';

/** Offscreen document → sandbox page (over the port). `python-assets` answers the page's
 *  request for Pyodide's bytes (the page cannot fetch: its CSP has connect-src 'none'). */
export type PageRequest =
  | { type: 'run'; runId: string; engine: RealmEngine; request: RealmRunRequest }
  | { type: 'abort'; runId: string }
  | { type: 'python-assets'; requestId: string; assets?: PythonAssets; error?: string };
/** Sandbox page → offscreen document (over the port): a V8 run's raw result, a QuickJS run's
 *  outcome (already checked by the QuickJS host in the page). */
export type PageReply =
  | { type: 'ready' }
  | { type: 'python-assets'; requestId: string }
  | { type: 'result'; runId: string; result: RealmResult }
  | { type: 'outcome'; runId: string; outcome: SandboxOutcome };

/** Sandbox page → worker. */
/** `argsJson`: a function skill's call (see SandboxRealm.run). */
export type WorkerRequest = { type: 'run'; code: string; limits: PreludeLimits; argsJson?: string };
/** Worker → sandbox page. */
export type WorkerReply = { type: 'log'; line: string } | { type: 'done'; report: string } | { type: 'crashed'; message: string };
