/**
 * The page's own summary of its article (its meta description), as a check on which box an
 * extractor chose: an article's description is mostly made of the article's words (its lead, or a
 * précis of it), while an embedded table, a teaser for another story or a sidebar box beside it
 * shares few of them.
 */

/** Descriptions shorter than this say too little to judge by ("Home", a site's slogan). */
const MIN_SUMMARY_WORDS = 8;

function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** The words of the page's description (Open Graph's first: sites keep it closest to the article), or null. */
export function summaryWords(doc: Document): string[] | null {
  for (const sel of ['meta[property="og:description"]', 'meta[name="description"]', 'meta[name="twitter:description"]']) {
    const w = words(doc.querySelector(sel)?.getAttribute('content') ?? '');
    if (w.length >= MIN_SUMMARY_WORDS) return w;
  }
  return null;
}

/** The share of the summary's words (counted with repeats) that occur in `root`'s text. */
export function summaryCover(summary: readonly string[], root: Element): number {
  const present = new Set(words(root.textContent ?? ''));
  return summary.filter((w) => present.has(w)).length / summary.length;
}
