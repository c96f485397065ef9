/**
 * Bing Web Search API v7 (api.bing.microsoft.com/v7.0/search, key in Ocp-Apim-Subscription-Key).
 * Microsoft retired it in August 2025; it stays for keys that still work (and compatible proxies
 * given as `endpoint`). Without a key the Bing engine reads www.bing.com instead (bing-html.ts).
 */
import { apiError, asArray, asObject, asString, parseJsonObject, readApiError } from './api-errors';
import { decodeEntities } from '../html/entities';
import { errors, type SearchError } from './errors';
import { makeResult, type PageScan } from './page';
import type { EngineConfig, ResponseInfo, SearchRequest, SearchResult } from './types';
import { searchRequest } from './urls';

export const BING_API_ENDPOINT = 'https://api.bing.microsoft.com/v7.0/search';
const SETTINGS = 'the Bing API key';

export function buildBingApiRequest(query: string, count: number, config: EngineConfig): SearchRequest {
  const params = {
    q: query,
    // A little headroom: duplicates are removed after the call.
    count: Math.min(10, count + 2),
    responseFilter: 'Webpages',
    // Plain text: no <b> tags nor U+E000 highlight marks in names and snippets.
    textDecorations: 'false',
    textFormat: 'Raw',
  };
  return searchRequest(config, BING_API_ENDPOINT, params, { Accept: 'application/json', 'Ocp-Apim-Subscription-Key': config.apiKey ?? '' });
}

/** `webPages.value[]` → results. Throws for error bodies, answers without web pages, and non-JSON. */
export function parseBingApi(body: string, info: ResponseInfo): PageScan {
  const json = parseJsonObject(body);
  const failure = readApiError(json);
  if (failure) throw apiError('bing', 'Bing Web Search API', info.status, failure, body, SETTINGS);
  if (!json) throw errors.layout('bing', 'Bing Web Search API', 'the response is not JSON', body);
  const pages = asObject(json.webPages);
  const results: SearchResult[] = [];
  for (const item of asArray(pages?.value)) {
    const page = asObject(item);
    const url = asString(page?.url);
    if (!page || !url) continue;
    // Raw text format: any '&' is literal unless it forms a complete reference.
    const text = (key: string) => decodeEntities(asString(page[key]), { strict: true });
    results.push(makeResult(text('name'), url, text('snippet')));
  }
  if (results.length > 0) return { results, ads: 0 };
  if (json._type === 'SearchResponse') throw errors.empty('bing', 'Bing', info.query);
  throw errors.layout('bing', 'Bing Web Search API', 'no webPages in the JSON answer', body);
}

export function explainBingApiFailure(body: string, info: ResponseInfo): SearchError {
  return apiError('bing', 'Bing Web Search API', info.status, readApiError(parseJsonObject(body)), body, SETTINGS);
}
