/**
 * The web_search engines: registry and orchestrator.
 *
 *   search(engineId, query, maxResults, config, fetcher, signal) → [{title, url, snippet}]
 *
 * The orchestrator owns the contract's rules so that every engine keeps them the same way:
 * max_results (default 5, clamped to 1..10), config validation, HTTP status → error mapping,
 * time limits, dropping ads / tracking / engine-redirect / non-http(s) links, resolving redirect
 * links (Baidu), de-duplication by normalised URL. Engines only build requests and parse answers.
 * A search that yields nothing is an error ('empty'), never an empty list.
 */
import { linkedAbort, untilAborted } from './async';
import { baidu } from './baidu';
import { bing } from './bing';
import { duckduckgo } from './duckduckgo';
import { errors, SearchError } from './errors';
import { google } from './google';
import { collapseWhitespace, excerpt } from './text';
import type { ConfigField, EngineConfig, Fetcher, FetchResponse, ResponseInfo, SearchEngine, SearchRequest, SearchResult } from './types';
import { dedupeKey, isHttpUrl, parseUrl, stripTracking } from './urls';
import { errorMessage } from '../errors';

export type { ConfigField, EngineConfig, EngineId, Fetcher, FetchResponse, ResolveContext, ResponseInfo, SearchEngine, SearchRequest, SearchResult } from './types';
export { SearchError, type SearchErrorCode } from './errors';

export const ENGINES = { duckduckgo, bing, baidu, google } as const satisfies Record<string, SearchEngine>;
export const ENGINE_IDS = Object.keys(ENGINES) as (keyof typeof ENGINES)[];
export const DEFAULT_ENGINE = 'duckduckgo' satisfies keyof typeof ENGINES;

export const DEFAULT_MAX_RESULTS = 5;
export const MAX_RESULTS = 10;

/** What the settings page shows for each field (and what config errors tell the user to fill). */
export const CONFIG_FIELD_LABELS: Readonly<Record<ConfigField, string>> = {
  apiKey: 'API key',
  cx: 'Search engine ID (cx)',
};

const FIELD_WITH_ARTICLE: Readonly<Record<ConfigField, string>> = {
  apiKey: 'an API key',
  cx: 'a Search engine ID (cx)',
};

export interface SearchOptions {
  /** Longest wait for the search request itself. */
  timeoutMs?: number;
  /** Longest wait for one redirect link (Baidu). */
  resolveTimeoutMs?: number;
  /** Longest time spent resolving redirect links in all; unresolved links are kept. */
  resolveBudgetMs?: number;
  /** Most redirect links resolved at once. */
  resolveConcurrency?: number;
}

const DEFAULTS: Required<SearchOptions> = {
  timeoutMs: 15_000,
  resolveTimeoutMs: 3_000,
  resolveBudgetMs: 6_000,
  resolveConcurrency: 4,
};

export function getEngine(id: string): SearchEngine | undefined {
  return Object.hasOwn(ENGINES, id) ? ENGINES[id as keyof typeof ENGINES] : undefined;
}

/** max_results as the contract reads it: default 5, whole numbers, below 1 → 1, above 10 → 10 (not an error). */
export function clampMaxResults(maxResults: number | undefined): number {
  if (maxResults === undefined || !Number.isFinite(maxResults)) return DEFAULT_MAX_RESULTS;
  return Math.min(MAX_RESULTS, Math.max(1, Math.floor(maxResults)));
}

/** The required settings that are empty, in the engine's order. */
export function missingConfig(engine: SearchEngine, config: EngineConfig): ConfigField[] {
  return engine.needs.filter((field) => !config[field]?.trim());
}

function checkConfig(engine: SearchEngine, config: EngineConfig): void {
  const missing = missingConfig(engine, config);
  if (missing.length > 0) {
    const what = missing.map((f) => FIELD_WITH_ARTICLE[f]).join(' and ');
    const fields = missing.map((f) => `"${CONFIG_FIELD_LABELS[f]}"`).join(' and ');
    throw new SearchError(
      engine.id,
      'config',
      `${engine.label} cannot search without ${what}, and ${missing.length > 1 ? 'they are' : 'it is'} not set. ` +
        `Ask the user to fill in ${fields} for ${engine.label} in the extension's settings, or to choose a search engine that needs no key (DuckDuckGo, Bing or Baidu).`,
    );
  }
  const endpoint = config.endpoint?.trim();
  if (endpoint && !isHttpUrl(endpoint)) {
    throw new SearchError(engine.id, 'config', `The ${engine.label} endpoint setting "${endpoint}" is not an http(s) URL. Ask the user to correct or clear it in the settings.`);
  }
}

/**
 * Searches `query` with one engine. Throws a SearchError (see errors.ts for the codes) when no
 * result can be given; its message says what happened and what to do next.
 */
export async function search(
  engineId: string,
  query: string,
  maxResults: number | undefined,
  config: EngineConfig | undefined,
  fetcher: Fetcher,
  signal?: AbortSignal,
  options: SearchOptions = {},
): Promise<SearchResult[]> {
  const opts = { ...DEFAULTS, ...options };
  const engine = getEngine(engineId);
  if (!engine) {
    const known = ENGINE_IDS.map((id) => `${ENGINES[id].label} ("${id}")`).join(', ');
    throw new SearchError(engineId, 'config', `Unknown search engine "${engineId}". The engines are ${known}; ask the user to choose one in the settings.`);
  }
  const q = collapseWhitespace(query);
  if (!q) throw new SearchError(engine.id, 'query', 'The search query is empty: give the words to search for.');
  const count = clampMaxResults(maxResults);
  const cfg = { ...config, endpoint: config?.endpoint?.trim() || undefined };
  checkConfig(engine, cfg);

  const request = engine.buildRequest(q, count, cfg);
  const response = await fetchOnce(engine, request, fetcher, signal, opts.timeoutMs);
  const info: ResponseInfo = { status: response.status, url: response.url || request.url, contentType: response.contentType, query: q };
  if (response.status < 200 || response.status >= 300) throw failure(engine, cfg, response.body, info);

  const candidates = engine.parse(response.body, info);
  const results = await select(engine, candidates, count, cfg.endpoint, fetcher, signal, opts);
  if (signal?.aborted) throw aborted(engine);
  if (results.length === 0) {
    throw new SearchError(
      engine.id,
      'empty',
      `${engine.label} returned no usable results for "${q}" (only ads, tracking or non-web links). Try other words.`,
    );
  }
  return results;
}

async function fetchOnce(engine: SearchEngine, request: SearchRequest, fetcher: Fetcher, signal: AbortSignal | undefined, timeoutMs: number): Promise<FetchResponse> {
  const limit = linkedAbort(signal, timeoutMs);
  try {
    return await untilAborted(fetcher(request, limit.signal), limit.signal);
  } catch (e) {
    if (signal?.aborted || limit.reason() === 'parent') throw aborted(engine);
    if (limit.reason() === 'timeout') {
      throw new SearchError(engine.id, 'timeout', `${engine.label} did not answer within ${timeoutMs >= 1000 ? `${Math.round(timeoutMs / 1000)} s` : `${timeoutMs} ms`}. Try again, or ask the user to choose another search engine.`);
    }
    const host = parseUrl(request.url)?.host ?? request.url;
    const why = errorMessage(e);
    throw new SearchError(
      engine.id,
      'network',
      `${engine.label} could not be reached (${host}: ${why}). The computer may be offline or the site blocked on this network; try again, or ask the user to choose another search engine.`,
    );
  } finally {
    limit.dispose();
  }
}

const aborted = (engine: SearchEngine): SearchError => new SearchError(engine.id, 'aborted', 'The search was stopped.');

/** A non-2xx answer as an error: the engine's own reading of the body first, then the status. */
function failure(engine: SearchEngine, config: EngineConfig, body: string, info: ResponseInfo): SearchError {
  const specific = engine.explainFailure?.(body, info);
  if (specific) return specific;
  const { status } = info;
  const said = excerpt(body) || 'empty body';
  if (status === 429) {
    return new SearchError(engine.id, 'rate_limited', `${engine.label} is limiting requests (HTTP 429: "${said}"). Wait a minute before searching again, or ask the user to choose another search engine.`, status);
  }
  if ((status === 401 || status === 403) && engine.usesApiKey(config)) {
    return new SearchError(engine.id, 'auth', `${engine.label} rejected the API key (HTTP ${status}: "${said}"). Ask the user to check the ${engine.label} API key in the extension's settings.`, status);
  }
  if (status === 403) {
    const error = errors.blocked(engine.id, engine.label, `an "access denied" answer (HTTP 403)`, engine.humanSearchUrl(info.query));
    return new SearchError(engine.id, 'blocked', error.message, status);
  }
  if (status >= 500) {
    return new SearchError(engine.id, 'http', `${engine.label} had a server error (HTTP ${status}: "${said}"). Try again in a moment, or ask the user to choose another search engine.`, status);
  }
  return new SearchError(engine.id, 'http', `${engine.label} answered HTTP ${status} ("${said}") instead of results.`, status);
}

/**
 * The first `count` results that are web pages, not ads, not engine links (unless an engine with
 * a resolver could not resolve them), and not duplicates. Redirect links are resolved in batches
 * of what is still missing, so a duplicate found after resolving is replaced by the next result.
 */
async function select(
  engine: SearchEngine,
  candidates: readonly SearchResult[],
  count: number,
  endpoint: string | undefined,
  fetcher: Fetcher,
  signal: AbortSignal | undefined,
  opts: Required<SearchOptions>,
): Promise<SearchResult[]> {
  const out: SearchResult[] = [];
  const seen = new Set<string>();
  const usable = (result: SearchResult): URL | null => {
    const url = parseUrl(result.url);
    if (!url || !isHttpUrl(url.href) || engine.isAd(url)) return null;
    return url;
  };
  const accept = (result: SearchResult): void => {
    const url = usable(result);
    if (!url || (engine.isRedirect(url) && !engine.resolve)) return;
    const clean = stripTracking(url.href);
    const key = dedupeKey(clean);
    if (seen.has(key) || out.length >= count) return;
    seen.add(key);
    out.push({ title: result.title, url: clean, snippet: result.snippet });
  };

  const resolve = engine.resolve;
  if (!resolve) {
    for (const result of candidates) accept(result);
    return out;
  }
  const pending = candidates.filter((r) => usable(r) !== null);
  const budget = linkedAbort(signal, opts.resolveBudgetMs);
  try {
    let next = 0;
    while (out.length < count && next < pending.length && !signal?.aborted) {
      const batch = pending.slice(next, next + (count - out.length));
      next += batch.length;
      const resolved = await resolve(batch, {
        fetcher,
        signal: budget.signal,
        timeoutMs: opts.resolveTimeoutMs,
        concurrency: opts.resolveConcurrency,
        endpoint,
      });
      for (const result of resolved) accept(result);
    }
  } finally {
    budget.dispose();
  }
  return out;
}
