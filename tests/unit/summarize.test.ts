import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAnthropicClient } from '../../lib/agent/providers/anthropic-messages';
import { splitForSummary, summarize } from '../../lib/agent/summarize';
import { FakeAnthropic, text } from '../harness/fake-anthropic';

const fake = new FakeAnthropic();
beforeAll(() => fake.start());
afterAll(() => fake.stop());
beforeEach(() => fake.reset());

const options = (extra = {}) => ({
  client: createAnthropicClient({ apiKey: 'k', baseUrl: fake.url }),
  model: 'summary-model',
  maxTokens: 8192,
  signal: new AbortController().signal,
  ...extra,
});

describe('splitForSummary', () => {
  it('cuts at paragraph boundaries and loses nothing', () => {
    const paras = Array.from({ length: 50 }, (_, i) => `Paragraph ${i} ${'word '.repeat(20)}`.trim());
    const text = paras.join('\n\n');
    const parts = splitForSummary(text, 500);
    expect(parts.length).toBeGreaterThan(5);
    for (const p of parts) expect(p.length).toBeLessThanOrEqual(500);
    expect(parts.every((p) => p.startsWith('Paragraph'))).toBe(true);
    expect(parts.join('\n\n')).toBe(text);
  });

  it('cuts a text without line breaks at the size', () => {
    expect(splitForSummary('x'.repeat(25), 10)).toEqual(['x'.repeat(10), 'x'.repeat(10), 'x'.repeat(5)]);
  });
});

describe('summarize', () => {
  it('asks the model once for a text that fits', async () => {
    fake.script(text('The price is 12 EUR.'));
    const out = await summarize('Product page. Price: 12 EUR.', 'What does it cost?', options());
    expect(out).toBe('The price is 12 EUR.');
    expect(fake.requests).toHaveLength(1);
    const body = fake.requests[0]!.body;
    expect(body.model).toBe('summary-model');
    expect(body.messages[0].content).toContain('<request>What does it cost?</request>');
    expect(body.messages[0].content).toContain('Price: 12 EUR.');
  });

  it('summarises a text larger than the context in parts, then combines them', async () => {
    const big = Array.from({ length: 30 }, (_, i) => `Section ${i}: ${'filler '.repeat(40)}`).join('\n\n');
    fake.script(...Array.from({ length: 20 }, (_, i) => text(`note ${i}`)));
    const out = await summarize(big, 'Summarise', options({ chunkChars: 1000 }));
    const parts = splitForSummary(big, 1000).length;
    expect(fake.requests).toHaveLength(parts + 1);
    const last = fake.requests.at(-1)!.body.messages[0].content as string;
    expect(last).toContain('Notes taken from each part');
    expect(out).toMatch(/^note \d+$/);
  });
});
