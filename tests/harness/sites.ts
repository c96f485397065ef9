/**
 * Distinct sites for e2e tests, all served from 127.0.0.1: `siteUrl(server.url, 'shop')` is
 * `http://shop.pagewright.test:PORT`, the same server under another origin (the fixture server
 * ignores the Host header). The e2e browsers resolve these names to 127.0.0.1 (browsers.ts):
 * Chromium maps the whole domain with --host-resolver-rules, but Firefox's
 * network.dns.localDomains takes exact names only, so a test may use only the names listed here
 * — a name missing in Firefox would fail as an unknown host there and nowhere else.
 *
 * `.test` is reserved for testing (RFC 6761): no real DNS answers for it, so a name that
 * escaped the mapping fails instead of reaching someone's server.
 */
export const SITE_DOMAIN = 'pagewright.test';

/** Every name tests may use under SITE_DOMAIN. */
export const SITE_NAMES = [
  'shop', 'attacker', 'news', 'mail', 'docs', 'rebind',
  // The injection corpus's sites (tests/fixtures/injection/attacks.json).
  'account', 'bank', 'blog', 'console', 'crm', 'forum', 'help', 'recipes', 'search', 'status', 'support', 'travel',
  // The trust e2e's sites.
  'alpha', 'beta', 'blocked', 'kept', 'operated', 'race', 'stopped', 'killed',
] as const;

export type SiteName = (typeof SITE_NAMES)[number];

/** Host names the browsers map to 127.0.0.1. */
export const SITE_HOSTS: readonly string[] = SITE_NAMES.map((name) => `${name}.${SITE_DOMAIN}`);

/** `server` (http://127.0.0.1:PORT, a local server's url) as the site `name`: http://name.pagewright.test:PORT. */
export function siteUrl(server: string, name: SiteName): string {
  if (!SITE_NAMES.includes(name)) throw new Error(`"${name}" is not one of the test sites (${SITE_NAMES.join(', ')}); add it to SITE_NAMES in tests/harness/sites.ts.`);
  const url = new URL(server);
  url.hostname = `${name}.${SITE_DOMAIN}`;
  // URL keeps a trailing "/" for an empty path; server urls here have none.
  return url.href.replace(/\/$/, '');
}
