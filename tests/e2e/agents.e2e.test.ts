import { describe, expect, it } from 'vitest';
import type { BrowserName } from '../harness/browsers';
import { lastToolResult, routed, text, toolCall } from '../harness/fake-anthropic';
import { agentSession } from '../harness/session';

const browsers: BrowserName[] = ['chromium', 'firefox'];

describe.each(browsers)('sub-agents in %s', (name) => {
  // The sub-agents read the fixture server on 127.0.0.1.
  const session = agentSession(name, { allowPrivateNetwork: true });
  const { fake, fixtures } = session;

  it('a researcher that tries execute_script is refused; its work shows nested under the agent call', async () => {
    const { popup } = session;
    const route = routed(
      [toolCall('agent', { prompt: 'RESEARCH: how do lighthouses work?', description: 'Lighthouse research', type: 'researcher' }), text('The researcher says: Fresnel lenses.')],
      {
        RESEARCH: [
          toolCall('execute_script', { target: 'sandbox', code: 'return 1' }),
          toolCall('web_fetch', { url: `${fixtures.url}/web/article.html` }),
          text('Lighthouses focus light with Fresnel lenses (1822).'),
        ],
      },
    );
    fake.script(route, route, route, route, route);
    await popup.send('Research lighthouses');
    await popup.waitForAssistantText('The researcher says: Fresnel lenses.', 30_000);

    const sub = fake.requests.filter((r) => JSON.stringify(r.body.messages[0].content).includes('RESEARCH'));
    expect(sub[0]!.body.tools.map((t: { name: string }) => t.name).sort()).toEqual(['get_tab_content', 'list_tabs', 'screenshot', 'web_fetch', 'web_search']);
    expect(lastToolResult(sub[1]!.body)).toMatchObject({ isError: true, content: expect.stringMatching(/execute_script is not available to a researcher sub-agent/) });
    expect(lastToolResult(sub[2]!.body)).toMatchObject({ isError: false, content: { final_url: `${fixtures.url}/web/article.html` } });
    expect(lastToolResult(fake.requests.at(-1)!.body).content).toEqual({
      answer: 'Lighthouses focus light with Fresnel lenses (1822).',
      tools_used: [{ name: 'web_fetch', calls: 1 }],
    });

    // Nested in the popup: the label, each tool the sub-agent called with its outcome, its answer.
    await popup.waitFor('[data-sub-agent="done"]');
    expect(await popup.text('[data-tool="agent"]')).toContain('Lighthouse research · researcher');
    expect(await popup.count('[data-sub-tool="execute_script"][data-status="error"]')).toBe(1);
    expect(await popup.count('[data-sub-tool="web_fetch"][data-status="done"]')).toBe(1);
    expect(await popup.text('[data-sub-text]')).toContain('Fresnel lenses (1822)');
  });

  it('runs two sub-agents in parallel, both shown live; stopping the parent stops both', async () => {
    const { popup } = session;
    // Unique per attempt: a retried test must not queue behind the first attempt's hung requests.
    const attempt = Date.now();
    const slow = (label: string) => [toolCall('web_fetch', { url: `${fixtures.url}/web/slow?${label}-${attempt}` })];
    const route = routed(
      [
        {
          content: [
            { type: 'tool_use', name: 'agent', input: { prompt: 'ALPHA: fetch the slow page', description: 'Alpha' } },
            { type: 'tool_use', name: 'agent', input: { prompt: 'BETA: fetch the slow page too', description: 'Beta' } },
          ],
        },
      ],
      { ALPHA: slow('alpha'), BETA: slow('beta') },
    );
    fake.script(route, route, route);
    await popup.send('Do two slow things');
    await popup.page.waitForFunction(() => document.querySelectorAll('[data-sub-tool="web_fetch"][data-status="running"]').length === 2, { timeout: 30_000, polling: 100 });
    expect(await popup.count('[data-sub-agent="running"]')).toBe(2);

    const t0 = Date.now();
    await popup.page.click('button[aria-label="Stop"]');
    await popup.page.waitForFunction(() => document.querySelectorAll('[data-sub-agent="stopped"]').length === 2, { timeout: 10_000, polling: 100 });
    expect(Date.now() - t0).toBeLessThan(5_000);
    await popup.waitForGone('button[aria-label="Stop"]');
    expect(fake.requests).toHaveLength(3); // nobody asked the model again after the stop
  });
});
