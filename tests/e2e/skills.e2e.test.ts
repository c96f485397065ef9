import type { Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startA2aServer, type A2aServer } from '../harness/a2a-server';
import type { BrowserName } from '../harness/browsers';
import { lastToolResult, routed, text, toolCall } from '../harness/fake-anthropic';
import { startGraphApiServer, type GraphApiServer } from '../harness/graph-api-server';
import { startCallServer, startHttpSkillServer, startMcpServer, type McpTestServer, type TestServer } from '../harness/mcp-servers';
import { setAgentProfiles, setSettings, setSkills } from '../harness/popup';
import { agentSession } from '../harness/session';

const browsers: BrowserName[] = ['chromium', 'firefox'];

/** Sets a form field the way typing does (Svelte listens to input events). */
async function setField(page: Page, selector: string, value: string) {
  await page.$eval(
    selector,
    (el, v) => {
      const field = el as HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement;
      field.value = v;
      field.dispatchEvent(new Event(field instanceof HTMLSelectElement ? 'change' : 'input', { bubbles: true }));
    },
    value,
  );
}

const toolNames = (body: any): string[] => body.tools.map((t: { name: string }) => t.name);

describe.each(browsers)('skills in %s', (name) => {
  const session = agentSession(name);
  const { fake } = session;
  let httpServer: TestServer;
  let callServer: TestServer;
  let mcpServer: McpTestServer;
  let a2a: A2aServer;
  let graph: GraphApiServer;

  beforeAll(async () => {
    [httpServer, callServer, mcpServer, a2a, graph] = await Promise.all([
      startHttpSkillServer(),
      startCallServer({ apiKey: 'k-123' }),
      startMcpServer({ token: 'mcp-token' }),
      startA2aServer(),
      startGraphApiServer({ token: 'graph-token' }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([httpServer, callServer, mcpServer, a2a, graph].map((s) => s?.close()));
  });

  it('a skill made on the management page, checked as it is typed, is a tool until it is switched off', async () => {
    const { popup, ext } = session;
    await setSkills(popup.page, []);
    const options = await ext.open('options.html#skills', { width: 1000, height: 900 });
    try {
      await options.waitForSelector('[data-testid="skill-list"]');
      await options.click('[data-testid="skill-new"]');
      await options.waitForSelector('[data-testid="skill-form"]');
      await setField(options, '#skill-type', 'http');
      await setField(options, '#skill-name', 'web_fetch');
      await options.waitForFunction(() => document.querySelector('#skill-name-error')?.textContent?.includes('built-in tool'), { polling: 100 });
      await setField(options, '#skill-name', 'lookup');
      await setField(options, '#skill-description', 'Looks a word up in the team glossary.');
      await setField(options, '#skill-config', '{"url": ');
      await options.waitForFunction(() => document.querySelector('#skill-config-error')?.textContent?.includes('not valid JSON'), { polling: 100 });
      expect(await options.$eval('[data-testid="skill-save"]', (b) => (b as HTMLButtonElement).disabled)).toBe(true);
      await setField(options, '#skill-config', JSON.stringify({ url: `${httpServer.origin}/echo`, method: 'GET', headerz: {} }));
      await options.waitForFunction(() => document.querySelector('#skill-config-error')?.textContent?.includes('unknown field "headerz"'), { polling: 100 });
      const config = {
        url: `${httpServer.origin}/echo`,
        method: 'GET',
        headers: { 'X-Team': 'docs' },
        input_schema: { type: 'object', properties: { word: { type: 'string', minLength: 2 } }, required: ['word'] },
      };
      await setField(options, '#skill-config', JSON.stringify(config));
      await options.waitForFunction(() => !(document.querySelector('[data-testid="skill-save"]') as HTMLButtonElement).disabled, { polling: 100 });
      await options.click('[data-testid="skill-save"]');
      await options.waitForSelector('tr[data-skill="lookup"][data-active="true"]');

      // The model sees it with its schema; a bad argument is refused before any request is made.
      const before = httpServer.requests.length;
      const results = await session.agentRuns([() => ({ name: 'lookup', input: { word: 'x' } }), () => ({ name: 'lookup', input: { word: 'idempotent' } })]);
      const first = fake.requests.at(-3)!.body;
      expect(first.tools.find((t: { name: string }) => t.name === 'lookup')).toMatchObject({ description: 'Looks a word up in the team glossary.', input_schema: config.input_schema });
      expect(results[0]).toMatchObject({ isError: true, content: expect.stringContaining('"word": must be at least 2 characters') });
      expect(results[1]).toMatchObject({ isError: false, content: { status: 200, body: expect.stringContaining('"word": "idempotent"') } });
      expect(httpServer.requests.slice(before)).toHaveLength(1);
      expect(httpServer.requests.at(-1)).toMatchObject({ method: 'GET', path: '/echo?word=idempotent', headers: { 'x-team': 'docs' } });
      // Shown in the chat like a built-in tool call.
      expect((await popup.toolResult('lookup', 1)).status).toBe('done');

      await options.click('tr[data-skill="lookup"] [role="switch"]');
      await options.waitForSelector('tr[data-skill="lookup"][data-active="false"]');
      await session.agentRuns([]);
      expect(toolNames(fake.requests.at(-1)!.body)).not.toContain('lookup');
    } finally {
      await options.close();
    }
  });

  it("the contract's MCP /call protocol and an http POST skill, with their failures told to the model", async () => {
    const { popup } = session;
    await setSkills(popup.page, [
      { name: 'add', skill_type: 'mcp', config: { url: `${callServer.origin}/tools`, auth_type: 'api_key', auth_value: 'k-123' } },
      { name: 'rpc_error', skill_type: 'mcp', config: { url: `${callServer.origin}/tools/call`, auth_type: 'api_key', auth_value: 'k-123' } },
      { name: 'http_500', skill_type: 'mcp', config: { url: `${callServer.origin}/tools`, auth_type: 'api_key', auth_value: 'k-123' } },
      { name: 'not_json', skill_type: 'mcp', config: { url: `${callServer.origin}/tools`, auth_type: 'api_key', auth_value: 'k-123' } },
      { name: 'gone', skill_type: 'mcp', config: { url: 'http://127.0.0.1:9/tools' } },
      { name: 'post_it', skill_type: 'http', config: { url: `${httpServer.origin}/echo` } },
      { name: 'unavailable', skill_type: 'http', config: { url: `${httpServer.origin}/status/503` } },
      { name: 'sleeping', skill_type: 'http', config: { url: `${httpServer.origin}/echo` }, is_active: false },
    ]);
    const start = callServer.requests.length;
    const results = await session.agentRuns([
      () => ({ name: 'add', input: { a: 2, b: 3 } }),
      () => ({ name: 'rpc_error', input: { a: 1 } }),
      () => ({ name: 'http_500', input: {} }),
      () => ({ name: 'not_json', input: {} }),
      () => ({ name: 'gone', input: {} }),
      () => ({ name: 'post_it', input: { note: 'ünïcode', n: 3 } }),
      () => ({ name: 'unavailable', input: {} }),
    ]);
    const tools = toolNames(fake.requests.at(-8)!.body);
    expect(tools).toEqual(expect.arrayContaining(['add', 'rpc_error', 'post_it', 'web_fetch']));
    expect(tools).not.toContain('sleeping');

    expect(results[0]).toEqual({ isError: false, content: 5 });
    const sent = callServer.requests[start]!;
    expect(sent).toMatchObject({ method: 'POST', path: '/tools/call', headers: { 'x-api-key': 'k-123', 'content-type': expect.stringContaining('application/json') } });
    expect(sent.json).toEqual({ jsonrpc: '2.0', id: expect.any(Number), method: 'tools/call', params: { name: 'add', arguments: { a: 2, b: 3 } } });
    expect(callServer.requests[start + 1]!.path).toBe('/tools/call'); // not /call/call
    expect(results[1]).toMatchObject({ isError: true, content: expect.stringMatching(/-32602.*Invalid params: b is missing/) });
    expect(results[2]).toMatchObject({ isError: true, content: expect.stringContaining('500') });
    expect(results[3]).toMatchObject({ isError: true, content: expect.stringMatching(/not JSON|Maintenance/) });
    expect(results[4]).toMatchObject({ isError: true, content: expect.stringMatching(/Could not reach|unreachable|refused|failed/i) });
    expect(results[5]).toMatchObject({ isError: false, content: { status: 200 } });
    expect(JSON.parse(JSON.parse(results[5].content.body).body)).toEqual({ note: 'ünïcode', n: 3 });
    expect(results[6]).toMatchObject({ isError: true, content: expect.stringMatching(/503[\s\S]*status 503 body/) });
  });

  it('a standard MCP server over Streamable HTTP: its tools join with the skill prefix, one session serves every run', async () => {
    const { popup, ext } = session;
    await setSkills(popup.page, [
      {
        name: 'calc',
        description: 'A calculator server.',
        skill_type: 'mcp',
        config: { url: mcpServer.url, transport: 'streamable_http', auth_type: 'bearer', auth_value: 'mcp-token' },
      },
    ]);
    const initializes = mcpServer.initializeCount();
    const results = await session.agentRuns([() => ({ name: 'calc__add', input: { a: 40, b: 2 } }), () => ({ name: 'calc__fail', input: {} })]);
    const tools = fake.requests.at(-3)!.body.tools as { name: string; description: string; input_schema: unknown }[];
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['calc__add', 'calc__echo', 'calc__get_weather']));
    expect(tools.find((t) => t.name === 'calc__add')).toMatchObject({ input_schema: { type: 'object', required: ['a', 'b'] } });
    expect(results[0]).toEqual({ isError: false, content: 42 });
    expect(results[1]).toMatchObject({ isError: true, content: expect.stringContaining('The fail tool failed on purpose.') });
    const again = await session.agentRuns([() => ({ name: 'calc__echo', input: { text: 'still here' } })]);
    expect(again[0]).toEqual({ isError: false, content: 'still here' });
    expect(mcpServer.initializeCount() - initializes).toBe(1);

    // The management page refreshes the list over the background's session.
    const options = await ext.open('options.html#skills', { width: 1000, height: 900 });
    try {
      await options.waitForSelector('tr[data-skill="calc"]');
      await options.click('tr[data-skill="calc"] button[aria-label="Refresh tools of calc"]');
      await options.waitForSelector('[data-testid="skill-tools"][data-state="ok"]', { timeout: 15_000 });
      expect(await options.$eval('[data-testid="skill-tools"]', (el) => el.textContent)).toContain('add');
    } finally {
      await options.close();
    }
  });

  it('text_to_chart draws a real chart shown in the chat; journal_write keeps a journal; code_execution stops a runaway loop', async () => {
    const { popup } = session;
    await setSkills(popup.page, [
      { name: 'chart', skill_type: 'builtin', config: { function_name: 'text_to_chart' } },
      { name: 'journal_write', skill_type: 'builtin', config: {} },
      { name: 'run_js', skill_type: 'builtin', config: { function_name: 'code_execution' } },
    ]);
    const results = await session.agentRuns([
      () => ({ name: 'chart', input: { type: 'bar', title: 'Sales by quarter', text: 'Q1: 10\nQ2: 15\nQ3: 7\nQ4: 22' } }),
      () => ({ name: 'journal_write', input: { entry: 'Drew the **sales** chart.', title: 'Charts' } }),
      () => ({ name: 'run_js', input: { code: 'while (true) {}', timeout_ms: 1000 } }),
      () => ({ name: 'run_js', input: { code: 'console.log("hi"); return [1, 2, 3].map((x) => x * 2);' } }),
    ]);
    expect(results[0]).toMatchObject({ isError: false, content: { type: 'bar', points: 4, workspace_image: expect.stringMatching(/^\/charts\/Sales-by-quarter(-\d+)?\.svg$/) } });
    const image = await popup.page.waitForSelector('[data-workspace-image] img', { timeout: 10_000 });
    await popup.page.waitForFunction(
      (img) => (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth > 0 && (img as HTMLImageElement).src.startsWith('blob:'),
      { polling: 100, timeout: 10_000 },
      image,
    );
    expect(results[1]).toMatchObject({ isError: false, content: { entries: 1 } });
    const link = await popup.page.waitForSelector(`[data-workspace-file="${results[1].content.path}"] a`, { timeout: 10_000 });
    expect(await link!.evaluate((a) => a.getAttribute('href'))).toContain(`#workspace?path=${encodeURIComponent(results[1].content.path)}`);
    expect(results[2]).toEqual({ isError: true, content: 'The code did not finish within 1 s and was stopped.' });
    expect(results[3]).toMatchObject({ isError: false });
    expect(JSON.stringify(results[3].content)).toContain('hi');
    expect(JSON.stringify(results[3].content)).toMatch(/\[\s*2,\s*4,\s*6\s*\]/);

    // The journal and the chart are workspace files the model can read back.
    const read = await session.agentRuns([() => ({ name: 'opfs_read', input: { path: results[1].content.path } })]);
    expect(read[0].content.content).toMatch(/Drew the \*\*sales\*\* chart\./);
  });

  it('delegate_to_agent runs a saved agent with its own prompt and model, or asks a remote A2A agent', async () => {
    const { popup } = session;
    await setAgentProfiles(popup.page, [
      { name: 'Editor', slug: 'editor', system_prompt: 'You tighten prose.', model: 'fake-small-model', tools: ['list_tasks'] },
      { name: 'Remote', slug: 'remote', a2a_url: a2a.url },
    ]);
    await setSkills(popup.page, [{ name: 'delegate_to_agent', skill_type: 'builtin', config: {} }]);
    const route = routed(
      [
        toolCall('delegate_to_agent', { to_agent_slug: 'editor', task: 'EDIT: make this shorter', context: 'A very very long sentence.' }),
        toolCall('delegate_to_agent', { to_agent_slug: 'remote', task: 'Translate "hello"' }),
        toolCall('delegate_to_agent', { to_agent_slug: 'nobody', task: 'x' }),
        text('Delegation done.'),
      ],
      { EDIT: [text('A long sentence.')] },
    );
    fake.script(route, route, route, route, route);
    const start = fake.requests.length;
    const a2aStart = a2a.requests.length;
    await popup.send('Delegate');
    await popup.waitForAssistantText('Delegation done.', 30_000);
    const requests = fake.requests.slice(start);
    const sub = requests.find((r) => JSON.stringify(r.body.messages[0].content).includes('EDIT:'))!;
    expect(sub.body.model).toBe('fake-small-model');
    expect(JSON.stringify(sub.body.system)).toContain('You tighten prose.');
    expect(toolNames(sub.body)).toEqual(['list_tasks']);
    const parent = requests.filter((r) => r !== sub);
    expect(lastToolResult(parent[1]!.body)).toMatchObject({ isError: false, content: { agent: 'editor', answer: 'A long sentence.' } });
    // This test's request: the server records the whole file's.
    expect(a2a.requests.slice(a2aStart).at(-1)).toMatchObject({ body: { jsonrpc: '2.0', method: 'message/send' }, text: 'Translate "hello"' });
    expect(JSON.stringify(lastToolResult(parent[2]!.body).content)).toContain('Echo: Translate');
    expect(lastToolResult(parent[3]!.body)).toMatchObject({ isError: true, content: expect.stringContaining('Unknown agent "nobody". Known agents: editor, remote.') });
  });

  it('instagram_post and whatsapp_send call the Graph API with the credentials from Settings → Social media', async () => {
    const { popup } = session;
    await setSettings(popup.page, {
      instagramUserId: '17841400000',
      instagramAccessToken: 'graph-token',
      instagramApiBase: graph.url,
      whatsappPhoneNumberId: '1055500000',
      whatsappAccessToken: 'wrong-token',
      whatsappApiBase: graph.url,
    });
    await setSkills(popup.page, [
      { name: 'instagram_post', skill_type: 'builtin', config: {} },
      { name: 'whatsapp_send', skill_type: 'builtin', config: {} },
    ]);
    const start = graph.requests.length;
    const running = session.agentRuns([
      () => ({ name: 'instagram_post', input: { image_url: 'https://example.com/cat.jpg', caption: 'A cat' } }),
      () => ({ name: 'whatsapp_send', input: { to: '+49 151 1234-5678', text: 'Hello' } }),
    ]);
    // Irreversible: each asks, whatever the permissions say, and only "Allow once" is offered.
    for (const tool of ['instagram_post', 'whatsapp_send']) {
      const asked = await popup.approval();
      expect(asked).toMatchObject({ tool, reason: 'irreversible', choices: ['deny', 'once'] });
      await popup.answerApproval(asked.id, 'once');
    }
    const results = await running;
    const calls = graph.requests.slice(start);
    expect(calls.map((r) => `${r.method} ${r.id}/${r.edge}`)).toEqual(['POST 17841400000/media', 'POST 17841400000/media_publish', 'POST 1055500000/messages']);
    expect(calls[0]!.params).toMatchObject({ image_url: 'https://example.com/cat.jpg', caption: 'A cat' });
    expect(results[0]).toMatchObject({ isError: false });
    expect(results[1]).toMatchObject({ isError: true, content: expect.stringMatching(/190/) });
  });

  it('an active skill that cannot be used is left out with a notice; the run goes on', async () => {
    const { popup } = session;
    await setSkills(popup.page, [
      { name: 'broken', skill_type: 'http', config: '{"url": "ftp://nope"}' },
      { name: 'down', skill_type: 'mcp', config: { url: 'http://127.0.0.1:9/mcp', transport: 'streamable_http' } },
      { name: 'fine', skill_type: 'http', config: { url: `${httpServer.origin}/text` } },
    ]);
    const results = await session.agentRuns([() => ({ name: 'fine', input: {} })]);
    expect(results[0]).toMatchObject({ isError: false, content: { body: 'plain reply' } });
    const tools = toolNames(fake.requests.at(-2)!.body);
    expect(tools).toContain('fine');
    expect(tools.some((t) => t === 'broken' || t.startsWith('down'))).toBe(false);
    await popup.waitFor('[data-notice="skills-unavailable"]');
    const notice = await popup.text('[data-notice="skills-unavailable"]');
    expect(notice).toContain('broken');
    expect(notice).toContain('down');
  });

  it('a function skill the model proposes stays inactive until the user approves its code', async () => {
    const { popup, ext } = session;
    await setSkills(popup.page, []);
    const code = 'function run(args) { return `Hello, ${args.who}!`; }';
    const proposed = await session.agentRuns([() => ({ name: 'propose_skill', input: { name: 'greet', description: 'Greets someone.', language: 'javascript', code } })]);
    expect(proposed[0]).toMatchObject({ isError: false, content: { status: 'waiting_for_review', name: 'greet' } });
    await popup.waitFor('[data-notice="skill-review"]');

    // Not a tool yet: the next run's list lacks it, and a call to it is refused.
    const before = await session.agentRuns([() => ({ name: 'greet', input: { who: 'Ada' } })]);
    expect(toolNames(fake.requests.at(-2)!.body)).not.toContain('greet');
    expect(before[0]).toMatchObject({ isError: true, content: expect.stringContaining('Unknown tool "greet"') });

    const options = await ext.open('options.html#skills', { width: 1000, height: 900 });
    try {
      await options.waitForSelector('[data-review="greet"]');
      expect(await options.$eval('[data-review="greet"] [data-testid="review-code"]', (el) => el.textContent)).toBe(code);
      expect(await options.$eval('tr[data-skill="greet"] [role="switch"]', (el) => (el as HTMLInputElement).disabled)).toBe(true);
      await options.click('[data-review="greet"] [data-testid="review-approve"]');
      await options.waitForSelector('tr[data-skill="greet"][data-active="true"]');
    } finally {
      await options.close();
    }
    const after = await session.agentRuns([() => ({ name: 'greet', input: { who: 'Ada' } })]);
    expect(after[0]).toEqual({ isError: false, content: 'Hello, Ada!' });
  });
});
