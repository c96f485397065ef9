import type { ContentBlock } from '../contracts/conversation';

/**
 * Placeholder estimate (about 3.5 characters per token) until the calibrated estimator lands;
 * the context manager only needs the two functions' shapes.
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 3.5);
}

export function estimateContentTokens(blocks: readonly ContentBlock[] | string): number {
  if (typeof blocks === 'string') return estimateTokens(blocks);
  let n = 0;
  for (const b of blocks) {
    if (b.type === 'text') n += estimateTokens(b.text);
    else if (b.type === 'tool_use') n += estimateTokens(JSON.stringify(b.input ?? {})) + 8;
    else if (b.type === 'tool_result') {
      if (typeof b.content === 'string') n += estimateTokens(b.content);
      else for (const c of b.content ?? []) n += c.type === 'text' ? estimateTokens(c.text) : 1600;
      n += 8;
    }
  }
  return n;
}
