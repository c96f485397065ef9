/**
 * Google Custom Search JSON API v1 (www.googleapis.com/customsearch/v1?key=…&cx=…&q=…&num=…).
 * Needs an API key and a Programmable Search Engine ID (cx); `num` is at most 10 per call.
 */
import { apiError, asArray, asObject, asString, parseJsonObject, readApiError } from './api-errors';
import { decodeEntities } from '../html/entities';
import { errors, type SearchError } from './errors';
import { makeResult } from './page';
import type { EngineConfig, ResponseInfo, SearchEngine, SearchRequest, SearchResult } from './types';
import { searchRequest, withParams } from './urls';

const ENDPOINT = 'https://www.googleapis.com/customsearch/v1';
const SETTINGS = 'the Google API key and the Search engine ID (cx)';
const LABEL = 'Google Custom Search';

export const google: SearchEngine = {
  id: 'google',
  label: LABEL,
  needs: ['apiKey', 'cx'],
  defaultEndpoint: ENDPOINT,

  humanSearchUrl: (query) => withParams('https://www.google.com/search', { q: query }),

  usesApiKey: () => true,

  buildRequest(query: string, count: number, config: EngineConfig): SearchRequest {
    const params = {
      key: config.apiKey?.trim(),
      cx: config.cx?.trim(),
      q: query,
      // A little headroom for duplicates, within the API's limit of 10 per call.
      num: Math.min(10, count + 2),
    };
    return searchRequest(config, ENDPOINT, params, { Accept: 'application/json' });
  },

  parse(body: string, info: ResponseInfo): SearchResult[] {
    const json = parseJsonObject(body);
    const failure = readApiError(json);
    if (failure) throw apiError('google', LABEL, info.status, failure, body, SETTINGS);
    if (!json) throw errors.layout('google', LABEL, 'the response is not JSON', body);
    const results: SearchResult[] = [];
    for (const entry of asArray(json.items)) {
      const item = asObject(entry);
      const url = asString(item?.link);
      if (!item || !url) continue;
      // title/snippet are the plain-text fields (htmlTitle/htmlSnippet carry the markup).
      const text = (key: string) => decodeEntities(asString(item[key]), { strict: true });
      results.push(makeResult(text('title'), url, text('snippet')));
    }
    if (results.length > 0) return results;
    // A search with no hits has no "items" at all, and totalResults "0".
    const total = asString(asObject(json.searchInformation)?.totalResults);
    if (json.kind === 'customsearch#search' || total === '0') throw errors.empty('google', LABEL, info.query);
    throw errors.layout('google', LABEL, 'no items in the JSON answer', body);
  },

  explainFailure(body: string, info: ResponseInfo): SearchError {
    return apiError('google', LABEL, info.status, readApiError(parseJsonObject(body)), body, SETTINGS);
  },

  isAd: () => false,
  // Google's results can be Google's own pages (support.google.com…): nothing is filtered here.
  isRedirect: (url) => url.hostname === 'www.google.com' && url.pathname === '/url',
};
