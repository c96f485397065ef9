import { createRequire } from 'node:module';
import path from 'node:path';
import type { Plugin } from 'vite';
import { defineConfig, type Wxt } from 'wxt';
import { PYODIDE_DIR, PYODIDE_FILES } from './lib/sandbox/python-protocol';

const pyodideRoot = path.dirname(createRequire(import.meta.url).resolve('pyodide/package.json'));

// Firefox ships as MV2: a persistent background page is never suspended mid-run, has a DOM
// (DOMParser, blob URLs) without an offscreen document, and host permissions are granted at
// install instead of being opt-in per site as in Firefox MV3.
export default defineConfig({
  modules: ['@wxt-dev/module-svelte'],
  imports: false,
  vite: () => ({
    plugins: [
      {
        // The MCP SDK's client imports ajv even when given another validator; ajv compiles with
        // new Function, which extension pages forbid. lib/skills/mcp-no-ajv.ts stands in for it.
        name: 'mcp-sdk-without-ajv',
        enforce: 'pre' as const,
        resolveId: (source: string, importer?: string) =>
          importer?.includes('@modelcontextprotocol/sdk') && source.endsWith('/validation/ajv-provider.js')
            ? path.resolve('lib/skills/mcp-no-ajv.ts')
            : undefined,
      },
      sqliteWasmAsFile(),
    ],
  }),
  hooks: {
    // Database skills: SQLite's WebAssembly ships once, as a file at the root (see sqliteWasmAsFile).
    'build:publicAssets': (_wxt: Wxt, files) => {
      files.push({ absoluteSrc: path.resolve('node_modules/@sqlite.org/sqlite-wasm/dist/sqlite3.wasm'), relativeDest: 'sqlite3.wasm' });
      // Python for function skills ships inside the extension (never fetched from a CDN): the
      // Python Worker imports the two JS modules, its host reads the WebAssembly and the stdlib.
      for (const name of PYODIDE_FILES) files.push({ absoluteSrc: path.join(pyodideRoot, name), relativeDest: `${PYODIDE_DIR.slice(1)}${name}` });
    },
  },
  // `npm run dev` opens Debian's browsers; WXT_HEADLESS=1 only builds and watches
  // (.output/chrome-mv3-dev), for machines without a display.
  webExt: {
    disabled: process.env.WXT_HEADLESS === '1',
    binaries: { chrome: '/usr/bin/chromium', firefox: '/usr/bin/firefox-esr' },
    chromiumArgs: ['--no-first-run', '--disable-background-networking', '--disable-sync'],
  },
  manifest: ({ browser, manifestVersion }) => ({
    name: '__MSG_extName__',
    description: '__MSG_extDescription__',
    default_locale: 'en',
    permissions: [
      'storage',
      'unlimitedStorage',
      'tabs',
      // get_tab_content and execute_script inject into the tab the model names.
      'scripting',
      // ask_user: a question that waits while the popup is closed shows as a notification.
      'notifications',
      // MCP servers that need OAuth sign-in: identity.launchWebAuthFlow is the browser's own
      // sign-in window (the user sees the server's real page and address bar; the extension never
      // sees the password), closed by the browser when it redirects to identity.getRedirectURL().
      'identity',
      // web_fetch: the address each answer came from (webRequest's details.ip, read by
      // non-blocking listeners on the extension's own requests), so that a public name resolving
      // to this computer or the local network is not read. The URL alone cannot show it.
      'webRequest',
      // Local model servers (Ollama without OLLAMA_ORIGINS) refuse an extension's Origin: a session
      // rule sets the server's own Origin on the extension's requests to the configured local base
      // URLs only (lib/browser/local-origin.ts). "WithHostAccess": no warning beyond host access.
      'declarativeNetRequestWithHostAccess',
      // Firefox: web_fetch resolves the name first (dns.resolve) and refuses a private address
      // before anything is sent. Chrome has no such API outside its dev channel.
      ...(browser === 'firefox' ? ['dns'] : []),
      // Chrome: execute_script on pages whose CSP forbids eval runs through userScripts.execute,
      // available once the user turns on "Allow User Scripts" for Pagewright.
      ...(browser === 'firefox' ? [] : ['userScripts']),
      // Chrome: page_action's trusted input (Settings → Advanced, off by default) sends clicks and keys
      // through the DevTools protocol. Required, not optional: Chrome refuses "debugger" in
      // optional_permissions ("Only permissions specified in the manifest may be requested").
      // Nothing attaches unless the user turned the setting on. Firefox has no such API.
      ...(browser === 'firefox' ? [] : ['debugger']),
      // Chrome: the offscreen document hosts the sandbox page (the service worker has no DOM).
      ...(browser === 'firefox' ? [] : ['offscreen']),
      // Chrome: the chat in the side panel (entrypoints/sidepanel). Firefox's sidebar needs none.
      ...(browser === 'firefox' ? [] : ['sidePanel']),
      // "Ask Pagewright about this page / the selection / this link / this image" (lib/browser/ask-menu.ts).
      browser === 'firefox' ? 'menus' : 'contextMenus',
    ],
    host_permissions: ['<all_urls>'],
    action: { default_title: '__MSG_extName__' },
    // Shortcuts the user can change: chrome://extensions/shortcuts, Firefox's add-ons page ⚙ →
    // Manage Extension Shortcuts. Open the chat (the toolbar button), and the panel beside the page
    // (Firefox toggles its sidebar itself; Chrome's command is handled in lib/browser/ask-menu.ts).
    commands: {
      [browser === 'firefox' && manifestVersion === 2 ? '_execute_browser_action' : '_execute_action']: {
        suggested_key: { default: 'Alt+Shift+P' },
        description: '__MSG_command_open_chat__',
      },
      ...(browser === 'firefox'
        ? { _execute_sidebar_action: { suggested_key: { default: 'Alt+Shift+L' }, description: '__MSG_command_toggle_panel__' } }
        : { 'toggle-panel': { suggested_key: { default: 'Alt+Shift+L' }, description: '__MSG_command_toggle_panel__' } }),
    },
    // The sandbox (lib/sandbox). Chrome: the sandbox page may eval (and compile QuickJS's
    // WebAssembly) but reaches nothing on the network; its blob Workers inherit this policy.
    // Firefox MV2: QuickJS's WebAssembly needs 'wasm-unsafe-eval' (Firefox MV3 allows it).
    ...(browser === 'firefox'
      ? manifestVersion === 2
        ? { content_security_policy: "script-src 'self' 'wasm-unsafe-eval'; object-src 'self';" }
        : {}
      : {
          content_security_policy: {
            // Database skills: SQLite's WebAssembly is compiled in a Worker of the extension's own
            // pages (the offscreen document, the management page), outside the sandbox.
            extension_pages: "script-src 'self' 'wasm-unsafe-eval'; object-src 'self'",
            sandbox: "sandbox allow-scripts; script-src 'self' 'unsafe-eval'; worker-src blob:; connect-src 'none'; default-src 'none'",
          },
        }),
    ...(browser === 'firefox'
      ? {
          browser_specific_settings: {
            gecko: {
              id: 'pagewright@pagewright.dev',
              // Firefox reads data_collection_permissions only from 140 (an ESR); below it the
              // user would install without seeing what is sent. Nothing used on Firefox needs
              // more: scripting.executeScript world MAIN 128, AbortSignal.any 124, CSS :has() 121,
              // String.prototype.isWellFormed 119, import() in Workers 114 (Pyodide; also Vite's
              // syntax target firefox114), OPFS 111. Uint8Array.fromBase64 (133) is feature-detected.
              strict_min_version: '140.0',
              // What the user types and what the agent reads from pages goes to the model
              // endpoint the user configured.
              data_collection_permissions: { required: ['websiteContent', 'personalCommunications'] },
            },
            // Firefox for Android reads data_collection_permissions only from 142.
            gecko_android: { strict_min_version: '142.0' },
          },
        }
      : {
          // What the build really calls without a fallback:
          //   runtime.getContexts (finding the offscreen document after a worker restart) → 116
          //   AbortSignal.any (run, sub-agent, web and HTTP time limits)                  → 116
          //   String.prototype.isWellFormed 111, Vite's syntax target chrome111 (the built JS
          //   is ES2022: no `using`, no regex v flag), offscreen documents 109, CSS :has() 105,
          //   'wasm-unsafe-eval' 103, structuredClone 98; the three WebAssembly modules need
          //   legacy exceptions, reference types and bulk memory (≤ 96).
          // Not counted, because the code checks for them and carries on without:
          //   userScripts.execute 135 (execute_script under a strict CSP says what to turn on),
          //   Uint8Array.fromBase64 140, action.openPopup; URL.canParse 120 sits only in the MCP
          //   SDK's OAuth schemas, never reached without an authProvider.
          minimum_chrome_version: '116',
        }),
  }),
});

/**
 * @sqlite.org/sqlite-wasm finds its .wasm with `new URL('sqlite3.wasm', import.meta.url)`. The
 * database worker is an unlisted script, built in library mode, where Vite inlines such assets
 * as base64 (+1.2 MB of script, compiled without streaming); the loader's two Workers (the OPFS
 * VFS proxy and the Worker1 API, neither used here) would be bundled as well, each with its own
 * inlined copy. So the loader is pointed at /sqlite3.wasm, copied there by the
 * build:publicAssets hook, and the two Workers are cut out. A new package version that changes
 * these lines fails the build here rather than shipping the copies.
 */
function sqliteWasmAsFile(): Plugin {
  const edits: [string, string][] = [
    ['var _scriptName = import.meta.url;', 'var _scriptName = globalThis.location?.href;'],
    ['return new URL("sqlite3.wasm", import.meta.url).href;', 'return new URL("/sqlite3.wasm", globalThis.location.href).href;'],
    ['new URL("sqlite3-opfs-async-proxy.js", import.meta.url)', 'new URL("/sqlite3-opfs-async-proxy.js", globalThis.location.href)'],
    [
      'return new Worker(new URL("sqlite3-worker1.mjs", import.meta.url), { type: "module" });',
      'throw new Error("sqlite3Worker1Promiser is not part of this extension");',
    ],
  ];
  return {
    name: 'sqlite-wasm-as-file',
    enforce: 'pre',
    transform(code, id) {
      if (!id.replaceAll('\\', '/').includes('@sqlite.org/sqlite-wasm/dist/index.mjs')) return undefined;
      let out = code;
      for (const [from, to] of edits) {
        if (!out.includes(from)) throw new Error(`sqlite-wasm-as-file: "${from}" not found in ${id}; check the plugin against this package version.`);
        out = out.replaceAll(from, to);
      }
      if (out.includes('import.meta.url')) throw new Error(`sqlite-wasm-as-file: ${id} still uses import.meta.url.`);
      return { code: out, map: null };
    },
  };
}
