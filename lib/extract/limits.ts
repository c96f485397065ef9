/** How much page text a read returns; a module of its own so the background can import it without the extractor. */

/**
 * Without maxLength the content still stops here (~50k tokens): no model takes a 5 MB page in one
 * piece, and converting all of it took seconds. `truncated` says when it happened.
 */
export const DEFAULT_MAX_LENGTH = 200_000;
/**
 * And never more than this, whatever maxLength asks: converting a million characters already takes
 * about a second in the page (2 MB of Markdown took 3 s), and no model reads more at once.
 */
export const MAX_CONTENT_LENGTH = 1_000_000;
