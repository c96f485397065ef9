/**
 * The management page's Permissions section on storage in memory and a real activity log in the
 * test page's IndexedDB: sites added, normalised and refused; levels saved; tools whose calls
 * cannot be undone never set to Allow; the mode's warning; the problems notice; the log's export;
 * and edits made on the latest stored record when something else saved in between.
 */
import { afterEach, describe, expect, test, vi } from 'vitest';
import { page, userEvent } from 'vitest/browser';
import { render } from 'vitest-browser-svelte';
import Permissions from '../../entrypoints/options/Permissions.svelte';
import { defaultPermissions, type ActivityEntry, type Permissions as PermissionsRecord } from '../../lib/contracts/permissions';
import { PERMISSIONS_STORAGE_KEY } from '../../lib/policy/permissions';
import { SETTINGS_STORAGE_KEY } from '../../lib/settings';
import type { SkillRecord } from '../../lib/skills/types';
import { BUILTIN_TOOL_NAMES } from '../../lib/tools/catalog';
import { parseSiteInput } from '../../entrypoints/options/permissions-edits';
import { MemoryPageStorage, testActivityLog } from './permissions-fakes';

type Log = Awaited<ReturnType<typeof testActivityLog>>;
let log: Log | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await log?.remove();
  log = undefined;
});

const skill = (name: string, skill_type: SkillRecord['skill_type'], config: object, is_active = true): SkillRecord => ({
  id: `id-${name}`,
  name,
  description: `The ${name} skill.`,
  skill_type,
  config_json: JSON.stringify(config),
  is_active,
  created_at: 1,
  updated_at: 1,
});

async function setup({ stored, skills = [], entries = [], listMcpTools = vi.fn() }: { stored?: unknown; skills?: SkillRecord[]; entries?: ActivityEntry[]; listMcpTools?: any } = {}) {
  const storage = new MemoryPageStorage();
  if (stored !== undefined) storage.data.set(PERMISSIONS_STORAGE_KEY, structuredClone(stored));
  log = await testActivityLog(entries);
  const screen = await render(Permissions, { storage, openLog: log.open, listSkills: async () => skills, listMcpTools });
  await expect.element(page.getByRole('heading', { name: 'Permissions', level: 2 })).toBeVisible();
  const saved = (): PermissionsRecord => storage.stored(PERMISSIONS_STORAGE_KEY);
  return { storage, screen, saved };
}

const siteRow = (site: string) => document.querySelector<HTMLTableRowElement>(`tr[data-site="${site}"]`);
const toolRow = (tool: string) => document.querySelector<HTMLTableRowElement>(`tr[data-tool="${tool}"]`);
const statusSaved = () => expect.poll(() => document.querySelector('[data-status]')?.getAttribute('data-status')).toBe('saved');

async function addSite(text: string) {
  await page.getByLabelText('Site', { exact: true }).fill(text);
  await page.getByRole('button', { name: 'Add site' }).click();
}

describe('sites', () => {
  test('what the user types is saved under its site key; bad input and duplicates are refused inline', async () => {
    const { saved, storage } = await setup();
    const input = page.getByLabelText('Site', { exact: true });

    await input.fill('Mail.Example.com');
    await expect.element(page.getByText('Saved as https://mail.example.com')).toBeVisible();
    await page.getByRole('button', { name: 'Add site' }).click();
    await vi.waitFor(() => expect(siteRow('https://mail.example.com')).not.toBeNull());
    await statusSaved();
    expect(saved().sites).toEqual([{ site: 'https://mail.example.com', subdomains: false, read: 'ask', act: 'ask', send: 'ask', createdAt: expect.any(Number) }]);
    await expect.element(input).toHaveValue('');

    // A URL with a port, a path and a query is its scheme and host; subdomains when ticked.
    await input.fill('http://Intranet.Example.org:8080/wiki?page=1');
    await page.getByLabelText('Include subdomains', { exact: true }).click();
    await page.getByRole('button', { name: 'Add site' }).click();
    await vi.waitFor(() => expect(siteRow('http://intranet.example.org')).not.toBeNull());
    expect(saved().sites[1]).toMatchObject({ site: 'http://intranet.example.org', subdomains: true });

    const writes = storage.writes;
    const error = page.getByTestId('perm-site-error');
    await addSite('ftp://files.example.com');
    await expect.element(error).toHaveTextContent('“ftp://files.example.com” is not a site Pagewright can name');
    await expect.element(input).toHaveAttribute('aria-invalid', 'true');
    await expect.element(input).toHaveAccessibleDescription(/is not a site Pagewright can name/);
    await addSite('not a host name');
    await expect.element(error).toHaveTextContent('“not a host name” is not a site');
    await addSite('   ');
    await expect.element(error).toHaveTextContent('Enter a site, such as mail.example.com.');
    await addSite('file:///home/me/notes.txt');
    await expect.element(error).toHaveTextContent('file: addresses are not sites here');
    await addSite('https://MAIL.example.com/inbox');
    await expect.element(error).toHaveTextContent('https://mail.example.com already has a rule: change it in the list below.');
    // Typing clears the message.
    await userEvent.type(input, 'x');
    await expect.element(error).toHaveTextContent('');
    expect(storage.writes).toBe(writes);
    expect(saved().sites).toHaveLength(2);
  });

  test("typed sites as this browser's URL parser reads them", () => {
    expect(parseSiteInput('Bücher.Example')).toEqual({ ok: true, site: 'https://xn--bcher-kva.example' });
    expect(parseSiteInput('http://[::1]:8080/x')).toEqual({ ok: true, site: 'http://[::1]' });
    expect(parseSiteInput('localhost')).toEqual({ ok: true, site: 'https://localhost' });
    expect(parseSiteInput('mail.example.com.')).toEqual({ ok: true, site: 'https://mail.example.com' });
    // Chromium makes "a b" the host "a%20b"; it is a typo, not a site.
    expect(parseSiteInput('a b.example')).toEqual({ ok: false, problem: 'invalid' });
    expect(parseSiteInput('https://')).toEqual({ ok: false, problem: 'invalid' });
    expect(parseSiteInput('javascript:alert(1)')).toEqual({ ok: false, problem: 'invalid' });
  });

  test('levels, subdomains, Block site and Revoke are saved at once', async () => {
    const { saved } = await setup({
      stored: { ...defaultPermissions(), sites: [{ site: 'https://mail.example.com', subdomains: false, read: 'ask', act: 'ask', send: 'ask', createdAt: 5, lastUsed: Date.now() - 3 * 3600_000 }] },
    });
    await vi.waitFor(() => expect(siteRow('https://mail.example.com')).not.toBeNull());
    expect(siteRow('https://mail.example.com')!.querySelector('time')?.textContent).toBe('3 hours ago');

    await page.getByLabelText('Reading mail.example.com').selectOptions('allow');
    await vi.waitFor(() => expect(saved().sites[0]!.read).toBe('allow'));
    await statusSaved();
    await expect.element(page.getByRole('status')).toHaveTextContent('Saved');
    await page.getByLabelText('Sending data to mail.example.com').selectOptions('block');
    await vi.waitFor(() => expect(saved().sites[0]).toMatchObject({ read: 'allow', act: 'ask', send: 'block' }));
    await page.getByLabelText('Include subdomains of mail.example.com').click();
    await vi.waitFor(() => expect(saved().sites[0]!.subdomains).toBe(true));

    await page.getByRole('button', { name: 'Block mail.example.com (reading, acting and sending)' }).click();
    await vi.waitFor(() => expect(saved().sites[0]).toMatchObject({ read: 'block', act: 'block', send: 'block', subdomains: true, createdAt: 5 }));
    await expect.element(page.getByLabelText('Acting on mail.example.com')).toHaveValue('block');
    await expect.element(page.getByRole('button', { name: 'Block mail.example.com (reading, acting and sending)' })).toBeDisabled();

    await page.getByRole('button', { name: 'Revoke the rule for mail.example.com' }).click();
    await vi.waitFor(() => expect(saved().sites).toEqual([]));
    await expect.element(page.getByText('No site rules yet.')).toBeVisible();
  });
});

describe('tools', () => {
  const skills = [
    skill('post_it', 'builtin', { function_name: 'instagram_post' }),
    skill('weather', 'http', { url: 'https://weather.example/api' }, false),
    skill('docs', 'mcp', { url: 'https://mcp.example', transport: 'streamable_http' }),
  ];

  test('every built-in tool and every skill\'s tool, with its risk; Default removes the rule', async () => {
    const { saved } = await setup({ skills });
    await vi.waitFor(() => expect(toolRow('post_it')).not.toBeNull());
    for (const name of BUILTIN_TOOL_NAMES) expect(toolRow(name), name).not.toBeNull();
    expect(toolRow('web_fetch')!.querySelector('.risk')?.textContent).toBe('Sends data off this computer');
    expect(toolRow('get_tab_content')!.querySelector('.risk')?.textContent).toBe('Reads your pages');
    expect(toolRow('weather')!.querySelector('.risk')?.textContent).toBe('Sends data off this computer');
    expect(document.querySelector('tbody[data-skill="weather"]')?.textContent).toContain('Skill weather (http) (off)');

    await expect.element(page.getByLabelText('Rule for web_fetch')).toHaveValue('');
    await page.getByLabelText('Rule for web_fetch').selectOptions('ask');
    await vi.waitFor(() => expect(saved().tools).toEqual({ web_fetch: 'ask' }));
    await page.getByLabelText('Rule for weather').selectOptions('allow');
    await vi.waitFor(() => expect(saved().tools).toEqual({ web_fetch: 'ask', weather: 'allow' }));
    await page.getByLabelText('Rule for web_fetch').selectOptions('');
    await vi.waitFor(() => expect(saved().tools).toEqual({ weather: 'allow' }));
  });

  test('a tool whose calls cannot be undone cannot be set to Allow, and the page says why', async () => {
    const { saved } = await setup({ skills });
    await vi.waitFor(() => expect(toolRow('post_it')).not.toBeNull());
    expect(toolRow('post_it')!.querySelector('.risk')?.textContent).toBe('Cannot be undone');
    const select = page.getByLabelText('Rule for post_it');
    const allow = select.element().querySelector<HTMLOptionElement>('option[value="allow"]')!;
    expect(allow.disabled).toBe(true);
    expect(allow.textContent).toBe('Allow (not offered)');
    await expect.element(select).toHaveAccessibleDescription(/cannot be undone, so Pagewright asks before every call, whatever the rule says: Allow is not offered/i);

    // Even a value forced past the disabled option is not saved.
    const el = select.element() as HTMLSelectElement;
    el.value = 'allow';
    el.dispatchEvent(new Event('change', { bubbles: true }));
    await select.selectOptions('block');
    await vi.waitFor(() => expect(saved().tools).toEqual({ post_it: 'block' }));

    // The agent tool starts sub-agents: their calls are decided one by one, so Allow is not offered either.
    const agent = page.getByLabelText('Rule for agent');
    expect(agent.element().querySelector<HTMLOptionElement>('option[value="allow"]')!.disabled).toBe(true);
    await expect.element(agent).toHaveAccessibleDescription(/starts a sub-agent/);
    expect(toolRow('web_fetch')!.querySelector<HTMLOptionElement>('option[value="allow"]')!.disabled).toBe(false);
  });

  test("an MCP server's tools get rows once listed, under the names the model calls them", async () => {
    const listMcpTools = vi.fn().mockResolvedValueOnce({ ok: false, error: 'The server did not answer.' }).mockResolvedValue({
      ok: true,
      tools: [{ name: 'search', description: '' }, { name: 'fetch.page', description: '' }],
    });
    const { saved } = await setup({ skills, listMcpTools, stored: { ...defaultPermissions(), tools: { docs__old: 'block', gone_skill: 'ask' } } });
    // A saved rule for one of the server's tools shows before any listing.
    await vi.waitFor(() => expect(toolRow('docs__old')).not.toBeNull());
    await page.getByRole('button', { name: 'List the tools of docs' }).click();
    await expect.element(page.getByText('Could not list the tools: The server did not answer.')).toBeVisible();
    await page.getByRole('button', { name: 'List the tools of docs' }).click();
    await vi.waitFor(() => expect(toolRow('docs__search')).not.toBeNull());
    expect(toolRow('docs__fetch_page')).not.toBeNull();
    expect(listMcpTools).toHaveBeenCalledWith('id-docs');
    await page.getByLabelText('Rule for docs__search').selectOptions('allow');
    await vi.waitFor(() => expect(saved().tools).toMatchObject({ docs__search: 'allow', docs__old: 'block' }));

    // A rule whose tool is gone is listed apart and can be removed.
    await expect.element(page.getByTestId('perm-tool-orphans')).toHaveTextContent('gone_skill: Ask');
    await page.getByRole('button', { name: 'Remove the rule for gone_skill' }).click();
    await vi.waitFor(() => expect(saved().tools).toEqual({ docs__old: 'block', docs__search: 'allow' }));
  });
});

test('Act without asking shows what it means and is saved only once confirmed', async () => {
  const { saved, storage } = await setup();
  const ask = page.getByRole('radio', { name: 'Ask before acting' });
  const act = page.getByRole('radio', { name: 'Act without asking' });
  await expect.element(ask).toBeChecked();
  await expect.element(page.getByRole('group', { name: 'Mode' })).toBeVisible();

  await act.click();
  const warning = page.getByTestId('perm-mode-warning');
  await expect.element(warning).toHaveTextContent(/reads and acts as you on every site you have not blocked.*still asks before irreversible actions.*destination you never named/);
  await expect.element(warning).toHaveAttribute('role', 'alert');
  expect(storage.writes).toBe(0);
  await page.getByRole('button', { name: 'Cancel' }).click();
  await expect.element(warning).not.toBeInTheDocument();
  await expect.element(ask).toBeChecked();
  await expect.element(ask).toHaveFocus();
  expect(storage.writes).toBe(0);

  await act.click();
  await page.getByRole('button', { name: 'Turn on Act without asking' }).click();
  await vi.waitFor(() => expect(saved().mode).toBe('act'));
  await expect.element(warning).not.toBeInTheDocument();
  await expect.element(act).toBeChecked();
  await expect.element(act).toHaveFocus();

  // Back to asking needs no confirmation.
  await ask.click();
  await vi.waitFor(() => expect(saved().mode).toBe('ask'));
  await expect.element(warning).not.toBeInTheDocument();
});

test('stored entries that do not check out are named, and the cleaned record can be saved', async () => {
  const stored = {
    version: 1,
    mode: 'sometimes',
    sites: [{ site: 'https://ok.example', read: 'allow', createdAt: 1 }, { site: 'ftp://files.example' }, 'junk'],
    tools: { web_fetch: 'block', 'bad name!': 'allow', opfs_delete: 'maybe' },
    localFiles: false,
  };
  const { saved } = await setup({ stored });
  const notice = page.getByTestId('perm-problems');
  await expect.element(notice).toHaveTextContent('Some stored permissions were not valid and were left out:');
  const problems = [...notice.element().querySelectorAll('[data-problem]')].map((li) => li.textContent);
  expect(problems).toHaveLength(5);
  expect(problems[0]).toBe('Unknown mode "sometimes": "Ask before acting" applies.');
  expect(problems.join('\n')).toContain('Site entry 2 ({"site":"ftp://files.example"}) is not a valid site rule and was dropped.');
  // What does apply shows as it is.
  await vi.waitFor(() => expect(siteRow('https://ok.example')).not.toBeNull());
  await expect.element(page.getByLabelText('Rule for web_fetch')).toHaveValue('block');

  await page.getByRole('button', { name: 'Save cleaned permissions' }).click();
  await vi.waitFor(() =>
    expect(saved()).toEqual({
      version: 1,
      mode: 'ask',
      sites: [{ site: 'https://ok.example', subdomains: false, read: 'allow', act: 'ask', send: 'ask', createdAt: 1 }],
      tools: { web_fetch: 'block' },
      localFiles: false,
    }),
  );
  await expect.element(notice).not.toBeInTheDocument();
});

test('local files and the local network setting', async () => {
  const { saved, storage } = await setup();
  storage.data.set(SETTINGS_STORAGE_KEY, { version: 4, apiKey: 'sk-keep', allowPrivateNetwork: false, model: 'm' });
  await expect.element(page.getByLabelText('Allow Pagewright to open and read file: URLs')).toHaveAccessibleDescription(/“Allow access to file URLs”/);
  await page.getByLabelText('Allow Pagewright to open and read file: URLs').click();
  await vi.waitFor(() => expect(saved().localFiles).toBe(true));

  await page.getByLabelText(/Let web_fetch reach this computer and the local network/).click();
  // Only that field changes: the rest of the settings are kept as stored.
  await vi.waitFor(() => expect(storage.stored(SETTINGS_STORAGE_KEY)).toEqual({ version: 4, apiKey: 'sk-keep', allowPrivateNetwork: true, model: 'm' }));

  // Switched in Settings (another page): the box follows.
  storage.write(SETTINGS_STORAGE_KEY, { version: 4, apiKey: 'sk-keep', allowPrivateNetwork: false, model: 'm' });
  await expect.element(page.getByLabelText(/Let web_fetch reach this computer/)).not.toBeChecked();
});

const entry = (at: number, tool: string, extra: Partial<ActivityEntry> = {}): ActivityEntry => ({
  at,
  conversationId: '7f3e9a12-4b5c-4d6e-8f90-123456789abc',
  tool,
  decision: { outcome: 'allowed', by: 'rule', rule: 'default' },
  ...extra,
});

test('the activity log: newest first with a count, exported as JSON of every entry, cleared after a confirmation', async () => {
  const entries = [
    entry(Date.UTC(2026, 0, 2, 9, 0, 0), 'web_fetch', { site: 'https://news.example', url: 'https://news.example/a', access: 'send', decision: { outcome: 'allowed', by: 'rule', rule: 'site_allow', site: 'https://news.example' } }),
    entry(Date.UTC(2026, 0, 2, 9, 5, 0), 'get_tab_content', { site: 'https://mail.example.com', access: 'read', decision: { outcome: 'blocked', by: 'rule', rule: 'site_block', site: 'https://mail.example.com' } }),
    entry(Date.UTC(2026, 0, 2, 9, 7, 0), 'execute_script', { site: 'https://shop.example', access: 'act', subAgent: 'page_operator', decision: { outcome: 'allowed', by: 'user', choice: 'always', reason: 'site', site: 'https://shop.example' } }),
  ];
  await setup({ entries });
  await expect.element(page.getByTestId('perm-log-count')).toHaveTextContent('3 entries, newest first');
  const rows = () => [...document.querySelectorAll<HTMLTableRowElement>('[data-entry]')];
  expect(rows().map((r) => r.dataset.tool)).toEqual(['execute_script', 'get_tab_content', 'web_fetch']);
  const cells = (r: HTMLTableRowElement) => [...r.cells].map((c) => c.textContent?.trim());
  expect(cells(rows()[0]!).slice(1)).toEqual(['7f3e9a12', 'execute_script', 'shop.example · Act', 'Allowed', 'Allowed by you, always on shop.example', 'page_operator']);
  expect(cells(rows()[1]!).slice(1)).toEqual(['7f3e9a12', 'get_tab_content', 'mail.example.com · Read', 'Blocked', 'Blocked: you blocked mail.example.com', '']);
  expect(rows()[2]!.cells[1]!.title).toBe(entries[0]!.conversationId);

  const blobs: Blob[] = [];
  vi.spyOn(URL, 'createObjectURL').mockImplementation((b) => {
    blobs.push(b as Blob);
    return 'blob:test';
  });
  let download = '';
  const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
    download = this.download;
  });
  await page.getByRole('button', { name: 'Export JSON' }).click();
  await vi.waitFor(() => expect(click).toHaveBeenCalled());
  expect(download).toMatch(/^pagewright-activity-\d{4}-\d{2}-\d{2}\.json$/);
  expect(blobs[0]!.type).toBe('application/json');
  expect(JSON.parse(await blobs[0]!.text())).toEqual(entries);

  const confirm = vi.spyOn(window, 'confirm').mockReturnValueOnce(false).mockReturnValueOnce(true);
  await page.getByRole('button', { name: 'Clear log' }).click();
  expect(confirm).toHaveBeenLastCalledWith('Delete all 3 entries of the activity log? This cannot be undone.');
  expect(await log!.log.count()).toBe(3);
  await page.getByRole('button', { name: 'Clear log' }).click();
  await expect.element(page.getByTestId('perm-log-count')).toHaveTextContent('No entries yet.');
  expect(await log!.log.count()).toBe(0);
});

test('a long log shows its newest few hundred with the count of all, and pages on', async () => {
  const base = Date.UTC(2026, 0, 1);
  await setup({ entries: Array.from({ length: 350 }, (_, i) => entry(base + i * 1000, `tool_${i}`)) });
  await expect.element(page.getByTestId('perm-log-count')).toHaveTextContent('The newest 300 of 350 entries');
  expect(document.querySelector<HTMLTableRowElement>('[data-entry]')?.dataset.tool).toBe('tool_349');
  await page.getByRole('button', { name: 'Show more' }).click();
  await expect.element(page.getByTestId('perm-log-count')).toHaveTextContent('350 entries, newest first');
  expect(document.querySelectorAll('[data-entry]')).toHaveLength(350);
  await expect.element(page.getByRole('button', { name: 'Show more' })).not.toBeInTheDocument();
});

describe('changes stored elsewhere', () => {
  test('the page re-reads them, and its next edit is made on the latest record', async () => {
    const { storage, saved } = await setup({
      stored: { ...defaultPermissions(), sites: [{ site: 'https://a.example', subdomains: false, read: 'ask', act: 'ask', send: 'ask', createdAt: 1 }] },
    });
    await vi.waitFor(() => expect(siteRow('https://a.example')).not.toBeNull());

    // The background saves an "Always on this site" click: the row appears.
    storage.write(PERMISSIONS_STORAGE_KEY, { ...saved(), sites: [...saved().sites, { site: 'https://b.example', subdomains: false, read: 'allow', act: 'ask', send: 'ask', createdAt: 2, lastUsed: Date.now() }] });
    await vi.waitFor(() => expect(siteRow('https://b.example')).not.toBeNull());
    await expect.element(page.getByLabelText('Reading b.example')).toHaveValue('allow');

    // A grant lands and the page has not heard of it yet: an edit must not save over it.
    storage.write(PERMISSIONS_STORAGE_KEY, { ...saved(), sites: [...saved().sites, { site: 'https://c.example', subdomains: false, read: 'allow', act: 'allow', send: 'ask', createdAt: 3 }] }, { announce: false });
    expect(siteRow('https://c.example')).toBeNull();
    await page.getByLabelText('Acting on a.example').selectOptions('block');
    await vi.waitFor(() => expect(saved().sites.map((s) => [s.site, s.act])).toEqual([['https://a.example', 'block'], ['https://b.example', 'ask'], ['https://c.example', 'allow']]));
    await vi.waitFor(() => expect(siteRow('https://c.example')).not.toBeNull());

    // Another page turned on Act without asking.
    storage.write(PERMISSIONS_STORAGE_KEY, { ...saved(), mode: 'act', tools: { web_search: 'block' } });
    await expect.element(page.getByRole('radio', { name: 'Act without asking' })).toBeChecked();
    await expect.element(page.getByLabelText('Rule for web_search')).toHaveValue('block');
  });

  test('a skill added on another page gets its row', async () => {
    const skills: SkillRecord[] = [];
    const storage = new MemoryPageStorage();
    log = await testActivityLog();
    await render(Permissions, { storage, openLog: log.open, listSkills: async () => [...skills], listMcpTools: vi.fn() });
    await vi.waitFor(() => expect(toolRow('web_fetch')).not.toBeNull());
    skills.push(skill('notes_db', 'database', { db_id: 'db-1' }));
    storage.write('skills', skills);
    await vi.waitFor(() => expect(toolRow('notes_db')?.querySelector('.risk')?.textContent).toBe('Reads what Pagewright holds'));
  });

  test('stops listening when the page closes', async () => {
    const { storage, screen } = await setup();
    expect(storage.watchers).toBe(1);
    await screen.unmount();
    expect(storage.watchers).toBe(0);
  });
});
