/** Text clean-up shared by the parsers: what the model reads must be short, plain and single-line. */

/** Longest title / snippet kept: a broken page must not flood the model's context. */
export const MAX_TITLE_CHARS = 300;
export const MAX_SNIPPET_CHARS = 1000;

// Zero-width characters and soft hyphens: invisible on the page, noise in the model's input.
const INVISIBLE = /[\u00ad\u200b-\u200d\u2060\ufeff]/g;
// \s covers U+00A0 (&nbsp;) and U+3000 (the ideographic space of Chinese pages) too.
const SPACES = /\s+/g;
// Bing marks query words with U+E000/U+E001 when text decorations are on; they are not text.
const PRIVATE_MARKS = /[\ue000\ue001]/g;

export function collapseWhitespace(text: string): string {
  return text.replace(INVISIBLE, '').replace(PRIVATE_MARKS, '').replace(SPACES, ' ').trim();
}

export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${space > max * 0.8 ? cut.slice(0, space) : cut}…`;
}

export const cleanTitle = (text: string): string => truncate(collapseWhitespace(text), MAX_TITLE_CHARS);
export const cleanSnippet = (text: string): string => truncate(collapseWhitespace(text), MAX_SNIPPET_CHARS);

/** Strips the UTF-8 byte-order mark that some API responses (and saved copies) start with. */
export function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** A short, single-line excerpt of a response body for an error message. */
export function excerpt(body: string, max = 200): string {
  const text = collapseWhitespace(
    stripBom(body)
      .replace(/<(script|style)\b[\s\S]*?<\/\1\s*>/gi, ' ')
      .replace(/<[^>]*>/g, ' '),
  );
  return truncate(text, max);
}
