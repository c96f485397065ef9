import path from 'node:path';
import { fileURLToPath } from 'node:url';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { SITE_DOMAIN, SITE_HOSTS } from './sites';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const CHROME_BUILD = path.join(root, '.output/chrome-mv3');
export const FIREFOX_BUILD = path.join(root, '.output/firefox-mv2');
export const GECKO_ID = 'pagewright@pagewright.dev';
const FIREFOX_UUID = '6a1f2c4e-9b3d-4e57-a8c1-2f0d5b7e9c31';

export type BrowserName = 'chromium' | 'firefox';

/** A real browser with the built extension installed, driven like a user would. */
export interface ExtensionBrowser {
  name: BrowserName;
  browser: Browser;
  origin: string;
  /** Opens an extension page (popup.html, options.html) in a tab at the popup's real size, or in a window of its own. */
  open(page: string, size?: { width: number; height: number }, where?: { window?: boolean }): Promise<Page>;
  /** Stops the background service worker through the DevTools protocol (Chromium only). */
  stopBackground(): Promise<void>;
  close(): Promise<void>;
}

const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--lang=en-US',
  // The test sites (sites.ts): every name under pagewright.test is 127.0.0.1, the port kept.
  `--host-resolver-rules=MAP *.${SITE_DOMAIN} 127.0.0.1`,
];

/** `windowSize`: the browser window's size (bench:screenshot wants a 1280×800 page); else the browser's default. */
export async function launch(name: BrowserName, windowSize?: { width: number; height: number }): Promise<ExtensionBrowser> {
  return name === 'chromium' ? launchChromium(windowSize ? { windowSize } : {}) : launchTwice('firefox', () => launchFirefox(windowSize));
}

/**
 * A browser that does not come up (no extension worker within 20 s, a pipe closed at start) is
 * launched once more: a loaded machine's slow start is not what any test checks, and a failed
 * launch in a beforeAll would fail every test of the describe with no retry. Said in the log.
 */
async function launchTwice(name: BrowserName, start: () => Promise<ExtensionBrowser>): Promise<ExtensionBrowser> {
  try {
    return await start();
  } catch (e) {
    console.log(`e2e: ${name} did not start (${e instanceof Error ? e.message.split('\n')[0] : String(e)}); launching it again`);
    return start();
  }
}

/**
 * `lang` is the browser's UI language (Chromium takes it from LANGUAGE on Linux); `extension` the
 * unpacked build to load (`wxt dev` writes .output/chrome-mv3-dev); `developerMode` turns on
 * chrome://extensions' Developer mode, without which Chromium disables an unpacked extension
 * that reloads itself (as `wxt dev` makes it do).
 */
export function launchChromium(options: ChromiumOptions = {}): Promise<ExtensionBrowser> {
  return launchTwice('chromium', () => startChromium(options));
}

interface ChromiumOptions {
  lang?: string;
  extension?: string;
  developerMode?: boolean;
  windowSize?: { width: number; height: number };
}

async function startChromium({ lang = 'en', extension = CHROME_BUILD, developerMode = false, windowSize }: ChromiumOptions): Promise<ExtensionBrowser> {
  const browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    pipe: true,
    enableExtensions: [extension],
    args: [
      ...CHROMIUM_ARGS.filter((a) => !a.startsWith('--lang=')),
      `--lang=${lang}`,
      // Headless Chromium's screen is 800×600 and windows.update refuses a window mostly off it.
      ...(windowSize ? [`--window-size=${windowSize.width},${windowSize.height}`, `--screen-info={${windowSize.width + 200}x${windowSize.height + 200}}`] : []),
    ],
    env: { ...process.env, LANGUAGE: lang },
  });
  try {
    const worker = await browser.waitForTarget(
      (t) => t.type() === 'service_worker' && t.url().startsWith('chrome-extension://') && t.url().endsWith('/background.js'),
      { timeout: 20_000 },
    );
    const origin = worker.url().replace(/\/background\.js$/, '');
    if (developerMode) await turnOnDeveloperMode(browser);
    return {
      name: 'chromium',
      browser,
      origin,
      async open(page, size = { width: 400, height: 600 }, where = {}) {
        // A window of its own: what the side panel is beside the page (activating a tab never hides it).
        const p = await browser.newPage(where.window ? { type: 'window' } : {});
        await p.setViewport(size);
        await p.goto(`${origin}/${page}`);
        return p;
      },
      async stopBackground() {
        const target = await browser.waitForTarget((t) => t.type() === 'service_worker' && t.url().startsWith(origin), { timeout: 10_000 });
        const w = await target.worker();
        await w!.close();
      },
      close: () => browser.close(),
    };
  } catch (e) {
    await browser.close();
    throw e;
  }
}

async function turnOnDeveloperMode(browser: Browser) {
  const page = await browser.newPage();
  try {
    await page.goto('chrome://extensions');
    const on = await page.evaluate(async () => {
      const dev = (globalThis as any).chrome.developerPrivate;
      await dev.updateProfileConfiguration({ inDeveloperMode: true });
      return (await dev.getProfileConfiguration()).inDeveloperMode as boolean;
    });
    if (!on) throw new Error('chrome://extensions did not turn Developer mode on');
  } finally {
    await page.close();
  }
}

async function launchFirefox(windowSize?: { width: number; height: number }): Promise<ExtensionBrowser> {
  const browser = await puppeteer.launch({
    browser: 'firefox',
    executablePath: process.env.FIREFOX_PATH ?? '/usr/bin/firefox-esr',
    headless: true,
    args: ['--remote-allow-system-access', ...(windowSize ? [`--window-size=${windowSize.width},${windowSize.height}`] : [])],
    extraPrefsFirefox: {
      'extensions.webextensions.uuids': JSON.stringify({ [GECKO_ID]: FIREFOX_UUID }),
      'intl.locale.requested': 'en-US',
      'browser.shell.checkDefaultBrowser': false,
      'datareporting.policy.dataSubmissionEnabled': false,
      // The test sites (sites.ts). Listed names resolve as "localhost" does (dns.resolve gives
      // 127.0.0.1, then ::1); exact names only, no wildcard: any other name under the domain is
      // an unknown host. (network.dns.forceResolve would send every name to one address.)
      'network.dns.localDomains': SITE_HOSTS.join(','),
    },
  });
  try {
    await browser.installExtension(FIREFOX_BUILD);
    const origin = `moz-extension://${FIREFOX_UUID}`;
    return {
      name: 'firefox',
      browser,
      origin,
      async open(page, size = { width: 400, height: 600 }, where = {}) {
        // A window of its own: what the side panel is beside the page (activating a tab never hides it).
        const p = await browser.newPage(where.window ? { type: 'window' } : {});
        await p.setViewport(size);
        // Over BiDi, goto() on a moz-extension:// URL never resolves: start it and wait for content.
        void p.goto(`${origin}/${page}`).catch(() => {});
        // While the tab swaps about:blank for the extension page, BiDi evaluations can fail
        // with a protocol error instead of waiting: ask again until the page is up.
        const deadline = Date.now() + 20_000;
        for (;;) {
          try {
            await p.waitForFunction(
              (o) => location.href.startsWith(o) && document.readyState === 'complete' && !!document.querySelector('#app > *'),
              { timeout: Math.max(1000, deadline - Date.now()) },
              origin,
            );
            return p;
          } catch (e) {
            if (Date.now() > deadline) throw e;
            await new Promise((r) => setTimeout(r, 100));
          }
        }
      },
      async stopBackground() {
        throw new Error('Firefox runs a persistent background page; there is no worker to stop.');
      },
      close: () => browser.close(),
    };
  } catch (e) {
    await browser.close();
    throw e;
  }
}
