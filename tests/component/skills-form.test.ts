/**
 * The management page's Skills section on a SkillStore over an in-memory storage area: live
 * validation of the form, save, the on/off switch, delete, import report, export, MCP tool refresh.
 */
import { afterEach, describe, expect, test, vi } from 'vitest';
import { page, userEvent } from 'vitest/browser';
import { render } from 'vitest-browser-svelte';
import Skills from '../../entrypoints/options/Skills.svelte';
import { SKILLS_KEY } from '../../lib/skills/store';
import type { SkillDraft, SkillRecord } from '../../lib/skills/types';
import { memorySkillStore as newStore } from './skills-fakes';

const weather: SkillDraft = {
  name: 'weather',
  description: 'Current weather for a city.',
  skill_type: 'http',
  config_json: JSON.stringify({ url: 'https://weather.example/api', method: 'GET', headers: { Authorization: 'Bearer s3cret', Accept: 'application/json' } }),
  is_active: true,
};
const docs: SkillDraft = {
  name: 'docs',
  description: 'Searches the docs server.',
  skill_type: 'mcp',
  config_json: JSON.stringify({ url: 'https://mcp.example', auth_type: 'bearer', auth_value: 'tok-123', transport: 'streamable_http' }),
  is_active: false,
};

async function seeded(...drafts: SkillDraft[]) {
  const s = newStore();
  const saved: SkillRecord[] = [];
  for (const d of drafts) {
    const r = await s.store.save(d);
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    saved.push(r.value);
  }
  return { ...s, saved };
}

const row = (name: string) => document.querySelector<HTMLElement>(`[data-skill="${name}"]`);
const field = (label: string) => page.getByLabelText(label, { exact: true });
const button = (name: string) => page.getByRole('button', { name, exact: true });
const configError = () => page.getByTestId('skill-config-error');

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the form', () => {
  test('validates as the user types, shows the messages under each field and saves once valid', async () => {
    const { store } = await seeded(weather);
    await render(Skills, { store });
    await vi.waitFor(() => expect(row('weather')).not.toBeNull());
    await button('New skill').click();

    // A new skill starts from the builtin template; untouched fields show nothing yet.
    await expect.element(field('Configuration (config_json)')).toHaveValue('{\n  "function_name": "web_search"\n}');
    await expect.element(field('Configuration (config_json)')).toHaveAttribute('spellcheck', 'false');
    await expect.element(button('Save skill')).toBeDisabled();
    await expect.element(page.getByTestId('skill-pending')).toHaveTextContent('Still to fill in or fix: Name, Description');

    await field('Name').fill('web_fetch');
    await expect.element(page.getByText('"web_fetch" is the name of a built-in tool; choose another.')).toBeVisible();
    await expect.element(field('Name')).toHaveAttribute('aria-invalid', 'true');
    await field('Name').fill('weather');
    await expect.element(page.getByText('Another skill is already called "weather".')).toBeVisible();
    await field('Name').fill('has space');
    await expect.element(page.getByText(/The name may hold only letters/)).toBeVisible();
    await field('Name').fill('news_search');
    await expect.element(field('Name')).toHaveAttribute('aria-invalid', 'false');
    await field('Description').fill('Searches the news.');

    await field('Configuration (config_json)').fill('{"function_name": ');
    await expect.element(configError()).toHaveTextContent(/^config_json is not valid JSON: /);
    await expect.element(button('Save skill')).toBeDisabled();
    await field('Configuration (config_json)').fill('{"function_name": "web_search", "engine": "bing"}');
    await expect.element(configError()).toHaveTextContent('config_json has an unknown field "engine"; accepted fields: function_name, to_agent_id.');
    await field('Configuration (config_json)').fill('{"function_name": "fly"}');
    await expect.element(configError()).toHaveTextContent(/^config_json\.function_name must be one of web_search, /);
    await field('Configuration (config_json)').fill('{"function_name": "web_search"}');
    await expect.element(configError()).toHaveTextContent('');

    await expect.element(button('Save skill')).toBeEnabled();
    await button('Save skill').click();
    await vi.waitFor(() => expect(row('news_search')).not.toBeNull());
    expect(page.getByTestId('skill-form').query()).toBeNull();
    const saved = (await store.list()).find((s) => s.name === 'news_search');
    expect(saved).toMatchObject({ description: 'Searches the news.', skill_type: 'builtin', config_json: '{"function_name": "web_search"}', is_active: true });
    expect(row('news_search')!.textContent).toContain('builtin');
  });

  test('a new skill gets the type template and help when the type changes; function and database are offered', async () => {
    const { store } = newStore();
    await render(Skills, { store });
    await button('New skill').click();
    const type = field('Type');
    const options = [...(type.element() as HTMLSelectElement).options].map((o) => [o.value, o.disabled]);
    expect(options).toEqual([['builtin', false], ['mcp', false], ['http', false], ['function', false], ['database', false]]);

    await userEvent.selectOptions(type, 'mcp');
    await expect.element(field('Configuration (config_json)')).toHaveValue('{\n  "url": "https://example.com/mcp",\n  "auth_type": "none"\n}');
    await expect.element(page.getByTestId('skill-type-help')).toHaveTextContent(/auth_type — none, api_key, bearer, oauth2/);
    await userEvent.selectOptions(type, 'http');
    await expect.element(field('Configuration (config_json)')).toHaveValue('{\n  "url": "https://example.com/api",\n  "method": "POST"\n}');
    await expect.element(page.getByTestId('skill-type-help')).toHaveTextContent(/method — POST, GET/);

    // A config the user wrote is kept, and checked against the new type.
    await field('Configuration (config_json)').fill('{"url": "https://api.example/x", "method": "GET"}');
    await userEvent.selectOptions(type, 'mcp');
    await expect.element(field('Configuration (config_json)')).toHaveValue('{"url": "https://api.example/x", "method": "GET"}');
    await expect.element(configError()).toHaveTextContent('config_json has an unknown field "method"; accepted fields: url, auth_type, auth_value, input_schema, transport, oauth_client_id, oauth_client_secret.');
  });

  test('editing shows the saved values and their problems at once, and saves in place', async () => {
    const { store, saved } = await seeded(weather, docs);
    await render(Skills, { store });
    await vi.waitFor(() => expect(row('weather')).not.toBeNull());
    await button('Edit weather').click();
    await expect.element(page.getByRole('heading', { name: 'Edit skill weather' })).toBeVisible();
    await expect.element(field('Name')).toHaveValue('weather');
    await field('Name').fill('docs');
    await expect.element(page.getByText('Another skill is already called "docs".')).toBeVisible();
    await field('Name').fill('weather_now');
    await field('Configuration (config_json)').fill('{"url": "ftp://weather.example"}');
    await expect.element(configError()).toHaveTextContent('config_json.url must be an http:// or https:// URL.');
    await field('Configuration (config_json)').fill('{"url": "https://weather.example/v2"}');
    await button('Save skill').click();
    await vi.waitFor(() => expect(row('weather_now')).not.toBeNull());
    const all = await store.list();
    expect(all).toHaveLength(2);
    expect(all[0]).toMatchObject({ id: saved[0]!.id, name: 'weather_now', config_json: '{"url": "https://weather.example/v2"}' });
  });
});

describe('the list', () => {
  test('the switch turns a skill on and off', async () => {
    const { store } = await seeded(weather);
    await render(Skills, { store });
    const toggle = page.getByRole('switch', { name: 'Enable weather' });
    await expect.element(toggle).toBeChecked();
    await toggle.click();
    await vi.waitFor(async () => expect((await store.list())[0]!.is_active).toBe(false));
    await expect.element(toggle).not.toBeChecked();
    expect(row('weather')!.dataset.active).toBe('false');
    await toggle.click();
    await vi.waitFor(async () => expect((await store.list())[0]!.is_active).toBe(true));
  });

  test('delete asks first', async () => {
    const { store } = await seeded(weather, docs);
    await render(Skills, { store });
    const confirm = vi.spyOn(window, 'confirm').mockReturnValueOnce(false).mockReturnValueOnce(true);
    await button('Delete weather').click();
    expect(confirm).toHaveBeenLastCalledWith('Delete the skill weather?');
    expect((await store.list()).map((s) => s.name)).toEqual(['weather', 'docs']);
    await button('Delete weather').click();
    await vi.waitFor(() => expect(row('weather')).toBeNull());
    expect((await store.list()).map((s) => s.name)).toEqual(['docs']);
  });

  test('a skill whose config no longer validates carries an error badge', async () => {
    const { store, area } = await seeded(weather, docs);
    const stored = area.data.get(SKILLS_KEY) as SkillRecord[];
    stored[0]!.config_json = '{"url": "https://weather.example", "retries": 3}';
    await render(Skills, { store });
    await vi.waitFor(() => expect(row('weather')).not.toBeNull());
    expect(row('weather')!.dataset.invalid).toBe('true');
    expect(row('weather')!.querySelector('[data-testid="skill-invalid"]')?.textContent).toBe('Invalid');
    expect(row('weather')!.textContent).toContain('unknown field "retries"');
    expect(row('docs')!.dataset.invalid).toBe('false');
    expect(row('docs')!.querySelector('[data-testid="skill-invalid"]')).toBeNull();
  });
});

describe('import and export', () => {
  test('import adds the valid skills and reports the skipped ones with their reasons', async () => {
    const { store } = await seeded(weather);
    await render(Skills, { store });
    const file = new File(
      [
        JSON.stringify({
          skills: [
            { name: 'calc', description: 'Adds numbers.', skill_type: 'http', config_json: { url: 'https://calc.example' } },
            { name: 'weather', description: 'Again.', skill_type: 'http', config_json: '{"url": "https://w.example"}' },
            { name: 'broken', description: 'Bad JSON.', skill_type: 'http', config_json: '{' },
          ],
        }),
      ],
      'skills.json',
      { type: 'application/json' },
    );
    await userEvent.upload(page.getByTestId('skill-import'), file);
    const report = page.getByTestId('skill-import-report');
    await expect.element(report).toHaveTextContent('Added: 1: calc');
    await expect.element(report).toHaveTextContent('Skipped: 2');
    const skipped = [...report.element().querySelectorAll('[data-skipped]')].map((li) => li.textContent);
    expect(skipped[0]).toBe('#2 "weather": Another skill is already called "weather".');
    expect(skipped[1]).toMatch(/^#3 "broken": config_json is not valid JSON/);
    await vi.waitFor(() => expect(row('calc')).not.toBeNull());

    await userEvent.upload(page.getByTestId('skill-import'), new File(['not json'], 'x.json'));
    await expect.element(report).toHaveTextContent(/Added: 0.*Skipped: 1.*The file is not valid JSON/);
  });

  async function exported(): Promise<{ skills: (SkillDraft & { config_json: string })[] }> {
    const blobs: Blob[] = [];
    vi.spyOn(URL, 'createObjectURL').mockImplementation((b) => {
      blobs.push(b as Blob);
      return 'blob:test';
    });
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      expect(this.download).toBe('skills.json');
    });
    await button('Export skills').click();
    await vi.waitFor(() => expect(click).toHaveBeenCalled());
    vi.restoreAllMocks();
    return JSON.parse(await blobs[0]!.text());
  }

  test('export blanks auth values and secret headers unless secrets are included', async () => {
    const { store } = await seeded(weather, docs);
    await render(Skills, { store });
    await expect.element(page.getByText(/Without "Include secrets", auth_value and secret-looking header values/)).toBeVisible();

    const plain = await exported();
    expect(plain.skills.map((s) => s.name)).toEqual(['weather', 'docs']);
    expect(JSON.parse(plain.skills[0]!.config_json).headers).toEqual({ Authorization: '', Accept: 'application/json' });
    expect(JSON.parse(plain.skills[1]!.config_json)).toMatchObject({ auth_type: 'bearer', auth_value: '' });

    await page.getByLabelText('Include secrets').click();
    const full = await exported();
    expect(JSON.parse(full.skills[0]!.config_json).headers.Authorization).toBe('Bearer s3cret');
    expect(JSON.parse(full.skills[1]!.config_json).auth_value).toBe('tok-123');
  });
});

describe('MCP tool refresh', () => {
  test('only streamable_http MCP skills offer it; it shows the tools or the error', async () => {
    const { store, saved } = await seeded(weather, docs);
    const refreshTools = vi
      .fn()
      .mockResolvedValueOnce({ ok: true, tools: [{ name: 'search', description: '' }, { name: 'fetch_page', description: '' }] })
      .mockResolvedValueOnce({ ok: true, tools: [{ name: 'search', description: '' }, { name: 'research', description: '', leftOut: 'task_only' }] })
      .mockResolvedValueOnce({ ok: false, error: 'connect ECONNREFUSED 127.0.0.1:9' });
    await render(Skills, { store, refreshTools });
    await vi.waitFor(() => expect(row('docs')).not.toBeNull());
    expect(button('Refresh tools of weather').query()).toBeNull();

    await button('Refresh tools of docs').click();
    expect(refreshTools).toHaveBeenCalledWith(saved[1]!.id);
    const out = page.getByTestId('skill-tools');
    await expect.element(out).toHaveTextContent('Tools: search, fetch_page');
    expect(page.getByTestId('skill-tool-left-out').query()).toBeNull();
    // A task-only tool on a server without tasks: not among the tools, named with why.
    await button('Refresh tools of docs').click();
    await expect.element(page.getByTestId('skill-tool-left-out')).toHaveTextContent('Left out of runs: research runs only as an MCP task, and this server does not support tasks.');
    expect(out.element().textContent).toMatch(/^\s*Tools: search\s*Left out/);
    await button('Refresh tools of docs').click();
    await expect.element(out).toHaveTextContent('Could not list the tools: connect ECONNREFUSED 127.0.0.1:9');
    await expect.element(out).toHaveAttribute('data-state', 'failed');
  });
});
