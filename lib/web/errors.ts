import { ModelFacingError } from '../errors';

export type WebFetchErrorCode =
  | 'invalid_url'
  | 'scheme'
  | 'credentials'
  | 'private_address'
  | 'blocked_port'
  /** A public URL redirected to the user's own machine or network. */
  | 'private_redirect'
  /** A name resolved to the user's own machine or network (before the request, or as its answer showed). */
  | 'private_answer'
  /** The browser did not report where the answer came from, so it was discarded. */
  | 'unverified_answer'
  /** No answer within the contract's 30 s. */
  | 'timeout'
  /** The request failed (DNS, refused, TLS). */
  | 'network'
  /** A 4xx/5xx answer. */
  | 'http'
  | 'stopped';

/** A URL web_fetch refuses or a fetch that failed. The message is meant for the model: it says why and what to do. */
export class WebFetchError extends ModelFacingError<WebFetchErrorCode> {
  override name = 'WebFetchError';
}
