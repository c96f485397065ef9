/**
 * Where a base URL's server is: on this machine (loopback), on the user's network (a private or
 * link-local address, or a `.local` name), or out on the internet. Local servers need no key and
 * may refuse an extension's Origin; the Origin fix and the Test button's wording both ask here.
 */
export type HostKind = 'loopback' | 'private' | 'public';

/** `undefined` for what is not an http(s) URL. */
export function hostKindOf(baseUrl: string): HostKind | undefined {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  const host = url.hostname.toLowerCase();
  if (isLoopback(host)) return 'loopback';
  return isPrivate(host) ? 'private' : 'public';
}

/** localhost and its subdomains (browsers resolve them to loopback), 127.0.0.0/8, [::1], 0.0.0.0. */
function isLoopback(host: string): boolean {
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (host === '[::1]' || host === '0.0.0.0') return true;
  const v4 = ipv4(host);
  return !!v4 && v4[0] === 127;
}

/** 10/8, 172.16/12, 192.168/16, link-local 169.254/16, IPv6 unique-local fc00::/7 and link-local fe80::/10, mDNS `.local`. */
function isPrivate(host: string): boolean {
  if (host.endsWith('.local')) return true;
  const v4 = ipv4(host);
  if (v4) {
    const [a, b] = v4 as [number, number];
    return a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254);
  }
  if (!host.startsWith('[')) return false;
  const first = parseInt(host.slice(1).split(':')[0] || '0', 16);
  return (first & 0xfe00) === 0xfc00 || (first & 0xffc0) === 0xfe80;
}

/** The four numbers of a dotted IPv4 host (URL has already normalised other notations to it). */
function ipv4(host: string): number[] | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  return m ? m.slice(1).map(Number) : undefined;
}
