/** The one interface every search engine module implements, and the shapes around it. */
import type { SearchError } from './errors';

/** One result, exactly as the web_search tool returns it. */
export interface SearchResult {
  title: string;
  url: string;
  snippet: string;
}

export type EngineId = 'duckduckgo' | 'bing' | 'baidu' | 'google';

/** The settings fields an engine may need. */
export type ConfigField = 'apiKey' | 'cx';

/** Per-engine settings, as the user fills them in. */
export interface EngineConfig {
  /** Bing: Web Search API v7 subscription key (optional: without it the keyless www.bing.com page is read). Google: API key. */
  apiKey?: string;
  /** Google Custom Search: the Programmable Search Engine ID. */
  cx?: string;
  /**
   * Replaces the engine's base URL (scheme, host and path; the query string is still built by
   * the engine), so tests can serve saved pages from 127.0.0.1.
   */
  endpoint?: string;
}

/** A GET request for the injected fetcher. */
export interface SearchRequest {
  url: string;
  headers: Record<string, string>;
  /**
   * 'search': the result page or API response, the body is needed whole.
   * 'resolve': following one of the engine's redirect links; only the final URL and, when the
   * engine answers 200 with a refresh page, the start of the body matter, so a fetcher may stop
   * reading after a few tens of kB.
   */
  purpose: 'search' | 'resolve';
}

/** What the fetcher returns: `url` is the final URL after redirects, `body` the decoded text. */
export interface FetchResponse {
  status: number;
  url: string;
  contentType: string;
  body: string;
}

/**
 * Performs one request. The extension's fetcher uses fetch() without cookies and follows
 * redirects; tests pass fakes. Must reject when `signal` aborts.
 */
export type Fetcher = (request: SearchRequest, signal: AbortSignal) => Promise<FetchResponse>;

/** What a parser knows about the response besides its body. */
export interface ResponseInfo {
  status: number;
  url: string;
  contentType: string;
  /** The query as sent, for messages ("no results for …"). */
  query: string;
}

export interface ResolveContext {
  fetcher: Fetcher;
  /** Aborts when the user stops the run or the resolution budget runs out. */
  signal: AbortSignal;
  /** Longest wait for one link. */
  timeoutMs: number;
  /** Most links resolved at once. */
  concurrency: number;
  /**
   * The user's endpoint override, if any: redirect links are then asked from its origin (same
   * path and query), so a 127.0.0.1 fixture server or a proxy answers them, not the real engine.
   */
  endpoint?: string;
}

export interface SearchEngine {
  readonly id: EngineId;
  readonly label: string;
  /** Settings that must be filled for this engine to work at all. */
  readonly needs: readonly ConfigField[];
  readonly defaultEndpoint: string;
  /** The results page a person would open for `query` (for messages suggesting to open it in a tab). */
  humanSearchUrl(query: string): string;
  /** Whether a request with this config authenticates with an API key (so a 401/403 means a bad key, not a block). */
  usesApiKey(config: EngineConfig): boolean;
  /** `count` is the number of results wanted (1..10); an engine may ask for a few more. */
  buildRequest(query: string, count: number, config: EngineConfig): SearchRequest;
  /**
   * Pure: results in page order, ads already left out, text cleaned, URLs decoded from the
   * engine's redirect links where the link carries them. Throws a SearchError when the response
   * is a challenge page ('blocked'), says there are no results ('empty'), is an API error
   * ('auth' | 'rate_limited' | 'http'), or is not a result page this parser knows ('layout').
   */
  parse(body: string, info: ResponseInfo): SearchResult[];
  /**
   * For a non-2xx response: an error that says more than the status (a challenge page served
   * with 403, an API's error JSON), or null for the generic HTTP error.
   */
  explainFailure?(body: string, info: ResponseInfo): SearchError | null;
  /** Ad and click-tracking links: always dropped. */
  isAd(url: URL): boolean;
  /** The engine's own redirect links and pages: dropped unless `resolve` could not resolve them. */
  isRedirect(url: URL): boolean;
  /**
   * Replaces redirect links with the URLs they lead to. Never throws for one link: a link that
   * cannot be resolved (error, timeout, unknown answer) is kept as it was.
   */
  resolve?(results: readonly SearchResult[], ctx: ResolveContext): Promise<SearchResult[]>;
}
