/**
 * page_action in the built extension, driven as the model drives it (the fake Messages API asks
 * for each tool call; the popup shows the run), in Chromium and Firefox ESR.
 *
 *   npm run bench:actions [-- --browser chromium|firefox] [--rounds N] [--no-screenshot]
 *
 * Sections (each prints its own figures and target): add one to SECTIONS for another tool.
 * - page_action: a scripted 10-step form fill of the Preact fixture app (tests/fixtures/page-actions,
 *   bundled from npm at start). The figure per action is the time from the model's request whose
 *   reply asks for page_action to the request that carries its result: streaming the tool call, the
 *   policy, injecting and acting in the page, letting it settle, and saving the step.
 * - screenshot (scripts/screenshot-bench.ts, also `npm run bench:screenshot`): a 1280×800 page,
 *   visible area and cropped, tool call to result (target ≤ 400 ms).
 */
import { existsSync } from 'node:fs';
import { execSync } from 'node:child_process';
import { serveActionApp } from '../tests/harness/action-app';
import { launch, type BrowserName, type ExtensionBrowser } from '../tests/harness/browsers';
import { FakeAnthropic, lastToolResult, text, toolCall } from '../tests/harness/fake-anthropic';
import { FixtureServer } from '../tests/harness/fixture-server';
import { PopupPage, setPermissions, setSettings, TEST_PERMISSIONS } from '../tests/harness/popup';
import { benchScreenshot } from './screenshot-bench';

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const BROWSERS = (arg('--browser') ? [arg('--browser')] : ['chromium', 'firefox']) as BrowserName[];
const ROUNDS = Number(arg('--rounds') ?? 3);

interface Bench {
  fake: FakeAnthropic;
  fixtures: FixtureServer;
  ext: ExtensionBrowser;
  popup: PopupPage;
  browser: BrowserName;
}

interface Section {
  name: string;
  run(b: Bench): Promise<void>;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};

/** Opens `path` in a new background tab from the popup, as the tests' own hands do; resolves its id once loaded. */
async function openTab(b: Bench, path: string): Promise<number> {
  const url = `${b.fixtures.url}${path}`;
  const id = await b.popup.page.evaluate(async (url) => {
    const api = (globalThis as any).browser ?? (globalThis as any).chrome;
    return (await api.tabs.create({ url, active: false })).id as number;
  }, url);
  for (let i = 0; i < 200; i++) {
    const ready = await b.popup.page.evaluate(async (id) => {
      const api = (globalThis as any).browser ?? (globalThis as any).chrome;
      const tab = await api.tabs.get(id);
      return tab.status === 'complete' && tab.title === 'Sign-up app';
    }, id);
    if (ready) return id;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`tab ${id} did not load ${url}`);
}

function selectorOf(md: string, kind: string, label: string): string {
  const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const m = md.match(new RegExp(`\\[${esc(kind)}[^\\[\\]\\n]*?"${esc(label)}"[^\\n]*?\\{((?:[^{}"\\n]|"(?:[^"\\\\]|\\\\.)*")+)\\}\\]`));
  if (!m) throw new Error(`no [${kind} "${label}"] in the page read`);
  return m[1]!;
}

const pageActionSection: Section = {
  name: 'page_action: 10-step form fill',
  async run(b) {
    const TARGET_MS = 150;
    const times: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const tab = await openTab(b, '/page-actions/app.html');
      let md = '';
      const s = (kind: string, label: string) => selectorOf(md, kind, label);
      const act = (action: string, input: Record<string, unknown>) => toolCall('page_action', { tab_id: tab, action, ...input });
      const steps: (() => ReturnType<typeof toolCall>)[] = [
        () => act('fill', { selector: s('input', 'Full name'), text: 'Ada Lovelace' }),
        () => act('type', { selector: s('input email', 'Email'), text: 'ada@example.org' }),
        () => act('clear', { selector: s('textarea', 'Notes') }),
        () => act('type', { selector: s('textarea', 'Notes'), text: 'Hi!' }),
        () => act('select', { selector: s('combobox', 'Plan'), value: 'Pro' }),
        () => act('select', { selector: s('select', 'Country'), value: 'Korea' }),
        () => act('check', { selector: s('checkbox', 'News') }),
        () => act('check', { selector: s('checkbox', 'Events') }),
        () => act('check', { selector: s('checkbox', 'I accept the terms') }),
        () => act('click', { selector: s('button', 'Review') }),
      ];
      b.fake.reset();
      b.fake.script(
        toolCall('get_tab_content', { tab_id: tab }),
        (body: any) => ((md = lastToolResult(body).content.content), steps[0]!()),
        ...steps.slice(1).map((step) => () => step()),
        text(`filled ${b.browser} ${round}`),
      );
      await b.popup.send(`fill the form ${round}`);
      await b.popup.waitForAssistantText(`filled ${b.browser} ${round}`, 120_000);
      // Requests: 0 asks for the read, 1 carries it and asks for step 1, …, k+1 carries step k's result.
      for (let k = 1; k <= steps.length; k++) {
        const result = lastToolResult(b.fake.requests[k + 1]!.body);
        if (result.isError) throw new Error(`step ${k} failed: ${JSON.stringify(result.content)}`);
        times.push(b.fake.requests[k + 1]!.at - b.fake.requests[k]!.at);
      }
      const last = lastToolResult(b.fake.requests[steps.length + 1]!.body).content;
      if (!String(last.appeared ?? '').includes('Check your details')) throw new Error(`the form was not submitted: ${JSON.stringify(last)}`);
    }
    const m = median(times);
    console.log(`  ${b.browser}: ${times.length} page_action calls (${ROUNDS} × 10 steps): median ${m} ms, min ${Math.min(...times)}, max ${Math.max(...times)} (tool call to result); target ≤ ${TARGET_MS} ms: ${m <= TARGET_MS ? 'OK' : 'MISS'}`);
  },
};

const SECTIONS: Section[] = [pageActionSection];

for (const browser of BROWSERS) {
  const build = browser === 'firefox' ? '.output/firefox-mv2' : '.output/chrome-mv3';
  if (!existsSync(build)) execSync(browser === 'firefox' ? 'npx wxt build -b firefox' : 'npx wxt build', { stdio: 'inherit' });
  const fake = new FakeAnthropic();
  const fixtures = new FixtureServer();
  await Promise.all([fake.start(), fixtures.start(), serveActionApp(fixtures)]);
  const ext = await launch(browser);
  try {
    const popup = await PopupPage.open(ext);
    await setSettings(popup.page, { apiKey: 'bench-key', baseUrl: fake.url });
    await setPermissions(popup.page, TEST_PERMISSIONS);
    for (const section of SECTIONS) {
      console.log(`${section.name} (${browser})`);
      await section.run({ fake, fixtures, ext, popup, browser });
    }
  } finally {
    await ext.close();
    await Promise.all([fake.stop(), fixtures.stop()]);
  }
}

// The screenshot tool, issue 18's other half: its own browser and page (scripts/screenshot-bench.ts), printed there.
if (!process.argv.includes('--no-screenshot')) {
  console.log('screenshot');
  await benchScreenshot({ calls: 15, browsers: BROWSERS });
}
