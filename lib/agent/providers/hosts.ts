/**
 * Where a base URL's server is: on this machine (loopback), on the user's network, or out on the
 * internet. Local servers need no key and may refuse an extension's Origin; the Origin fix and
 * the Test button's wording both ask here. The network part is web_fetch's own classification
 * (lib/web/address-policy.ts: private, link-local and CGNAT ranges, IPv6 unique-local, .local and
 * the other local-only names), so the two never disagree about what counts as local.
 */
import { privateAddressReason } from '../../web/address-policy';

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
  if (isLoopback(url.hostname.toLowerCase())) return 'loopback';
  return privateAddressReason(url) ? 'private' : 'public';
}

/** A server on the user's machine or network: such servers run without a key and may refuse an extension's Origin. */
export function isLocalUrl(baseUrl: string): boolean {
  const kind = hostKindOf(baseUrl);
  return kind === 'loopback' || kind === 'private';
}

/**
 * This machine only: localhost and its subdomains (browsers resolve them to loopback),
 * 127.0.0.0/8, [::1], 0.0.0.0 — the hosts an Origin fix may claim whatever the preset.
 */
function isLoopback(host: string): boolean {
  if (host === 'localhost' || host.endsWith('.localhost') || host === '[::1]' || host === '0.0.0.0') return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}
