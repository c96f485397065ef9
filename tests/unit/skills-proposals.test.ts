import { describe, expect, it } from 'vitest';
import { defaultSettings } from '../../lib/settings';
import { storeProposals } from '../../lib/skills/proposals';
import { SkillStore, type KeyValueArea } from '../../lib/skills/store';
import { detachedEnv } from '../../lib/tools/env';
import type { Notice } from '../../lib/contracts/notices';
import { BUILTIN_TOOL_NAMES } from '../../lib/tools/catalog';
import { ToolRegistry } from '../../lib/tools/registry';
import { skillTools } from '../../lib/tools/skills';
import { TaskBoard } from '../../lib/tools/task-board';

function setup() {
  const data = new Map<string, unknown>();
  const area: KeyValueArea = {
    get: async (k) => (data.has(k) ? { [k]: structuredClone(data.get(k)) } : {}),
    set: async (items) => void Object.entries(items).forEach(([k, v]) => data.set(k, structuredClone(v))),
  };
  const store = new SkillStore(area, new Set(BUILTIN_TOOL_NAMES));
  const notices: Notice[] = [];
  const env = { ...detachedEnv(defaultSettings()), skillProposals: storeProposals(store), notify: (n: Notice) => void notices.push(n) };
  const registry = new ToolRegistry(skillTools);
  const call = (input: unknown) => registry.call('propose_skill', input, { conversationId: 'c', signal: new AbortController().signal, tasks: new TaskBoard(), env });
  return { store, notices, call };
}

const js = { name: 'slugify', description: 'Makes a URL slug.', language: 'javascript', code: 'function run(args) { return args.text.toLowerCase(); }' };

describe('propose_skill', () => {
  it('saves the proposal inactive, waiting for review, and tells the user', async () => {
    const { store, notices, call } = setup();
    const out = await call(js);
    expect(out.isError).toBe(false);
    expect(JSON.parse(out.content)).toMatchObject({ status: 'waiting_for_review', name: 'slugify', change: false });
    expect(await store.list()).toEqual([
      expect.objectContaining({ name: 'slugify', skill_type: 'function', is_active: false, proposed_by: 'model', config_json: expect.stringContaining('"language": "javascript"') }),
    ]);
    expect(notices).toEqual([{ kind: 'skill_review', name: 'slugify' }]);
  });

  it('proposes a change to an existing function skill, keeping its approved code', async () => {
    const { store, call } = setup();
    await call(js);
    const [first] = await store.list();
    await store.approve(first!.id, first!.config_json);
    const out = await call({ ...js, code: 'function run(args) { return args.text.toUpperCase(); }' });
    expect(JSON.parse(out.content)).toMatchObject({ change: true });
    expect((await store.list())[0]).toMatchObject({ is_active: false, approved_config_json: first!.config_json, proposed_by: 'model' });
  });

  it.each([
    [{ ...js, language: 'ruby' }, '"language": must be "javascript" or "python"'],
    [{ ...js, code: '' }, '"code": must not be empty'],
    [{ ...js, name: 'web_fetch' }, 'name: "web_fetch" is the name of a built-in tool'],
    [{ ...js, name: 'has space' }, 'name: The name may hold only'],
    [{ ...js, input_schema: { type: 'array' } }, 'config_json: config_json.input_schema input_schema must have "type": "object"'],
  ])('refuses %j', async (input, message) => {
    const { store, call } = setup();
    const out = await call(input);
    expect(out).toMatchObject({ isError: true, content: expect.stringContaining(message) });
    expect(await store.list()).toEqual([]);
  });

  it('will not turn another kind of skill into a function', async () => {
    const { store, call } = setup();
    await store.save({ name: 'slugify', description: 'x', skill_type: 'http', config_json: '{"url":"https://x"}', is_active: true });
    expect(await call(js)).toMatchObject({ isError: true, content: expect.stringContaining('A http skill is already called "slugify"') });
  });
});
