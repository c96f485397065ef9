/**
 * Which model endpoints get their Origin header fixed (lib/browser/local-origin.ts does it).
 *
 * A local model server that checks Origin refuses the extension's: Ollama allows only its own
 * host, localhost, 127.0.0.1 and 0.0.0.0 (any port) and a few app schemes unless OLLAMA_ORIGINS
 * says more, and answers anything else with a bare 403. Every such server accepts a request whose
 * Origin is its own, so the extension's own requests to a configured local endpoint are sent with
 * that origin instead of `chrome-extension://…` / `moz-extension://…`.
 *
 * Only loopback servers (any preset: a local proxy configured as "Other" counts) and, for presets
 * marked local, servers on the private network (Ollama on another machine at home). Never a
 * public host: there the Origin is the server's business, and it is not ours to claim another.
 * Pure, so the background, the Test button's wording and the tests agree on it.
 */
import type { Settings } from '../../settings';
import { configuredEndpoints } from './endpoints';
import { PROVIDER_PRESETS } from './presets';

/** The origin to send to `baseUrl`'s server (its own), or undefined when it gets no fix. */
export function originFixFor(baseUrl: string, { local = false }: { local?: boolean } = {}): string | undefined {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  const host = url.hostname.toLowerCase();
  return isLoopback(host) || (local && isPrivate(host)) ? url.origin : undefined;
}

/** The origins (scheme://host[:port]) of every configured endpoint that gets the fix, sorted, each once. */
export function localOriginTargets(settings: Settings): string[] {
  const origins = configuredEndpoints(settings).flatMap((e) => {
    const origin = originFixFor(e.baseUrl, { local: PROVIDER_PRESETS[e.provider].local });
    return origin ? [origin] : [];
  });
  return [...new Set(origins)].sort();
}

/** localhost and its subdomains (browsers resolve them to loopback), 127.0.0.0/8, [::1], 0.0.0.0. */
function isLoopback(host: string): boolean {
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (host === '[::1]' || host === '0.0.0.0') return true;
  const v4 = ipv4(host);
  return !!v4 && v4[0] === 127;
}

/** 10/8, 172.16/12, 192.168/16, link-local 169.254/16, IPv6 unique-local fc00::/7 and link-local fe80::/10. */
function isPrivate(host: string): boolean {
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
