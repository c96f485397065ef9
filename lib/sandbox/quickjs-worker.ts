/**
 * The body of the QuickJS sandbox Worker (entrypoints/sandbox-worker.ts): Firefox's background
 * page starts it from its URL; in Chrome ('quickjs' engine) the sandbox page starts a blob
 * Worker that imports it. It loads QuickJS once, then runs one piece of code at a time, each
 * in a fresh QuickJS runtime.
 *
 * The WebAssembly ships inside this script: WXT builds unlisted scripts in Vite's library mode,
 * which inlines every asset, so the emscripten loader's own `new URL('emscripten-module.wasm',
 * import.meta.url)` becomes a data: URL (base64, ~670 KB). Importing the .wasm again with
 * `?url&no-inline` would emit a file but not remove that copy, so the loader's is used.
 *
 * Unlike the 'v8' and Python Workers, this one keeps its globals (fetch is only replaced, see
 * below): nothing of this scope is reachable from the code. QuickJS code sees its own VM's
 * global object alone; the host functions handed into the VM are the prelude's log and timer
 * hooks (quickjs-runner.ts), which take strings, numbers and QuickJS functions and return
 * numbers; the WebAssembly's imports are emscripten's fixed runtime functions. So the list of
 * removed-globals.ts does not apply here, and the Worker can reload the engine (which fetches
 * its data: URL) after a failure.
 */
import variant from '@jitl/quickjs-wasmfile-release-sync';
import { newQuickJSWASMModuleFromVariant, newVariant, type QuickJSWASMModule } from 'quickjs-emscripten-core';
import type { QuickJSWorkerReply, QuickJSWorkerRequest } from './quickjs-protocol';
import { runInQuickJS, sandboxWasmMemory } from './quickjs-runner';
import { errorMessage } from '../errors';

export function startQuickJSWorker(): void {
  // A dedicated Worker's global (the project's TypeScript lib is the DOM's, not the worker's).
  const scope = globalThis as unknown as Window;
  const post = (m: QuickJSWorkerReply) => scope.postMessage(m);
  // The loader fetches its data: URL. The Chrome sandbox page's CSP (connect-src 'none') refuses
  // even that, and this Worker needs no network at all: decode data: URLs here, refuse the rest.
  (scope as unknown as { fetch: typeof fetch }).fetch = async (input: RequestInfo | URL) => {
    const url = String(input instanceof Request ? input.url : input);
    const comma = url.indexOf(',');
    if (!url.startsWith('data:') || comma < 0 || !url.slice(0, comma).endsWith(';base64')) throw new TypeError('The sandbox has no network.');
    const binary = atob(url.slice(comma + 1));
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return new Response(bytes, { headers: { 'content-type': url.slice(5, comma - 7) || 'application/octet-stream' } });
  };
  let quickjs: Promise<QuickJSWASMModule> | null = null;
  const load = () => (quickjs ??= newQuickJSWASMModuleFromVariant(newVariant(variant, { wasmMemory: sandboxWasmMemory() })));

  let busy = false;
  scope.addEventListener('message', async (e: MessageEvent<QuickJSWorkerRequest>) => {
    const msg = e.data;
    if (msg?.type !== 'run' || busy) return;
    busy = true;
    const { runId, request } = msg;
    try {
      const engine = await load();
      post({ type: 'started', runId });
      const { result, reusable } = await runInQuickJS(engine, request, (line) => post({ type: 'log', runId, line }));
      post({ type: 'result', runId, result, reusable });
    } catch (err) {
      quickjs = null;
      const message = `The JavaScript engine could not start: ${errorMessage(err)}`;
      post({ type: 'result', runId, result: { status: 'failed', kind: 'host', message, logs: [], durationMs: 0 }, reusable: false });
    } finally {
      busy = false;
    }
  });
  void load().catch(() => {});
}
