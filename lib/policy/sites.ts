/**
 * Sites as the permissions name them: a scheme and a host, any port. Pure functions, so the
 * policy's decisions can be tested without a browser.
 */
import type { Permissions, SiteRule } from '../contracts/permissions';

export interface SiteOf {
  /** `https://mail.example.com` (file: URLs are all one site, `file://`). */
  site: string;
  scheme: string;
  /** Lower case, without a trailing dot; empty for file: URLs. */
  host: string;
}

const HOST = /^(?:[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?\.)*[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?$|^\[[0-9a-f:.]+\]$/;

/** The site of `url`, or undefined when it has none the permissions could name (data:, about:). */
export function siteOf(url: string): SiteOf | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined;
  }
  const scheme = u.protocol.slice(0, -1).toLowerCase();
  if (scheme === 'file') return { site: 'file://', scheme, host: '' };
  if (scheme !== 'http' && scheme !== 'https') return undefined;
  const host = u.hostname.toLowerCase().replace(/\.$/, '');
  // Chromium's URL parser percent-encodes what others refuse ("a b.example" → "a%20b.example"):
  // a host is letters, digits, hyphens and dots (IDNs arrive as punycode), or a bracketed IPv6.
  return host && HOST.test(host) ? { site: `${scheme}://${host}`, scheme, host } : undefined;
}

/** Normalises what a user typed as a site ("Mail.Example.com", "https://x.org/path") to a site key. */
export function siteKey(input: string): string | undefined {
  const text = input.trim();
  if (!text) return undefined;
  return siteOf(/^[a-z][a-z0-9+.-]*:/i.test(text) ? text : `https://${text}`)?.site;
}

/** Rules by site key, built once per permissions object (the list can be long; calls are many). */
const indexes = new WeakMap<readonly SiteRule[], Map<string, SiteRule>>();
function indexOf(rules: readonly SiteRule[]): Map<string, SiteRule> {
  let index = indexes.get(rules);
  if (!index) {
    index = new Map();
    for (const r of rules) if (!index.has(r.site)) index.set(r.site, r);
    indexes.set(rules, index);
  }
  return index;
}

/** The rule that decides for `site`: an exact one first, else the closest parent that covers subdomains. */
export function ruleFor(rules: readonly SiteRule[], site: SiteOf): SiteRule | undefined {
  const index = indexOf(rules);
  const exact = index.get(site.site);
  if (exact) return exact;
  for (let i = site.host.indexOf('.'); i >= 0; i = site.host.indexOf('.', i + 1)) {
    const parent = index.get(`${site.scheme}://${site.host.slice(i + 1)}`);
    if (parent?.subdomains) return parent;
  }
  return undefined;
}

/**
 * Whether the model may be told of a tab at `url` (its title and address with the user's
 * message): not when the user blocked reading its site, nor a local file while local files are off.
 */
export function mayNameTab(permissions: Permissions, url: string): boolean {
  const site = siteOf(url);
  if (!site) return true;
  if (site.scheme === 'file' && !permissions.localFiles) return false;
  return ruleFor(permissions.sites, site)?.read !== 'block';
}

/** `host` is `named` or one of its subdomains (a user who names example.com means www.example.com too). */
export const hostWithin = (host: string, named: string) => host === named || host.endsWith(`.${named}`);

const URL_IN_TEXT = /\bhttps?:\/\/[^\s<>"'`)\]}]+/gi;
// A bare domain the user typed: labels of letters, digits and hyphens, ending in a letters-only
// top-level label (so "3.14" and "v1.2" are not sites). Preceded by nothing word-like or "@",
// so an e-mail address names its domain too.
const BARE_DOMAIN = /(?<![\w.-])((?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63})(?![\w-])/gi;

/** The hosts a user's own message names: its URLs' hosts and the domains it spells out. */
export function hostsNamedIn(text: string): string[] {
  const hosts = new Set<string>();
  for (const m of text.matchAll(URL_IN_TEXT)) {
    const s = siteOf(m[0]);
    if (s?.host) hosts.add(s.host);
  }
  for (const m of text.replace(URL_IN_TEXT, ' ').matchAll(BARE_DOMAIN)) hosts.add(m[1]!.toLowerCase());
  return [...hosts];
}
