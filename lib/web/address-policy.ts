/**
 * Which addresses web_fetch may request. The extension's fetch runs with the user's network
 * position and host permissions, so an unchecked URL lets a page's text ("fetch
 * http://192.168.1.1/admin") steer the agent at the user's router, NAS, printer, local dev
 * servers or a cloud metadata endpoint. Loopback, private, link-local and local-network names
 * are refused unless the caller allows them.
 *
 * Limits — what the URL alone cannot show:
 * - DNS. A public name that resolves to 127.0.0.1 or 10.0.0.5 (a misconfigured or hostile DNS
 *   record, DNS rebinding, services such as 127.0.0.1.nip.io) passes here: only literal IP
 *   addresses and well-known local names are caught. The address an answer actually came from,
 *   as the browser reports it, is judged by `privateIpReason` below (answer-address.ts).
 * - Redirects. A public URL may redirect to a private one; the caller must check every hop
 *   (or at least `response.url`) again.
 * - Proxies and the hosts file: what a name means on the user's machine is not visible here.
 *
 * Hosts are classified after the WHATWG URL parser has canonicalised them: `new URL()` turns
 * `2130706433`, `0x7f.1`, `127.1`, `017700000001` and `%31%32%37.0.0.1` into `127.0.0.1`, and
 * `[::ffff:127.0.0.1]` into `[::ffff:7f00:1]`. The browser's fetch parses the same way, so the
 * host checked here is the host fetched.
 */

import { WebFetchError } from './errors';

export interface FetchUrlOptions {
  /** Let loopback, private-network and local names through (a user setting). */
  allowPrivate?: boolean;
}

type Ipv4 = [number, number, number, number];

interface Ipv4Range {
  base: Ipv4;
  bits: number;
  reason: string;
}

const v4 = (a: number, b: number, c: number, d: number): Ipv4 => [a, b, c, d];

// Ordered most specific first where ranges nest.
const IPV4_RANGES: readonly Ipv4Range[] = [
  { base: v4(0, 0, 0, 0), bits: 8, reason: 'a "this network" address (0.0.0.0/8, which reaches this computer)' },
  { base: v4(127, 0, 0, 0), bits: 8, reason: 'a loopback address (127.0.0.0/8, this computer)' },
  { base: v4(10, 0, 0, 0), bits: 8, reason: 'a private-network address (10.0.0.0/8)' },
  { base: v4(172, 16, 0, 0), bits: 12, reason: 'a private-network address (172.16.0.0/12)' },
  { base: v4(192, 168, 0, 0), bits: 16, reason: 'a private-network address (192.168.0.0/16)' },
  { base: v4(169, 254, 0, 0), bits: 16, reason: 'a link-local address (169.254.0.0/16, which includes cloud metadata services)' },
  // Carrier-grade NAT space; VPN overlays (Tailscale) also number the user's own devices here.
  { base: v4(100, 64, 0, 0), bits: 10, reason: 'a shared-address-space address (100.64.0.0/10, carrier NAT or a VPN such as Tailscale)' },
  { base: v4(192, 0, 0, 0), bits: 24, reason: 'an IETF protocol address (192.0.0.0/24)' },
  { base: v4(198, 18, 0, 0), bits: 15, reason: 'a network-benchmarking address (198.18.0.0/15)' },
  { base: v4(224, 0, 0, 0), bits: 4, reason: 'a multicast address (224.0.0.0/4)' },
  { base: v4(240, 0, 0, 0), bits: 4, reason: 'a reserved or broadcast address (240.0.0.0/4)' },
];

/**
 * Special-use names that only mean something on the user's own machine or network:
 * RFC 6761 (localhost), RFC 6762 (.local, mDNS), RFC 8375 (.home.arpa), ICANN's 2024
 * reservation of .internal, and the de-facto localhost.localdomain of /etc/hosts.
 */
const LOCAL_SUFFIXES: readonly [suffix: string, reason: string][] = [
  ['localhost', 'a name for this computer (localhost)'],
  ['localdomain', 'a name for this computer (localdomain)'],
  ['local', 'a local-network (mDNS) name (.local)'],
  ['home.arpa', 'a home-network name (.home.arpa)'],
  ['internal', 'a private-network name (.internal)'],
];

/**
 * Why a URL's host is a loopback, private, link-local or local-network target, or null when it
 * is not one as far as the URL shows. Does not resolve names (see the module comment).
 */
export function privateAddressReason(url: URL): string | null {
  const host = url.hostname.toLowerCase();
  if (!host) return null;
  if (host.startsWith('[') && host.endsWith(']')) {
    const groups = parseIpv6(host.slice(1, -1));
    return groups ? ipv6Reason(groups) : null;
  }
  const ip = parseCanonicalIpv4(host);
  if (ip) return ipv4Reason(ip);
  return nameReason(host);
}

/**
 * Why an IP address as the browser reports it ("127.0.0.1", "::ffff:7f00:1", "[fe80::1]") is a
 * loopback, private, link-local or otherwise local address; null for a public one, and
 * undefined when `ip` is not an IP address at all (the caller cannot trust such a report).
 */
export function privateIpReason(ip: string): string | null | undefined {
  const text = ip.trim().toLowerCase();
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const v4 = parseCanonicalIpv4(bare);
  if (v4) return ipv4Reason(v4);
  if (!bare.includes(':')) return undefined;
  const groups = parseIpv6(bare);
  return groups ? ipv6Reason(groups) : undefined;
}

/** Whether a URL's host is an IP address rather than a name (what the URL says is where it connects). */
export function isIpHost(url: URL): boolean {
  const host = url.hostname;
  return (host.startsWith('[') && host.endsWith(']')) || parseCanonicalIpv4(host) !== null;
}

/**
 * Checks a URL the model wants fetched and returns it parsed. Throws a WebFetchError whose
 * message tells the model what to change.
 */
export function checkFetchUrl(raw: string, { allowPrivate = false }: FetchUrlOptions = {}): URL {
  const text = raw.trim();
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new WebFetchError('invalid_url', `"${truncate(text)}" is not an absolute URL; give a full address such as https://example.com/page.`);
  }
  const scheme = url.protocol.toLowerCase();
  if (scheme !== 'http:' && scheme !== 'https:') throw new WebFetchError('scheme', schemeMessage(scheme));
  // Refused rather than stripped: the Fetch standard makes `new Request()` throw on a URL with
  // credentials anyway, `https://bank.example@evil.example/` is a classic disguise, and a
  // password the model copied from a page would end up in the request and the transcript.
  if (url.username || url.password) {
    throw new WebFetchError(
      'credentials',
      'URLs with a user name or password (user:pass@host) are refused; remove the credentials part. web_fetch cannot log in to sites.',
    );
  }
  if (!url.hostname) throw new WebFetchError('invalid_url', `"${truncate(text)}" has no host name.`);
  if (url.port && BAD_PORTS.has(Number(url.port))) {
    throw new WebFetchError('blocked_port', `Port ${url.port} is blocked by browsers for fetches (it belongs to a non-web protocol); web pages are on ports such as 80 and 443.`);
  }
  if (!allowPrivate) {
    const reason = privateAddressReason(url);
    if (reason) {
      throw new WebFetchError(
        'private_address',
        `${url.hostname} is ${reason}. web_fetch does not reach the user's own computer or local network unless the user allows it in Pagewright's settings.`,
      );
    }
  }
  return url;
}

function schemeMessage(scheme: string): string {
  switch (scheme) {
    case 'file:':
      return 'file: URLs are refused: web_fetch only reads http:// and https:// addresses. A local file can be opened in a tab if the user allowed file access.';
    case 'data:':
      return 'data: URLs are refused: their content is already in the URL, so there is nothing to fetch.';
    case 'javascript:':
      return 'javascript: URLs are refused: web_fetch fetches documents and never runs code.';
    case 'blob:':
      return 'blob: URLs are refused: they belong to the page that made them and cannot be fetched from outside it.';
    case 'ftp:':
    case 'sftp:':
    case 'ws:':
    case 'wss:':
      return `${scheme} URLs are not supported: web_fetch only reads http:// and https:// addresses.`;
    default:
      if (/^(chrome|chrome-extension|chrome-untrusted|edge|brave|opera|vivaldi|about|moz-extension|resource|view-source|devtools)[:]$/.test(scheme)) {
        return `${scheme} addresses are the browser's own internal pages; web_fetch only reads http:// and https:// addresses.`;
      }
      return `${scheme} URLs are not supported: web_fetch only reads http:// and https:// addresses.`;
  }
}

function nameReason(host: string): string | null {
  const name = host.endsWith('.') ? host.slice(0, -1) : host;
  for (const [suffix, reason] of LOCAL_SUFFIXES) {
    if (name === suffix || name.endsWith(`.${suffix}`)) return reason;
  }
  // A dotless name ("router", "nas", "intranet") is resolved through the local network's DNS
  // search domains; ICANN forbids dotless public names, so none is a public web site.
  if (!name.includes('.')) return 'a single-label name, which only the local network resolves';
  return null;
}

/** The WHATWG parser leaves an IPv4 host in dotted-decimal form; anything else is a name. */
function parseCanonicalIpv4(host: string): Ipv4 | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (!m) return null;
  const parts = [Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4])];
  if (parts.some((p) => p > 255)) return null;
  return parts as Ipv4;
}

function ipv4Reason(ip: Ipv4): string | null {
  const n = ipv4ToInt(ip);
  for (const range of IPV4_RANGES) {
    const mask = range.bits === 0 ? 0 : (0xffffffff << (32 - range.bits)) >>> 0;
    if (((n & mask) >>> 0) === ((ipv4ToInt(range.base) & mask) >>> 0)) return range.reason;
  }
  return null;
}

const ipv4ToInt = (ip: Ipv4): number => ((ip[0] << 24) | (ip[1] << 16) | (ip[2] << 8) | ip[3]) >>> 0;

/** Parses an IPv6 literal (without brackets) into eight 16-bit groups. */
function parseIpv6(text: string): number[] | null {
  let body = text.toLowerCase();
  const zone = body.indexOf('%');
  if (zone >= 0) body = body.slice(0, zone);
  // A dotted IPv4 tail ("::ffff:127.0.0.1"); WHATWG serialises it as hex, but be lenient.
  const dotted = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(body);
  if (dotted) {
    const b = dotted.slice(1, 5).map(Number) as [number, number, number, number];
    if (b.some((x) => x > 255)) return null;
    body = `${body.slice(0, dotted.index)}${((b[0] << 8) | b[1]).toString(16)}:${((b[2] << 8) | b[3]).toString(16)}`;
  }
  const halves = body.split('::');
  if (halves.length > 2) return null;
  const parse = (part: string): number[] | null => {
    if (!part) return [];
    const out: number[] = [];
    for (const g of part.split(':')) {
      if (!/^[0-9a-f]{1,4}$/.test(g)) return null;
      out.push(parseInt(g, 16));
    }
    return out;
  };
  const head = parse(halves[0]!);
  const rest = halves.length === 2 ? parse(halves[1]!) : [];
  if (!head || !rest) return null;
  let groups = head;
  if (halves.length === 2) {
    const missing = 8 - head.length - rest.length;
    if (missing < 1) return null;
    groups = [...head, ...new Array<number>(missing).fill(0), ...rest];
  }
  return groups.length === 8 ? groups : null;
}

function ipv6Reason(g: number[]): string | null {
  const [a, b, c, d, e, f] = g as [number, number, number, number, number, number, number, number];
  const embedded = (): Ipv4 => [g[6]! >> 8, g[6]! & 0xff, g[7]! >> 8, g[7]! & 0xff];
  if (g.every((x) => x === 0)) return 'the unspecified address (::), which reaches this computer';
  if (g.slice(0, 7).every((x) => x === 0) && g[7] === 1) return 'the IPv6 loopback address (::1, this computer)';
  // ::ffff:a.b.c.d (IPv4-mapped) is an IPv4 connection; ::a.b.c.d (deprecated IPv4-compatible)
  // and 64:ff9b::a.b.c.d (NAT64) carry an IPv4 target too, so the IPv4 rules decide.
  const upperZero = a === 0 && b === 0 && c === 0 && d === 0 && e === 0;
  if ((upperZero && (f === 0xffff || f === 0)) || (a === 0x64 && b === 0xff9b && c === 0 && d === 0 && e === 0 && f === 0)) {
    const inner = ipv4Reason(embedded());
    return inner ? `an IPv6 form of ${inner}` : null;
  }
  // 6to4 (2002:AABB:CCDD::/48) tunnels to the IPv4 address AABBCCDD.
  if (a === 0x2002) {
    const inner = ipv4Reason([b >> 8, b & 0xff, c >> 8, c & 0xff]);
    return inner ? `a 6to4 form of ${inner}` : null;
  }
  // ::ffff:0:a.b.c.d (IPv4-translated, RFC 6145) is an IPv4 target through a translator.
  if (a === 0 && b === 0 && c === 0 && d === 0 && e === 0xffff && f === 0) {
    const inner = ipv4Reason(embedded());
    return inner ? `an IPv6 form of ${inner}` : null;
  }
  // 64:ff9b:1::/48 is NAT64 run by the local network itself (RFC 8215), whatever it embeds.
  if (a === 0x64 && b === 0xff9b && c === 1) return 'a local-use NAT64 address (64:ff9b:1::/48, a translator on the local network)';
  if ((a & 0xfe00) === 0xfc00) return 'a unique-local IPv6 address (fc00::/7, a private network)';
  if ((a & 0xffc0) === 0xfe80) return 'a link-local IPv6 address (fe80::/10)';
  if ((a & 0xffc0) === 0xfec0) return 'a site-local IPv6 address (fec0::/10, a private network)';
  if ((a & 0xff00) === 0xff00) return 'a multicast IPv6 address (ff00::/8)';
  return null;
}

/**
 * Ports the Fetch standard's "bad port" list blocks (SMTP, IRC, SIP…). Checked here so the
 * model gets a reason instead of the browser's bare "Failed to fetch".
 */
const BAD_PORTS = new Set([
  1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104, 109, 110, 111, 113,
  115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532, 540, 548, 554,
  556, 563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666,
  6667, 6668, 6669, 6679, 6697, 10080,
]);

function truncate(s: string, max = 80): string {
  return s.length > max ? `${s.slice(0, max)}…` : s;
}
