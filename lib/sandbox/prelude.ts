/**
 * The part of the sandbox that runs INSIDE the isolated realm, next to the untrusted code:
 * the console shim, the JSON-safe serializer and the runner that turns one piece of code into
 * one report (JSON text). Chrome runs it in a blob Worker of the sandbox page, Firefox in the
 * QuickJS VM, unit tests in Node: the same function everywhere.
 *
 * `installSandboxPrelude` is shipped as SOURCE TEXT (`installSandboxPrelude.toString()`) and
 * evaluated in the other realm, so it must stay self-contained: no imports, no references to
 * anything outside its own body, no syntax a bundler rewrites into helpers (no classes).
 * tests/unit/sandbox-prelude.test.ts checks that by evaluating the text in a fresh context.
 *
 * Everything it produces crosses into the extension only as a string and is validated there
 * (lib/sandbox/report.ts): code that sabotages the prelude can garble its own result, nothing else.
 */

export interface PreludeLimits {
  /** Budget for the result, as JSON text. */
  maxOutputChars: number;
  maxLogLines: number;
  /** Budget for all log lines together. */
  maxLogChars: number;
}

export interface PreludeHooks {
  /** Called with every captured log line at once, so a killed run still has its logs. */
  log?(line: string): void;
  /** Timers for realms that have none (QuickJS): the host calls `fn` after `ms`. */
  setTimer?(fn: () => void, ms: number): number;
  clearTimer?(id: number): void;
}

export interface SandboxRealm {
  /**
   * Runs `code` as the body of an async function; resolves with the report, never rejects.
   * With `argsJson` (a function skill's call), `code` must define `run(args)` instead: it is
   * called with the parsed arguments and must return (or resolve to) a string.
   */
  run(code: string, argsJson?: string): Promise<string>;
  /** Logs an error that escaped the code (an uncaught exception in a timer, say). */
  uncaught(error: unknown): void;
  /** Exposed for unit tests. */
  toJsonSafe(value: unknown, budget: number): { value: unknown; truncated: boolean };
  formatLogArgs(args: unknown[]): string;
}

/** What the realm reports, as JSON text. */
export type RealmReport =
  | { ok: true; result: unknown; truncated: boolean; logs: string[] }
  | { ok: false; error: { kind: 'syntax' | 'runtime'; message: string; stack?: string }; logs: string[] };

export function installSandboxPrelude(g: any, limits: PreludeLimits, hooks: PreludeHooks): SandboxRealm {
  // Taken before the untrusted code runs: it may replace the globals, not these references.
  const stringify = JSON.stringify;
  const objectKeys = Object.keys;
  const objectIs = Object.is;
  const isArray = Array.isArray;
  const isView = ArrayBuffer.isView;
  const apply = Reflect.apply;
  const objectToString = Object.prototype.toString;
  const functionToString = Function.prototype.toString;
  const hasOwn = Object.prototype.hasOwnProperty;
  const createObject = Object.create;
  const SyntaxErrorCtor = SyntaxError;
  const ErrorCtor = Error;
  const AsyncFunction = Object.getPrototypeOf(async function () {}).constructor;
  const FunctionCtor = Function;
  const parseJson = JSON.parse;
  const MapCtor = Map;
  const SetCtor = Set;
  const DateCtor = Date;
  const RegExpCtor = RegExp;
  const PromiseCtor = Promise;
  const now = Date.now;
  const MAX_DEPTH = 64;
  const MAX_MESSAGE_CHARS = 4000;
  const MAX_STACK_CHARS = 4000;

  const tagOf = (v: object): string => {
    const t = apply(objectToString, v, []) as string;
    return t.slice(8, -1);
  };
  const clip = (s: string, max: number): string => (s.length > max ? s.slice(0, max) + '…[+' + (s.length - max) + ' chars]' : s);
  const safeString = (v: unknown): string => {
    try {
      return String(v);
    } catch {
      return '[unprintable]';
    }
  };

  function describeFunction(fn: Function): string {
    let name = '';
    let isClass = false;
    try {
      name = typeof fn.name === 'string' ? fn.name : '';
    } catch {}
    try {
      isClass = (apply(functionToString, fn, []) as string).slice(0, 6) === 'class ';
    } catch {}
    return (isClass ? '[class ' : '[Function ') + (name || '(anonymous)') + ']';
  }

  // ---- JSON-safe conversion with a size budget -------------------------------------------------
  // The budget approximates the JSON text length; once spent, containers end with a marker
  // and strings are cut, so a 10 MB value costs about `budget` characters and time.
  function toJsonSafe(value: unknown, budget: number): { value: unknown; truncated: boolean } {
    let left = budget;
    let truncated = false;
    const ancestors: object[] = [];

    const str = (s: string): string => {
      if (s.length + 2 <= left) {
        left -= s.length + 2;
        return s;
      }
      truncated = true;
      const keep = left > 32 ? left - 32 : 0;
      left -= keep + 32;
      return s.slice(0, keep) + '…[+' + (s.length - keep) + ' chars]';
    };

    const seq = (count: number, item: (i: number) => unknown, depth: number, unit: string): unknown[] => {
      const out: unknown[] = [];
      left -= 2;
      for (let i = 0; i < count; i++) {
        if (left <= 0) {
          truncated = true;
          out[out.length] = '…[+' + (count - i) + ' more ' + unit + ']';
          break;
        }
        left -= 1;
        let v: unknown;
        try {
          v = item(i);
        } catch (e) {
          v = '[Thrown: ' + errorMessage(e) + ']';
        }
        out[out.length] = walk(v, depth + 1);
      }
      return out;
    };

    const tagged = (tag: string, inner: unknown): Record<string, unknown> => {
      const o = createObject(null);
      left -= tag.length + 5;
      o[tag] = inner;
      return o;
    };

    function walk(v: unknown, depth: number): unknown {
      switch (typeof v) {
        case 'string':
          return str(v);
        case 'number': {
          if (v !== v || v === Infinity || v === -Infinity) return str(String(v));
          left -= String(v).length;
          return objectIs(v, -0) ? 0 : v;
        }
        case 'boolean':
          left -= 5;
          return v;
        case 'undefined':
          left -= 4;
          return null;
        case 'bigint':
          return str(String(v) + 'n');
        case 'symbol':
          return str(safeString(v));
        case 'function':
          return str(describeFunction(v));
      }
      if (v === null) {
        left -= 4;
        return null;
      }
      const obj = v as object;
      for (let i = 0; i < ancestors.length; i++) if (ancestors[i] === obj) return str('[Circular]');
      if (depth >= MAX_DEPTH) return str(isArray(obj) ? '[Array]' : '[Object]');
      ancestors[ancestors.length] = obj;
      try {
        return walkObject(obj, depth);
      } catch (e) {
        return str('[Unserializable: ' + errorMessage(e) + ']');
      } finally {
        ancestors.length -= 1;
      }
    }

    function walkObject(obj: any, depth: number): unknown {
      if (isArray(obj)) return seq(obj.length, (i) => obj[i], depth, 'items');
      const tag = tagOf(obj);
      if (obj instanceof DateCtor || tag === 'Date') {
        const t = apply(DateCtor.prototype.getTime, obj, []) as number;
        return str(t === t ? (apply(DateCtor.prototype.toISOString, obj, []) as string) : 'Invalid Date');
      }
      if (obj instanceof RegExpCtor || tag === 'RegExp') return str(safeString(obj));
      if (obj instanceof ErrorCtor || tag === 'Error') return errorObject(obj, depth);
      if (obj instanceof MapCtor || tag === 'Map') {
        const entries: [unknown, unknown][] = [];
        // Collect lazily: only as many entries as the budget can show.
        let n = 0;
        for (const entry of obj as Map<unknown, unknown>) {
          if (n++ > left) break;
          entries[entries.length] = entry;
        }
        const size = (obj as Map<unknown, unknown>).size;
        return tagged('[Map]', seq(size, (i) => (i < entries.length ? entries[i] : undefined), depth, 'entries'));
      }
      if (obj instanceof SetCtor || tag === 'Set') {
        const values: unknown[] = [];
        let n = 0;
        for (const value of obj as Set<unknown>) {
          if (n++ > left) break;
          values[values.length] = value;
        }
        return tagged('[Set]', seq((obj as Set<unknown>).size, (i) => values[i], depth, 'items'));
      }
      if (obj instanceof PromiseCtor || tag === 'Promise') return str('[Promise]');
      if (tag === 'WeakMap' || tag === 'WeakSet' || tag === 'WeakRef') return str('[' + tag + ']');
      if (tag === 'ArrayBuffer' || tag === 'SharedArrayBuffer') return str('[' + tag + ' ' + obj.byteLength + ' bytes]');
      if (isView(obj)) {
        if (tag === 'DataView') return str('[DataView ' + obj.byteLength + ' bytes]');
        const view = obj as any;
        return tagged('[' + tag + ']', seq(view.length, (i) => view[i], depth, 'items'));
      }
      if (tag === 'Number' || tag === 'String' || tag === 'Boolean' || tag === 'BigInt' || tag === 'Symbol') {
        try {
          return walk(obj.valueOf(), depth);
        } catch {}
      }
      if (typeof obj.toJSON === 'function') return walk(obj.toJSON(''), depth + 1);
      return plainObject(obj, objectKeys(obj), depth);
    }

    function plainObject(obj: any, keys: string[], depth: number, into?: Record<string, unknown>): Record<string, unknown> {
      const out: Record<string, unknown> = into ?? createObject(null);
      left -= 2;
      for (let i = 0; i < keys.length; i++) {
        if (left <= 0) {
          truncated = true;
          out['…'] = '[+' + (keys.length - i) + ' more keys]';
          break;
        }
        const key = keys[i]!;
        let v: unknown;
        try {
          v = obj[key];
        } catch (e) {
          v = '[Thrown: ' + errorMessage(e) + ']';
        }
        left -= 1;
        if (v === undefined) continue; // as JSON does: a missing key and an undefined one read alike
        left -= key.length + 3;
        out[key] = walk(v, depth + 1);
      }
      return out;
    }

    function errorObject(err: any, depth: number): Record<string, unknown> {
      const info = errorInfo(err);
      const out: Record<string, unknown> = createObject(null);
      out.name = str(info.name);
      out.message = str(info.message);
      if (info.stack !== undefined) out.stack = str(info.stack);
      const extra: string[] = [];
      const keys = objectKeys(err);
      for (let i = 0; i < keys.length; i++) {
        const k = keys[i]!;
        if (k !== 'name' && k !== 'message' && k !== 'stack') extra[extra.length] = k;
      }
      for (const k of ['cause', 'errors']) if (apply(hasOwn, err, [k]) && extra.indexOf(k) < 0) extra[extra.length] = k;
      return plainObject(err, extra, depth, out);
    }

    const out = walk(value, 0);
    return { value: out, truncated };
  }

  // ---- errors ------------------------------------------------------------------------------------
  function errorMessage(e: unknown): string {
    try {
      if (e !== null && typeof e === 'object' && 'message' in e) return clip(String((e as Error).message), MAX_MESSAGE_CHARS);
      return clip(String(e), MAX_MESSAGE_CHARS);
    } catch {
      return '[unprintable]';
    }
  }

  function errorInfo(e: any): { name: string; message: string; stack?: string } {
    let name = 'Error';
    let message = '';
    let stack: string | undefined;
    try {
      name = safeString(e.name ?? 'Error');
    } catch {}
    try {
      message = clip(safeString(e.message ?? ''), MAX_MESSAGE_CHARS);
    } catch {}
    try {
      if (typeof e.stack === 'string' && e.stack) {
        stack = e.stack as string;
        stack = clip(cleanStack(stack, name, message), MAX_STACK_CHARS);
      }
    } catch {}
    return stack === undefined ? { name, message } : { name, message, stack };
  }

  /**
   * Frames of the code only, with its own line numbers: both engines compile the body as
   * "(async function anonymous(\n) {\n<code>" (V8 names it <anonymous>, QuickJS <input>), so
   * line N of the code is line N + 2 there. Frames of the prelude and the host are dropped.
   */
  function cleanStack(stack: string, name: string, message: string): string {
    const lines = stack.split('\n');
    const out: string[] = [];
    let header = true;
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!;
      const frame = /^\s*at /.test(line);
      if (header && !frame) {
        out[out.length] = line;
        continue;
      }
      header = false;
      if (!frame) continue;
      // The last location on the line is the frame's own ("at f (eval at run (…), <anonymous>:3:9)").
      const m = /^(.*[\s(])(?:<anonymous>|<input>):(\d+):(\d+)(\)?)\s*$/.exec(line);
      if (!m) continue;
      const at = m[1]!.replace(/\(eval at .*, $/, '(');
      out[out.length] = at + '<code>:' + Math.max(1, Number(m[2]) - 2) + ':' + m[3] + m[4];
    }
    // QuickJS stacks list frames only; V8 ones start with "Name: message".
    if (!out.length || out[0]!.slice(0, name.length) !== name) out.unshift(name + (message ? ': ' + message : ''));
    return out.join('\n').replace(/\s+$/, '');
  }

  /** A thrown value as the report's error: "TypeError: x", a thrown string as itself. */
  function thrownError(e: unknown): { message: string; stack?: string } {
    try {
      return describeThrown(e);
    } catch {
      return { message: 'Uncaught [unprintable value]' };
    }
  }

  function describeThrown(e: unknown): { message: string; stack?: string } {
    if (e !== null && typeof e === 'object' && (e instanceof ErrorCtor || ('message' in e && 'name' in e))) {
      const info = errorInfo(e);
      const message = info.message ? info.name + ': ' + info.message : info.name;
      return info.stack === undefined ? { message } : { message, stack: info.stack };
    }
    if (typeof e === 'string') return { message: clip(e, MAX_MESSAGE_CHARS) };
    return { message: 'Uncaught ' + clip(formatArg(e), MAX_MESSAGE_CHARS) };
  }

  // ---- console ----------------------------------------------------------------------------------
  function formatArg(a: unknown): string {
    switch (typeof a) {
      case 'string':
        return a;
      case 'number':
        return objectIs(a, -0) ? '-0' : String(a);
      case 'bigint':
        return String(a) + 'n';
      case 'symbol':
        return safeString(a);
      case 'undefined':
        return 'undefined';
      case 'function':
        return describeFunction(a);
    }
    if (a === null) return 'null';
    if (a instanceof ErrorCtor) {
      const info = errorInfo(a);
      return info.stack ?? (info.message ? info.name + ': ' + info.message : info.name);
    }
    return stringify(toJsonSafe(a, limits.maxLogChars).value) ?? 'undefined';
  }

  function formatLogArgs(args: unknown[]): string {
    const parts: string[] = [];
    let rest = 0;
    const first = args[0];
    if (typeof first === 'string' && first.indexOf('%') >= 0 && args.length > 1) {
      let next = 1;
      parts[0] = first.replace(/%[sdifoOjc%]/g, (m) => {
        if (m === '%%') return '%';
        if (next >= args.length) return m;
        const a = args[next++];
        switch (m) {
          case '%s':
            return typeof a === 'string' ? a : formatArg(a);
          case '%d':
          case '%i': {
            if (typeof a === 'bigint') return String(a) + 'n';
            const n = typeof a === 'symbol' ? NaN : Number(a);
            return String(n === n && n !== Infinity && n !== -Infinity ? Math.trunc(n) : n);
          }
          case '%f':
            return String(typeof a === 'symbol' ? NaN : Number(a));
          case '%c':
            return '';
          default:
            return formatArg(a);
        }
      });
      rest = next;
    } else if (args.length > 0) {
      parts[0] = formatArg(first);
      rest = 1;
    }
    for (let i = rest; i < args.length; i++) parts[parts.length] = formatArg(args[i]);
    return parts.join(' ');
  }

  const logs: string[] = [];
  let logChars = 0;
  let dropped = 0;

  function capture(level: 'log' | 'warn' | 'error', args: unknown[]): void {
    if (logs.length >= limits.maxLogLines || logChars >= limits.maxLogChars) {
      if (dropped++ === 0 && hooks.log) hooks.log('…[log limit reached; later lines are dropped]');
      return;
    }
    let line: string;
    try {
      line = formatLogArgs(args);
    } catch (e) {
      line = '[unprintable log line: ' + errorMessage(e) + ']';
    }
    if (level !== 'log') line = '[' + level + '] ' + line;
    line = clip(line, Math.max(0, limits.maxLogChars - logChars));
    logs[logs.length] = line;
    logChars += line.length;
    if (hooks.log) hooks.log(line);
  }

  const counters: Record<string, number> = createObject(null);
  const timers: Record<string, number> = createObject(null);
  g.console = {
    log: (...a: unknown[]) => capture('log', a),
    info: (...a: unknown[]) => capture('log', a),
    debug: (...a: unknown[]) => capture('log', a),
    trace: (...a: unknown[]) => capture('log', ['Trace:', ...a]),
    dir: (a: unknown) => capture('log', [a]),
    dirxml: (...a: unknown[]) => capture('log', a),
    table: (a: unknown) => capture('log', [a]),
    group: (...a: unknown[]) => a.length && capture('log', a),
    groupCollapsed: (...a: unknown[]) => a.length && capture('log', a),
    groupEnd: () => {},
    warn: (...a: unknown[]) => capture('warn', a),
    error: (...a: unknown[]) => capture('error', a),
    assert: (ok: unknown, ...a: unknown[]) => {
      if (!ok) capture('error', a.length ? ['Assertion failed:', ...a] : ['Assertion failed']);
    },
    count: (label = 'default') => {
      const key = String(label);
      counters[key] = (counters[key] ?? 0) + 1;
      capture('log', [key + ': ' + counters[key]]);
    },
    countReset: (label = 'default') => {
      delete counters[String(label)];
    },
    time: (label = 'default') => {
      timers[String(label)] = now();
    },
    timeLog: (label = 'default', ...a: unknown[]) => {
      const t = timers[String(label)];
      if (t !== undefined) capture('log', [String(label) + ': ' + (now() - t) + ' ms', ...a]);
    },
    timeEnd: (label = 'default') => {
      const key = String(label);
      const t = timers[key];
      if (t !== undefined) capture('log', [key + ': ' + (now() - t) + ' ms']);
      delete timers[key];
    },
    clear: () => {},
  };

  function uncaught(e: unknown): void {
    const t = thrownError(e);
    capture('error', ['Uncaught ' + (t.stack ?? t.message)]);
  }

  // QuickJS has no timers of its own: the host provides them through hooks.
  const setTimer = hooks.setTimer;
  const clearTimer = hooks.clearTimer;
  if (setTimer && clearTimer) {
    const guarded = (fn: unknown, args: unknown[]) => () => {
      if (typeof fn !== 'function') return;
      try {
        apply(fn, undefined, args);
      } catch (e) {
        uncaught(e);
      }
    };
    g.setTimeout = (fn: unknown, ms?: number, ...args: unknown[]) => setTimer(guarded(fn, args), Number(ms) || 0);
    g.clearTimeout = (id: number) => clearTimer(id);
    const intervals: Record<number, number> = createObject(null);
    let intervalSeq = 0;
    g.setInterval = (fn: unknown, ms?: number, ...args: unknown[]) => {
      const id = ++intervalSeq;
      const delay = Number(ms) || 0;
      const tick = guarded(fn, args);
      const arm = () => {
        intervals[id] = setTimer(() => {
          arm();
          tick();
        }, delay);
      };
      arm();
      return id;
    };
    g.clearInterval = (id: number) => {
      const t = intervals[id];
      if (t !== undefined) clearTimer(t);
      delete intervals[id];
    };
  }
  if (typeof g.queueMicrotask !== 'function') {
    g.queueMicrotask = (fn: () => void) => {
      PromiseCtor.resolve().then(fn).then(undefined, uncaught);
    };
  }

  function report(r: Record<string, unknown>): string {
    const lines = logs.slice();
    if (dropped > 0) lines[lines.length] = '…[+' + dropped + ' more log lines dropped]';
    r.logs = lines;
    return stringify(r);
  }

  /** "a number (42)", "an object", "undefined": what a function skill's run() gave instead of a string. */
  function describeType(v: unknown): string {
    if (v === undefined) return 'undefined (did run(args) forget to return?)';
    if (v === null) return 'null';
    if (isArray(v)) return 'an array';
    const t = typeof v;
    if (t === 'number' || t === 'boolean' || t === 'bigint') return 'a ' + t + ' (' + clip(safeString(v), 40) + ')';
    if (t === 'object') return 'an object';
    return 'a ' + t;
  }

  // The code is the body of a plain function (so its line N is line N + 2 in both engines'
  // stacks, as for run()); the suffix hands back its run. Arguments never become code text:
  // they arrive as JSON and are parsed with the JSON.parse taken before the code ran.
  async function callRun(code: string, argsJson: string): Promise<string> {
    let define: () => unknown;
    try {
      define = new FunctionCtor(code + '\n;return typeof run === "function" ? run : undefined;') as () => unknown;
    } catch (e) {
      return report({ ok: false, error: { kind: e instanceof SyntaxErrorCtor ? 'syntax' : 'runtime', ...syntaxError(e) } });
    }
    let value: unknown;
    try {
      const fn = apply(define, undefined, []);
      if (typeof fn !== 'function') {
        return report({ ok: false, error: { kind: 'runtime', message: 'The code must define run(args): a function named run that takes the arguments object and returns a string.' } });
      }
      value = await apply(fn, undefined, [parseJson(argsJson)]);
    } catch (e) {
      return report({ ok: false, error: { kind: 'runtime', ...thrownError(e) } });
    }
    if (typeof value !== 'string') {
      return report({ ok: false, error: { kind: 'runtime', message: 'run(args) must return a string; it returned ' + describeType(value) + '.' } });
    }
    const safe = toJsonSafe(value, limits.maxOutputChars);
    return report({ ok: true, result: safe.value, truncated: safe.truncated });
  }

  /** A syntax error with the code's own line and column where the engine tells them (QuickJS). */
  function syntaxError(e: unknown): { message: string; stack?: string } {
    const t = thrownError(e);
    try {
      const line = (e as { lineNumber?: unknown }).lineNumber;
      const column = (e as { columnNumber?: unknown }).columnNumber;
      if (typeof line === 'number' && line > 2) {
        const where = ' (line ' + (line - 2) + (typeof column === 'number' ? ', column ' + column : '') + ')';
        return { message: t.message + where };
      }
    } catch {}
    return t;
  }

  async function run(code: string, argsJson?: string): Promise<string> {
    if (typeof argsJson === 'string') return callRun(code, argsJson);
    let fn: () => Promise<unknown>;
    try {
      fn = new AsyncFunction(code);
    } catch (e) {
      return report({ ok: false, error: { kind: e instanceof SyntaxErrorCtor ? 'syntax' : 'runtime', ...thrownError(e) } });
    }
    let value: unknown;
    try {
      value = await apply(fn, undefined, []);
    } catch (e) {
      return report({ ok: false, error: { kind: 'runtime', ...thrownError(e) } });
    }
    try {
      const safe = toJsonSafe(value, limits.maxOutputChars);
      return report({ ok: true, result: safe.value, truncated: safe.truncated });
    } catch (e) {
      return report({ ok: false, error: { kind: 'runtime', message: 'The result could not be converted to JSON: ' + errorMessage(e) } });
    }
  }

  return { run, uncaught, toJsonSafe, formatLogArgs };
}
