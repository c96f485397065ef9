/**
 * The built extension against the MCP project's own reference server (server-everything, run by
 * the harness on 127.0.0.1), issue 19: Refresh on the Skills page lists its tools; in one
 * conversation a text tool, an image tool whose image reaches the model as an image block, a
 * resource tool whose URIs and names reach the model, and the task-only tool run as a task (its
 * status shown in the tool card as it runs). Then
 * a server that breaks the protocol: a clear tool error, and the run goes on.
 */
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserName } from '../harness/browsers';
import { startBrokenMcpServer, type BrokenMcpServer } from '../harness/broken-mcp-server';
import { startEverythingServer, type EverythingServer } from '../harness/everything-server';
import { unfence } from '../harness/fake-anthropic';
import { setSkills } from '../harness/popup';
import { agentSession } from '../harness/session';

const browsers: BrowserName[] = ['chromium', 'firefox'];

/** The tool_result of the request's last message: its words (unfenced) and its image blocks. */
function toolResultOf(body: any): { words: string; images: { type: string; media_type: string; data: string }[]; isError: boolean } {
  const block = body.messages.at(-1).content.filter((b: any) => b.type === 'tool_result').at(-1);
  if (typeof block.content === 'string') return { words: unfence(block.content), images: [], isError: !!block.is_error };
  const words = block.content.filter((c: any) => c.type === 'text').map((c: any) => unfence(c.text)).join('\n');
  return { words, images: block.content.filter((c: any) => c.type === 'image').map((c: any) => c.source), isError: !!block.is_error };
}

describe.each(browsers)('server-everything in %s', (name) => {
  const session = agentSession(name);
  const { fake } = session;
  let everything: EverythingServer;
  let broken: BrokenMcpServer;

  beforeAll(async () => {
    [everything, broken] = await Promise.all([startEverythingServer(), startBrokenMcpServer()]);
  }, 30_000);
  afterAll(async () => {
    await Promise.all([everything?.close(), broken?.close()]);
  });

  it('Refresh lists its tools; text, image, resource and task-only tools reach the model as they should', async () => {
    const { popup, ext } = session;
    await setSkills(popup.page, [{ name: 'ev', description: 'The reference server.', skill_type: 'mcp', config: { url: everything.url, transport: 'streamable_http' } }]);

    const options = await ext.open('options.html#skills', { width: 1000, height: 900 });
    try {
      await options.waitForSelector('tr[data-skill="ev"]');
      await options.click('tr[data-skill="ev"] button[aria-label="Refresh tools of ev"]');
      await options.waitForSelector('[data-testid="skill-tools"][data-state="ok"]', { timeout: 15_000 });
      const listed = await options.$eval('[data-testid="skill-tools"]', (el) => el.textContent ?? '');
      for (const tool of ['echo', 'get-tiny-image', 'get-resource-reference', 'simulate-research-query']) expect(listed).toContain(tool);
    } finally {
      await options.close();
    }

    const start = fake.requests.length;
    const runs = session.agentRuns([
      () => ({ name: 'ev__echo', input: { message: 'hello from the test' } }),
      () => ({ name: 'ev__get-tiny-image', input: {} }),
      () => ({ name: 'ev__get-resource-links', input: { count: 2 } }),
      () => ({ name: 'ev__simulate-research-query', input: { topic: 'otters' } }),
    ]);
    // While the task runs, its card shows the task's latest status message.
    const progress = '[data-tool="ev__simulate-research-query"][data-status="running"] [data-progress]';
    await popup.waitFor(progress, 20_000);
    expect(await popup.text(progress)).toMatch(/^(Gathering sources|Analyzing content|Synthesizing findings|Generating report)\.\.\.$/);
    await runs;
    const [, echo, image, links, research] = fake.requests.slice(start).map((r) => r.body);
    const tools = fake.requests[start]!.body.tools as { name: string; description: string }[];
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['ev__echo', 'ev__get-tiny-image', 'ev__simulate-research-query']));
    // The server's instructions: once, fenced as third-party text, with its first tool.
    const instructed = tools.filter((t) => t.description.includes('source="mcp-instructions:ev"'));
    expect(instructed).toHaveLength(1);
    expect(instructed[0]!.description).toContain('# Everything Server');

    expect(toolResultOf(echo)).toMatchObject({ isError: false, words: 'Echo: hello from the test' });

    const img = toolResultOf(image);
    expect(img.isError).toBe(false);
    expect(img.words).toMatch(/\[Image \(image\/png, [\d.]+ KB, 20×20 px\) is attached after this text as image 1\.\]/);
    expect(img.images).toHaveLength(1);
    expect(img.images[0]).toMatchObject({ type: 'base64', media_type: 'image/png' });
    const png = PNG.sync.read(Buffer.from(img.images[0]!.data, 'base64'));
    expect([png.width, png.height]).toEqual([20, 20]);

    const res = toolResultOf(links);
    expect(res.isError).toBe(false);
    expect(res.words).toMatch(/\[Resource link: demo:\/\/resource\/dynamic\/blob\/1, name "Blob Resource 1", MIME type [\w/-]+;/);
    expect(res.words).toMatch(/\[Resource link: demo:\/\/resource\/dynamic\/text\/2, name "Text Resource 2", MIME type text\/plain/);

    expect(toolResultOf(research)).toMatchObject({ isError: false, words: expect.stringMatching(/^# Research Report: otters/) });
  });

  it('a server that breaks the protocol: a clear tool error, and the run goes on', async () => {
    const { popup } = session;
    await setSkills(popup.page, [{ name: 'bad', skill_type: 'mcp', config: { url: broken.url, transport: 'streamable_http' } }]);
    const results = await session.agentRuns([
      () => ({ name: 'bad__cut_json', input: {} }),
      () => ({ name: 'bad__wrong_shape', input: {} }),
      () => ({ name: 'bad__fine', input: {} }),
    ]);
    expect(results[0]).toMatchObject({ isError: true, content: expect.stringMatching(/^The MCP server "bad" .* sent a reply that is not valid JSON/) });
    expect(results[1]).toMatchObject({ isError: true, content: expect.stringMatching(/sent a reply that does not follow the MCP protocol \(content: .*\); it was not used/) });
    expect(results[2]).toEqual({ isError: false, content: 'still here' });
  });
});
