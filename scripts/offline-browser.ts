/**
 * For the benchmarks that run our code in a plain page: a headless browser from Debian's
 * packages whose pages reach nothing but the local server (the network is never touched).
 */
import path from 'node:path';
import { launch, type Browser, type Page } from 'puppeteer-core';
import { build } from 'vite';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const FIREFOX = process.env.FIREFOX_PATH ?? '/usr/bin/firefox-esr';

export function launchBenchBrowser({ firefox = false } = {}): Promise<Browser> {
  return firefox
    ? launch({ browser: 'firefox', executablePath: FIREFOX, headless: true })
    : launch({
        executablePath: CHROMIUM,
        headless: true,
        args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--no-first-run'],
      });
}

/** A page whose requests go only to `origin` (and data:/about:blank); dialogs are dismissed. */
export async function offlinePage(browser: Browser, origin: string): Promise<Page> {
  const page = await browser.newPage();
  await page.setRequestInterception(true);
  page.on('request', (req) => {
    const url = req.url();
    if (url.startsWith(`${origin}/`) || url.startsWith('data:') || url === 'about:blank') void req.continue();
    else void req.abort('blockedbyclient');
  });
  page.on('dialog', (d) => void d.dismiss());
  return page;
}

/**
 * page-reader.js as `wxt build` makes it (an IIFE that installs window.__pagewrightReadPage), from
 * the current sources: bundled in memory by Vite, minified the same way.
 */
export async function bundleReader(): Promise<string> {
  const entry = 'virtual:pagewright-reader';
  const out = await build({
    configFile: false,
    logLevel: 'silent',
    plugins: [{
      name: 'pagewright-reader-entry',
      resolveId: (id) => (id === entry ? `\0${entry}` : null),
      load: (id) => (id === `\0${entry}` ? `import script from ${JSON.stringify(path.resolve('entrypoints/page-reader.ts'))}; script.main();` : null),
    }],
    build: { write: false, minify: true, rollupOptions: { input: entry, output: { format: 'iife' } } },
  });
  const [result] = Array.isArray(out) ? out : [out];
  if (!result || !('output' in result)) throw new Error('no bundle for page-reader');
  return result.output[0].code;
}
