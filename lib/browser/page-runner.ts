/**
 * The function that runs execute_script code inside a page. It is injected by its source
 * text (scripting.executeScript serialises it; userScripts.execute gets it as a string), so it
 * must not reference anything outside itself.
 *
 * mode "eval":     compile `code` as an async function body (the page's MAIN world)
 * mode "isolated": the same, but with `window` and free names resolved against the page's own
 *                  window (Firefox content scripts, for pages whose CSP forbids eval)
 * mode "inline":   `thunk` already holds the code, inlined into the injected source by the
 *                  caller (Chrome userScripts, also under a strict CSP)
 */
export interface PageRunResult {
  ok: boolean;
  /** JSON text of the return value (ok) */
  json?: string;
  truncated?: boolean;
  error?: { name: string; message: string; stack?: string; kind: 'syntax' | 'runtime' | 'csp' };
}

export function pageRunner(
  code: string | null,
  maxChars: number,
  mode: 'eval' | 'isolated' | 'inline',
  thunk?: () => Promise<unknown>,
): Promise<PageRunResult> {
  const describeError = (e: unknown, kind: 'syntax' | 'runtime' | 'csp') => {
    const err = e as { name?: unknown; message?: unknown; stack?: unknown } | null;
    const isObj = err !== null && typeof err === 'object';
    return {
      ok: false,
      error: {
        kind,
        name: isObj && typeof err.name === 'string' ? err.name : 'Error',
        message: isObj && typeof err.message === 'string' ? err.message : String(e),
        ...(isObj && typeof err.stack === 'string' ? { stack: err.stack.slice(0, 4000) } : {}),
      },
    } as PageRunResult;
  };

  // JSON that survives anything a page can return: cycles, DOM nodes, functions, BigInt,
  // undefined, symbols, Maps, Sets, typed arrays, getters that throw, huge values.
  const toJson = (value: unknown): PageRunResult => {
    const seen = new WeakSet<object>();
    let budget = maxChars * 2 + 1000;
    const describeNode = (n: Node): string => {
      if (n.nodeType === 1) {
        const el = n as Element;
        const id = el.id ? `#${el.id}` : '';
        const cls = typeof el.className === 'string' && el.className.trim() ? `.${el.className.trim().split(/\s+/).slice(0, 3).join('.')}` : '';
        return `<${el.tagName.toLowerCase()}${id}${cls}>`;
      }
      if (n.nodeType === 3) return `#text ${JSON.stringify((n.textContent ?? '').slice(0, 200))}`;
      if (n.nodeType === 9) return '[Document]';
      return `[Node ${n.nodeName}]`;
    };
    const walk = (v: unknown, depth: number): unknown => {
      if (budget <= 0) return '[…]';
      switch (typeof v) {
        case 'undefined':
          return null;
        case 'bigint':
          return `${v}n`;
        case 'symbol':
          return v.toString();
        case 'function':
          return `[Function ${(v as { name?: string }).name || 'anonymous'}]`;
        case 'number':
          return Number.isFinite(v) ? v : String(v);
        case 'string':
          budget -= (v as string).length;
          return (v as string).length > maxChars ? `${(v as string).slice(0, maxChars)}…` : v;
        case 'boolean':
          return v;
      }
      if (v === null) return null;
      const o = v as object;
      if (seen.has(o)) return '[Circular]';
      if (depth > 20) return '[Too deep]';
      try {
        if (typeof Window !== 'undefined' && o instanceof Window) return '[Window]';
        if (typeof Node !== 'undefined' && o instanceof Node) return describeNode(o);
        if (o instanceof Date) return Number.isNaN(o.getTime()) ? 'Invalid Date' : o.toISOString();
        if (o instanceof RegExp) return String(o);
        if (o instanceof Error) return { name: o.name, message: o.message };
        seen.add(o);
        if (o instanceof Map) return { '[Map]': [...o.entries()].slice(0, 1000).map(([k, x]) => [walk(k, depth + 1), walk(x, depth + 1)]) };
        if (o instanceof Set) return { '[Set]': [...o.values()].slice(0, 1000).map((x) => walk(x, depth + 1)) };
        if (ArrayBuffer.isView(o)) return `[${o.constructor.name} length ${(o as unknown as { length?: number }).length ?? o.byteLength}]`;
        if (Array.isArray(o) || (typeof NodeList !== 'undefined' && o instanceof NodeList) || (typeof HTMLCollection !== 'undefined' && o instanceof HTMLCollection)) {
          const arr = Array.from(o as ArrayLike<unknown>);
          const out = arr.slice(0, 10_000).map((x) => walk(x, depth + 1));
          if (arr.length > 10_000) out.push(`[… ${arr.length - 10_000} more]`);
          return out;
        }
        const out: Record<string, unknown> = {};
        let n = 0;
        for (const key of Object.keys(o)) {
          if (++n > 2000) {
            out['…'] = 'more keys omitted';
            break;
          }
          let x: unknown;
          try {
            x = (o as Record<string, unknown>)[key];
          } catch (e) {
            x = `[Getter threw: ${(e as Error)?.message ?? e}]`;
          }
          budget -= key.length;
          out[key] = walk(x, depth + 1);
        }
        return out;
      } catch (e) {
        return `[Unreadable: ${(e as Error)?.message ?? e}]`;
      }
    };
    let json = JSON.stringify(walk(value, 0)) ?? 'null';
    let truncated = false;
    if (json.length > maxChars) {
      json = json.slice(0, maxChars);
      truncated = true;
    }
    return { ok: true, json, truncated };
  };

  const start = async (): Promise<PageRunResult> => {
    let fn: () => Promise<unknown>;
    if (mode === 'inline' && thunk) {
      fn = thunk;
    } else {
      const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (...args: string[]) => (...a: unknown[]) => Promise<unknown>;
      try {
        if (mode === 'isolated') {
          const compiled = new AsyncFunction('__pwWindow', `with (__pwWindow) {\n${code}\n}`);
          const pageWindow = (window as unknown as { wrappedJSObject?: Window }).wrappedJSObject ?? window;
          fn = () => compiled(pageWindow);
        } else {
          fn = new AsyncFunction(code ?? '') as () => Promise<unknown>;
        }
      } catch (e) {
        const name = (e as Error)?.name;
        return describeError(e, name === 'SyntaxError' ? 'syntax' : name === 'EvalError' ? 'csp' : 'runtime');
      }
    }
    try {
      return toJson(await fn());
    } catch (e) {
      return describeError(e, 'runtime');
    }
  };
  return start();
}
