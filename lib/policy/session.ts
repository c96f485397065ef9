/**
 * One run's policy (ToolGate): decides each call with lib/policy/decide.ts against the user's
 * permissions and what the conversation holds, asks the user when the decision says so, saves
 * "Always" answers, logs every consequential call, and fences third-party text.
 */
import type { StoredMessage } from '../contracts/conversation';
import type {
  ActivityEntry,
  ApprovalDetails,
  CallDecision,
  CallTarget,
  Permissions,
  SiteAccess,
} from '../contracts/permissions';
import type { GateCall, GateResult, ToolGate } from '../contracts/tools';
import type { ApprovalAnswer } from '../contracts/questions';
import { decide, type Verdict } from './decide';
import { fenceText, newMarker } from './fence';
import { hostsNamedIn, siteOf } from './sites';

/** Where the permissions live (storage.local in the extension; memory in tests). */
export interface PermissionsSource {
  current(): Permissions | Promise<Permissions>;
  /** Always on this site: saves the grant. */
  grant(site: string, accesses: readonly SiteAccess[]): Promise<void>;
  /** A rule was used (its "last used" on the management page). */
  used?(site: string): void;
}

export interface PolicySessionDeps {
  conversationId: string;
  permissions: PermissionsSource;
  approve(details: ApprovalDetails, sentence: string, signal: AbortSignal): Promise<ApprovalAnswer>;
  log?(entry: ActivityEntry): void;
  /** URLs the user configured as destinations: the model endpoint, the search engine. */
  destinations: readonly string[];
  /** The tab that was active in the user's window when they sent the message. */
  activeTabUrl?: string;
  /** The conversation so far: the user's own words name sites, earlier clicks granted some. */
  history: readonly StoredMessage[];
  /** Whether the tool `name`'s results carry third-party text (taints the conversation). */
  carriesThirdPartyText(name: string): boolean;
  /** How long an approval waits (the ask-user time), for the model's message on a timeout. */
  timeoutSec: number;
}

/** Calls whose decision is recorded: anything that reaches beyond reading local state or computing. */
const quiet = (call: GateCall) => !call.targets.length && (call.risk === 'read_local' || call.risk === 'run_isolated');

export class PolicySession implements ToolGate {
  readonly marker = newMarker();
  private tainted: boolean;
  private readonly namedHosts: string[];
  private readonly grantedSites = new Set<string>();
  private readonly destinations: Set<string>;
  private readonly activeSite: string | undefined;

  constructor(private readonly deps: PolicySessionDeps) {
    const named = new Set<string>();
    let tainted = false;
    for (const m of deps.history) {
      // Text the user selected on a page is the page's text: it came in with their message.
      if (m.activeTab?.selection) tainted = true;
      for (const b of m.content) {
        if (m.role === 'user' && b.type === 'text') for (const h of hostsNamedIn(b.text)) named.add(h);
        if (b.type === 'tool_use' && deps.carriesThirdPartyText(b.name)) tainted = true;
      }
      for (const d of Object.values(m.decisions ?? {})) {
        if (d.by === 'user' && d.outcome === 'allowed' && d.site) this.grantedSites.add(d.site);
      }
    }
    this.tainted = tainted;
    this.namedHosts = [...named];
    this.destinations = new Set(deps.destinations.map((u) => siteOf(u)?.site).filter((s): s is string => !!s));
    this.activeSite = deps.activeTabUrl ? siteOf(deps.activeTabUrl)?.site : undefined;
  }

  get isTainted() {
    return this.tainted;
  }

  taint() {
    this.tainted = true;
  }

  fence(text: string, source?: string) {
    return fenceText(this.marker, text, source);
  }

  async authorize(call: GateCall, signal: AbortSignal): Promise<GateResult> {
    const permissions = await this.deps.permissions.current();
    const verdict = decide(call, {
      permissions,
      tainted: this.tainted,
      namedHosts: this.namedHosts,
      grantedSites: this.grantedSites,
      destinations: this.destinations,
      ...(this.activeSite ? { activeSite: this.activeSite } : {}),
    });
    if (verdict.kind === 'allow') {
      if (verdict.rule === 'site_allow' && verdict.site) this.deps.permissions.used?.(verdict.site);
      return this.settle(call, { outcome: 'allowed', by: 'rule', rule: verdict.rule, ...(verdict.site ? { site: verdict.site } : {}) });
    }
    if (verdict.kind === 'block') {
      return this.settle(call, { outcome: 'blocked', by: 'rule', rule: verdict.rule, ...(verdict.site ? { site: verdict.site } : {}) }, verdict.message);
    }
    return this.ask(call, verdict, signal);
  }

  private async ask(call: GateCall, verdict: Extract<Verdict, { kind: 'ask' }>, signal: AbortSignal): Promise<GateResult> {
    const details = approvalDetails(call, verdict);
    const sentence = approvalSentence(details);
    const answer = await this.deps.approve(details, sentence, signal);
    const site = verdict.site?.site;
    const base = { reason: verdict.reason, ...(site ? { site } : {}) };
    if (answer.choice === null) {
      const decision: CallDecision = { outcome: 'denied', by: answer.reason, ...base };
      const message =
        answer.reason === 'stopped'
          ? 'Stopped by the user before this tool ran.'
          : `Nobody answered within ${this.deps.timeoutSec} s when Pagewright asked the user whether it may ${whatOf(details)}, so it was not done. Do not retry unless the user asks for it.`;
      return this.settle(call, decision, message);
    }
    if (answer.choice === 'deny') {
      return this.settle(call, { outcome: 'denied', by: 'user', choice: 'deny', ...base }, `The user declined: Pagewright may not ${whatOf(details)}. Do not retry unless the user asks for it; tell the user what you could not do.`);
    }
    if (site) {
      this.grantedSites.add(site);
      if (answer.choice === 'always' && verdict.canAlways) await this.deps.permissions.grant(site, grantFor(verdict));
    }
    return this.settle(call, { outcome: 'allowed', by: 'user', choice: answer.choice, ...base });
  }

  private settle(call: GateCall, decision: CallDecision, message?: string): GateResult {
    const consequential = !quiet(call);
    if (consequential) {
      const target = call.targets[0];
      this.deps.log?.({
        at: Date.now(),
        conversationId: this.deps.conversationId,
        tool: call.tool,
        ...(decision.site ? { site: decision.site } : {}),
        ...(target ? { url: target.url, access: target.access } : {}),
        ...(call.subAgent ? { subAgent: call.subAgent } : {}),
        decision,
      });
    }
    return { allowed: decision.outcome === 'allowed', ...(message ? { message } : {}), ...(consequential ? { decision } : {}) };
  }
}

function grantFor(verdict: Extract<Verdict, { kind: 'ask' }>): SiteAccess[] {
  // Opening a page there, always: the user trusts the site with the agent's visits.
  if (verdict.reason === 'exfiltration') return verdict.target?.navigates ? ['act', 'read', 'send'] : ['send'];
  const access = verdict.target?.access;
  // Acting on a site includes reading it: the card said so.
  return access === 'act' ? ['act', 'read'] : access ? [access] : [];
}

const PREVIEW_MAX = 2000;
const cut = (s: string) => (s.length > PREVIEW_MAX ? `${s.slice(0, PREVIEW_MAX)}…` : s);

export function approvalDetails(call: GateCall, verdict: Extract<Verdict, { kind: 'ask' }>): ApprovalDetails {
  const target: CallTarget | undefined = verdict.target;
  const input = JSON.stringify(call.input ?? {}) ?? '{}';
  return {
    tool: call.tool,
    reason: verdict.reason,
    ...(target ? { access: target.access, url: target.url } : {}),
    ...(verdict.site ? { host: verdict.site.host || verdict.site.site, site: verdict.site.site } : {}),
    ...(target?.preview ? { preview: cut(target.preview) } : {}),
    ...(!target?.preview && input !== '{}' ? { input: cut(input) } : {}),
    ...(call.subAgent ? { subAgent: call.subAgent } : {}),
    canAlways: verdict.canAlways,
  };
}

const ACT_VERBS: Record<string, string> = {
  execute_script: 'run this code on',
  open_tab: 'open',
  close_tab: 'close a tab of',
  activate_tab: 'switch to a tab of',
  page_action: 'click, type or choose on',
};

/** What the call would do, as a phrase after "may" / "wants to". */
function whatOf(d: ApprovalDetails): string {
  const where = d.host ?? d.url ?? '';
  switch (d.reason) {
    case 'site':
      return d.access === 'read' ? `read ${where}` : `${ACT_VERBS[d.tool] ?? 'act on'} ${where}`;
    case 'exfiltration':
      if (d.tool === 'open_tab') return `open ${where} (${d.url ?? ''}), a site the user has not named or approved in this conversation`;
      return `send data to ${where} (${d.url ?? ''}), a site the user has not named or approved in this conversation`;
    case 'irreversible':
      return `use ${d.tool}, which cannot be undone${where ? ` (${where})` : ''}`;
    case 'destructive':
      return `use ${d.tool}, which deletes data`;
    case 'tool_rule':
      return `use ${d.tool}${where ? ` on ${where}` : ''}`;
  }
}

/** The card's sentence in English (notifications; the popup words it in the user's language). */
export function approvalSentence(d: ApprovalDetails): string {
  return `${d.subAgent ? `A sub-agent (${d.subAgent}) of Pagewright` : 'Pagewright'} wants to ${whatOf(d)}.`;
}
