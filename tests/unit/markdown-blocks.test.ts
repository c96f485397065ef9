import { Lexer, Marked, type Links, type Token } from 'marked';
import { describe, expect, test } from 'vitest';
import { IncrementalMarkdown, PLAIN_BEYOND } from '../../lib/ui/markdown-blocks';

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

/** The engine, noting the longest source it was asked to lex. */
function measuredEngine() {
  const m = { longest: 0, ...engine };
  m.lex = (src: string, links: Links) => {
    m.longest = Math.max(m.longest, src.length);
    return engine.lex(src, links);
  };
  return m;
}

describe('IncrementalMarkdown, blocks shown as text', () => {
  test('a block shown as text shows exactly its characters, also streamed in small deltas with one step per update', () => {
    for (const shape of ['a 192,000-character paragraph', 'a 200,000-character line', '1,050 lines of 1,000 characters']) {
      const text = HUGE[shape]!;
      const whole = new IncrementalMarkdown(engine);
      whole.update(text);
      expect(shownText(whole), shape).toBe(text);
      expect(whole.chunks.every((c) => c.plain === 'text'), shape).toBe(true);

      const md = new IncrementalMarkdown(engine);
      const kept = new Set<object>();
      for (let at = 0; at < text.length; ) {
        at = Math.min(text.length, at + 1 + ((at * 7919) % (text.length / 40)));
        expect(updateInSteps(md, text.slice(0, at))).toBeLessThan(50);
        // Past PLAIN_BEYOND, the text so far, nothing more or less (before, it is Markdown);
        // pieces once made are kept as they are.
        if (at > PLAIN_BEYOND) expect(shownText(md), `${shape} at ${at}`).toBe(text.slice(0, at));
        else expect(shownText(md).replace(/\s/g, ''), `${shape} at ${at}`).toBe(text.slice(0, at).replace(/\s/g, ''));
        const now = new Set<object>(md.chunks);
        for (const c of kept) expect(now.has(c)).toBe(true);
        for (const c of md.chunks) kept.add(c);
      }
    }
  });

  test('no step lexes more than twice PLAIN_BEYOND, whatever the shape', () => {
    for (const [shape, text] of Object.entries(HUGE)) {
      const e = measuredEngine();
      const md = new IncrementalMarkdown(e);
      for (let at = 0; at < text.length; ) {
        at = Math.min(text.length, at + 4096);
        updateInSteps(md, text.slice(0, at));
      }
      expect(e.longest, shape).toBeLessThanOrEqual(2 * PLAIN_BEYOND);
      expect(shownText(md), shape).toContain('THE-END');
    }
  });

  test('a fenced code block shown as text ends at its own closing fence only, and Markdown resumes after it', () => {
    const body = Array.from({ length: 2000 }, (_, i) => `line ${i} <i>\n\n~~~\n\`\`\`\n`).join('');
    const text = `Intro.\n\n\`\`\`\`md\n${body}\`\`\`\`\n\nAfter **bold**.\n`;
    const md = new IncrementalMarkdown(engine);
    updateInSteps(md, text);
    const pieces = md.chunks.filter((c) => c.plain);
    expect(pieces.every((c) => c.plain === 'code')).toBe(true);
    expect(shownText({ chunks: pieces, tailHtml: '' } as unknown as IncrementalMarkdown)).toBe(body);
    expect(md.chunks.at(-1)!.plain ?? md.tailPlain).toBeUndefined();
    expect(md.chunks.map((c) => c.html).join('') + md.tailHtml).toContain('<p>After <strong>bold</strong>.</p>');
  });

  test('a paragraph shown as text ends at a blank line; a block under PLAIN_BEYOND is rendered as Markdown', () => {
    const small = `${'Some **bold** words. '.repeat(600)}\n`;
    expect(small.length).toBeLessThan(PLAIN_BEYOND);
    const huge = `${'Some **bold** words. '.repeat(2000)}\n`;
    const md = new IncrementalMarkdown(engine);
    updateInSteps(md, `${huge}\n${small}\n- a list\n`);
    const html = md.chunks.map((c) => c.html).join('') + md.tailHtml;
    expect(md.chunks.filter((c) => c.plain).map((c) => c.html).join('')).toBe(huge);
    expect(html.match(/<strong>/g)!.length).toBe(600);
    expect(html).toContain('<li>a list</li>');
  });

  test('a huge line without spaces is cut into pieces, never between the halves of a surrogate pair', () => {
    const text = '😀'.repeat(30_000) + 'x😀'.repeat(10_000);
    const md = new IncrementalMarkdown(engine);
    updateInSteps(md, text);
    expect(md.chunks.length).toBeGreaterThan(5);
    for (const c of md.chunks) expect(c.html, `piece ${c.key}`).not.toMatch(/[\ud800-\udbff]$|^[\udc00-\udfff]/);
    expect(shownText(md)).toBe(text);
  });

  test('an update cut short by its deadline keeps the open end it showed, rather than blink it out', () => {
    const first = `Done.\n\n${'open '.repeat(2000)}\n`;
    const md = new IncrementalMarkdown(engine);
    md.update(first);
    const tail = md.tailHtml;
    expect(tail).toContain('open');
    // Far more text in one go: the first step cannot reach the end before the deadline.
    md.update(`${first}${'more words '.repeat(3000)}\n\nand then some.\n`, performance.now());
    expect(md.tailHtml).toBe(tail);
  });
});
