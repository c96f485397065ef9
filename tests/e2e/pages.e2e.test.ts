import { describe, expect, it } from 'vitest';
import type { BrowserName } from '../harness/browsers';
import { lastToolResult, rawToolResult, text, toolCall } from '../harness/fake-anthropic';
import { agentSession } from '../harness/session';
import { until } from '../harness/until';

const browsers: BrowserName[] = ['chromium', 'firefox'];

describe.each(browsers)('page tools in %s', (name) => {
  const session = agentSession(name, { scriptTimeoutSec: 3 });
  const { fake, fixtures, openTab, agentRuns } = session;

  it('reads a page rendered after load (SPA)', async () => {
    const tab = await openTab('/spa.html', 'SPA fixture (ready)');
    const [read] = await agentRuns([() => ({ name: 'get_tab_content', input: { tab_id: tab } })]);
    expect(read!.isError).toBe(false);
    expect(read!.content).toMatchObject({ tab_id: tab, url: `${fixtures.url}/spa.html`, title: 'SPA fixture (ready)', truncated: false });
    expect(read!.content.content).toContain('Rendered by JavaScript');
    expect(read!.content.content).toContain('did not exist in the HTML');
    expect(read!.content.content).not.toContain('Loading…');
  });

  it('reads a page that takes the reader\'s name in its own world', async () => {
    const tab = await openTab('/hostile.html');
    const [read] = await agentRuns([() => ({ name: 'get_tab_content', input: { tab_id: tab } })]);
    expect(read!.isError, JSON.stringify(read!.content).slice(0, 300)).toBe(false);
    expect(read!.content.content).toContain('real content of a page that tries to break the page reader');
  });

  it('reads a page whose CSP forbids eval', async () => {
    const tab = await openTab('/strict-csp.html');
    const [read] = await agentRuns([() => ({ name: 'get_tab_content', input: { tab_id: tab } })]);
    expect(read!.isError, JSON.stringify(read!.content).slice(0, 300)).toBe(false);
    expect(read!.content.content).toContain('A page that forbids eval');
  });

  it('reads shadow DOM and a same-origin iframe, and the selectors it gives work', async () => {
    const tab = await openTab('/shadow.html');
    // What the reader must find: the custom element's shadow root and the iframe's document.
    const page = await session.pageShowing(`${fixtures.url}/shadow.html`);
    await until(
      () =>
        page.evaluate(
          () =>
            !!document.querySelector('user-card')?.shadowRoot?.textContent?.includes('Ada Lovelace') &&
            !!(document.getElementById('settings-frame') as HTMLIFrameElement | null)?.contentDocument?.body?.textContent?.includes('Inside the frame'),
        ),
      { what: 'the shadow root and the frame to render' },
    );
    const [read] = await agentRuns([() => ({ name: 'get_tab_content', input: { tab_id: tab } })]);
    const md: string = read!.content.content;
    expect(md).toContain('Ada Lovelace');
    expect(md).toContain('Inside the frame');
    expect(md).toMatch(/>>>/);
  });

  it('reads a form, then fills a field through execute_script with the selector it was given', async () => {
    const tab = await openTab('/form.html');
    let emailSelector = '';
    const results = await agentRuns([
      () => ({ name: 'get_tab_content', input: { tab_id: tab } }),
      (prev) => {
        const md: string = prev.content.content;
        // The field's annotation: [input email "Email address" … {selector}]
        emailSelector = md.match(/\[input[^[\]]*"Email address"[^[\]]*\{([^{}]+)\}\]/)![1]!;
        return {
          name: 'execute_script',
          input: {
            target: 'page',
            tab_id: tab,
            code: `const el = document.querySelector(${JSON.stringify(emailSelector)}); el.value = 'grace@navy.mil'; el.form.requestSubmit(); return document.getElementById('result').textContent;`,
          },
        };
      },
    ]);
    const md: string = results[0]!.content.content;
    expect(md).toContain('Grace Hopper');
    expect(md).toMatch(/Pro/);
    expect(md).not.toContain('hunter2');
    expect(results[1]).toMatchObject({ isError: false, content: { target: 'page', tab_id: tab, result: 'Submitted for grace@navy.mil', truncated: false } });
  });

  it('runs page code in the MAIN world, with async code and odd return values', async () => {
    const tab = await openTab('/spa.html', 'SPA fixture (ready)');
    const [state, odd] = await agentRuns([
      () => ({ name: 'execute_script', input: { target: 'page', tab_id: tab, code: 'await new Promise((r) => setTimeout(r, 50)); return window.appState;' } }),
      () => ({
        name: 'execute_script',
        input: { target: 'page', tab_id: tab, code: 'const o = { el: document.body, f() {}, n: 10n, u: undefined }; o.me = o; return o;' },
      }),
    ]);
    expect(state!.content.result).toEqual({ items: 3, ready: true });
    expect(odd!.content.result).toEqual({ el: '<body>', f: '[Function f]', n: '10n', u: null, me: '[Circular]' });
  });

  it('gives clear errors for bad page code and keeps going', async () => {
    const tab = await openTab('/spa.html');
    const results = await agentRuns([
      () => ({ name: 'execute_script', input: { target: 'page', tab_id: tab, code: 'return (1 + ;' } }),
      () => ({ name: 'execute_script', input: { target: 'page', tab_id: tab, code: "throw new TypeError('broken on purpose')" } }),
      () => ({ name: 'execute_script', input: { target: 'page', tab_id: tab, code: 'await new Promise(() => {})' } }),
      () => ({ name: 'execute_script', input: { target: 'page', tab_id: tab, code: "return 'x'.repeat(10 * 1024 * 1024)" } }),
      () => ({ name: 'execute_script', input: { target: 'elsewhere', code: 'return 1' } }),
      () => ({ name: 'execute_script', input: { target: 'page', tab_id: 99999, code: 'return 1' } }),
      () => ({ name: 'get_tab_content', input: { tab_id: tab, selector: 'main[' } }),
      () => ({ name: 'get_tab_content', input: { tab_id: tab, selector: '#does-not-exist' } }),
    ]);
    expect(results[0]).toMatchObject({ isError: true, content: expect.stringMatching(/^SyntaxError/) });
    expect(results[1]).toMatchObject({ isError: true, content: expect.stringMatching(/TypeError: broken on purpose/) });
    expect(results[2]).toMatchObject({ isError: true, content: expect.stringMatching(/did not finish within 3 s/) });
    expect(results[3]).toMatchObject({ isError: false, content: { truncated: true } });
    expect(results[4]).toMatchObject({ isError: true, content: expect.stringMatching(/"target": must be "page" or "sandbox"/) });
    expect(results[5]).toMatchObject({ isError: true, content: expect.stringMatching(/No tab with id 99999/) });
    expect(results[6]).toMatchObject({ isError: true, content: expect.stringMatching(/main\[/) });
    expect(results[7]).toMatchObject({ isError: true, content: expect.stringMatching(/#does-not-exist/) });
  });

  it('runs sandbox code with its console output, and stops an endless loop at the time limit', async () => {
    const results = await agentRuns([
      () => ({ name: 'execute_script', input: { target: 'sandbox', code: "console.log('squares'); return [1, 2, 3].map((n) => n * n);" } }),
      () => ({ name: 'execute_script', input: { target: 'sandbox', code: 'while (true) {}' } }),
      () => ({ name: 'execute_script', input: { target: 'sandbox', code: 'return typeof document + "/" + typeof fetch;' } }),
      () => ({ name: 'execute_script', input: { target: 'sandbox', code: 'return (1 +' } }),
    ]);
    expect(results[0]).toMatchObject({ isError: false, content: { target: 'sandbox', result: [1, 4, 9], logs: ['squares'], truncated: false } });
    expect(results[1]).toMatchObject({ isError: true, content: expect.stringMatching(/did not finish within 3 s and was stopped/) });
    expect(results[2]).toMatchObject({ isError: false, content: { result: 'undefined/undefined' } });
    expect(results[3]).toMatchObject({ isError: true, content: expect.stringMatching(/^SyntaxError/) });
  });

  it('refuses restricted pages with a clear error', async () => {
    const { id: tab } = await session.openRestrictedTab();
    const [read, run] = await agentRuns([
      () => ({ name: 'get_tab_content', input: { tab_id: tab } }),
      () => ({ name: 'execute_script', input: { target: 'page', tab_id: tab, code: 'return 1' } }),
    ]);
    expect(read).toMatchObject({ isError: true, content: expect.stringMatching(/cannot be read or scripted: it is a browser-internal/) });
    expect(run).toMatchObject({ isError: true, content: expect.stringMatching(/cannot be read or scripted/) });
  });

  it('reads a 5 MB page within the bound and caps it with max_length', async () => {
    const tab = await openTab('/big.html');
    const t0 = Date.now();
    const [read] = await agentRuns([() => ({ name: 'get_tab_content', input: { tab_id: tab, max_length: 20_000 } })]);
    expect(read!.isError, String(read!.content).slice(0, 500)).toBe(false);
    // From the model's tool call (sent right after the first request) to the tool result reaching it.
    const toolMs = fake.requests[1]!.at - fake.requests[0]!.at;
    console.log(`[metric] ${name}: get_tab_content on the 5 MB page ${toolMs} ms from tool call to result (target ≤ 2000); whole round trip incl. two model turns ${Date.now() - t0} ms`);
    expect(read!.content.truncated).toBe(true);
    expect(read!.content.content.length).toBeLessThanOrEqual(20_000);
    expect(read!.content.content).toContain('Section 0');
  });

  it('summarises with a prompt instead of returning the page', async () => {
    const tab = await openTab('/form.html');
    fake.script(
      toolCall('get_tab_content', { tab_id: tab, prompt: 'Which plan is selected?' }),
      text('The Pro plan is selected.'),
      text('The page says Pro.'),
    );
    await session.popup.send('Which plan?');
    await session.popup.waitForAssistantText('The page says Pro.', 30_000);
    const summaryRequest = fake.requests[1]!.body;
    expect(summaryRequest.messages[0].content).toContain('<request>Which plan is selected?</request>');
    expect(summaryRequest.messages[0].content).toContain('Grace Hopper');
    // The summary is built from the page's text: it reaches the model fenced like the page would.
    expect(rawToolResult(fake.requests[2]!.body).content).toMatchObject({ content: expect.stringMatching(/^<untrusted-content id="[0-9a-f]{24}" source="[^"]+form\.html">\nThe Pro plan is selected\.\n<\/untrusted-content id="[0-9a-f]{24}">$/), truncated: false });
  });
});
