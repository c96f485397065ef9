/**
 * One search with the user's settings, as web_search, the web_search skill and the settings
 * page's Test button all run it: the engine settings in the shape the engines take, and the
 * engines' requests made like web_fetch's (cookie-less, bodies capped, decoded by their charset).
 */
import type { SearchEngineId, Settings } from '../settings';
import { readBodyCapped } from '../web/body';
import { decodeBody } from '../web/charset';
import { agentRequest, FETCH_TIMEOUT_MS, type FetchFn } from '../web/request';
import { ENGINES, search } from './index';
import type { EngineConfig, Fetcher, SearchResult } from './types';

/** A search result page is small; an engine answering more is not answering a search. */
const SEARCH_BODY_BYTES = 4 * 1024 * 1024;
/** Following a redirect link needs the final URL and at most a refresh page's head. */
const RESOLVE_BODY_BYTES = 64 * 1024;

/** What the settings page's Test button searches for. */
export const SEARCH_TEST_QUERY = 'web browser';

/** The engine settings in the shape lib/search-engines takes. */
export function engineConfig(settings: Settings, engine: SearchEngineId): EngineConfig {
  switch (engine) {
    case 'duckduckgo':
      return { endpoint: settings.duckduckgoEndpoint };
    case 'bing':
      return { apiKey: settings.bingApiKey, endpoint: settings.bingEndpoint };
    case 'baidu':
      return { endpoint: settings.baiduEndpoint };
    case 'google':
      return { apiKey: settings.googleApiKey, cx: settings.googleCx, endpoint: settings.googleEndpoint };
  }
}

export function searchFetcher(fetchFn: FetchFn): Fetcher {
  return async (request, signal) => {
    const response = await agentRequest(fetchFn, request.url, signal, request.headers);
    const body = await readBodyCapped(response, { signal, maxBytes: request.purpose === 'resolve' ? RESOLVE_BODY_BYTES : SEARCH_BODY_BYTES });
    const contentType = response.headers.get('content-type') ?? '';
    return { status: response.status, url: response.url || request.url, contentType, body: decodeBody(body.bytes, { contentType }).text };
  };
}

/**
 * Where the settings' engine sends queries (its endpoint, or the user's override): an approved
 * destination for the policy, since the user chose the engine. Baidu's redirect links are
 * resolved on the same origin.
 */
export function engineUrl(settings: Settings, engine: SearchEngineId = settings.searchEngine): string {
  const config = engineConfig(settings, engine);
  return config.endpoint?.trim() || ENGINES[engine].defaultEndpoint;
}

/** One search with the settings' engine (or `engine`); throws SearchError. */
export function runSearch(settings: Settings, query: string, maxResults: number | undefined, fetchFn: FetchFn, signal: AbortSignal, engine: SearchEngineId = settings.searchEngine): Promise<SearchResult[]> {
  return search(engine, query, maxResults, engineConfig(settings, engine), searchFetcher(fetchFn), signal, { timeoutMs: FETCH_TIMEOUT_MS });
}
