/**
 * What each tool is: every built-in tool and every kind of skill declares a risk class and who
 * may use it, the sub-agents' tool sets derived from those facts are the ones they have always
 * been, and a call's risk can be asked before it runs.
 */
import { describe, expect, it } from 'vitest';
import { ScopedTools } from '../../lib/agent/sub-agents';
import { SUB_AGENT_TYPES, type SubAgentType } from '../../lib/contracts/sub-agents';
import { RISK_CLASSES, type RiskClass, type ToolKindFacts } from '../../lib/contracts/tools';
import type { DatabaseConnection } from '../../lib/database/connections';
import { builtinSkillTools } from '../../lib/skills/builtin';
import { BUILTIN_FUNCTIONS, parseSkillConfig } from '../../lib/skills/config';
import { createDatabaseSkillTools } from '../../lib/skills/database';
import { SKILL_FACTS, type SkillKind } from '../../lib/skills/facts';
import { functionSkillTools } from '../../lib/skills/function';
import { httpSkillTools } from '../../lib/skills/http';
import { mcpSkillTools } from '../../lib/skills/mcp-call';
import type { McpServers, SkillServices, SkillToolFactory } from '../../lib/skills/services';
import { SKILL_TYPES, type AgentProfile, type SkillRecord, type SkillType } from '../../lib/skills/types';
import { builtinTools, createBuiltinRegistry } from '../../lib/tools';
import { BUILTIN_TOOL_FACTS, BUILTIN_TOOL_NAMES, DELEGABLE_TOOL_NAMES } from '../../lib/tools/catalog';
import type { ToolDefinition } from '../../lib/tools/registry';

/** The sets the sub-agents had when they were spelled out by name (lib/agent/sub-agents.ts). */
const RESEARCHER = ['web_fetch', 'web_search', 'list_tabs', 'get_tab_content', 'screenshot'];
const PAGE_OPERATOR = ['list_tabs', 'open_tab', 'close_tab', 'activate_tab', 'get_tab_content', 'screenshot', 'execute_script', 'page_action'];
const GENERAL = [
  'web_fetch', 'web_search', 'list_tabs', 'open_tab', 'close_tab', 'activate_tab', 'get_tab_content', 'screenshot', 'execute_script', 'page_action',
  'opfs_write', 'opfs_read', 'opfs_list', 'opfs_delete', 'create_task', 'update_task', 'list_tasks', 'propose_skill',
];

function expectFacts(facts: ToolKindFacts, what: string) {
  expect(RISK_CLASSES, `${what}: risk`).toContain(facts.risk);
  expect(Array.isArray(facts.subAgents), `${what}: subAgents`).toBe(true);
  for (const type of facts.subAgents) expect(SUB_AGENT_TYPES, `${what}: subAgents`).toContain(type);
  if (facts.spawnsAgent) expect(facts.subAgents, `${what}: a tool that starts agents is no sub-agent's`).toEqual([]);
}

const record = (name: string, skill_type: SkillType, config: object): SkillRecord => ({
  id: `id-${name}`,
  name,
  description: `The ${name} skill.`,
  skill_type,
  config_json: JSON.stringify(config),
  is_active: true,
  created_at: 0,
  updated_at: 0,
});

const profile = (slug: string, extra: Partial<AgentProfile> = {}): AgentProfile => ({
  id: `p-${slug}`, name: slug, slug, system_prompt: 'Work.', model: '', tools: [], a2a_url: '', created_at: 0, updated_at: 0, ...extra,
});

const profiles = [profile('local'), profile('searcher', { tools: ['web_search', 'list_tabs'] }), profile('remote', { a2a_url: 'http://127.0.0.1:9/a2a' })];
const mcp = { listTools: async () => [{ name: 'lookup', inputSchema: { type: 'object' } }] } as unknown as McpServers;
const services: SkillServices = { profiles: async () => profiles, mcp };
const connection: DatabaseConnection = {
  db_id: 'db1', name: 'Shop', source: 'sqlite', descriptions: {}, schema: { tables: [] }, size: 0, created_at: 0, updated_at: 0,
};

/** A skill of each kind, built by its own factory. */
async function skillTools(kind: SkillKind): Promise<ToolDefinition<any>[]> {
  const built = async <T>(factory: SkillToolFactory<T>, type: SkillType, config: object) => {
    const parsed = parseSkillConfig(type, JSON.stringify(config));
    if (!parsed.ok) throw new Error(parsed.errors.join(' '));
    return factory(record(`${kind}_skill`, type, config), parsed.config as T, services);
  };
  switch (kind) {
    case 'mcp':
      return [
        ...(await built(mcpSkillTools, 'mcp', { url: 'http://127.0.0.1:9/mcp' })),
        ...(await built(mcpSkillTools, 'mcp', { url: 'http://127.0.0.1:9/mcp', transport: 'streamable_http' })),
      ];
    case 'http':
      return built(httpSkillTools, 'http', { url: 'http://127.0.0.1:9/api' });
    case 'function':
      return built(functionSkillTools, 'function', { language: 'javascript', code: 'function run(args) { return "ok"; }' });
    case 'database':
      return built(createDatabaseSkillTools(() => ({ get: async () => connection })), 'database', { db_id: 'db1' });
    default:
      return built(builtinSkillTools, 'builtin', { function_name: kind });
  }
}

const SKILL_KINDS: SkillKind[] = [...SKILL_TYPES.filter((t): t is Exclude<SkillType, 'builtin'> => t !== 'builtin'), ...BUILTIN_FUNCTIONS];

describe('the facts of each tool', () => {
  it('every built-in tool declares a risk class and who may use it, as the catalog lists them, in order', () => {
    expect(builtinTools.map((t) => t.name)).toEqual(BUILTIN_TOOL_NAMES);
    builtinTools.forEach((tool, i) => {
      expectFacts(tool, tool.name);
      const { name, risk, subAgents, spawnsAgent, thirdPartyText, destructive } = tool;
      expect({ name, risk, subAgents, ...(spawnsAgent ? { spawnsAgent } : {}), ...(thirdPartyText ? { thirdPartyText } : {}), ...(destructive ? { destructive } : {}) }).toEqual(BUILTIN_TOOL_FACTS[i]);
    });
  });

  it('every skill type, and every builtin skill function, declares them', () => {
    expect(Object.keys(SKILL_FACTS).sort()).toEqual([...SKILL_KINDS].sort());
    for (const kind of SKILL_KINDS) expectFacts(SKILL_FACTS[kind], kind);
  });

  it.each(SKILL_KINDS)("a %s skill's tools carry the facts of their kind", async (kind) => {
    const tools = await skillTools(kind);
    expect(tools.length).toBeGreaterThan(0);
    for (const tool of tools) expect(tool).toMatchObject(SKILL_FACTS[kind]);
  });

  it('the tools that start agents are agent and delegate_to_agent', async () => {
    const spawning = [...builtinTools, ...(await Promise.all(SKILL_KINDS.map(skillTools))).flat()].filter((t) => t.spawnsAgent);
    expect(spawning.map((t) => t.name)).toEqual(['agent', 'delegate_to_agent_skill']);
  });
});

describe('the sub-agents’ tool sets, derived from the facts', () => {
  const registry = createBuiltinRegistry();
  const names = (type: SubAgentType, r = registry) => new ScopedTools(r, type).modelTools().map((t) => t.name).sort();

  it('are the sets each type has always had', () => {
    expect(names('researcher')).toEqual([...RESEARCHER].sort());
    expect(names('page_operator')).toEqual([...PAGE_OPERATOR].sort());
    expect(names('general')).toEqual([...GENERAL].sort());
  });

  it('give skills to a general sub-agent only, and delegate_to_agent to none', async () => {
    const skills = (await Promise.all(SKILL_KINDS.map(skillTools))).flat();
    const withSkills = registry.with(skills);
    const skillNames = skills.filter((s) => !s.spawnsAgent).map((s) => s.name);
    expect(names('researcher', withSkills)).toEqual([...RESEARCHER].sort());
    expect(names('page_operator', withSkills)).toEqual([...PAGE_OPERATOR].sort());
    expect(names('general', withSkills)).toEqual([...GENERAL, ...skillNames].sort());
    expect(names('general', withSkills)).not.toContain('delegate_to_agent_skill');
  });

  it('an agent profile may be given what a general sub-agent has of the built-in tools', () => {
    expect(DELEGABLE_TOOL_NAMES).toEqual(GENERAL);
  });
});

describe('the risk of one call, asked before it runs', () => {
  const registry = createBuiltinRegistry();

  it('is the tool’s class, or its refinement by the input', async () => {
    expect(await registry.riskOf('list_tabs', {})).toBe('read_local');
    expect(await registry.riskOf('web_fetch', { url: 'https://example.com/' })).toBe('send_off_machine');
    expect(await registry.riskOf('execute_script', { code: 'return 1', target: 'sandbox' })).toBe('run_isolated');
    expect(await registry.riskOf('execute_script', { code: 'return 1', target: 'page', tab_id: 3 })).toBe('act_on_site');
    // Refused before it runs, whatever it would have done: the highest class.
    expect(await registry.riskOf('execute_script', { code: 'return 1', target: 'elsewhere' })).toBe('act_on_site');
    expect(await registry.riskOf('no_such_tool', {})).toBeUndefined();
  });

  it('of an agent call is the highest of its sub-agent’s tools, skills included', async () => {
    expect(await registry.riskOf('agent', { prompt: 'p', type: 'researcher' })).toBe('send_off_machine');
    expect(await registry.riskOf('agent', { prompt: 'p', type: 'page_operator' })).toBe('act_on_site');
    expect(await registry.riskOf('agent', { prompt: 'p' })).toBe('act_on_site');
    const withPosting = registry.with(await skillTools('instagram_post'));
    expect(await withPosting.riskOf('agent', { prompt: 'p', type: 'general' })).toBe('irreversible_external');
    expect(await withPosting.riskOf('agent', { prompt: 'p', type: 'researcher' })).toBe('send_off_machine');
  });

  it('of a delegation follows the profile it names', async () => {
    const withDelegate = registry.with([...(await skillTools('delegate_to_agent')), ...(await skillTools('whatsapp_send'))]);
    const risk = (slug: string) => withDelegate.riskOf('delegate_to_agent_skill', { to_agent_slug: slug, task: 't' });
    expect(await risk('remote')).toBe('send_off_machine');
    expect(await risk('searcher')).toBe('send_off_machine');
    expect(await risk('local')).toBe('irreversible_external');
    expect(await risk('nobody')).toBe('irreversible_external');
  });

  it('never exceeds the tool’s declared class', async () => {
    const all = registry.with([...(await skillTools('delegate_to_agent')), ...(await skillTools('whatsapp_send'))]);
    const calls: [string, unknown][] = [
      ['execute_script', { code: '1', target: 'sandbox' }],
      ['execute_script', { code: '1', target: 'page' }],
      ...SUB_AGENT_TYPES.map((type): [string, unknown] => ['agent', { prompt: 'p', type }]),
      ...profiles.map((p): [string, unknown] => ['delegate_to_agent_skill', { to_agent_slug: p.slug, task: 't' }]),
    ];
    const rank = (r: RiskClass | undefined) => RISK_CLASSES.indexOf(r!);
    for (const [name, input] of calls) expect(rank(await all.riskOf(name, input)), name).toBeLessThanOrEqual(rank(all.facts(name)!.risk));
  });

  it('is asked of a sub-agent’s tools through its cut, which knows only its own', async () => {
    const scoped = new ScopedTools(registry, 'researcher');
    expect(await scoped.riskOf('web_search', { query: 'q' })).toBe('send_off_machine');
    expect(await scoped.riskOf('execute_script', { code: '1', target: 'sandbox' })).toBeUndefined();
    expect(scoped.facts('execute_script')).toBeUndefined();
  });
});
