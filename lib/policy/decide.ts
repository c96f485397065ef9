/**
 * The policy's decision on one tool call, as a pure function of the call and what the
 * conversation knows: allow (by which rule), block (why), or ask the user (why). The order is
 * the point: a block always wins; irreversible actions and data leaving for a destination the
 * user never named (once untrusted text is in the conversation) ask whatever the mode or the
 * tool's override says; only then do the overrides, the site rules and the mode speak.
 */
import type { AskReason, CallTarget, Permissions, PolicyRule } from '../contracts/permissions';
import type { RiskClass } from '../contracts/tools';
import { hostWithin, ruleFor, siteOf, type SiteOf } from './sites';

export interface PolicyCall {
  tool: string;
  risk: RiskClass;
  /** agent, delegate_to_agent: their sub-agent's calls are decided one by one, not the start. */
  spawnsAgent?: boolean;
  /** Loses the user's data (opfs_delete): asks in "Ask before acting". */
  destructive?: boolean;
  targets: readonly CallTarget[];
}

export interface PolicyState {
  permissions: Permissions;
  /** Third-party text (a page, a fetched document, search results, a skill's answer) is in the conversation. */
  tainted: boolean;
  /** Hosts the user named in their own messages. */
  namedHosts: readonly string[];
  /** Sites the user allowed with a click in this conversation. */
  grantedSites: ReadonlySet<string>;
  /** Sites the user configured as destinations: the model endpoint, the search engine. */
  destinations: ReadonlySet<string>;
  /** The site of the tab that was active when the user sent the message: it may be read. */
  activeSite?: string;
}

export type Verdict =
  | { kind: 'allow'; rule: PolicyRule; site?: string }
  | { kind: 'block'; rule: PolicyRule; site?: string; message: string }
  | { kind: 'ask'; reason: AskReason; target?: CallTarget; site?: SiteOf; canAlways: boolean };

export function decide(call: PolicyCall, state: PolicyState): Verdict {
  const { permissions } = state;
  const toolRule = permissions.tools[call.tool];
  if (toolRule === 'block') {
    return { kind: 'block', rule: 'tool_block', message: `The user blocked the tool ${call.tool} in Pagewright's Permissions. Do not retry it or try to reach the same result another way.` };
  }
  const targets = call.targets.map((target) => ({ target, site: siteOf(target.url) }));
  for (const { target, site } of targets) {
    if (!site) continue;
    if (site.scheme === 'file' && !permissions.localFiles) {
      return {
        kind: 'block',
        rule: 'local_files',
        site: site.site,
        message: "file: URLs are refused: local files are off in Pagewright's Permissions (whatever file access the browser gives the extension). Only the user can turn them on; do not retry.",
      };
    }
    if (ruleFor(permissions.sites, site)?.[target.access] === 'block') {
      return {
        kind: 'block',
        rule: 'site_block',
        site: site.site,
        message: `The user blocked ${site.host || site.site} for Pagewright (${verbOf(target.access)} it is not allowed). Do not retry or try another way to reach it.`,
      };
    }
  }
  if (call.risk === 'irreversible_external' && !call.spawnsAgent) {
    const first = targets[0];
    return { kind: 'ask', reason: 'irreversible', canAlways: false, ...(first ? { target: first.target, ...(first.site ? { site: first.site } : {}) } : {}) };
  }
  if (state.tainted) {
    for (const { target, site } of targets) {
      if ((target.access === 'send' || target.navigates) && !approvedDestination(site, state)) {
        return { kind: 'ask', reason: 'exfiltration', target, ...(site ? { site } : {}), canAlways: !!site && site.scheme !== 'file' };
      }
    }
  }
  if (toolRule === 'allow') return { kind: 'allow', rule: 'tool_allow' };
  if (toolRule === 'ask') {
    const first = targets[0];
    return { kind: 'ask', reason: 'tool_rule', canAlways: false, ...(first ? { target: first.target, ...(first.site ? { site: first.site } : {}) } : {}) };
  }
  let allowed: Verdict = { kind: 'allow', rule: 'default' };
  for (const { target, site } of targets) {
    const verdict = siteVerdict(target, site, state);
    if (verdict.kind !== 'allow') return verdict;
    if (verdict.rule !== 'default') allowed = verdict;
  }
  if (!targets.length && call.destructive && permissions.mode === 'ask') return { kind: 'ask', reason: 'destructive', canAlways: false };
  return allowed;
}

function siteVerdict(target: CallTarget, site: SiteOf | undefined, state: PolicyState): Verdict {
  if (!site) return { kind: 'allow', rule: 'default' };
  const rule = ruleFor(state.permissions.sites, site);
  const key = site.site;
  if (target.access === 'send') {
    // A site the user allowed to be read or acted on is one they trust with requests too.
    if (rule && (rule.send === 'allow' || rule.read === 'allow' || rule.act === 'allow')) return { kind: 'allow', rule: 'site_allow', site: key };
    if (state.destinations.has(key)) return { kind: 'allow', rule: 'approved_destination', site: key };
    if (state.namedHosts.some((h) => hostWithin(site.host, h))) return { kind: 'allow', rule: 'user_named', site: key };
    // Sending is not acting: before any untrusted text came in (the guard above), nothing in the
    // conversation but the user's own words could have chosen what leaves.
    return { kind: 'allow', rule: 'default', site: key };
  }
  if (target.access === 'read') {
    if (rule?.read === 'allow' || rule?.act === 'allow') return { kind: 'allow', rule: 'site_allow', site: key };
    if (state.activeSite === key) return { kind: 'allow', rule: 'active_tab', site: key };
  } else if (rule?.act === 'allow') {
    return { kind: 'allow', rule: 'site_allow', site: key };
  }
  if (state.permissions.mode === 'act') return { kind: 'allow', rule: 'mode_act', site: key };
  return { kind: 'ask', reason: 'site', target, site, canAlways: site.scheme !== 'file' };
}

/** Where data may go once untrusted text is in the conversation: places the user chose. */
function approvedDestination(site: SiteOf | undefined, state: PolicyState): boolean {
  if (!site) return false;
  if (state.destinations.has(site.site) || state.grantedSites.has(site.site)) return true;
  if (state.namedHosts.some((h) => hostWithin(site.host, h))) return true;
  const rule = ruleFor(state.permissions.sites, site);
  return !!rule && (rule.send === 'allow' || rule.read === 'allow' || rule.act === 'allow');
}

export const verbOf = (access: CallTarget['access']) => (access === 'read' ? 'reading' : access === 'act' ? 'acting on' : 'sending data to');
