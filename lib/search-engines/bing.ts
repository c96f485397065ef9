/**
 * Bing, one engine with two modes: with an API key, the Web Search API v7 (JSON); without one,
 * the www.bing.com result page (HTML), because Microsoft retired the API in 2025 and new keys
 * cannot be had. `endpoint` overrides the URL of whichever mode is in use.
 */
import { buildBingApiRequest, explainBingApiFailure, parseBingApi } from './bing-api';
import { BING_HTML_ENDPOINT, bingHumanSearchUrl, buildBingHtmlRequest, explainBingHtmlFailure, isBingAd, isBingRedirect, parseBingHtml } from './bing-html';
import type { SearchError } from './errors';
import { stripBom } from './text';
import type { EngineConfig, ResponseInfo, SearchEngine, SearchRequest, SearchResult } from './types';

/** The parser follows the answer, not the settings: a JSON body is the API's, anything else a page. */
function isJson(body: string, contentType: string): boolean {
  return /json/i.test(contentType) || /^\s*[{[]/.test(stripBom(body).slice(0, 64));
}

export const bing: SearchEngine = {
  id: 'bing',
  label: 'Bing',
  needs: [],
  defaultEndpoint: BING_HTML_ENDPOINT,

  humanSearchUrl: bingHumanSearchUrl,

  usesApiKey: (config) => Boolean(config.apiKey?.trim()),

  buildRequest(query: string, count: number, config: EngineConfig): SearchRequest {
    return config.apiKey?.trim()
      ? buildBingApiRequest(query, count, { ...config, apiKey: config.apiKey.trim() })
      : buildBingHtmlRequest(query, count, config);
  },

  parse(body: string, info: ResponseInfo): SearchResult[] {
    return (isJson(body, info.contentType) ? parseBingApi(body, info) : parseBingHtml(body, info)).results;
  },

  explainFailure(body: string, info: ResponseInfo): SearchError | null {
    return isJson(body, info.contentType) ? explainBingApiFailure(body, info) : explainBingHtmlFailure(body, info);
  },

  isAd: isBingAd,
  isRedirect: isBingRedirect,
};
