/**
 * web_fetch's HTML → Markdown: the page-reading pipeline on a parsed (never rendered) copy.
 * Needs DOMParser: it runs in Chrome's offscreen document and Firefox's background page.
 */
import { ExtractError } from './errors';
import { extractPage } from './index';

export interface FetchedPageRequest {
  html: string;
  /** The URL the page came from (after redirects): links resolve against it. */
  url: string;
  maxLength?: number;
}

export interface FetchedPage {
  title: string;
  content: string;
  truncated: boolean;
}

export function fetchedHtmlToMarkdown({ html, url, maxLength }: FetchedPageRequest): FetchedPage {
  // A parsed document runs no scripts and loads nothing: the page's own code never executes here.
  const doc = new DOMParser().parseFromString(html, 'text/html');
  try {
    const r = extractPage(doc, { url, annotate: false, ...(maxLength ? { maxLength } : {}) });
    return { title: r.title, content: r.content, truncated: r.truncated };
  } catch (e) {
    // A page with no text (an app shell that renders with scripts) is not a failure of the fetch.
    if (e instanceof ExtractError && (e.code === 'empty' || e.code === 'no_match')) return { title: doc.title.trim(), content: '', truncated: false };
    throw e;
  }
}
