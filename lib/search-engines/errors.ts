import { ModelFacingError } from '../errors';
import { excerpt } from './text';

/**
 * What went wrong, so the model (and the UI) can choose the next step:
 *   config        a required setting is missing or invalid: the user must fill it in
 *   query         the query itself is unusable (empty)
 *   auth          the engine rejected the API key (401/403, "key not valid")
 *   rate_limited  too many requests or quota exhausted (429, quota errors): wait or switch engine
 *   blocked       a bot check / CAPTCHA page came instead of results
 *   empty         the engine answered "no results" for this query (a real answer, not a failure
 *                 to read the page: chosen over an empty list so it is never mistaken for one)
 *   layout        the response is not a result page this parser recognises (the engine changed its page)
 *   http          any other non-2xx status
 *   network       the request failed (offline, DNS, TLS, refused)
 *   timeout       no answer in time
 *   aborted       the user stopped the run
 */
export type SearchErrorCode =
  | 'config'
  | 'query'
  | 'auth'
  | 'rate_limited'
  | 'blocked'
  | 'empty'
  | 'layout'
  | 'http'
  | 'network'
  | 'timeout'
  | 'aborted';

export class SearchError extends ModelFacingError<SearchErrorCode> {
  override name = 'SearchError';
  readonly engine: string;
  /** The HTTP status, when a response came. */
  readonly status: number | undefined;

  constructor(engine: string, code: SearchErrorCode, message: string, status?: number) {
    super(code, message);
    this.engine = engine;
    this.status = status;
  }
}

/** Shared wording for the errors every HTML engine can meet. */
export const errors = {
  blocked: (engine: string, label: string, what: string, humanUrl: string): SearchError =>
    new SearchError(
      engine,
      'blocked',
      `${label} showed ${what} instead of results, so it cannot be searched automatically right now. ` +
        `Try again in a few minutes, or open ${humanUrl} in a tab and read the results there, ` +
        `or ask the user to choose another search engine in the settings.`,
    ),
  empty: (engine: string, label: string, query: string, onlyAds = false): SearchError =>
    new SearchError(
      engine,
      'empty',
      `${label} found no results for "${query}"${onlyAds ? ' (the page had only ads)' : ''}. ` +
        `Try fewer, more general or differently spelled words.`,
    ),
  layout: (engine: string, label: string, detail: string, body: string): SearchError =>
    new SearchError(
      engine,
      'layout',
      `${label} returned a page whose results could not be read (${detail}); the engine may have changed its page. ` +
        `Try another search engine, or open the search page in a tab. Page starts: "${excerpt(body, 160)}"`,
    ),
};
