/**
 * Tools a server says must run as MCP tasks (execution.taskSupport "required", issue 19): the
 * call creates a task, its status is polled (each status message reported as progress), and its
 * result fetched when it completes — the SDK's experimental callToolStream does the three. The
 * user's Stop cancels the task on the server too (tasks/cancel), so it does not run on unseen.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { CallToolResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ToolProgress } from '../contracts/run-events';

/**
 * How long a task may run in all, beyond the per-request timeout each of its requests has: tasks
 * are for work that takes long (the server's research demo, a build), and the user can Stop it.
 */
export const MCP_TASK_MAX_MS = 15 * 60_000;
/** How long the courtesy tasks/cancel after a Stop is given. */
const CANCEL_WAIT_MS = 5000;

export type TaskSupport = 'forbidden' | 'optional' | 'required';

/** What a listed tool says of tasks, read defensively (the field is new and the server's word). */
export function taskSupportOf(tool: { execution?: unknown }): TaskSupport | undefined {
  const support = (tool.execution as { taskSupport?: unknown } | undefined)?.taskSupport;
  return support === 'forbidden' || support === 'optional' || support === 'required' ? support : undefined;
}

/** True when the server declared in initialize that tools/call may be run as a task. */
export function serverRunsToolTasks(client: Client): boolean {
  return !!client.getServerCapabilities()?.tasks?.requests?.tools?.call;
}

/**
 * Why a listed tool cannot be offered to the model, or undefined when it can: one that only runs
 * as a task, on a server that does not declare tasks, would be offered and then always fail.
 */
export function whyUnusable(tool: { execution?: unknown }, client: Client): string | undefined {
  if (taskSupportOf(tool) !== 'required' || serverRunsToolTasks(client)) return undefined;
  return 'it runs only as an MCP task, and the server does not declare support for tasks';
}

export interface TaskReport {
  /** A status message of the task (statusMessage, or the status itself). */
  status(message: string): void;
}

/**
 * tools/call as a task: create, poll, fetch. Any error the stream ends with is thrown (the
 * caller describes it as for a plain call). `opts` carries the signal, per-request timeout and
 * onprogress as for a plain call.
 */
export async function callToolAsTask(client: Client, name: string, args: Record<string, unknown>, opts: RequestOptions, report?: TaskReport): Promise<CallToolResult> {
  let taskId: string | undefined;
  let ended = false;
  const run = async (): Promise<CallToolResult> => {
    // task: {} asks for a task whether or not this Client listed the tool itself (a session
    // reopened after a 404 has not): the server's list, kept by the sessions, said it must.
    for await (const message of client.experimental.tasks.callToolStream({ name, arguments: args }, CallToolResultSchema, { ...opts, task: {} })) {
      switch (message.type) {
        case 'taskCreated':
        case 'taskStatus': {
          taskId = message.task.taskId;
          if (message.task.status === 'completed' || message.task.status === 'failed' || message.task.status === 'cancelled') ended = true;
          report?.status(message.task.statusMessage?.trim() || message.task.status.replace(/_/g, ' '));
          break;
        }
        case 'result':
          ended = true;
          return message.result as CallToolResult;
        case 'error':
          throw message.error;
      }
    }
    throw new Error('the task ended without a result');
  };
  try {
    // The SDK sleeps the server's pollInterval between polls without watching the signal: a
    // Stop must not wait for a server that asks for long intervals.
    return await untilAborted(run(), opts.signal);
  } finally {
    if (!ended && taskId && opts.signal?.aborted) {
      // Not awaited: the Stop has been answered already; this only frees the server.
      void client.experimental.tasks.cancelTask(taskId, { timeout: CANCEL_WAIT_MS }).catch(() => {});
    }
  }
}

function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/**
 * The SDK's request options that carry a call's progress to the user: progress notifications
 * (onprogress) for any call, and a task's status messages as the progress message.
 */
export function progressHooks(report: ((update: ToolProgress) => void) | undefined): { onprogress?: RequestOptions['onprogress']; task?: TaskReport } {
  if (!report) return {};
  return {
    onprogress: (p) => report({ progress: p.progress, ...(p.total !== undefined ? { total: p.total } : {}), ...(p.message !== undefined ? { message: p.message } : {}) }),
    task: { status: (message) => report({ message }) },
  };
}
