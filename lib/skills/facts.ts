/**
 * What a skill's tools are (lib/contracts/tools.ts), by the skill's kind: its type, or for a
 * builtin skill the function it runs. Every factory spreads these onto the tools it makes, and
 * no handler is needed to read them (the management page may show them).
 */
import type { ToolKindFacts } from '../contracts/tools';
import type { BuiltinFunction } from './config';
import type { SkillRecord, SkillType } from './types';

export type SkillKind = Exclude<SkillType, 'builtin'> | BuiltinFunction;

/**
 * Skills are the main agent's and a general sub-agent's: the researcher's and the page
 * operator's sets are the built-in tools their prompts describe.
 */
const GENERAL = ['general'] as const;

export const SKILL_FACTS: Record<SkillKind, ToolKindFacts> = {
  // The arguments go to a server the user configured; its answer is that server's text.
  mcp: { risk: 'send_off_machine', subAgents: GENERAL, thirdPartyText: true },
  http: { risk: 'send_off_machine', subAgents: GENERAL, thirdPartyText: true },
  // The user's reviewed code, in the sandbox: no network, no storage, no page.
  function: { risk: 'run_isolated', subAgents: GENERAL },
  // Read-only SQL on the database files imported into the extension.
  database: { risk: 'read_local', subAgents: GENERAL },
  web_search: { risk: 'send_off_machine', subAgents: GENERAL, thirdPartyText: true },
  journal_write: { risk: 'write_local', subAgents: GENERAL },
  // A remote profile receives the task, a local one runs as a general sub-agent: the call's class
  // follows the profile it names (riskOf), up to anything a general sub-agent may do.
  delegate_to_agent: { risk: 'irreversible_external', subAgents: [], spawnsAgent: true, thirdPartyText: true },
  instagram_post: { risk: 'irreversible_external', subAgents: GENERAL },
  whatsapp_send: { risk: 'irreversible_external', subAgents: GENERAL },
  // Draws an SVG and saves it in the workspace.
  text_to_chart: { risk: 'write_local', subAgents: GENERAL },
  code_execution: { risk: 'run_isolated', subAgents: GENERAL },
};

/**
 * The facts of `skill`'s tools. The user's own word on a skill belongs here: one the user marks
 * irreversible (a payment API, a publishing endpoint — records carry no such mark yet) is to be
 * 'irreversible_external' whatever its kind, and reading the mark here gives it to every kind.
 */
export function skillFacts(_skill: SkillRecord, kind: SkillKind): ToolKindFacts {
  return SKILL_FACTS[kind];
}
