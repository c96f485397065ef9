/** URL helpers: redirect decoding, the http(s) rule, tracking-parameter removal, dedupe keys, requests. */
import type { EngineConfig, SearchRequest } from './types';

export function parseUrl(href: string, base?: string): URL | null {
  try {
    return new URL(href, base);
  } catch {
    return null;
  }
}

/** Only web pages are results: javascript:, data:, mailto:, relative junk and the like are dropped. */
export function isHttpUrl(href: string): boolean {
  const url = parseUrl(href);
  return url !== null && (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
}

/** True when `host` is `domain` or one of its subdomains. */
export function hostIs(host: string, domain: string): boolean {
  const h = host.toLowerCase();
  return h === domain || h.endsWith(`.${domain}`);
}

// Click-tracking parameters added by ad and analytics systems; they never select content.
const TRACKING_PARAM = /^(utm_[a-z_]+|fbclid|gclid|gclsrc|dclid|msclkid|yclid|mc_cid|mc_eid|_hsenc|_hsmi|igshid)$/i;

/** The URL without click-tracking query parameters (everything else, including order, kept). */
export function stripTracking(href: string): string {
  const url = parseUrl(href);
  if (!url || !url.search) return href;
  const kept = url.search
    .slice(1)
    .split('&')
    .filter((pair) => pair && !TRACKING_PARAM.test(safeDecode(pair.split('=')[0] ?? '')));
  const search = kept.length ? `?${kept.join('&')}` : '';
  if (search === url.search) return href;
  url.search = search;
  return url.href;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * The key two results are duplicates under: the same page reached through http/https, with or
 * without "www.", a trailing slash, a #fragment or tracking parameters.
 */
export function dedupeKey(href: string): string {
  const url = parseUrl(stripTracking(href));
  if (!url) return href;
  const host = url.hostname.toLowerCase().replace(/^www\./, '');
  const port = url.port && url.port !== '80' && url.port !== '443' ? `:${url.port}` : '';
  const path = url.pathname.replace(/\/+$/, '') || '';
  return `${host}${port}${path}${url.search}`;
}

/** Decodes base64url (or base64) to a UTF-8 string; null when it is not valid base64. */
export function decodeBase64Url(text: string): string | null {
  const b64 = text.replace(/-/g, '+').replace(/_/g, '/').replace(/\s/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b64)) return null;
  const padded = b64.replace(/=+$/, '') + '='.repeat((4 - (b64.replace(/=+$/, '').length % 4)) % 4);
  try {
    const binary = atob(padded);
    const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}

/** What a result page is asked for with. */
export const HTML_ACCEPT = 'text/html,application/xhtml+xml';

/**
 * The GET request for a search: the user's endpoint override (EngineConfig.endpoint) or else the
 * engine's own endpoint, with the query parameters set.
 */
export function searchRequest(
  config: EngineConfig,
  endpoint: string,
  params: Record<string, string | number | undefined>,
  headers: Record<string, string>,
): SearchRequest {
  return { url: withParams(config.endpoint || endpoint, params), headers, purpose: 'search' };
}

/** `base` (an engine's endpoint or the user's override) with the query parameters set. */
export function withParams(base: string, params: Record<string, string | number | undefined>): string {
  const url = new URL(base);
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined) url.searchParams.set(key, String(value));
  }
  return url.href;
}
