/**
 * Links that go through a redirector (an affiliate network, a social site's "you are leaving"
 * page, a mail filter) are shown as where they lead: the model then sees the real destination
 * (which site, which product) and can fetch it without the redirector logging the visit, and the
 * wrapper's tokens go (an affiliate link on a review page is often 100 tokens, 3× its target).
 *
 * Only redirectors known to forward to the URL in one named parameter are unwrapped: a parameter
 * holding a URL elsewhere may mean anything ("from=", "return_to=" name where the user came from).
 */

/** host → the parameters that hold the destination, in the order tried. A leading "." matches subdomains. */
const REDIRECTORS: ReadonlyMap<string, readonly string[]> = new Map([
  ['go.redirectingat.com', ['url']], // Skimlinks
  ['go.skimresources.com', ['url']],
  ['click.linksynergy.com', ['murl', 'RD_PARM1']], // Rakuten
  ['www.awin1.com', ['ued']],
  ['www.google.com', ['q', 'url']], // /url only: see PATHS
  ['google.com', ['q', 'url']],
  ['l.facebook.com', ['u']],
  ['lm.facebook.com', ['u']],
  ['l.instagram.com', ['u']],
  ['out.reddit.com', ['url']],
  ['www.youtube.com', ['q']],
  ['t.umblr.com', ['z']],
  ['www.linkedin.com', ['url']],
  ['steamcommunity.com', ['url', 'u']],
  ['slack-redir.net', ['url']],
  ['.safelinks.protection.outlook.com', ['url']],
]);

/** On hosts that serve pages too, only these paths redirect. */
const PATHS: ReadonlyMap<string, RegExp> = new Map([
  ['www.google.com', /^\/url$/],
  ['google.com', /^\/url$/],
  ['www.youtube.com', /^\/redirect$/],
  ['www.linkedin.com', /^\/redir\/redirect\/?$/],
  ['steamcommunity.com', /^\/linkfilter\/?$/],
  ['t.umblr.com', /^\/redirect$/],
]);

/** Redirectors inside redirectors: followed this many times at most. */
const MAX_HOPS = 3;

function paramsOf(host: string): readonly string[] | undefined {
  const exact = REDIRECTORS.get(host);
  if (exact) return exact;
  for (const [name, params] of REDIRECTORS) if (name.startsWith('.') && host.endsWith(name)) return params;
  return undefined;
}

/**
 * Where `url` leads when it is a known redirector's link with an http(s) destination; else `url`
 * itself. Never throws: a parameter that is not a URL leaves the link as it was.
 */
export function unwrapRedirect(url: URL): URL {
  let current = url;
  for (let hop = 0; hop < MAX_HOPS; hop++) {
    const host = current.hostname.toLowerCase();
    const params = paramsOf(host);
    if (!params) break;
    const path = PATHS.get(host);
    if (path && !path.test(current.pathname)) break;
    let next: URL | null = null;
    for (const name of params) {
      const value = current.searchParams.get(name); // decoded once, as the redirector decodes it
      if (!value || !/^https?:\/\//i.test(value.trim())) continue;
      try {
        next = new URL(value.trim());
      } catch {
        next = null;
      }
      if (next) break;
    }
    if (!next) break;
    current = next;
  }
  return current;
}
