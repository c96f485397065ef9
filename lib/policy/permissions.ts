/**
 * The stored permissions' schema and its migration: whatever storage holds (an older version, a
 * hand-edited or half-written record) becomes valid permissions, keeping every entry that checks
 * out and saying which did not — a broken entry must never silently widen or drop a user's rule.
 */
import * as v from 'valibot';
import { defaultPermissions, PERMISSIONS_VERSION, RULE_LEVELS, type Permissions, type RuleLevel, type SiteRule } from '../contracts/permissions';
import { siteKey } from './sites';

export const PERMISSIONS_STORAGE_KEY = 'permissions';

const level = v.picklist(RULE_LEVELS);
const SiteRuleSchema = v.object({
  site: v.string(),
  subdomains: v.optional(v.boolean(), false),
  read: v.optional(level, 'ask'),
  act: v.optional(level, 'ask'),
  send: v.optional(level, 'ask'),
  lastUsed: v.optional(v.pipe(v.number(), v.finite())),
  createdAt: v.optional(v.pipe(v.number(), v.finite()), 0),
});
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,128}$/;

export interface Migrated {
  permissions: Permissions;
  /** One sentence per entry that was dropped or field that fell back to its default. */
  problems: string[];
}

export function migratePermissions(stored: unknown): Migrated {
  const base = defaultPermissions();
  const problems: string[] = [];
  if (stored === undefined || stored === null) return { permissions: base, problems };
  if (typeof stored !== 'object' || Array.isArray(stored)) {
    return { permissions: base, problems: ['The stored permissions were not a record; the defaults apply.'] };
  }
  const s = stored as Record<string, unknown>;
  if (s.version !== undefined && s.version !== PERMISSIONS_VERSION) {
    problems.push(`The stored permissions have version ${JSON.stringify(s.version)}; read as version ${PERMISSIONS_VERSION}.`);
  }
  const out = base;
  if (s.mode === 'ask' || s.mode === 'act') out.mode = s.mode;
  else if (s.mode !== undefined) problems.push(`Unknown mode ${JSON.stringify(s.mode)}: "Ask before acting" applies.`);
  if (typeof s.localFiles === 'boolean') out.localFiles = s.localFiles;
  else if (s.localFiles !== undefined) problems.push('localFiles was not true or false: local files stay off.');

  if (Array.isArray(s.sites)) {
    const seen = new Set<string>();
    s.sites.forEach((entry, i) => {
      const parsed = v.safeParse(SiteRuleSchema, entry);
      const key = parsed.success ? siteKey(parsed.output.site) : undefined;
      if (!parsed.success || !key) {
        problems.push(`Site entry ${i + 1} (${describe(entry)}) is not a valid site rule and was dropped.`);
        return;
      }
      if (seen.has(key)) {
        problems.push(`Site entry ${i + 1} repeats ${key}; the first one is kept.`);
        return;
      }
      seen.add(key);
      const rule: SiteRule = { ...parsed.output, site: key };
      if (rule.lastUsed === undefined) delete rule.lastUsed;
      out.sites.push(rule);
    });
  } else if (s.sites !== undefined) {
    problems.push('The site list was not a list; no site rules apply.');
  }

  if (s.tools && typeof s.tools === 'object' && !Array.isArray(s.tools)) {
    for (const [name, value] of Object.entries(s.tools as Record<string, unknown>)) {
      if (!TOOL_NAME.test(name) || !RULE_LEVELS.includes(value as RuleLevel)) {
        problems.push(`The tool rule ${JSON.stringify(name)}: ${JSON.stringify(value)} is not valid and was dropped.`);
        continue;
      }
      out.tools[name] = value as RuleLevel;
    }
  } else if (s.tools !== undefined) {
    problems.push('The tool rules were not a record; none apply.');
  }
  return { permissions: out, problems };
}

function describe(entry: unknown): string {
  const text = JSON.stringify(entry) ?? String(entry);
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}

/** A copy of `permissions` with `site` allowed for `accesses` (Always on this site). */
export function withGrant(permissions: Permissions, site: string, accesses: readonly ('read' | 'act' | 'send')[], now = Date.now()): Permissions {
  const sites = permissions.sites.slice();
  const i = sites.findIndex((r) => r.site === site);
  const rule: SiteRule = i >= 0 ? { ...sites[i]! } : { site, subdomains: false, read: 'ask', act: 'ask', send: 'ask', createdAt: now };
  for (const a of accesses) rule[a] = 'allow';
  rule.lastUsed = now;
  if (i >= 0) sites[i] = rule;
  else sites.push(rule);
  return { ...permissions, sites };
}
