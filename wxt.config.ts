import { createRequire } from 'node:module';
import path from 'node:path';
import { defineConfig } from 'wxt';
import { PYODIDE_DIR, PYODIDE_FILES } from './lib/sandbox/python-protocol';

const pyodideRoot = path.dirname(createRequire(import.meta.url).resolve('pyodide/package.json'));

// Firefox ships as MV2: a persistent background page is never suspended mid-run, has a DOM
// (DOMParser, blob URLs) without an offscreen document, and host permissions are granted at
// install instead of being opt-in per site as in Firefox MV3.
export default defineConfig({
  modules: ['@wxt-dev/module-svelte'],
  imports: false,
  hooks: {
    // Python for function skills ships inside the extension (never fetched from a CDN): the
    // Python Worker imports the two JS modules, its host reads the WebAssembly and the stdlib.
    'build:publicAssets': (_wxt, files) => {
      for (const name of PYODIDE_FILES) files.push({ absoluteSrc: path.join(pyodideRoot, name), relativeDest: `${PYODIDE_DIR.slice(1)}${name}` });
    },
  },
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
    ],
  }),
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
      // Chrome: execute_script on pages whose CSP forbids eval runs through userScripts.execute,
      // available once the user turns on "Allow User Scripts" for Pagewright.
      ...(browser === 'firefox' ? [] : ['userScripts']),
      // Chrome: the offscreen document hosts the sandbox page (the service worker has no DOM).
      ...(browser === 'firefox' ? [] : ['offscreen']),
    ],
    host_permissions: ['<all_urls>'],
    action: { default_title: '__MSG_extName__' },
    // The sandbox (lib/sandbox). Chrome: the sandbox page may eval (and compile QuickJS's
    // WebAssembly) but reaches nothing on the network; its blob Workers inherit this policy.
    // Firefox MV2: QuickJS's WebAssembly needs 'wasm-unsafe-eval' (Firefox MV3 allows it).
    ...(browser === 'firefox'
      ? manifestVersion === 2
        ? { content_security_policy: "script-src 'self' 'wasm-unsafe-eval'; object-src 'self';" }
        : {}
      : {
          content_security_policy: {
            sandbox: "sandbox allow-scripts; script-src 'self' 'unsafe-eval'; worker-src blob:; connect-src 'none'; default-src 'none'",
          },
        }),
    ...(browser === 'firefox'
      ? {
          browser_specific_settings: {
            gecko: {
              id: 'pagewright@pagewright.dev',
              strict_min_version: '128.0',
              // What the user types and what the agent reads from pages goes to the model
              // endpoint the user configured.
              data_collection_permissions: { required: ['websiteContent', 'personalCommunications'] },
            },
          },
        }
      : {}),
  }),
});
