/**
 * Which URLs the agent may open in a tab, and which pages it may read or script. Pure
 * functions: the tools give the answers to the model as errors it can act on.
 */

const SAFE_DATA_TYPES = /^data:(text\/plain|image\/(png|jpeg|gif|webp|avif|bmp))[;,]/i;

const INTERNAL_SCHEMES = new Set([
  'chrome:', 'chrome-untrusted:', 'chrome-search:', 'chrome-extension:', 'devtools:', 'edge:', 'brave:', 'opera:', 'vivaldi:',
  'about:', 'moz-extension:', 'resource:', 'view-source:', 'jar:', 'wyciwyg:', 'blob:', 'filesystem:',
]);

const STORE_HOSTS = [
  /^chrome\.google\.com$/i, // /webstore
  /^chromewebstore\.google\.com$/i,
  /^addons\.mozilla\.org$/i,
  /^microsoftedge\.microsoft\.com$/i,
];

export type UrlVerdict = { ok: true; url: string } | { ok: false; reason: string };

/** Checks a URL the model wants a tab to open. */
export function checkOpenableUrl(raw: string, { fileAccess = false } = {}): UrlVerdict {
  const text = raw.trim();
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, reason: `"${truncate(text)}" is not an absolute URL; give a full address such as https://example.com/.` };
  }
  const scheme = url.protocol.toLowerCase();
  if (scheme === 'http:' || scheme === 'https:') return { ok: true, url: url.href };
  if (scheme === 'javascript:') {
    return { ok: false, reason: 'javascript: URLs are refused; to run code in a page use execute_script with target "page".' };
  }
  if (scheme === 'data:') {
    return SAFE_DATA_TYPES.test(text)
      ? { ok: true, url: text }
      : { ok: false, reason: 'data: URLs that can carry script (HTML, SVG, XML, JavaScript) are refused; only plain text and raster images may be opened.' };
  }
  if (scheme === 'file:') {
    return fileAccess
      ? { ok: true, url: url.href }
      : { ok: false, reason: 'file: URLs need the user\'s permission: they must turn on "Allow access to file URLs" for Pagewright in the browser\'s extension settings.' };
  }
  if (scheme === 'about:' && url.href === 'about:blank') return { ok: true, url: 'about:blank' };
  if (INTERNAL_SCHEMES.has(scheme)) {
    return { ok: false, reason: `${scheme} pages are the browser's own internal pages; extensions may not open or control them.` };
  }
  return { ok: false, reason: `${scheme} URLs are not supported; use http:// or https://.` };
}

/** Why a page cannot be read or scripted by an extension, or undefined when it can. */
export function restrictedPageReason(rawUrl: string): string | undefined {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return `the tab has no readable address (${truncate(rawUrl) || 'empty'})`;
  }
  const scheme = url.protocol.toLowerCase();
  if (scheme === 'view-source:') return 'it shows page source (view-source:), which extensions cannot access';
  if (scheme === 'http:' || scheme === 'https:') {
    if (STORE_HOSTS.some((re) => re.test(url.hostname)) && (url.hostname !== 'chrome.google.com' || url.pathname.startsWith('/webstore'))) {
      return `it is an extension store (${url.hostname}), where browsers forbid extensions to run`;
    }
    return undefined;
  }
  if (scheme === 'file:') return undefined;
  if (scheme === 'about:' && url.href === 'about:blank') return undefined;
  if (INTERNAL_SCHEMES.has(scheme) || scheme === 'data:' || scheme === 'javascript:') {
    return `it is a browser-internal or special page (${scheme}), which extensions cannot access`;
  }
  return `its address uses the ${scheme} scheme, which extensions cannot access`;
}

function truncate(s: string, n = 120) {
  return s.length > n ? `${s.slice(0, n)}…` : s;
}
