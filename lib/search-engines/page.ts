/** What every HTML result-page parser does after finding its result blocks. */
import { errors, type SearchError } from './errors';
import { textOf, type HtmlElement } from './html';
import { cleanSnippet, cleanTitle, collapseWhitespace } from './text';
import type { ResponseInfo, SearchEngine, SearchResult } from './types';

/** Who a page belongs to, for error messages. */
export type EngineRef = Pick<SearchEngine, 'id' | 'label' | 'humanSearchUrl'>;

/** What a page scan found: organic results, and how many ad blocks it left out. */
export interface PageScan {
  results: SearchResult[];
  ads: number;
}

export function looksLikeHtml(body: string, contentType: string): boolean {
  return /html/i.test(contentType) || /<(?:!doctype\s+html|html|body)[\s>]/i.test(body.slice(0, 4096));
}

export function makeResult(title: string, url: string, snippet: string): SearchResult {
  return { title: cleanTitle(title) || url, url, snippet: cleanSnippet(snippet) };
}

/** The visible text of the whole page, single-spaced (for "no results" and challenge wording). */
export function pageText(root: HtmlElement): string {
  return collapseWhitespace(textOf(root));
}

export interface PageChecks {
  /** What the challenge page is (e.g. 'a bot check (CAPTCHA)'), or null when it is not one. */
  blocked(): string | null;
  /** True when the page says there are no results. */
  empty(): boolean;
  /** The result blocks the parser looked for, for the 'layout' message. */
  expected: string;
}

/**
 * Results when there are any; otherwise the reason there are none, as a SearchError: a challenge
 * page, an explicit "no results" page, only ads, or — when none of these is recognised — a page
 * layout this parser does not know. Never an empty list: that would read as a successful search.
 */
export function conclude(
  engine: EngineRef,
  scan: PageScan,
  body: string,
  info: ResponseInfo,
  checks: PageChecks,
): SearchResult[] {
  if (scan.results.length > 0) return scan.results;
  const blocked = blockedError(engine, checks.blocked(), info.query);
  if (blocked) throw blocked;
  if (checks.empty()) throw errors.empty(engine.id, engine.label, info.query);
  if (scan.ads > 0) throw errors.empty(engine.id, engine.label, info.query, true);
  const detail = looksLikeHtml(body, info.contentType)
    ? `no ${checks.expected} and no "no results" notice`
    : `the response is not HTML (content-type: ${info.contentType || 'none'})`;
  throw errors.layout(engine.id, engine.label, detail, body);
}

/** The 'blocked' error for a challenge page, `what` saying which; null when `what` is null (not a challenge page). */
export function blockedError(engine: EngineRef, what: string | null, query: string): SearchError | null {
  return what ? errors.blocked(engine.id, engine.label, what, engine.humanSearchUrl(query)) : null;
}
