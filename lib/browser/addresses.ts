/**
 * web_fetch's view of where answers came from (lib/web/answer-address.ts): webRequest's
 * details.ip for the extension's own requests, in both browsers, and Firefox's dns.resolve to
 * refuse a private name before anything is sent. The listeners are non-blocking (permission
 * "webRequest"; the host permission for all URLs lets them see every request), so nothing is
 * held up: they only report.
 */
import { browser } from 'wxt/browser';
import type { ResolvedAddresses } from '../web/answer-address';
import { RequestLog, type RequestEvent } from './request-log';

/** Resolves a host name to its addresses (rejects when it cannot). */
export type DnsLookup = (host: string) => Promise<readonly string[]>;

/** Firefox's dns.resolve (permission "dns"). Chrome's dns API exists only on its dev channel. */
export function firefoxDnsLookup(): DnsLookup | undefined {
  const dns = (browser as unknown as { dns?: { resolve(host: string): Promise<{ addresses: string[] }> } }).dns;
  return dns ? async (host) => (await dns.resolve(host)).addresses : undefined;
}

/** The fields of webRequest's details this reads, in either browser. */
interface Details {
  requestId: string;
  url: string;
  tabId: number;
  /** Chrome: the origin that made the request. */
  initiator?: string;
  /** Firefox: the URL of the page that made it (the background page). */
  originUrl?: string;
  ip?: string;
  redirectUrl?: string;
  /** Firefox: the proxy the request went through, or null. */
  proxyInfo?: { type: string } | null;
}

/**
 * `idleMs`: how long the listeners stay after the last watch ends. They are added while
 * web_fetch needs them, not for the background's whole life: a Chrome service worker with a
 * webRequest listener is woken for matching requests, which here would be every request of a
 * web site's own service worker (those have no tab either).
 */
export function webRequestAddresses(lookup?: DnsLookup, idleMs = 30_000): ResolvedAddresses {
  const log = new RequestLog();
  const ownBase = browser.runtime.getURL('/');
  const ownOrigin = ownBase.replace(/\/$/, '');
  // The extension's own requests: no tab, made by its background (Chrome's initiator is the
  // extension's origin, Firefox's originUrl the background page).
  const mine = (d: Details) => d.tabId === -1 && (d.initiator === ownOrigin || (d.originUrl ?? '').startsWith(ownBase));
  const where = (d: Details) => ({
    ...(d.ip ? { ip: d.ip } : {}),
    ...(d.proxyInfo && d.proxyInfo.type !== 'direct' ? { proxied: true } : {}),
  });
  const feed = (make: (d: Details) => RequestEvent) => (d: Details) => {
    if (mine(d)) log.record(make(d));
  };
  const listeners = {
    onBeforeRequest: feed((d) => ({ type: 'request', requestId: d.requestId, url: d.url })),
    onBeforeRedirect: feed((d) => ({ type: 'redirect', requestId: d.requestId, url: d.url, redirectUrl: d.redirectUrl ?? '', ...where(d) })),
    onResponseStarted: feed((d) => ({ type: 'response', requestId: d.requestId, url: d.url, ...where(d) })),
    onCompleted: feed((d) => ({ type: 'completed', requestId: d.requestId, url: d.url, ...where(d) })),
    onErrorOccurred: feed((d) => ({ type: 'error', requestId: d.requestId, url: d.url, ...where(d) })),
  };
  type EventName = keyof typeof listeners;
  const names = Object.keys(listeners) as EventName[];
  const event = (name: EventName) =>
    browser.webRequest[name] as unknown as { addListener(fn: (d: Details) => void, filter: object): void; removeListener(fn: (d: Details) => void): void };
  const filter = { urls: ['http://*/*', 'https://*/*'], tabId: -1 };

  let live: Promise<void> | undefined;
  let users = 0;
  let idle: ReturnType<typeof setTimeout> | undefined;
  const subscribe = async () => {
    for (const name of names) event(name).addListener(listeners[name], filter);
    // addListener returns before the browser has registered the listener, and the fetch that
    // follows reaches the network by another channel; an API call's round trip goes the way the
    // registration went, so after it the listeners are in place for the request.
    await browser.runtime.getPlatformInfo();
  };
  const unsubscribe = () => {
    for (const name of names) event(name).removeListener(listeners[name]);
    live = undefined;
  };
  const release = () => {
    if (--users > 0) return;
    clearTimeout(idle);
    idle = setTimeout(() => users === 0 && unsubscribe(), idleMs);
  };

  return {
    async lookup(host) {
      if (!lookup) return null;
      try {
        return await lookup(host);
      } catch {
        return null;
      }
    },
    async watch(url) {
      users++;
      clearTimeout(idle);
      try {
        live ??= subscribe().catch((e: unknown) => {
          live = undefined;
          throw e;
        });
        await live;
        const watch = await log.watch(url);
        let stopped = false;
        return {
          settled: (graceMs, signal) => watch.settled(graceMs, signal),
          stop() {
            if (stopped) return;
            stopped = true;
            watch.stop();
            release();
          },
        };
      } catch (e) {
        release();
        throw e;
      }
    },
  };
}
