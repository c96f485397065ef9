import { beforeEach, describe, expect, it } from 'vitest';
import { redactConfig, SkillStore, SKILLS_KEY, type KeyValueArea } from '../../lib/skills/store';
import type { AgentProfileDraft, SkillDraft } from '../../lib/skills/types';
import { BUILTIN_TOOL_NAMES, DELEGABLE_TOOL_NAMES } from '../../lib/tools/catalog';

function memoryArea(): KeyValueArea & { data: Map<string, unknown> } {
  const data = new Map<string, unknown>();
  return {
    data,
    get: async (key) => (data.has(key) ? { [key]: structuredClone(data.get(key)) } : {}),
    set: async (items) => {
      for (const [k, val] of Object.entries(items)) data.set(k, structuredClone(val));
    },
  };
}

const weather: SkillDraft = {
  name: 'weather',
  description: 'Current weather for a city.',
  skill_type: 'http',
  config_json: '{"url": "https://api.example/weather", "method": "GET", "headers": {"X-Api-Key": "s3cret", "Accept": "application/json"}}',
  is_active: true,
};

describe('SkillStore', () => {
  let area: ReturnType<typeof memoryArea>;
  let store: SkillStore;
  let clock = 1000;
  beforeEach(() => {
    area = memoryArea();
    clock = 1000;
    store = new SkillStore(area, new Set(BUILTIN_TOOL_NAMES), () => ++clock);
  });

  it('creates, edits, toggles and deletes', async () => {
    const created = await store.save(weather);
    if (!created.ok) throw new Error(JSON.stringify(created.errors));
    expect(created.value).toMatchObject({ name: 'weather', is_active: true, created_at: 1001, updated_at: 1001 });
    const edited = await store.save({ ...weather, description: 'Weather now.' }, created.value.id);
    expect(edited).toMatchObject({ ok: true, value: { id: created.value.id, description: 'Weather now.', created_at: 1001, updated_at: 1002 } });
    await store.setActive(created.value.id, false);
    expect(await store.active()).toEqual([]);
    expect((await store.list())[0]!.is_active).toBe(false);
    await store.remove(created.value.id);
    expect(await store.list()).toEqual([]);
  });

  it('refuses a bad skill with every problem by field, and stores nothing', async () => {
    const r = await store.save({ name: 'web_search', description: ' ', skill_type: 'mcp', config_json: '{"url": 1}', is_active: true });
    expect(r).toEqual({
      ok: false,
      errors: {
        name: [expect.stringContaining('built-in tool')],
        description: [expect.stringContaining('empty')],
        config_json: ['config_json.url must be a string.'],
      },
    });
    expect(area.data.has(SKILLS_KEY)).toBe(false);
  });

  it('refuses a second skill of the same name but lets a skill keep its own', async () => {
    const first = await store.save(weather);
    expect((await store.save(weather)).ok).toBe(false);
    if (first.ok) expect((await store.save({ ...weather, is_active: false }, first.value.id)).ok).toBe(true);
  });

  it('needs a function for a builtin skill whose name is not one', async () => {
    const r = await store.save({ name: 'chart', description: 'Charts.', skill_type: 'builtin', config_json: '{}', is_active: true });
    expect(r).toMatchObject({ ok: false, errors: { config_json: [expect.stringContaining('function_name is missing')] } });
    expect((await store.save({ name: 'text_to_chart', description: 'Charts.', skill_type: 'builtin', config_json: '', is_active: true })).ok).toBe(true);
  });

  it('says when the edited skill is gone', async () => {
    expect(await store.save(weather, 'missing')).toEqual({ ok: false, errors: { name: ['This skill no longer exists.'] } });
  });

  it('exports without secrets unless asked, and imports what it exported', async () => {
    await store.save(weather);
    await store.save({ name: 'files', description: 'Files.', skill_type: 'mcp', config_json: '{"url":"http://127.0.0.1:1/mcp","auth_type":"bearer","auth_value":"tok"}', is_active: false });
    const plain = JSON.parse(await store.export({ secrets: false })) as { skills: { config_json: string }[] };
    expect(JSON.parse(plain.skills[0]!.config_json).headers).toEqual({ 'X-Api-Key': '', Accept: 'application/json' });
    expect(JSON.parse(plain.skills[1]!.config_json).auth_value).toBe('');
    const full = await store.export({ secrets: true });
    expect(full).toContain('s3cret');

    const other = new SkillStore(memoryArea(), new Set(BUILTIN_TOOL_NAMES));
    expect(await other.import(full)).toEqual({ added: ['weather', 'files'], skipped: [] });
    expect((await other.list()).map((s) => [s.name, s.is_active])).toEqual([['weather', true], ['files', false]]);
    // A redacted bearer skill cannot be used as it is: the report says why.
    const again = new SkillStore(memoryArea(), new Set(BUILTIN_TOOL_NAMES));
    const report = await again.import(JSON.stringify(plain));
    expect(report.added).toEqual(['weather']);
    expect(report.skipped).toEqual([expect.stringContaining('#2 "files": config_json: auth_value is required')]);
  });

  it('imports valid entries and reports each invalid one', async () => {
    await store.save(weather);
    const report = await store.import(
      JSON.stringify([
        { name: 'weather', description: 'Dup.', skill_type: 'http', config_json: { url: 'https://x' } },
        { name: 'search', description: 'Search.', skill_type: 'builtin', config_json: { function_name: 'web_search' }, is_active: true },
        { name: 'search', description: 'Again.', skill_type: 'builtin', config_json: { function_name: 'web_search' } },
        { name: 'sql', description: 'DB.', skill_type: 'ftp', config_json: '{"db_id":"x"}' },
        { name: 7 },
        'nonsense',
      ]),
    );
    expect(report.added).toEqual(['search']);
    expect(report.skipped).toEqual([
      expect.stringContaining('#1 "weather": Another skill is already called "weather"'),
      expect.stringContaining('#3 "search": Another skill'),
      expect.stringContaining('#4 "sql": The type must be one of'),
      '#5: name must be a string.',
      '#6: not a skill object.',
    ]);
    const search = (await store.list()).find((s) => s.name === 'search')!;
    expect(JSON.parse(search.config_json)).toEqual({ function_name: 'web_search' });
    expect(search.is_active).toBe(true);
  });

  it.each([
    ['{', 'not valid JSON'],
    ['{"skill": []}', 'Expected a JSON array'],
    ['42', 'Expected a JSON array'],
  ])('reports an import file %j it cannot read', async (file, message) => {
    const report = await store.import(file);
    expect(report.added).toEqual([]);
    expect(report.skipped[0]).toContain(message);
  });

  describe('function skills wait for review', () => {
    const fn = (code: string): SkillDraft => ({ name: 'shout', description: 'Shouts.', skill_type: 'function', config_json: JSON.stringify({ language: 'javascript', code }), is_active: true });

    it('a new skill is saved inactive until approved, and cannot be switched on before', async () => {
      const r = await store.save(fn('function run(a) { return "A"; }'));
      if (!r.ok) throw new Error(JSON.stringify(r.errors));
      expect(r.value).toMatchObject({ is_active: false, proposed_by: 'user' });
      expect(r.value.approved_config_json).toBeUndefined();
      await expect(store.setActive(r.value.id, true)).rejects.toThrow('has not been approved yet');
      await expect(store.approve(r.value.id, 'something else')).rejects.toThrow('changed while it was being reviewed');
      const approved = await store.approve(r.value.id, r.value.config_json);
      expect(approved).toMatchObject({ is_active: true, approved_config_json: r.value.config_json });
      expect(approved.proposed_by).toBeUndefined();
    });

    it('a change by the model goes inactive; rejecting it restores the approved code', async () => {
      const r = await store.save(fn('function run() { return "v1"; }'));
      if (!r.ok) throw new Error('save');
      await store.approve(r.value.id, r.value.config_json);
      // A description edit keeps the approved code: no review, still active.
      const edited = await store.save({ ...fn('function run() { return "v1"; }'), description: 'Shouts loudly.' }, r.value.id);
      expect(edited).toMatchObject({ ok: true, value: { is_active: true } });
      const changed = await store.save(fn('function run() { return "v2"; }'), r.value.id, 'model');
      expect(changed).toMatchObject({ ok: true, value: { is_active: false, proposed_by: 'model', approved_config_json: r.value.config_json } });
      await store.reject(r.value.id);
      const back = (await store.list())[0]!;
      expect(back).toMatchObject({ config_json: r.value.config_json, is_active: false });
      expect(back.proposed_by).toBeUndefined();
      await store.setActive(back.id, true);
      expect((await store.active()).map((s) => s.name)).toEqual(['shout']);
    });

    it('rejecting a skill never approved deletes it; imported code waits for review', async () => {
      const r = await store.save(fn('function run() { return "x"; }'));
      if (!r.ok) throw new Error('save');
      await store.reject(r.value.id);
      expect(await store.list()).toEqual([]);
      await store.import(JSON.stringify([{ ...fn('function run() { return "i"; }'), is_active: true }]));
      expect((await store.list())[0]).toMatchObject({ is_active: false, proposed_by: 'user' });
    });
  });

  describe('agent profiles', () => {
    const tools = new Set<string>(DELEGABLE_TOOL_NAMES);
    const writer: AgentProfileDraft = { name: 'Writer', slug: 'writer', system_prompt: 'You write.', model: '', tools: ['web_fetch'], a2a_url: '' };

    it('saves, edits and removes', async () => {
      const r = await store.saveProfile(writer, tools);
      if (!r.ok) throw new Error(JSON.stringify(r.errors));
      expect((await store.saveProfile({ ...writer, model: 'claude-haiku-5-5' }, tools, r.value.id)).ok).toBe(true);
      expect((await store.profiles())[0]).toMatchObject({ slug: 'writer', model: 'claude-haiku-5-5' });
      await store.removeProfile(r.value.id);
      expect(await store.profiles()).toEqual([]);
    });

    it.each([
      [{ slug: 'Writer!' }, 'slug'],
      [{ name: '' }, 'name'],
      [{ tools: ['ask_user'] }, 'tools'],
      [{ model: 'a b' }, 'model'],
      [{ system_prompt: '' }, 'system_prompt'],
      [{ a2a_url: 'mailto:x' }, 'a2a_url'],
    ])('refuses %j', async (patch, field) => {
      const r = await store.saveProfile({ ...writer, ...patch }, tools);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(Object.keys(r.errors)).toContain(field);
    });

    it('needs no prompt for a remote agent and refuses a taken slug', async () => {
      expect((await store.saveProfile({ ...writer, system_prompt: '', a2a_url: 'http://127.0.0.1:9/a2a' }, tools)).ok).toBe(true);
      expect(await store.saveProfile({ ...writer, name: 'Other' }, tools)).toMatchObject({ ok: false, errors: { slug: expect.stringContaining('already') } });
    });
  });
});

describe('redactConfig', () => {
  it('blanks auth values and secret-looking headers only', () => {
    expect(JSON.parse(redactConfig('{"url":"u","auth_value":"x","headers":{"Authorization":"Bearer a","X-Trace":"1","my-token":"t"}}'))).toEqual({
      url: 'u',
      auth_value: '',
      headers: { Authorization: '', 'X-Trace': '1', 'my-token': '' },
    });
    expect(redactConfig('not json')).toBe('not json');
  });
});
