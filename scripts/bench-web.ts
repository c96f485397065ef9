/**
 * web_fetch in the built extension: a 1 MB HTML page from a local server to Markdown, driven as the
 * model drives it (the fake Messages API asks for the tool; the popup shows the run).
 *
 *   npm run bench:web [-- --browser firefox] [--runs N]
 *
 * The figure is the time from the model's request that asks for web_fetch to the request that
 * carries its result: streaming the tool call, the fetch, the HTML → Markdown in the DOM host
 * (Chrome's offscreen document, Firefox's background page) and saving the step.
 */
import { existsSync } from 'node:fs';
import { execSync } from 'node:child_process';
import { launch, type BrowserName } from '../tests/harness/browsers';
import { FakeAnthropic, lastToolResult, text, toolCall } from '../tests/harness/fake-anthropic';
import { FixtureServer } from '../tests/harness/fixture-server';
import { PopupPage, setSettings } from '../tests/harness/popup';

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const browserName = (arg('--browser') ?? 'chromium') as BrowserName;
const RUNS = Number(arg('--runs') ?? 7);
const TARGET_MS = 300;

const build = browserName === 'firefox' ? '.output/firefox-mv2' : '.output/chrome-mv3';
if (!existsSync(build)) execSync(browserName === 'firefox' ? 'npx wxt build -b firefox' : 'npx wxt build', { stdio: 'inherit' });

const fake = new FakeAnthropic();
const fixtures = new FixtureServer();
await Promise.all([fake.start(), fixtures.start()]);
const ext = await launch(browserName);
try {
  const popup = await PopupPage.open(ext);
  await setSettings(popup.page, { apiKey: 'bench-key', baseUrl: fake.url, allowPrivateNetwork: true });
  const times: number[] = [];
  let chars = 0;
  for (let i = 0; i < RUNS + 1; i++) {
    fake.reset();
    fake.script(toolCall('web_fetch', { url: `${fixtures.url}/web/big-1mb.html` }), text(`done ${i}`));
    await popup.send(`fetch ${i}`);
    await popup.waitForAssistantText(`done ${i}`, 60_000);
    const result = lastToolResult(fake.requests[1]!.body);
    if (result.isError) throw new Error(`web_fetch failed: ${String(result.content)}`);
    chars = result.content.content.length;
    // The first run also starts the offscreen document and loads the extractor: reported apart.
    const ms = fake.requests[1]!.at - fake.requests[0]!.at;
    if (i === 0) console.log(`first call (cold: DOM host starts, extractor loads): ${ms} ms`);
    else times.push(ms);
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)]!;
  console.log(`${browserName}: web_fetch of a 1 MB HTML page → ${chars} chars of Markdown`);
  console.log(`  median ${median} ms over ${times.length} warm runs (min ${times[0]}, max ${times[times.length - 1]}); target ≤ ${TARGET_MS} ms in Chromium: ${median <= TARGET_MS ? 'met' : 'MISSED'}`);
} finally {
  await ext.close();
  await Promise.all([fake.stop(), fixtures.stop()]);
}
