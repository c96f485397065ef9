/**
 * Requests made on the agent's behalf (web_fetch, the search engines): without the user's
 * cookies or HTTP auth, no referrer, no cache — what the agent fetches must not act as the user.
 */
import { errorMessage } from '../errors';
import { WebFetchError } from './errors';

/** The contract's request timeout, for the response and its body together. */
export const FETCH_TIMEOUT_MS = 30_000;

const ACCEPT = 'text/html,application/xhtml+xml,application/json;q=0.9,application/xml;q=0.9,text/plain;q=0.8,*/*;q=0.5';

export type FetchFn = typeof fetch;

export function agentRequest(fetchFn: FetchFn, url: string, signal: AbortSignal, headers: Record<string, string> = {}): Promise<Response> {
  return fetchFn(url, {
    credentials: 'omit',
    redirect: 'follow',
    cache: 'no-store',
    referrerPolicy: 'no-referrer',
    headers: { Accept: ACCEPT, ...headers },
    signal,
  });
}

/** The caller's signal, or the contract's timeout, whichever comes first. */
export const withTimeout = (signal: AbortSignal, ms = FETCH_TIMEOUT_MS) => AbortSignal.any([signal, AbortSignal.timeout(ms)]);

/** fetch()'s failures, told in terms of what the model can do about them. */
export function fetchFailure(e: unknown, url: string, signal: AbortSignal, userSignal: AbortSignal): WebFetchError {
  if (userSignal.aborted) return new WebFetchError('stopped', 'Stopped by the user.');
  if (signal.aborted) return new WebFetchError('timeout', `${url} did not answer within ${FETCH_TIMEOUT_MS / 1000} s (timed out). Try again later or another source.`);
  return new WebFetchError('network', `Could not reach ${url}: the request failed (${errorMessage(e)}) — the host may not exist, refuse connections, or have a broken TLS certificate.`);
}
