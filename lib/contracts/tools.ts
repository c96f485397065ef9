/**
 * A contract: what a tool is, apart from what it does — its risk class and who may use it. The
 * tools declare these facts, the sub-agents' tool sets are derived from them, and the management
 * page and the trust layer read them without loading any tool's handler.
 */
import type { CallDecision, CallTarget } from './permissions';
import type { SubAgentType } from './sub-agents';

/**
 * Risk classes, from the least to the most a call can do that the user may not want. Ordered by
 * how far the effect reaches and whether it can be taken back: reading what the extension holds,
 * computing with no way out, reading the user's pages (their signed-in content enters the
 * conversation), changing local files, sending data to a third party (without the user's
 * cookies, or to a service the user configured), acting in a site under the user's session (its
 * requests leave the machine too, and may change things there), and acts in the world that
 * cannot be taken back (a public post, a message sent).
 */
export const RISK_CLASSES = [
  'read_local',
  'run_isolated',
  'read_site',
  'write_local',
  'send_off_machine',
  'act_on_site',
  'irreversible_external',
] as const;
export type RiskClass = (typeof RISK_CLASSES)[number];

/** The highest of `risks`; read_local (the least) when there are none. */
export function highestRisk(risks: Iterable<RiskClass>): RiskClass {
  let top = 0;
  for (const r of risks) top = Math.max(top, RISK_CLASSES.indexOf(r));
  return RISK_CLASSES[top]!;
}

export interface ToolFacts {
  name: string;
  /**
   * The highest class a call can have. A tool whose calls differ (execute_script's target, the
   * agent's type) refines it per call on its definition (riskOf), never above this.
   */
  risk: RiskClass;
  /** The sub-agent types that may be given it; empty: the main agent's alone. */
  subAgents: readonly SubAgentType[];
  /**
   * Starts agents of its own (agent, delegate_to_agent): never a sub-agent's, whatever subAgents
   * says, so delegation cannot nest or recurse without end.
   */
  spawnsAgent?: boolean;
  /**
   * Its results carry third-party text (a page, a fetched document, search results, a remote
   * server's or another agent's answer): they reach the model fenced, and once one has, data
   * leaving for a place the user did not name needs the user's word.
   */
  thirdPartyText?: boolean;
  /** Loses the user's data beyond undoing (opfs_delete): asks in "Ask before acting". */
  destructive?: boolean;
}

/** A tool's facts without its name: a skill's tools are named by the skill. */
export type ToolKindFacts = Omit<ToolFacts, 'name'>;

export const availableTo = (facts: ToolKindFacts, type: SubAgentType): boolean => !facts.spawnsAgent && facts.subAgents.includes(type);

/** What a call's risk may depend on besides its input: the other tools of the same run. */
export interface RiskScope {
  /** The highest class among the tools a sub-agent of `type` could call, cut to `only` when given. */
  subAgentRisk(type: SubAgentType, only?: readonly string[]): RiskClass;
}

/** One call as the registry hands it to the policy, after its input checked out. */
export interface GateCall {
  tool: string;
  risk: RiskClass;
  spawnsAgent?: boolean;
  destructive?: boolean;
  targets: CallTarget[];
  /** The validated arguments, for the card of a call that has no site. */
  input: unknown;
  /** The sub-agent making the call (its type or profile name); absent for the main agent. */
  subAgent?: string;
}

export interface GateResult {
  allowed: boolean;
  /** Why not, for the model: what was refused and whether to retry. */
  message?: string;
  /** Present for consequential calls: kept with the result and shown on the tool card. */
  decision?: CallDecision;
}

/**
 * The policy as tools are dispatched through it (lib/policy/session.ts): every call is
 * authorised before its handler runs, and third-party text is fenced on its way to the model.
 */
export interface ToolGate {
  authorize(call: GateCall, signal: AbortSignal): Promise<GateResult>;
  /** `text` inside this run's boundary, which no page can forge (it cannot know the marker). */
  fence(text: string, source?: string): string;
  /** Third-party text reached the model: from now on data leaving for unnamed places asks. */
  taint(): void;
}
