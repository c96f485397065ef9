import type Anthropic from '@anthropic-ai/sdk';
import type { TokenUsage } from '../contracts/conversation';
import type { ModelClient } from './model';

/**
 * Characters per part. Well under any current model's context (about 4 characters per
 * token), leaving room for the prompt and the answer.
 */
export const SUMMARY_CHUNK_CHARS = 120_000;
const MAX_PARTS = 24;
const PARALLEL_PARTS = 4;

async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

export interface SummarizeOptions {
  client: ModelClient;
  model: string;
  maxTokens: number;
  signal: AbortSignal;
  chunkChars?: number;
  /** Each request's tokens, so summaries count in the run's usage and cost. */
  usage?(u: TokenUsage): void;
}

/** Splits at paragraph, then line, then any boundary, so parts stay readable. */
export function splitForSummary(text: string, size: number): string[] {
  const parts: string[] = [];
  let rest = text;
  while (rest.length > size) {
    const window = rest.slice(0, size);
    let cut = window.lastIndexOf('\n\n');
    if (cut < size * 0.5) cut = window.lastIndexOf('\n');
    if (cut < size * 0.5) cut = size;
    parts.push(rest.slice(0, cut));
    rest = rest.slice(cut).replace(/^\n+/, '');
  }
  if (rest) parts.push(rest);
  return parts;
}

async function ask(o: SummarizeOptions, system: string, user: string): Promise<string> {
  const stream = await o.client.stream(
    {
      model: o.model,
      maxTokens: Math.min(o.maxTokens, 4096),
      system: [{ type: 'text', text: system }],
      tools: [],
      messages: [{ role: 'user', content: user }],
    },
    o.signal,
  );
  let out = '';
  const u: TokenUsage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  for await (const ev of stream as AsyncIterable<Anthropic.RawMessageStreamEvent>) {
    if (ev.type === 'content_block_delta' && ev.delta.type === 'text_delta') out += ev.delta.text;
    else if (ev.type === 'message_start') {
      u.input = ev.message.usage.input_tokens ?? 0;
      u.cacheRead = ev.message.usage.cache_read_input_tokens ?? 0;
      u.cacheWrite = ev.message.usage.cache_creation_input_tokens ?? 0;
    } else if (ev.type === 'message_delta') u.output = ev.usage.output_tokens ?? u.output;
  }
  o.usage?.(u);
  return out.trim();
}

const SYSTEM =
  'You distil documents for an AI agent. Answer the request using only the document; keep facts, numbers, names, ' +
  'links and CSS selector annotations (text in {…}) that matter to the request. Say so plainly when the document does not contain the answer.';

/**
 * Summarises `text` for `prompt`. A text larger than one part is summarised part by part,
 * then the partial answers are combined, so a big page never fails outright.
 */
export async function summarize(text: string, prompt: string, o: SummarizeOptions): Promise<string> {
  const size = o.chunkChars ?? SUMMARY_CHUNK_CHARS;
  let parts = splitForSummary(text, size);
  let note = '';
  if (parts.length > MAX_PARTS) {
    note = `\n\n(Only the first ${MAX_PARTS} of ${parts.length} parts of the document were read.)`;
    parts = parts.slice(0, MAX_PARTS);
  }
  if (parts.length === 1) {
    return ask(o, SYSTEM, `<request>${prompt}</request>\n\n<document>\n${parts[0]}\n</document>`);
  }
  const partials = await mapLimit(parts, PARALLEL_PARTS, (part, i) =>
    ask(
      o,
      SYSTEM,
      `<request>${prompt}</request>\n\nThis is part ${i + 1} of ${parts.length} of a long document. ` +
        `Extract what in this part serves the request (or reply "nothing relevant").\n\n<document-part>\n${part}\n</document-part>`,
    ),
  );
  const combined = partials.map((p, i) => `<part n="${i + 1}">\n${p}\n</part>`).join('\n');
  return (
    (await ask(o, SYSTEM, `<request>${prompt}</request>\n\nNotes taken from each part of a long document, in order:\n${combined}\n\nAnswer the request from these notes.`)) +
    note
  );
}
