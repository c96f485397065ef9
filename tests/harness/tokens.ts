import { getTokenizer } from '@anthropic-ai/tokenizer';

/**
 * Exact token counts with the BPE tokenizer Anthropic published (its earlier models'). The
 * package's own countTokens builds the tokenizer from its rank table on every call (tens of
 * milliseconds); one instance, kept for the process, counts a page in well under a millisecond.
 */
let tokenizer: ReturnType<typeof getTokenizer> | undefined;

export function exactTokens(text: string): number {
  if (!text) return 0;
  tokenizer ??= getTokenizer();
  return tokenizer.encode(text.normalize('NFKC'), 'all').length;
}
