/** Firefox: the messages between the background page and a QuickJS sandbox Worker. */
import type { RealmResult, RealmRunRequest } from './report';

/** Background page → worker. One run at a time per worker. */
export type QuickJSWorkerRequest = { type: 'run'; runId: string; request: RealmRunRequest };

/** Worker → background page. */
export type QuickJSWorkerReply =
  /** The engine is loaded and the code starts now: the run's clock starts here. */
  | { type: 'started'; runId: string }
  | { type: 'log'; runId: string; line: string }
  | { type: 'result'; runId: string; result: RealmResult; reusable: boolean };

/** The worker script, an unlisted WXT entrypoint (entrypoints/sandbox-worker.ts). */
export const QUICKJS_WORKER_PATH = '/sandbox-worker.js';
