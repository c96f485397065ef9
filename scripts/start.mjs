// Starts a real browser with the built extension installed, on a profile kept in
// .output/profile-<browser> so settings and conversations survive restarts.
// Usage: npm start [-- chromium|firefox]
import { execSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import puppeteer from 'puppeteer-core';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const which = process.argv[2] ?? 'chromium';
if (!['chromium', 'firefox'].includes(which)) {
  console.error(`Unknown browser "${which}": use chromium or firefox.`);
  process.exit(2);
}
const headless = !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY;
const build = path.join(root, '.output', which === 'chromium' ? 'chrome-mv3' : 'firefox-mv2');
const profile = path.join(root, '.output', `profile-${which}`);

console.log(`Building the ${which} extension…`);
execSync(`npx wxt build${which === 'firefox' ? ' -b firefox' : ''}`, { cwd: root, stdio: 'inherit' });
fs.mkdirSync(profile, { recursive: true });

const FIREFOX_UUID = '6a1f2c4e-9b3d-4e57-a8c1-2f0d5b7e9c31';
const browser =
  which === 'chromium'
    ? await puppeteer.launch({
        executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
        headless,
        pipe: true,
        userDataDir: profile,
        enableExtensions: [build],
        defaultViewport: null,
        args: ['--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', ...(process.getuid?.() === 0 ? ['--no-sandbox'] : [])],
      })
    : await puppeteer.launch({
        browser: 'firefox',
        executablePath: process.env.FIREFOX_PATH ?? '/usr/bin/firefox-esr',
        headless,
        userDataDir: profile,
        defaultViewport: null,
        args: ['--remote-allow-system-access'],
        extraPrefsFirefox: { 'extensions.webextensions.uuids': JSON.stringify({ 'pagewright@pagewright.dev': FIREFOX_UUID }) },
      });
if (which === 'firefox') await browser.installExtension(build);

let origin;
if (which === 'chromium') {
  const worker = await browser.waitForTarget((t) => t.type() === 'service_worker' && t.url().endsWith('/background.js'));
  origin = worker.url().replace(/\/background\.js$/, '');
} else {
  origin = `moz-extension://${FIREFOX_UUID}`;
}

// The options page first: it is where the API key goes. The toolbar button opens the chat.
const page = await browser.newPage();
void page.goto(`${origin}/options.html`).catch(() => {});
console.log(`\nPagewright is running in ${which}${headless ? ' (headless: no display found)' : ''}.`);
console.log(`  Settings: ${origin}/options.html`);
console.log(`  Chat:     ${origin}/popup.html (or the toolbar button)`);
console.log(`  Profile:  ${profile}`);
if (headless) {
  await new Promise((r) => setTimeout(r, 1500));
  const shot = path.join(root, '.output', `start-${which}.png`);
  await page.screenshot({ path: shot }).catch(() => {});
  console.log(`  Screenshot of the settings page: ${shot}`);
}
console.log('Press Ctrl+C to stop.');

const stop = async () => {
  await browser.close().catch(() => {});
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
browser.on('disconnected', () => process.exit(0));
