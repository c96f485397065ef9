/**
 * The web family: web_fetch (one URL → readable text, lib/web/fetch-page.ts) and web_search (an
 * engine's results, lib/search-engines/run.ts). Their failures are WebFetchError / SearchError,
 * which the registry hands to the model as they are.
 */
import * as v from 'valibot';
import { DEFAULT_MAX_LENGTH, MAX_CONTENT_LENGTH } from '../extract/limits';
import { engineUrl, runSearch } from '../search-engines/run';
import { checkFetchUrl } from '../web/address-policy';
import { cutAtLineEnd, fetchReadable } from '../web/fetch-page';
import { builtinFacts } from './catalog';
import { defineTool, fenceWithin, type ToolContext } from './registry';

const fetchMaxLength = v.pipe(
  v.number('must be a number of characters'),
  v.integer('must be a whole number'),
  v.minValue(100, 'must be at least 100'),
  v.maxValue(MAX_CONTENT_LENGTH, `must be at most ${MAX_CONTENT_LENGTH}`),
);

export const webFetch = defineTool({
  ...builtinFacts('web_fetch'),
  description:
    'Read a known URL by a fresh request (no cookies). Returns {url, final_url, content_type, content, truncated}: HTML as ' +
    'Markdown of its main text, JSON, feeds as items, text; binary as a note. Script-built or logged-in page: open_tab + get_tab_content',
  input: v.strictObject({
    url: v.pipe(v.string('must be a URL string'), v.nonEmpty('must not be empty'), v.maxLength(8192, 'must be at most 8192 characters')),
    prompt: v.optional(v.pipe(v.string('must be a string'), v.nonEmpty('must not be empty'), v.maxLength(10_000, 'must be at most 10000 characters'), v.description('What to distil from the content, instead of returning it whole'))),
    max_length: v.optional(v.pipe(fetchMaxLength, v.description(`Default ${DEFAULT_MAX_LENGTH}`))),
  }),
  // A URL web_fetch would refuse anyway (not http, a private address) is refused before anyone is asked.
  targets: (input, ctx) => [{ access: 'send', url: checkFetchUrl(input.url.trim(), { allowPrivate: ctx.env.settings.allowPrivateNetwork }).href }],
  fenceResult: (result, fence, input) => {
    const r = result as { final_url: string; content: string; truncated: boolean };
    const { text, cut } = fenceWithin(fence, r.content, r.final_url, input.max_length);
    return { ...r, content: text, truncated: r.truncated || cut };
  },
  async run(input, ctx) {
    const limit = input.prompt ? MAX_CONTENT_LENGTH : (input.max_length ?? DEFAULT_MAX_LENGTH);
    const page = await fetchReadable(input.url, {
      fetch: ctx.env.fetch,
      addresses: ctx.env.addresses,
      htmlToMarkdown: (request) => ctx.env.dom.htmlToMarkdown(request),
      allowPrivate: ctx.env.settings.allowPrivateNetwork,
      maxLength: limit,
      signal: ctx.signal,
    });
    let { content, truncated } = page;
    const notes = page.notes.slice();
    if (input.prompt) {
      // truncated stays true when the summary could only see part of the page (10 MB body,
      // 1,000,000 characters of text); max_length then cuts the summary itself.
      content = await ctx.env.summarize(content, input.prompt, ctx.signal);
      if (input.max_length && content.length > input.max_length) {
        content = cutAtLineEnd(content, input.max_length);
        truncated = true;
      }
    } else if (truncated && !page.bodyCapped && !input.max_length) {
      notes.push(`Cut at ${limit} characters: pass a prompt to have the whole page distilled, or max_length (up to ${MAX_CONTENT_LENGTH}).`);
    }
    if (notes.length) content = `[Note: ${notes.join(' ')}]\n\n${content}`;
    return { url: page.url, content_type: page.contentType, content, truncated, final_url: page.finalUrl };
  },
});

export const webSearch = defineTool({
  ...builtinFacts('web_search'),
  description:
    "Find pages you do not know yet, with the user's search engine. Returns [{title, url, snippet}]",
  input: v.strictObject({
    query: v.pipe(v.string('must be a string of search words'), v.trim(), v.nonEmpty('must not be empty'), v.maxLength(2000, 'must be at most 2000 characters')),
    max_results: v.optional(
      v.pipe(v.number('must be a number'), v.integer('must be a whole number'), v.minValue(1, 'must be at least 1'), v.description('Default 5, at most 10')),
    ),
  }),
  targets: (_input, ctx) => [{ access: 'send', url: engineUrl(ctx.env.settings) }],
  fenceResult: (result, fence) =>
    (result as { title: string; url: string; snippet: string }[]).map((r) => ({ ...r, title: fence(r.title, r.url), snippet: fence(r.snippet, r.url) })),
  async run(input, ctx: ToolContext) {
    return runSearch(ctx.env.settings, input.query, input.max_results, ctx.env.fetch, ctx.signal);
  },
});

export const webTools = [webFetch, webSearch];
