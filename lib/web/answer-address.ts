/**
 * Where web_fetch's answers actually came from. The URL's spelling (address-policy.ts) cannot
 * show that a public name resolves to 127.0.0.1 or 192.168.1.1; the browser can: webRequest
 * reports the IP address each response was received from (details.ip), and Firefox's dns API
 * resolves a name before anything is sent. This module holds the port the browser implements
 * (lib/browser/addresses.ts) and the decision on what it reports; the decision is pure.
 */
import { isIpHost, privateIpReason } from './address-policy';
import { WebFetchError } from './errors';

/** One request of a redirect chain as the browser saw it. */
export interface RequestHop {
  url: string;
  /** The address this hop's answer was received from; absent when the browser did not say. */
  ip?: string;
  /**
   * The answer came through a proxy, so `ip` is the proxy's, not the site's. Firefox says so
   * (details.proxyInfo); Chrome does not, and reports the proxy's address as the ip.
   */
  proxied?: boolean;
}

/** One request of the extension's for a watched URL, from its first hop to its answer. */
export interface RequestChain {
  /** 'answered' once the final hop's response headers arrived; 'failed' when it ended without one. */
  state: 'pending' | 'answered' | 'failed';
  hops: RequestHop[];
}

export interface AnswerWatch {
  /**
   * The extension's requests of the watched URL seen since the watch began: once there is one
   * and each has answered or failed, or as they are after `graceMs` (the browser reports them
   * on its own schedule, a little before or after fetch() resolves).
   */
  settled(graceMs: number, signal: AbortSignal): Promise<readonly RequestChain[]>;
  /** Ends the watch; call it once the answer was checked (the body is not watched). */
  stop(): void;
}

/** What the browser tells web_fetch about addresses; one per background, shared by every run. */
export interface ResolvedAddresses {
  /**
   * The addresses `host` resolves to, asked before any request is sent (Firefox's dns API);
   * null where the browser cannot say (Chrome has no resolver for extensions) or the lookup
   * failed (the request will then fail or go through a proxy, and its answer is still checked).
   */
  lookup(host: string): Promise<readonly string[] | null>;
  /**
   * Starts watching the extension's own requests of `url` (call it before fetching). Null where
   * there is no browser network to watch (unit tests' fake fetch): then only the URL is checked.
   */
  watch(url: string): Promise<AnswerWatch | null>;
}

/** No browser behind the tools (unit tests, benchmarks): nothing to resolve or watch. */
export const detachedAddresses: ResolvedAddresses = {
  lookup: async () => null,
  watch: async () => null,
};

/** How long web_fetch waits, after fetch() resolved, for the browser to report the answer's address. */
export const ANSWER_REPORT_GRACE_MS = 3000;

export type AnswerProblem =
  /** A hop's answer came from a private address: `hop` indexes the chain's hops. */
  | { kind: 'private'; chain: RequestChain; hop: number; ip: string; reason: string }
  /** The browser did not say where the answer came from, for a name (not an IP literal). */
  | { kind: 'unverified'; url: string };

/**
 * What is wrong with the answers the browser reported for one fetch, or null when every one
 * is accounted for and none came from a loopback, private or link-local address.
 *
 * `chains` holds every request of the fetched URL the extension made while the fetch was
 * watched. Usually that is the fetch's own request alone, but webRequest events carry no mark
 * of which fetch() they belong to, and a skill or a search may ask for the same URL at the same
 * moment (web_fetch's own fetches of one URL are run one at a time by the watcher). So the rule
 * is the union: refused if ANY of them reached a private address, accepted only when ALL of them
 * are accounted for. A concurrent request can then cost a false refusal (of a URL that did
 * answer from the local network), never a false acceptance.
 *
 * When the browser gives no ip:
 * - a redirect hop without one is a redirect the browser made itself (HSTS's http → https, an
 *   extension's rule): no server answered it, and the hop it leads to is checked;
 * - a final answer without one fails closed when the host is a name, since the name is what
 *   may resolve anywhere; an IP literal host is the address connected to, which the URL check
 *   already judged;
 * - through a proxy the ip is the proxy's and says nothing about the site: accepted (Firefox
 *   resolved the first host itself before sending; see docs/reference/tools.md, "Local network").
 * A chain still pending is unverified too, and so is no chain at all (the events were missed)
 * unless `finalUrl`, where fetch() says the answer came from, is an IP literal.
 */
export function answerProblem(chains: readonly RequestChain[], finalUrl: string): AnswerProblem | null {
  for (const chain of chains) {
    for (const [i, hop] of chain.hops.entries()) {
      if (!hop.ip || hop.proxied) continue;
      const reason = privateIpReason(hop.ip);
      if (reason) return { kind: 'private', chain, hop: i, ip: hop.ip, reason };
    }
  }
  if (!chains.length) return isIpHost(new URL(finalUrl)) ? null : { kind: 'unverified', url: finalUrl };
  for (const chain of chains) {
    const last = chain.hops.at(-1);
    if (!last) continue;
    if (chain.state === 'pending') return { kind: 'unverified', url: last.url };
    if (chain.state === 'failed' || last.proxied) continue;
    // An ip the parser does not know is no better than none.
    const known = last.ip !== undefined && privateIpReason(last.ip) !== undefined;
    if (!known && !isIpHost(new URL(last.url))) return { kind: 'unverified', url: last.url };
  }
  return null;
}

/** The first loopback, private or link-local address among those a name resolved to. */
export function resolvedProblem(addresses: readonly string[]): { ip: string; reason: string } | null {
  for (const ip of addresses) {
    const reason = privateIpReason(ip);
    if (reason) return { ip, reason };
  }
  return null;
}

const LOCAL_NETWORK_REMEDY =
  "Pagewright does not read the local network unless the user allows it in Settings (Let web_fetch reach this computer and the local network).";

/** "a loopback address (127.0.0.0/8, this computer)" → "a loopback address". */
const shortReason = (reason: string) => reason.replace(/ \(.*$/, '').replace(/,.*$/, '');

/** The refusal of a name that resolved (before the request, or for its answer) to a private address. */
export function resolvedPrivateError(host: string, ip: string, reason: string): WebFetchError {
  return new WebFetchError('private_answer', `${host} resolved to ${shortReason(reason)} (${ip}); ${LOCAL_NETWORK_REMEDY}`);
}

/** The error for a problem `answerProblem` found in the answers to `requested`. */
export function answerProblemError(problem: AnswerProblem, requested: string): WebFetchError {
  if (problem.kind === 'private') {
    const hop = problem.chain.hops[problem.hop]!;
    const error = resolvedPrivateError(new URL(hop.url).hostname, problem.ip, problem.reason);
    if (problem.hop === 0) return error;
    return new WebFetchError('private_answer', `${problem.chain.hops[0]!.url} redirected to ${hop.url}: ${error.message}`);
  }
  const host = new URL(problem.url || requested).hostname;
  return new WebFetchError(
    'unverified_answer',
    `The browser did not report which address ${host} answered from, so the answer was discarded: web_fetch cannot tell whether it came from the user's own computer or local network. Try again. ${LOCAL_NETWORK_REMEDY}`,
  );
}
