/**
 * The edits the Permissions section makes, as pure functions of the permissions they change: the
 * page applies each one to the latest stored record (never to its own copy), so a grant the
 * background saved a moment ago survives the user's next click.
 */
import type { Permissions, PolicyMode, RuleLevel, SiteAccess, SiteRule } from '../../lib/contracts/permissions';
import { siteKey } from '../../lib/policy/sites';

export type SiteInput = { ok: true; site: string } | { ok: false; problem: 'empty' | 'invalid' | 'file' };

/**
 * A host as URLs carry it once parsed: names of letters, digits, "-", "_" and dots (an IDN is in
 * its xn-- form by then), or a bracketed IPv6 address. Chromium's URL parser accepts what the
 * standard refuses — "not a host" becomes the host "not%20a%20host" — so the parse alone does
 * not tell a typo from a site.
 */
const HOST = /^(?:[a-z0-9_-]+(?:\.[a-z0-9_-]+)*|\[[0-9a-f:.]+\])$/;

/** What the user typed in "Add site", as the site key a rule is saved under. */
export function parseSiteInput(text: string): SiteInput {
  if (!text.trim()) return { ok: false, problem: 'empty' };
  const site = siteKey(text);
  // file: URLs are one site the Local files switch decides; a rule for them would only confuse.
  if (site === 'file://') return { ok: false, problem: 'file' };
  if (!site || !HOST.test(site.slice(site.indexOf('://') + 3))) return { ok: false, problem: 'invalid' };
  return { ok: true, site };
}

export const hasSite = (p: Permissions, site: string) => p.sites.some((r) => r.site === site);

/** Adds a rule that asks for everything (the user picks the levels in its row); unchanged when the site has one. */
export function addSite(p: Permissions, site: string, subdomains: boolean, now = Date.now()): Permissions {
  if (hasSite(p, site)) return p;
  const rule: SiteRule = { site, subdomains, read: 'ask', act: 'ask', send: 'ask', createdAt: now };
  return { ...p, sites: [...p.sites, rule] };
}

const changeSite = (p: Permissions, site: string, change: (r: SiteRule) => SiteRule): Permissions => ({
  ...p,
  sites: p.sites.map((r) => (r.site === site ? change(r) : r)),
});

export const setSiteLevel = (p: Permissions, site: string, access: SiteAccess, level: RuleLevel) => changeSite(p, site, (r) => ({ ...r, [access]: level }));

export const setSubdomains = (p: Permissions, site: string, subdomains: boolean) => changeSite(p, site, (r) => ({ ...r, subdomains }));

/** Block site: reading, acting and sending all blocked. */
export const blockSite = (p: Permissions, site: string) => changeSite(p, site, (r) => ({ ...r, read: 'block', act: 'block', send: 'block' }));

/** Revoke: the rule goes, and the mode decides for the site again. */
export const revokeSite = (p: Permissions, site: string): Permissions => ({ ...p, sites: p.sites.filter((r) => r.site !== site) });

/** A tool's rule; undefined removes it (Default: the mode decides). */
export function setToolRule(p: Permissions, tool: string, level: RuleLevel | undefined): Permissions {
  const tools = { ...p.tools };
  if (level) tools[tool] = level;
  else delete tools[tool];
  return { ...p, tools };
}

export const setMode = (p: Permissions, mode: PolicyMode): Permissions => ({ ...p, mode });

export const setLocalFiles = (p: Permissions, localFiles: boolean): Permissions => ({ ...p, localFiles });
