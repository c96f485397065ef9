import { Lexer, Marked, type Links, type Token } from 'marked';
import { describe, expect, test } from 'vitest';
import { IncrementalMarkdown } from '../../lib/ui/markdown-blocks';

/** marked as lib/ui/markdown.ts sets it up, without the sanitiser (which needs a DOM). */
const marked = new Marked({ gfm: true, breaks: true, async: false });
const engine = {
  lex(src: string, links: Links) {
    const lexer = new Lexer(marked.defaults);
    Object.assign(lexer.tokens.links, links);
    return lexer.lex(src);
  },
  render: (tokens: Token[]) => marked.parser(tokens) as string,
};

/** The text a reader sees: the rendered HTML without tags and entities. */
function shownText(md: IncrementalMarkdown): string {
  return (md.chunks.map((c) => c.html).join('') + md.tailHtml)
    .replace(/<br>/g, '\n')
    .replace(/<[^>]+>/g, '')
    .replace(/&#(\d+);|&(lt|gt|amp|quot);/g, (_, n: string, e: string) => (n ? String.fromCharCode(+n) : { lt: '<', gt: '>', amp: '&', quot: '"' }[e]!));
}

/**
 * Updates as a streamed reply does, each call with a deadline already reached (one step each, the
 * least a frame can give), until the renderer says it is done.
 */
function updateInSteps(md: IncrementalMarkdown, text: string, maxSteps = 10_000): number {
  for (let steps = 1; steps <= maxSteps; steps++) if (md.update(text, performance.now()).done) return steps;
  return Infinity;
}

/** Each a reply that is one Markdown block, ending with THE-END. */
const HUGE: Record<string, string> = {
  'a 192,000-character paragraph': `${'lorem ipsum '.repeat(16_000)}THE-END`,
  'a 192,000-character paragraph and a newline': `${'lorem ipsum '.repeat(16_000)}THE-END\n`,
  'a 200,000-character line': `${'abcdefghi '.repeat(20_000)}THE-END\n`,
  '1,050 lines of 1,000 characters': Array.from({ length: 1050 }, (_, i) => `${i} `.padEnd(1000, 'x')).join('\n') + '\nTHE-END',
  'a table of 6,000 rows': ['| a | b |', '|---|---|', ...Array.from({ length: 6000 }, (_, i) => `| row ${i} | ${i} |`), '| THE-END | 0 |', ''].join('\n'),
  'a code block of 6,000 lines': ['```ts', ...Array.from({ length: 6000 }, (_, i) => `const x${i} = ${i};`), 'THE-END', '```', ''].join('\n'),
  'a list of 6,000 items': [...Array.from({ length: 6000 }, (_, i) => `- item ${i}`), '- THE-END', ''].join('\n'),
};

describe('IncrementalMarkdown, one huge block (issue 31)', () => {
  for (const [shape, text] of Object.entries(HUGE)) {
    test(`${shape} shows when each update can only take one step`, () => {
      const md = new IncrementalMarkdown(engine);
      expect(updateInSteps(md, text)).toBeLessThan(500);
      expect(shownText(md)).toContain('THE-END');
    });
  }
});
