/**
 * Runs one function-skill call in a loaded Pyodide: the part of the Python sandbox that is the
 * same in the browser's Worker and in Node (unit tests). Each call gets a fresh namespace; the
 * interpreter (and the modules it imported) stays warm between calls.
 */
import type { PyodideAPI } from 'pyodide';
import { errorMessage } from '../errors';
import type { PreludeLimits } from './prelude';
import { outOfMemoryMessage, type RealmResult, type RealmRunRequest } from './report';

/**
 * Compiles the code as "<code>" (so tracebacks and syntax errors give its own line numbers),
 * finds run, calls it with the arguments parsed from JSON (never spliced into code), awaits
 * it if it is async, and checks that it returned a str. Answers a JSON report, never raises.
 */
export const PYTHON_RUNNER = String.raw`
import builtins, inspect, json, linecache, traceback

_MAX_FRAMES = 8

def _type_of(v):
    if v is None:
        return "None"
    name = type(v).__name__
    if isinstance(v, (bool, int, float)):
        return f"{name} ({repr(v)[:40]})"
    return name

def _error(e):
    if isinstance(e, SyntaxError) and e.filename == "<code>":
        where = ""
        if e.lineno:
            where = f" (line {e.lineno}" + (f", column {e.offset}" if e.offset else "") + ")"
        detail = "".join(traceback.format_exception_only(e)).rstrip()
        return {"kind": "syntax", "message": f"{type(e).__name__}: {e.msg}{where}", "stack": detail}
    only = "".join(traceback.format_exception_only(e)).rstrip()
    frames = [f for f in traceback.extract_tb(e.__traceback__) if f.filename == "<code>"]
    stack = "Traceback (most recent call last):\n" + "".join(traceback.format_list(frames[-_MAX_FRAMES:])) + only
    return {"kind": "runtime", "message": only.splitlines()[-1] if only else type(e).__name__, "stack": stack}

def _fail(message):
    return json.dumps({"ok": False, "error": {"kind": "runtime", "message": message}})

async def call(code, args_json):
    # Tracebacks then quote the code's own lines.
    linecache.cache["<code>"] = (len(code), None, code.splitlines(True), "<code>")
    try:
        compiled = compile(code, "<code>", "exec")
    except (SyntaxError, ValueError) as e:
        return json.dumps({"ok": False, "error": _error(e)})
    namespace = {"__name__": "__main__", "__builtins__": builtins}
    try:
        exec(compiled, namespace)
        run = namespace.get("run")
        if not callable(run):
            return _fail("The code must define run(args): a function named run that takes the arguments dict and returns a str.")
        result = run(json.loads(args_json))
        if inspect.isawaitable(result):
            result = await result
    except BaseException as e:
        return json.dumps({"ok": False, "error": _error(e)})
    if not isinstance(result, str):
        return _fail(f"run(args) must return a str; it returned {_type_of(result)}.")
    return json.dumps({"ok": True, "result": result})
`;

/** Python's heap may grow to this; beyond it allocations fail with MemoryError. */
export const PYTHON_MAX_MEMORY_BYTES = 512 * 1024 * 1024;

/** The cap in force in this realm, which the message names. */
let memoryCap = PYTHON_MAX_MEMORY_BYTES;
/** Growth refused so far: a MemoryError while it rises is the cap's, not one the code raised. */
let growthRefused = 0;

/**
 * Pyodide's WebAssembly memory may grow to 4 GB, and in Chrome the Worker shares its process
 * with the extension's pages: code that allocates without end would take them all down. Its
 * heap grows only through Memory.prototype.grow (emscripten's resize_heap), so refusing growth
 * past `maxBytes` there turns that into a MemoryError in Python. Call before loading Pyodide,
 * in the realm that will run it. Code cannot undo it: deleting the wrapper leaves no grow at all.
 */
export function capWasmMemory(maxBytes: number = PYTHON_MAX_MEMORY_BYTES, memory: typeof WebAssembly.Memory = WebAssembly.Memory): void {
  const grow = memory.prototype.grow;
  memoryCap = maxBytes;
  Object.defineProperty(memory.prototype, 'grow', {
    configurable: true,
    writable: false,
    value: function (this: WebAssembly.Memory, pages: number) {
      try {
        if (this.buffer.byteLength + Number(pages) * 65_536 > maxBytes) throw new RangeError('The Python sandbox is out of memory.');
        return grow.call(this, pages);
      } catch (e) {
        growthRefused++;
        throw e;
      }
    },
  });
}

export const pythonOutOfMemoryMessage = (limitBytes: number = memoryCap): string =>
  outOfMemoryMessage('MemoryError (out of memory)', 'the Python sandbox', limitBytes, 'read and process it in chunks, use generators instead of building whole lists');

export interface PythonRealm {
  /** One call; `onLog` gets each printed line at once, so a killed run still has its output. */
  run(request: RealmRunRequest, onLog?: (line: string) => void): Promise<RealmResult>;
}

export function preparePython(py: PyodideAPI): PythonRealm {
  const namespace = py.toPy({});
  py.runPython(PYTHON_RUNNER, { globals: namespace, filename: '<pagewright>' });
  const call = namespace.get('call') as (code: string, argsJson: string) => Promise<string>;
  let sink: (line: string, error: boolean) => void = () => {};
  py.setStdout({ batched: (line: string) => sink(line, false) });
  py.setStderr({ batched: (line: string) => sink(line, true) });

  return {
    async run(request, onLog = () => {}) {
      const started = performance.now();
      const logs = new LogBuffer(request.limits, onLog);
      sink = (line, error) => logs.add(error ? `[stderr] ${line}` : line);
      const refusedBefore = growthRefused;
      try {
        const raw = String(await call(request.code, request.argsJson ?? '{}'));
        return { status: 'done', report: finishReport(raw, logs.lines(), request.limits, growthRefused > refusedBefore), durationMs: performance.now() - started };
      } catch (e) {
        // The runner catches everything the code raises; this is Pyodide itself failing, which
        // (the Worker is replaced after it) is most often the memory running out inside it.
        const message = growthRefused > refusedBefore ? pythonOutOfMemoryMessage() : `Python failed: ${errorMessage(e)}`;
        const kind = growthRefused > refusedBefore ? 'runtime' : 'host';
        return { status: 'failed', kind, message, logs: logs.lines(), durationMs: performance.now() - started };
      } finally {
        sink = () => {};
      }
    },
  };
}

/**
 * The runner's report with the logs added, the result cut to the output budget, and a
 * MemoryError of the cap (a bare one, or any while growth was refused) saying what the cap is.
 */
export function finishReport(raw: string, logs: string[], limits: PreludeLimits, ranOutOfMemory = false): string {
  const report = JSON.parse(raw) as { ok: boolean; result?: string; truncated?: boolean; logs?: string[]; error?: { message?: string } };
  report.logs = logs;
  const message = report.error?.message;
  if (!report.ok && typeof message === 'string' && (message === 'MemoryError' || (ranOutOfMemory && /^MemoryError\b/.test(message)))) {
    report.error!.message = pythonOutOfMemoryMessage();
  }
  if (report.ok) {
    const text = report.result ?? '';
    report.truncated = text.length > limits.maxOutputChars;
    if (report.truncated) report.result = `${text.slice(0, limits.maxOutputChars)}…[+${text.length - limits.maxOutputChars} chars]`;
  }
  return JSON.stringify(report);
}

/** Printed lines within the same limits as console.log in the JavaScript sandbox. */
export class LogBuffer {
  private readonly kept: string[] = [];
  private chars = 0;
  private dropped = 0;

  constructor(
    private readonly limits: PreludeLimits,
    private readonly onLine: (line: string) => void,
  ) {}

  add(line: string): void {
    if (this.kept.length >= this.limits.maxLogLines || this.chars >= this.limits.maxLogChars) {
      if (this.dropped++ === 0) this.onLine('…[log limit reached; later lines are dropped]');
      return;
    }
    const room = this.limits.maxLogChars - this.chars;
    const kept = line.length > room ? `${line.slice(0, room)}…[+${line.length - room} chars]` : line;
    this.kept.push(kept);
    this.chars += kept.length;
    this.onLine(kept);
  }

  lines(): string[] {
    return this.dropped ? [...this.kept, `…[+${this.dropped} more log lines dropped]`] : [...this.kept];
  }
}
