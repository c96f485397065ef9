/**
 * Firefox: runs one piece of code in a fresh QuickJS runtime (a JavaScript engine compiled to
 * WebAssembly). The VM has no DOM, no network, no storage and no extension APIs by
 * construction; the only ways out are the hooks handed to the prelude: the log sink and timers.
 * Runaway code is stopped by QuickJS's interrupt handler at the deadline; the host also kills
 * the whole Worker if that ever fails (quickjs-host.ts).
 *
 * Pure with respect to the browser: unit tests run it in Node.
 */
import type { QuickJSContext, QuickJSHandle, QuickJSWASMModule } from 'quickjs-emscripten-core';
import { errorMessage } from '../errors';
import { installSandboxPrelude } from './prelude';
import { outOfMemoryMessage, timeoutMessage, type RealmResult, type RealmRunRequest } from './report';
import type { SandboxErrorKind } from './types';

const PRELUDE_SOURCE = `(${installSandboxPrelude.toString()})`;
/**
 * QuickJS checks its own stack against this. The engine running the WebAssembly has a stack
 * of its own, which deep QuickJS recursion also uses up: if that one overflows first, the host
 * throws and the module must be replaced. 128 KB keeps QuickJS's RangeError first in a Chrome
 * Worker (whose stack is the smallest here) for every recursion tried (plain, through map,
 * sort, getters, toJSON, proxies): about 700 levels of plain recursion.
 */
const MAX_STACK_BYTES = 128 * 1024;
/** A Worker whose WebAssembly memory grew past this is replaced after the run. */
const RECYCLE_ABOVE_BYTES = 64 * 1024 * 1024;

/**
 * The memory QuickJS gets, at most this. This is the real memory limit: QuickJS's own
 * (runtime.setMemoryLimit) counts allocations, not bytes, in this build (no
 * malloc_usable_size), so it would let the code take the 2 GB the module allows. When the
 * memory cannot grow, allocations fail and the code gets a catchable "out of memory".
 */
export const QUICKJS_MAX_MEMORY_BYTES = 128 * 1024 * 1024;

export const QUICKJS_OUT_OF_MEMORY = outOfMemoryMessage(
  'Out of memory',
  'the JavaScript sandbox',
  QUICKJS_MAX_MEMORY_BYTES,
  'aggregate as you go instead of collecting everything, or split the work across several runs',
);

/** Growth refused per memory: the only sure sign that a thrown null was QuickJS out of memory. */
const refusedGrowth = new WeakMap<WebAssembly.Memory, { count: number }>();

export function sandboxWasmMemory(): WebAssembly.Memory {
  const page = 64 * 1024;
  const memory = new WebAssembly.Memory({ initial: (16 * 1024 * 1024) / page, maximum: QUICKJS_MAX_MEMORY_BYTES / page });
  const refused = { count: 0 };
  refusedGrowth.set(memory, refused);
  // emscripten grows the heap through this method of the memory it was given.
  const grow = memory.grow;
  Object.defineProperty(memory, 'grow', {
    configurable: true,
    value(this: WebAssembly.Memory, pages: number) {
      try {
        return grow.call(this, pages);
      } catch (e) {
        refused.count++;
        throw e;
      }
    },
  });
  return memory;
}

const growthRefusals = (quickjs: QuickJSWASMModule): number => {
  try {
    return refusedGrowth.get(quickjs.getWasmMemory())?.count ?? 0;
  } catch {
    return 0;
  }
};

export interface QuickJSRun {
  result: RealmResult;
  /** False when the module may be in a bad state or holds too much memory: start a new Worker. */
  reusable: boolean;
}

export async function runInQuickJS(
  quickjs: QuickJSWASMModule,
  request: RealmRunRequest,
  onLog: (line: string) => void = () => {},
): Promise<QuickJSRun> {
  const started = performance.now();
  const deadline = started + request.timeoutMs;
  const logs: string[] = [];
  let interrupted = false;
  let reusable = true;
  const failed = (kind: SandboxErrorKind, message: string): RealmResult => ({
    status: 'failed',
    kind,
    message,
    logs,
    durationMs: performance.now() - started,
  });
  const timedOut = () => failed('timeout', timeoutMessage(request.timeoutMs));
  const refusalsBefore = growthRefusals(quickjs);
  const ranOutOfMemory = () => growthRefusals(quickjs) > refusalsBefore;
  /** A timer callback that threw past the prelude's guard (which then could not even log it). */
  let timerFailure: string | null = null;

  const runtime = quickjs.newRuntime();
  runtime.setMaxStackSize(MAX_STACK_BYTES);
  runtime.setInterruptHandler(() => {
    if (performance.now() < deadline) return false;
    interrupted = true;
    return true;
  });
  const ctx = runtime.newContext();
  const handles: QuickJSHandle[] = [];
  const keep = (h: QuickJSHandle) => (handles.push(h), h);
  const timers = new Map<number, { fn: QuickJSHandle; due: number }>();
  let timerSeq = 0;

  const drive = async (): Promise<RealmResult> => {
    const hooks = keep(ctx.newObject());
    const fns: Record<string, (...args: QuickJSHandle[]) => QuickJSHandle | void> = {
      log: (line) => {
        const text = ctx.getString(line!);
        if (logs.length <= request.limits.maxLogLines) logs.push(text);
        onLog(text);
      },
      setTimer: (fn, ms) => {
        const id = ++timerSeq;
        const delay = Math.max(0, Number(ctx.getNumber(ms!)) || 0);
        timers.set(id, { fn: fn!.dup(), due: performance.now() + delay });
        return ctx.newNumber(id);
      },
      clearTimer: (id) => {
        const key = ctx.getNumber(id!);
        timers.get(key)?.fn.dispose();
        timers.delete(key);
      },
    };
    for (const [name, impl] of Object.entries(fns)) {
      const fn = ctx.newFunction(name, impl);
      ctx.setProp(hooks, name, fn);
      fn.dispose();
    }
    const prelude = keep(unwrap(ctx, ctx.evalCode(PRELUDE_SOURCE, 'prelude.js')));
    const limits = keep(unwrap(ctx, ctx.evalCode(`(${JSON.stringify(request.limits)})`, 'limits.js')));
    const realm = keep(unwrap(ctx, ctx.callFunction(prelude, ctx.undefined, ctx.global, limits, hooks)));
    const run = keep(ctx.getProp(realm, 'run'));
    const code = keep(ctx.newString(request.code));

    // The code's synchronous part runs here, until its first await.
    const args = request.argsJson === undefined ? [] : [keep(ctx.newString(request.argsJson))];
    const called = ctx.callFunction(run, realm, code, ...args);
    if (interrupted) {
      called.dispose();
      return timedOut();
    }
    const promise = keep(unwrap(ctx, called));

    for (;;) {
      const jobs = runtime.executePendingJobs();
      if (jobs.error) {
        const what = ctx.dump(jobs.error);
        jobs.dispose();
        if (interrupted) return timedOut();
        reusable = false;
        return failed('host', `QuickJS stopped: ${describe(what)}`);
      }
      if (interrupted) return timedOut();
      const state = ctx.getPromiseState(promise);
      if (state.type === 'fulfilled') {
        const report = ctx.typeof(state.value) === 'string' ? ctx.getString(state.value) : null;
        if (state.value !== promise) state.value.dispose();
        if (report === null) return failed('host', 'The sandbox produced no report.');
        return { status: 'done', report, durationMs: performance.now() - started };
      }
      if (state.type === 'rejected') {
        const what = ctx.dump(state.error);
        state.error.dispose();
        return failed('host', `The sandbox failed: ${describe(what)}`);
      }
      // Pending, with no job left: only a timer can move it on.
      let next: [number, { fn: QuickJSHandle; due: number }] | undefined;
      for (const entry of timers) if (!next || entry[1].due < next[1].due) next = entry;
      if (!next) {
        return failed('runtime', 'The code awaits a promise that can never settle: no timer or other work is pending.');
      }
      const wait = next[1].due - performance.now();
      if (performance.now() + Math.max(0, wait) >= deadline) {
        await sleep(deadline - performance.now());
        return timedOut();
      }
      if (wait > 0) await sleep(wait);
      timers.delete(next[0]);
      const fired = ctx.callFunction(next[1].fn, ctx.undefined);
      next[1].fn.dispose();
      if (fired.error && timerFailure === null) {
        try {
          timerFailure = describe(ctx.dump(fired.error));
        } catch {
          timerFailure = '';
        }
      }
      fired.dispose();
      if (interrupted) return timedOut();
    }
  };

  let result: RealmResult;
  try {
    result = await drive();
  } catch (e) {
    reusable = false;
    // The host's own stack ran out inside QuickJS: to the code, a RangeError like any other.
    result =
      e instanceof RangeError
        ? failed('runtime', 'RangeError: Maximum call stack size exceeded (the code recursed too deeply)')
        : failed('host', `QuickJS failed: ${errorMessage(e)}`);
  } finally {
    try {
      for (const t of timers.values()) t.fn.dispose();
      for (const h of handles.reverse()) if (h.alive) h.dispose();
      ctx.dispose();
      runtime.dispose();
    } catch {
      reusable = false;
    }
    try {
      if (quickjs.getWasmMemory().buffer.byteLength > RECYCLE_ABOVE_BYTES) reusable = false;
    } catch {}
  }
  const outOfMemory = ranOutOfMemory();
  if (timerFailure !== null) {
    // The prelude's guard catches whatever a callback throws, unless it has no memory to do so.
    const line = `[error] Uncaught ${outOfMemory ? QUICKJS_OUT_OF_MEMORY : timerFailure || 'error in a timer callback'}`;
    result = withLogLine(result, line, request.limits.maxLogLines);
  }
  return { result: explainOutOfMemory(result, outOfMemory), reusable };
}

/**
 * A failure that was the memory, said so: QuickJS's "out of memory", or (when the memory could
 * not grow during the run) the null QuickJS throws when it cannot even allocate that error, or
 * the host failing to go on. A run that caught the error and finished is left as it is.
 */
function explainOutOfMemory(result: RealmResult, ranOut: boolean): RealmResult {
  if (result.status === 'failed') return ranOut && result.kind === 'host' ? { ...result, kind: 'runtime', message: QUICKJS_OUT_OF_MEMORY } : result;
  // Reports can be megabytes: parse only one that may hold such an error.
  if (!result.report.includes('InternalError: out of memory') && !(ranOut && result.report.includes('"Uncaught null"'))) return result;
  const oom = ranOut ? /^(?:Uncaught null|InternalError: out of memory)$/ : /^InternalError: out of memory$/;
  return editReport(result, (report) => {
    const error = report.error as { message?: unknown } | undefined;
    if (report.ok === false && typeof error?.message === 'string' && oom.test(error.message)) error.message = QUICKJS_OUT_OF_MEMORY;
  });
}

function withLogLine(result: RealmResult, line: string, maxLogLines: number): RealmResult {
  if (result.status === 'failed') return result.logs.length <= maxLogLines ? { ...result, logs: [...result.logs, line] } : result;
  return editReport(result, (report) => {
    if (Array.isArray(report.logs) && report.logs.length <= maxLogLines) report.logs.push(line);
  });
}

/** The report is the realm's JSON text; one that does not parse is left for toOutcome to refuse. */
function editReport(result: RealmResult & { status: 'done' }, edit: (report: Record<string, unknown>) => void): RealmResult {
  let report: unknown;
  try {
    report = JSON.parse(result.report);
  } catch {
    return result;
  }
  if (typeof report !== 'object' || report === null || Array.isArray(report)) return result;
  edit(report as Record<string, unknown>);
  return { ...result, report: JSON.stringify(report) };
}

function unwrap(ctx: QuickJSContext, result: ReturnType<QuickJSContext['evalCode']>): QuickJSHandle {
  if (result.error) {
    const what = ctx.dump(result.error);
    result.error.dispose();
    throw new Error(describe(what));
  }
  return result.value;
}

function describe(v: unknown): string {
  if (v && typeof v === 'object' && 'message' in v) return `${(v as { name?: string }).name ?? 'Error'}: ${(v as { message: string }).message}`;
  return typeof v === 'string' ? v : JSON.stringify(v) ?? String(v);
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, Math.max(0, ms)));
