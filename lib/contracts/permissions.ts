/**
 * A contract: the user's permissions (what the agent may read, act on and send where), what a
 * tool call says it touches, and the decision the policy takes on it — as the policy decides,
 * the approval card asks, the tool card and the activity log show, and the management page edits.
 */

/** What a call does with a site: reads its pages, acts in them as the user, or sends data to it. */
export type SiteAccess = 'read' | 'act' | 'send';
export const SITE_ACCESSES = ['read', 'act', 'send'] as const satisfies readonly SiteAccess[];

export type RuleLevel = 'ask' | 'allow' | 'block';
export const RULE_LEVELS = ['ask', 'allow', 'block'] as const satisfies readonly RuleLevel[];

/**
 * "Ask before acting" (the default) or "Act without asking" (opt-in): the latter reads and acts
 * on sites without asking, but still asks for irreversible actions and before data leaves for a
 * destination the user never named once untrusted text is in the conversation.
 */
export type PolicyMode = 'ask' | 'act';

/** One site the user decided about: a scheme and host (any port), optionally its subdomains too. */
export interface SiteRule {
  /** `https://mail.example.com`: scheme and host, lower case, no port. */
  site: string;
  subdomains: boolean;
  read: RuleLevel;
  act: RuleLevel;
  send: RuleLevel;
  /** When a call last used the rule (epoch ms). */
  lastUsed?: number;
  createdAt: number;
}

export const PERMISSIONS_VERSION = 1;

export interface Permissions {
  version: typeof PERMISSIONS_VERSION;
  mode: PolicyMode;
  sites: SiteRule[];
  /** Per tool (built-in or a skill's), overriding the mode: absent means the mode decides. */
  tools: Record<string, RuleLevel>;
  /** file: URLs may be opened and read (whatever file access the browser grants the extension). */
  localFiles: boolean;
}

export const defaultPermissions = (): Permissions => ({ version: PERMISSIONS_VERSION, mode: 'ask', sites: [], tools: {}, localFiles: false });

/** What one call touches, as its tool says before it runs (ToolDefinition.targets). */
export interface CallTarget {
  access: SiteAccess;
  url: string;
  /** What the card shows besides the URL: the code to run, the body to send. */
  preview?: string;
  /** The call loads `url` in the user's browser (open_tab): the address itself leaves, like a send. */
  navigates?: boolean;
}

/** Why a call needs the user's word. */
export type AskReason = 'site' | 'tool_rule' | 'exfiltration' | 'irreversible' | 'destructive';

/** What an approval card shows, in the user's words (the UI words it from these facts). */
export interface ApprovalDetails {
  tool: string;
  reason: AskReason;
  access?: SiteAccess;
  /** The host as the user knows it (mail.example.com). */
  host?: string;
  /** The site key "Always" would save (scheme://host). */
  site?: string;
  /** The full URL, query included: exactly where data would go. */
  url?: string;
  preview?: string;
  /** The arguments of a call that has no site (an irreversible skill, a tool the user set to Ask). */
  input?: string;
  /** Set when a sub-agent makes the call: its type or profile name. */
  subAgent?: string;
  /** "Always on this site" is offered (never for irreversible actions). */
  canAlways: boolean;
}

export type ApprovalChoice = 'once' | 'always' | 'deny';

/** Which rule let a call run or stopped it, when no one clicked. */
export type PolicyRule =
  | 'tool_allow'
  | 'tool_block'
  | 'site_allow'
  | 'site_block'
  | 'mode_act'
  | 'active_tab'
  | 'user_named'
  | 'approved_destination'
  | 'approved_in_conversation'
  | 'local_files'
  | 'default';

/** How a consequential call was decided: kept with its result (the tool card) and in the activity log. */
export interface CallDecision {
  outcome: 'allowed' | 'denied' | 'blocked';
  /** A rule decided, the user clicked, or nobody answered in time / the run stopped. */
  by: 'rule' | 'user' | 'timeout' | 'stopped';
  rule?: PolicyRule;
  /** The user's click, when they made one. */
  choice?: ApprovalChoice;
  site?: string;
  reason?: AskReason;
}

/** One consequential call, as the activity log keeps it. */
export interface ActivityEntry {
  at: number;
  conversationId: string;
  tool: string;
  site?: string;
  url?: string;
  access?: SiteAccess;
  subAgent?: string;
  decision: CallDecision;
}

export const ACTIVITY_LOG_CAP = 10_000;

