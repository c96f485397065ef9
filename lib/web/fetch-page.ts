/**
 * web_fetch's pipeline: one URL → readable text. The address policy, the agent's request, the
 * redirect check, the capped body, the HTTP error with what the server said, and the body turned
 * into text by its kind (HTML → the Markdown of its main content, JSON, feeds, XML, text, a line
 * for binary). Failures are WebFetchErrors written for the model.
 */
import type { FetchedPage, FetchedPageRequest } from '../extract/fetched';
import { checkFetchUrl, isIpHost, privateAddressReason } from './address-policy';
import { ANSWER_REPORT_GRACE_MS, answerProblem, answerProblemError, detachedAddresses, resolvedPrivateError, resolvedProblem, type ResolvedAddresses } from './answer-address';
import { MAX_BODY_BYTES, readBodyCapped } from './body';
import { decodeBody } from './charset';
import { readableFromBytes } from './convert';
import { WebFetchError } from './errors';
import { htmlToText } from './html-text';
import { parseMimeType } from './mime';
import { agentRequest, fetchFailure, withTimeout, type FetchFn } from './request';

export interface FetchPageOptions {
  fetch: FetchFn;
  /** Where the answers came from, as the browser reports it (default: nothing to watch). */
  addresses?: ResolvedAddresses;
  /** HTML → Markdown, where a DOM is (Chrome's offscreen document, Firefox's background page). */
  htmlToMarkdown(request: FetchedPageRequest): Promise<FetchedPage>;
  /** Let loopback, private-network and local names through (a user setting). */
  allowPrivate: boolean;
  /** Characters of content at most (HTML is cut by the extractor, other text here). */
  maxLength: number;
  /** The user's stop. */
  signal: AbortSignal;
}

export interface FetchedReadable {
  /** The URL as checked (canonicalised). */
  url: string;
  finalUrl: string;
  contentType: string;
  content: string;
  /** Cut at maxLength, or the body was longer than 10 MB. */
  truncated: boolean;
  /** The body itself was cut at 10 MB (not only the text at maxLength). */
  bodyCapped: boolean;
  /** Things the model should know about the content (what a binary file is, a page built by script). */
  notes: string[];
}

export async function fetchReadable(rawUrl: string, options: FetchPageOptions): Promise<FetchedReadable> {
  const { allowPrivate, maxLength } = options;
  const url = checkFetchUrl(rawUrl, { allowPrivate });
  const addresses = options.addresses ?? detachedAddresses;
  const signal = withTimeout(options.signal);
  const response = allowPrivate ? await request(options, url, signal) : await requestOnPublicAddresses(options, addresses, url, signal);
  const finalUrl = response.url || url.href;
  // Redirects are followed by the browser, so a public URL may land on a private one; an
  // extension cannot stop that hop (fetch's 'manual' mode hides the Location), only the answer.
  if (!allowPrivate && finalUrl !== url.href) {
    const reason = privateAddressReason(new URL(finalUrl));
    if (reason) {
      void response.body?.cancel().catch(() => {});
      throw new WebFetchError(
        'private_redirect',
        `${url.href} redirected to ${finalUrl}, which is ${reason}. web_fetch does not read the user's own computer or local network unless the user allows it in Pagewright's settings.`,
      );
    }
  }
  let body;
  try {
    body = await readBodyCapped(response, { signal });
  } catch (e) {
    throw fetchFailure(e, finalUrl, signal, options.signal);
  }
  const contentTypeHeader = response.headers.get('content-type');
  if (!response.ok) throw httpError(response, finalUrl, body.bytes, contentTypeHeader);

  const readable = readableFromBytes(body.bytes, { contentType: contentTypeHeader, url: finalUrl, capped: body.capped, size: body.size, maxBytes: MAX_BODY_BYTES });
  let content = readable.content;
  let truncated = body.capped;
  const notes: string[] = [];
  if (readable.note) notes.push(readable.note);
  if (readable.kind === 'html') {
    const page = await options.htmlToMarkdown({ html: readable.content, url: finalUrl, maxLength });
    content = page.content ? (page.title && !page.content.startsWith('# ') ? `# ${page.title}\n\n${page.content}` : page.content) : '';
    truncated ||= page.truncated;
    if (!content.trim()) notes.push('The HTML has no readable text: the page is probably built by JavaScript. Open it with open_tab and read it with get_tab_content.');
  } else if (content.length > maxLength) {
    content = cutAtLineEnd(content, maxLength);
    truncated = true;
  }
  return {
    url: url.href,
    finalUrl,
    contentType: parseMimeType(contentTypeHeader)?.essence ?? readable.classification.mimeType ?? 'application/octet-stream',
    content,
    truncated,
    bodyCapped: body.capped,
    notes,
  };
}

async function request(options: FetchPageOptions, url: URL, signal: AbortSignal): Promise<Response> {
  try {
    return await agentRequest(options.fetch, url.href, signal);
  } catch (e) {
    throw fetchFailure(e, url.href, signal, options.signal);
  }
}

/**
 * The request, refused or discarded when a name turns out to mean the user's own computer or
 * network: before sending where the browser can resolve (Firefox), and in every browser by
 * the address each answer (every redirect hop, and the final one) was received from. The
 * answer is checked before its body is read, so a refused body is never returned, not even
 * the start of it an HTTP error would quote. In Chrome the request itself has been made by
 * then: an extension cannot resolve a name first there, nor stop a redirect hop.
 */
async function requestOnPublicAddresses(options: FetchPageOptions, addresses: ResolvedAddresses, url: URL, signal: AbortSignal): Promise<Response> {
  if (!isIpHost(url)) {
    // The lookup takes no signal; the user's stop and the time limit must still end the wait.
    const stopped = new Promise<never>((_, reject) => {
      const fail = () => reject(fetchFailure(signal.reason, url.href, signal, options.signal));
      if (signal.aborted) fail();
      else signal.addEventListener('abort', fail, { once: true });
    });
    stopped.catch(() => {});
    const resolved = await Promise.race([addresses.lookup(url.hostname), stopped]);
    const problem = resolved && resolvedProblem(resolved);
    if (problem) throw resolvedPrivateError(url.hostname, problem.ip, problem.reason);
  }
  const watch = await addresses.watch(url.href);
  try {
    const response = await request(options, url, signal);
    if (!watch) return response;
    const problem = answerProblem(await watch.settled(ANSWER_REPORT_GRACE_MS, signal), response.url || url.href);
    if (signal.aborted) {
      void response.body?.cancel().catch(() => {});
      throw fetchFailure(signal.reason, url.href, signal, options.signal);
    }
    if (problem) {
      void response.body?.cancel().catch(() => {});
      throw answerProblemError(problem, url.href);
    }
    return response;
  } finally {
    watch?.stop();
  }
}

/** Cuts at a line end near `max` when there is one, so a cut rarely splits a line. */
export function cutAtLineEnd(text: string, max: number): string {
  if (text.length <= max) return text;
  const nl = text.lastIndexOf('\n', max);
  return text.slice(0, nl > max * 0.8 ? nl : max);
}

/** A 4xx/5xx answer: the status, and the start of what the server said (often the reason). */
function httpError(response: Response, url: string, bytes: Uint8Array, contentType: string | null): WebFetchError {
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
  return new WebFetchError('http', `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''} from ${url}.${hint}${excerpt}`);
}
