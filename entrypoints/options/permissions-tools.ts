/**
 * The tools the Permissions section lists, by the names the model calls them (a tool rule is
 * keyed by that name): the built-in tools, then each skill's — one tool named after the skill,
 * or for a standard MCP server one per server tool (`<skill>__<tool>`), as far as the page knows
 * them — with the facts the rule's choices depend on.
 */
import type { RuleLevel } from '../../lib/contracts/permissions';
import type { RiskClass, ToolKindFacts } from '../../lib/contracts/tools';
import { BUILTIN_FUNCTIONS, parseSkillConfig } from '../../lib/skills/config';
import { skillFacts, type SkillKind } from '../../lib/skills/facts';
import { prefixedToolName } from '../../lib/skills/names';
import type { SkillRecord } from '../../lib/skills/types';
import { BUILTIN_TOOL_FACTS } from '../../lib/tools/catalog';

/**
 * Why Allow is not offered: `irreversible` — the policy asks before every such call whatever the
 * rule says; `spawns` — the tool starts a sub-agent whose calls are each decided on their own, so
 * allowing the start would change nothing (and read as if it allowed what the sub-agent does).
 */
export type NoAllow = 'irreversible' | 'spawns';

export interface ToolRow {
  /** The tool name the model calls, which the rule is saved under. */
  name: string;
  /** Undefined for a skill whose kind this version does not know (it cannot run either). */
  risk?: RiskClass;
  noAllow?: NoAllow;
}

export interface SkillTools {
  skill: SkillRecord;
  /** A standard MCP server: its tools are known only once listed (or from rules saved for them). */
  mcpServer: boolean;
  rows: ToolRow[];
}

function row(name: string, facts: ToolKindFacts | undefined): ToolRow {
  if (!facts) return { name };
  const noAllow: NoAllow | undefined = facts.risk !== 'irreversible_external' ? undefined : facts.spawnsAgent ? 'spawns' : 'irreversible';
  return { name, risk: facts.risk, ...(noAllow ? { noAllow } : {}) };
}

export const builtinToolRows = (): ToolRow[] => BUILTIN_TOOL_FACTS.map((f) => row(f.name, f));

/** What the skill's tools are (its type, or a builtin skill's function), as the skill factories decide it. */
export function skillKind(skill: SkillRecord): SkillKind | undefined {
  if (skill.skill_type !== 'builtin') return skill.skill_type;
  const config = parseSkillConfig('builtin', skill.config_json);
  const fn = (config.ok ? config.config.function_name : undefined) ?? skill.name;
  return (BUILTIN_FUNCTIONS as readonly string[]).includes(fn) ? (fn as SkillKind) : undefined;
}

export function isMcpServer(skill: SkillRecord): boolean {
  if (skill.skill_type !== 'mcp') return false;
  const config = parseSkillConfig('mcp', skill.config_json);
  return config.ok && config.config.transport === 'streamable_http';
}

/**
 * The names an MCP server's tools get, as lib/skills/mcp-servers.ts names them: prefixed with
 * the skill, and numbered when two server names clean to the same tool name.
 */
export function mcpToolNames(skill: string, serverTools: readonly string[]): string[] {
  const taken = new Set<string>();
  return serverTools.map((tool) => {
    let name = prefixedToolName(skill, tool);
    for (let n = 2; taken.has(name); n++) name = prefixedToolName(skill, `${tool}_${n}`);
    taken.add(name);
    return name;
  });
}

/**
 * Each skill's rows. `listed` holds the server tool names of MCP servers the user listed on this
 * page; a server's tools that have a saved rule are shown whether listed or not.
 */
export function skillToolRows(skills: readonly SkillRecord[], listed: Readonly<Record<string, readonly string[]>>, rules: Readonly<Record<string, RuleLevel>>): SkillTools[] {
  const exact = new Set(skills.map((s) => s.name));
  return skills.map((skill) => {
    const kind = skillKind(skill);
    const facts = kind ? skillFacts(skill, kind) : undefined;
    if (!isMcpServer(skill)) return { skill, mcpServer: false, rows: [row(skill.name, facts)] };
    const names = new Set(mcpToolNames(skill.name, listed[skill.id] ?? []));
    // A rule named exactly after another skill is that skill's (names may hold "__" too).
    for (const name of Object.keys(rules)) if (name.startsWith(`${skill.name}__`) && !exact.has(name)) names.add(name);
    return { skill, mcpServer: true, rows: [...names].sort().map((name) => row(name, facts)) };
  });
}

/** Saved tool rules that name no tool listed above (a skill deleted or renamed since). */
export function orphanRules(rules: Readonly<Record<string, RuleLevel>>, rows: readonly ToolRow[]): [string, RuleLevel][] {
  const known = new Set(rows.map((r) => r.name));
  return Object.entries(rules).filter(([name]) => !known.has(name));
}
