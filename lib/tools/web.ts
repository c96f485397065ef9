/**
 * The web family: web_fetch (one URL → readable text) and web_search (an engine's results).
 * Requests go out without the user's cookies: what the agent fetches must not act as the user.
 */
import * as v from 'valibot';
import { DEFAULT_MAX_LENGTH, MAX_CONTENT_LENGTH } from '../extract/limits';
import { search, SearchError, type EngineConfig, type Fetcher, type SearchResult } from '../search-engines';
import type { SearchEngineId, Settings } from '../settings';
import { checkFetchUrl, privateAddressReason } from '../web/address-policy';
import { MAX_BODY_BYTES, readBodyCapped } from '../web/body';
import { decodeBody } from '../web/charset';
import { formatBytes } from '../web/content-kind';
import { readableFromBytes } from '../web/convert';
import { WebFetchError } from '../web/errors';
import { htmlToText } from '../web/html-text';
import { parseMimeType } from '../web/mime';
import { defineTool, ToolError, type ToolContext } from './registry';

/** The contract's request timeout, for the response and its body together. */
export const FETCH_TIMEOUT_MS = 30_000;
/** A search result page is small; an engine answering more is not answering a search. */
const SEARCH_BODY_BYTES = 4 * 1024 * 1024;
/** Following a redirect link needs the final URL and at most a refresh page's head. */
const RESOLVE_BODY_BYTES = 64 * 1024;

const ACCEPT = 'text/html,application/xhtml+xml,application/json;q=0.9,application/xml;q=0.9,text/plain;q=0.8,*/*;q=0.5';

type FetchFn = typeof fetch;

/** A request on the agent's behalf: no cookies or HTTP auth of the user's, no referrer, no cache. */
function agentRequest(fetchFn: FetchFn, url: string, signal: AbortSignal, headers: Record<string, string> = {}): Promise<Response> {
  return fetchFn(url, {
    credentials: 'omit',
    redirect: 'follow',
    cache: 'no-store',
    referrerPolicy: 'no-referrer',
    headers: { Accept: ACCEPT, ...headers },
    signal,
  });
}

const withTimeout = (signal: AbortSignal, ms: number) => AbortSignal.any([signal, AbortSignal.timeout(ms)]);

/** fetch()'s failures, told in terms of what the model can do about them. */
function networkError(e: unknown, url: string, signal: AbortSignal, userSignal: AbortSignal): ToolError {
  if (userSignal.aborted) return new ToolError('Stopped by the user.');
  if (signal.aborted) return new ToolError(`${url} did not answer within ${FETCH_TIMEOUT_MS / 1000} s (timed out). Try again later or another source.`);
  const message = e instanceof Error ? e.message : String(e);
  return new ToolError(`Could not reach ${url}: the request failed (${message}) — the host may not exist, refuse connections, or have a broken TLS certificate.`);
}

const fetchMaxLength = v.pipe(
  v.number('must be a number of characters'),
  v.integer('must be a whole number'),
  v.minValue(100, 'must be at least 100'),
  v.maxValue(MAX_CONTENT_LENGTH, `must be at most ${MAX_CONTENT_LENGTH}`),
);

export const webFetch = defineTool({
  name: 'web_fetch',
  description:
    "Fetch a URL with a new HTTP request (without the user's cookies; 30 s timeout; redirects followed, final_url says where it ended). " +
    'HTML comes back as the Markdown of its main content (navigation and sidebars removed; same-site links are shown from their path, ' +
    'resolve them against final_url), JSON pretty-printed, RSS/Atom feeds as a list of items, other XML as an outline, text as is, ' +
    'and binary files (PDF, images, archives) as a short description. ' +
    `Content is cut at max_length characters (default ${DEFAULT_MAX_LENGTH}; truncated: true when cut). ` +
    'With prompt, the content is distilled by the model for that request instead of returned whole (use it for long pages). ' +
    'Pages built by JavaScript may come back empty: then open them with open_tab and read them with get_tab_content. ' +
    "Addresses on the user's own computer or local network are refused unless the user allowed them in the settings.",
  input: v.strictObject({
    url: v.pipe(v.string('must be a URL string'), v.nonEmpty('must not be empty'), v.maxLength(8192, 'must be at most 8192 characters'), v.description('Target URL (http or https)')),
    prompt: v.optional(v.pipe(v.string('must be a string'), v.nonEmpty('must not be empty'), v.maxLength(10_000, 'must be at most 10000 characters'), v.description('Summary prompt: when given, the model distils the fetched content for it'))),
    max_length: v.optional(v.pipe(fetchMaxLength, v.description('Maximum characters of content'))),
  }),
  async run(input, ctx) {
    const allowPrivate = ctx.env.settings.allowPrivateNetwork;
    let url: URL;
    try {
      url = checkFetchUrl(input.url, { allowPrivate });
    } catch (e) {
      if (e instanceof WebFetchError) throw new ToolError(e.message);
      throw e;
    }
    const signal = withTimeout(ctx.signal, FETCH_TIMEOUT_MS);
    let response: Response;
    try {
      response = await agentRequest(ctx.env.fetch, url.href, signal);
    } catch (e) {
      throw networkError(e, url.href, signal, ctx.signal);
    }
    const finalUrl = response.url || url.href;
    // Redirects are followed by the browser, so a public URL may land on a private one; an
    // extension cannot stop that hop (fetch's 'manual' mode hides the Location), only the answer.
    if (!allowPrivate && finalUrl !== url.href) {
      const reason = privateAddressReason(new URL(finalUrl));
      if (reason) {
        void response.body?.cancel().catch(() => {});
        throw new ToolError(
          `${url.href} redirected to ${finalUrl}, which is ${reason}. web_fetch does not read the user's own computer or local network unless the user allows it in Pagewright's settings.`,
        );
      }
    }
    let body;
    try {
      body = await readBodyCapped(response, { signal });
    } catch (e) {
      throw networkError(e, finalUrl, signal, ctx.signal);
    }
    const contentTypeHeader = response.headers.get('content-type');
    if (!response.ok) throw httpError(response, finalUrl, body.bytes, contentTypeHeader);

    const readable = readableFromBytes(body.bytes, { contentType: contentTypeHeader, url: finalUrl, capped: body.capped, size: body.size, maxBytes: MAX_BODY_BYTES });
    const limit = input.prompt ? MAX_CONTENT_LENGTH : (input.max_length ?? DEFAULT_MAX_LENGTH);
    let content = readable.content;
    let truncated = body.capped;
    const notes: string[] = [];
    if (readable.note) notes.push(readable.note);
    if (readable.kind === 'html') {
      const page = await ctx.env.dom.htmlToMarkdown({ html: readable.content, url: finalUrl, maxLength: limit });
      content = page.content ? (page.title && !page.content.startsWith('# ') ? `# ${page.title}\n\n${page.content}` : page.content) : '';
      truncated ||= page.truncated;
      if (!content.trim()) notes.push('The HTML has no readable text: the page is probably built by JavaScript. Open it with open_tab and read it with get_tab_content.');
    } else if (content.length > limit) {
      content = cut(content, limit);
      truncated = true;
    }
    if (input.prompt) {
      // truncated stays true when the summary could only see part of the page (10 MB body,
      // 1,000,000 characters of text); max_length then cuts the summary itself.
      content = await ctx.env.summarize(content, input.prompt, ctx.signal);
      if (input.max_length && content.length > input.max_length) {
        content = cut(content, input.max_length);
        truncated = true;
      }
    } else if (truncated && !body.capped && !input.max_length) {
      notes.push(`Cut at ${limit} characters: pass a prompt to have the whole page distilled, or max_length (up to ${MAX_CONTENT_LENGTH}).`);
    }
    if (notes.length) content = `[Note: ${notes.join(' ')}]\n\n${content}`;
    return {
      url: url.href,
      content_type: parseMimeType(contentTypeHeader)?.essence ?? readable.classification.mimeType ?? 'application/octet-stream',
      content,
      truncated,
      final_url: finalUrl,
    };
  },
});

function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const nl = text.lastIndexOf('\n', max);
  return text.slice(0, nl > max * 0.8 ? nl : max);
}

/** A 4xx/5xx answer: the status, and the start of what the server said (often the reason). */
function httpError(response: Response, url: string, bytes: Uint8Array, contentType: string | null): ToolError {
  const decoded = decodeBody(bytes.subarray(0, 256 * 1024), { contentType });
  const essence = parseMimeType(contentType)?.essence ?? '';
  const text = (/html|xml/.test(essence) || /^\s*</.test(decoded.text) ? htmlToText(decoded.text) : decoded.text).replace(/\s+/g, ' ').trim();
  const excerpt = text ? ` The response began: "${text.slice(0, 300)}${text.length > 300 ? '…' : ''}"` : '';
  const hint =
    response.status === 404 || response.status === 410
      ? ' The page does not exist there: check the URL or search for it.'
      : response.status === 401 || response.status === 403
        ? ' The site refuses the request (a login, or bot protection): web_fetch sends no cookies; if the user is logged in, open the page in a tab and read it with get_tab_content.'
        : response.status === 429
          ? ' The site is rate-limiting: wait before trying again.'
          : response.status >= 500
            ? ' The server failed: try again later.'
            : '';
  return new ToolError(`HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''} from ${url}.${hint}${excerpt}`);
}

// ---------- web_search ----------

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

/** The search engines' requests: cookie-less like web_fetch, bodies capped and decoded by their charset. */
export function searchFetcher(fetchFn: FetchFn): Fetcher {
  return async (request, signal) => {
    const response = await agentRequest(fetchFn, request.url, signal, request.headers);
    const body = await readBodyCapped(response, { signal, maxBytes: request.purpose === 'resolve' ? RESOLVE_BODY_BYTES : SEARCH_BODY_BYTES });
    const contentType = response.headers.get('content-type') ?? '';
    return { status: response.status, url: response.url || request.url, contentType, body: decodeBody(body.bytes, { contentType }).text };
  };
}

/** What the settings page's Test button searches for. */
export const SEARCH_TEST_QUERY = 'web browser';

/** One search with the settings' engine (or `engine`), as web_search and the settings page's Test button run it. */
export function runSearch(settings: Settings, query: string, maxResults: number | undefined, fetchFn: FetchFn, signal: AbortSignal, engine: SearchEngineId = settings.searchEngine): Promise<SearchResult[]> {
  return search(engine, query, maxResults, engineConfig(settings, engine), searchFetcher(fetchFn), signal, { timeoutMs: FETCH_TIMEOUT_MS });
}

export const webSearch = defineTool({
  name: 'web_search',
  description:
    'Search the web with the search engine the user chose in the settings (DuckDuckGo by default). ' +
    'Returns [{title, url, snippet}], at most max_results (default 5, at most 10). Read a result with web_fetch, or open it with open_tab.',
  input: v.strictObject({
    query: v.pipe(v.string('must be a string of search words'), v.trim(), v.nonEmpty('must not be empty'), v.maxLength(2000, 'must be at most 2000 characters'), v.description('Search keywords')),
    max_results: v.optional(
      v.pipe(v.number('must be a number'), v.integer('must be a whole number'), v.minValue(1, 'must be at least 1'), v.description('Maximum results (default 5; above 10 gives 10)')),
    ),
  }),
  async run(input, ctx: ToolContext) {
    try {
      return await runSearch(ctx.env.settings, input.query, input.max_results, ctx.env.fetch, ctx.signal);
    } catch (e) {
      if (e instanceof SearchError) throw new ToolError(e.message);
      throw e;
    }
  },
});

export const webTools = [webFetch, webSearch];
