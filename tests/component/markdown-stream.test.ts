import { describe, expect, test } from 'vitest';
import { render } from 'vitest-browser-svelte';
import Markdown from '../../lib/ui/chat/Markdown.svelte';
import { lexMarkdown, renderMarkdown, renderTokens } from '../../lib/ui/markdown';
import { IncrementalMarkdown, PLAIN_BEYOND } from '../../lib/ui/markdown-blocks';
import { FrameTask } from '../../lib/ui/frame-budget';

const engine = { lex: lexMarkdown, render: renderTokens };
/** HTML as the DOM reads it: DOMPurify hands a string without tags back as it came (`&#60;` for `&lt;`). */
function normal(html: string): string {
  const tpl = window.document.createElement('template');
  tpl.innerHTML = html;
  return tpl.innerHTML;
}
const shown = (md: IncrementalMarkdown) => normal(md.chunks.map((c) => c.html).join('') + md.tailHtml);
const whole = (src: string) => normal(renderMarkdown(src));

/** Pieces of Markdown that are hard to split: every one ends with a newline. */
const PIECES = [
  '# Heading one\n',
  'Setext heading\n===\n',
  'Another one\n---\n',
  'A paragraph\nthat spans lines\nand ends here.\n',
  'Text with **bold across\nlines** and _em_ and `code`.\n',
  'Hard break at the end  \nof a line.\n',
  '```js\nconst a = 1;\n\n\nconst b = "<b>";\n```\n',
  '~~~\n```\nnot a fence end\n```\n~~~\n',
  '````md\n```\ninner\n```\n````\n',
  '    indented code\n\n    after a blank line\n',
  '- one\n- two\n- three\n',
  '- loose one\n\n- loose two\n\n  continued paragraph\n',
  '1. first\n2. second\n   - nested\n   - nested two\n3. third\n',
  '7. starts at seven\n8. eight\n',
  '- [x] done\n- [ ] todo\n',
  '* star list\nlazy continuation\n',
  '| a | b |\n|:--|--:|\n| 1 | 2 |\n| 3 | 4 |\n',
  'Para before a table\n| x | y |\n|---|---|\n| 5 | 6 |\n',
  '> quoted\n> still quoted\n\n> another quote\n',
  '> - list in a quote\n> - two\n',
  '---\n',
  '***\n',
  '<div>\nraw html block\n</div>\n',
  '<script>alert(1)</script>\n',
  'Inline <img src=x onerror=alert(1)> html.\n',
  'See [the docs][docs] and [later][] and ![img][pic].\n',
  '[docs]: https://example.com/docs "Docs"\n',
  '[later]: https://example.com/later\n',
  '[pic]: https://evil.example/p.png\n',
  '[docs]: https://example.com/second-definition-loses\n',
  '> [quoted]: https://example.com/quoted\n',
  'Uses [quoted] from a quote.\n',
  'A [link](https://example.com/x) and https://example.org/auto.\n',
  'Line\n# heading right after a line\n',
  'Line\n```\nfence right after a line\n```\n',
  'Line\n> quote right after a line\n',
  'Line\n- list right after a line\n',
  'Line\n#hashtag is not a heading\n',
  'Line\n-\n',
  'Line\n2. does not start a list here\n',
  '1) paren list\n2) two\n',
  '```\nfence with a longer close\n`````\n',
  '\n',
  '\n\n',
  '   \n',
];

/** A small deterministic PRNG, so a failure names a reproducible seed. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function document(seed: number, pieces = 14, openEnd = true): string {
  const r = rng(seed);
  let out = '';
  for (let i = 0; i < pieces; i++) {
    out += PIECES[Math.floor(r() * PIECES.length)]!;
    // Mostly a blank line between blocks, sometimes none (lazy lines, interruptions).
    if (r() < 0.7) out += '\n';
  }
  // Sometimes the reply ends mid-line or inside an open fence.
  if (!openEnd) return out;
  if (r() < 0.3) out += 'trailing words without a newline';
  if (r() < 0.15) out += '\n```\nan unclosed fence\n\nwith a blank line';
  return out;
}

function streamThrough(md: IncrementalMarkdown, text: string, seed: number, check: (prefix: string) => void) {
  const r = rng(seed ^ 0x9e3779b9);
  let at = 0;
  while (at < text.length) {
    at = Math.min(text.length, at + 1 + Math.floor(r() * (r() < 0.2 ? 200 : 24)));
    md.update(text.slice(0, at));
    check(text.slice(0, at));
  }
}

describe('IncrementalMarkdown', () => {
  test('every streamed state renders exactly as the whole text so far would (250 varied documents)', () => {
    for (let seed = 1; seed <= 250; seed++) {
      const text = document(seed);
      const md = new IncrementalMarkdown(engine);
      streamThrough(md, text, seed, (prefix) => {
        expect(shown(md), `seed ${seed}, after ${prefix.length} of ${text.length} characters`).toBe(whole(prefix));
      });
    }
  });

  test('keeps finished blocks: a chunk, once rendered, is the same object as the text grows', () => {
    const md = new IncrementalMarkdown(engine);
    md.update('# Title\n\nFirst paragraph.\n\nSecond');
    const first = md.chunks;
    expect(first.length).toBeGreaterThan(0);
    md.update('# Title\n\nFirst paragraph.\n\nSecond paragraph, longer now.\n\n- a list');
    for (const c of first) expect(md.chunks).toContain(c);
    expect(md.tailHtml).toContain('<li>');
  });

  test('re-renders an earlier block when the reference it uses is defined later', () => {
    const md = new IncrementalMarkdown(engine);
    md.update('Read [the guide][g].\n\nMore text.\n\nAnd more.\n');
    expect(shown(md)).not.toContain('href="https://example.com/guide"');
    md.update('Read [the guide][g].\n\nMore text.\n\nAnd more.\n\n[g]: https://example.com/guide\n\nEnd.\n');
    expect(shown(md)).toContain('href="https://example.com/guide"');
    expect(shown(md)).toBe(whole('Read [the guide][g].\n\nMore text.\n\nAnd more.\n\n[g]: https://example.com/guide\n\nEnd.\n'));
  });

  test('treats \\r\\n as marked does', () => {
    const text = '# T\r\n\r\nline one\r\nline two\r\n\r\n```\r\ncode\r\n\r\nmore\r\n```\r\n\r\n- a\r\n- b\r\n';
    const md = new IncrementalMarkdown(engine);
    streamThrough(md, text, 7, (prefix) => expect(shown(md)).toBe(whole(prefix)));
  });

  test('starts over when the text is replaced rather than extended', () => {
    const md = new IncrementalMarkdown(engine);
    md.update('First answer.\n\nWith two paragraphs.\n');
    md.update('A different answer.\n');
    expect(shown(md)).toBe(whole('A different answer.\n'));
  });

  test('a long text opened at once renders in steps that each stop at the deadline, and ends equal', () => {
    const text = Array.from({ length: 800 }, (_, i) => document(1000 + i, 10, false)).join('\n\n');
    expect(text.length).toBeGreaterThan(200_000);
    // What a step does once its deadline has passed is counted in characters lexed, not in
    // milliseconds: on a loaded machine the clock runs on while the work waits for a core (a
    // step measured 180 ms beside a build), but the work after the deadline stays one window.
    let deadline = Infinity;
    let pastDeadline = 0;
    let largest = 0;
    const counting = { ...engine, lex: (src: string, links: Parameters<typeof lexMarkdown>[1]) => {
      if (performance.now() >= deadline) pastDeadline += src.length;
      largest = Math.max(largest, src.length);
      return lexMarkdown(src, links);
    } };
    const md = new IncrementalMarkdown(counting);
    let steps = 0;
    let most = 0;
    let slowest = 0;
    for (;;) {
      steps++;
      pastDeadline = 0;
      const start = performance.now();
      deadline = start + 8;
      const { done } = md.update(text, deadline);
      slowest = Math.max(slowest, performance.now() - start);
      most = Math.max(most, pastDeadline);
      if (done) break;
      // Until it is done, the part shown is a prefix of the whole: never a block out of order.
      expect(md.tailHtml).toBe('');
    }
    deadline = Infinity;
    console.log(`[metric] ${text.length} characters opened at once: ${steps} steps, slowest ${slowest.toFixed(0)} ms, at most ${most} characters lexed past a deadline, ${largest} at once`);
    expect(steps).toBeGreaterThan(5);
    // One step is the deadline plus one lexing window (32 KB at most) past it, and no lexing is
    // larger than the window.
    expect(most).toBeLessThanOrEqual(32 * 1024);
    expect(largest).toBeLessThanOrEqual(32 * 1024);
    expect(shown(md)).toBe(whole(text));
  });

  test('a single block longer than the lexing window renders whole', () => {
    const text = 'Intro.\n\n```\n' + 'x = 1\n\n'.repeat(1_500) + '```\n\nAfter.\n';
    expect(text.length).toBeLessThan(PLAIN_BEYOND);
    const md = new IncrementalMarkdown(engine);
    md.update(text);
    expect(shown(md)).toBe(whole(text));
    expect(md.chunks.length).toBeGreaterThan(0);
  });

  test('a block past PLAIN_BEYOND (a 100 KB code fence) is shown as its text, in pieces, and Markdown resumes after it', () => {
    const code = 'x = 1 < 2 && "<b>"\n\n'.repeat(5_000);
    const text = 'Intro.\n\n```py\n' + code + '```\n\nAfter **that**.\n';
    const md = new IncrementalMarkdown(engine);
    md.update(text);
    const pieces = md.chunks.filter((c) => c.plain);
    expect(pieces.length).toBeGreaterThan(5);
    expect(pieces.every((c) => c.plain === 'code')).toBe(true);
    // Escaped text, nothing rendered: the code's own characters, without its fences.
    const tpl = window.document.createElement('template');
    tpl.innerHTML = pieces.map((c) => `<div>${c.html}</div>`).join('');
    expect(tpl.content.querySelector('b')).toBeNull();
    expect(tpl.content.textContent).toBe(code);
    expect(normal(md.chunks[0]!.html)).toBe(whole('Intro.\n'));
    expect(shown(md)).toContain('<p>After <strong>that</strong>.</p>');
  });
});
/** The rendered DOM without Svelte's anchors and the chunks' boxes, as HTML. */
function domHtml(el: Element): string {
  const copy = el.cloneNode(true) as Element;
  for (const box of copy.querySelectorAll(':scope > div')) box.replaceWith(...box.childNodes);
  const walker = window.document.createTreeWalker(copy, NodeFilter.SHOW_COMMENT);
  const comments: Node[] = [];
  while (walker.nextNode()) comments.push(walker.currentNode);
  for (const c of comments) c.parentNode!.removeChild(c);
  return copy.innerHTML;
}

const htmlOf = whole;

describe('Markdown component, streamed', () => {
  test('after a stream of deltas the DOM equals the whole text rendered at once', async () => {
    const text = document(42, 30);
    const screen = await render(Markdown, { text: '' });
    const r = rng(42);
    for (let at = 0; at < text.length; ) {
      at = Math.min(text.length, at + 1 + Math.floor(r() * 60));
      await screen.rerender({ text: text.slice(0, at) });
    }
    const md = screen.container.querySelector('.md')!;
    await expect.poll(() => domHtml(md)).toBe(htmlOf(text));
  });

  test('a huge paragraph (issue 31) shows while it streams, as its text, and whole once it ends', async () => {
    const text = `${'lorem ipsum '.repeat(16_000)}THE-END`;
    const screen = await render(Markdown, { text: '' });
    const md = screen.container.querySelector('.md')!;
    // 2 KB deltas, a frame apart: at every point the text so far is on screen, soon.
    for (let at = 0; at < text.length; ) {
      at = Math.min(text.length, at + 2048);
      await screen.rerender({ text: text.slice(0, at) });
      if (at % 32_768 < 2048) await expect.poll(() => md.textContent).toBe(text.slice(0, at));
      else await nextFrame();
    }
    await expect.poll(() => md.textContent).toBe(text);
    const boxes = [...md.querySelectorAll(':scope > div')];
    expect(boxes.length).toBeGreaterThan(10);
    expect(boxes.every((b) => b.getAttribute('data-plain') === 'text')).toBe(true);
    expect(getComputedStyle(boxes[0]!).whiteSpace).toBe('pre-wrap');
  });

  test('a huge table is shown as its text; a small one after it as a table', async () => {
    const rows = Array.from({ length: 2_000 }, (_, i) => `| row ${i} | ${i} |`);
    const text = ['| a | b |', '|---|---|', ...rows, '', '| x | y |', '|---|---|', '| 1 | 2 |', ''].join('\n');
    const screen = await render(Markdown, { text });
    const md = screen.container.querySelector('.md')!;
    await expect.poll(() => md.querySelectorAll('table').length).toBe(1);
    expect(md.textContent).toContain('| row 1999 | 1999 |');
    expect(md.querySelector('table')!.textContent).toContain('1');
    expect(md.querySelector('div[data-plain="text"]')).not.toBeNull();
  });

});

function busy(ms: number) {
  const end = performance.now() + ms;
  while (performance.now() < end);
}
const nextFrame = () => new Promise((r) => requestAnimationFrame(() => r(undefined)));

describe('FrameTask', () => {
  test('a burst of requests runs a few at once, then once in the next frame', async () => {
    await nextFrame();
    let runs = 0;
    const task = new FrameTask(() => {
      runs++;
      busy(1);
      return true;
    });
    for (let i = 0; i < 200; i++) task.request();
    const atOnce = runs;
    expect(atOnce).toBeGreaterThanOrEqual(1);
    expect(atOnce).toBeLessThanOrEqual(6);
    await nextFrame();
    await nextFrame();
    expect(runs).toBe(atOnce + 1);
  });

  test('queued work from many tasks shares each frame, newest first', async () => {
    await nextFrame();
    const order: number[] = [];
    // Spend this frame's synchronous budget first, so every task below queues.
    new FrameTask(() => (busy(6), true)).request();
    const tasks = Array.from({ length: 30 }, (_, i) => new FrameTask(() => (order.push(i), busy(2), true)));
    for (const t of tasks) t.request();
    expect(order).toEqual([]);
    await nextFrame();
    // 10 ms a frame: about five 2 ms tasks, the newest first.
    expect(order.length).toBeGreaterThanOrEqual(1);
    expect(order.length).toBeLessThanOrEqual(7);
    expect(order[0]).toBe(29);
    await expect.poll(() => order.length).toBe(30);
    expect(new Set(order).size).toBe(30);
  });

  test('unfinished work goes on in later frames until it says it is done', async () => {
    let left = 5;
    const task = new FrameTask(() => --left === 0);
    task.request();
    await expect.poll(() => left).toBe(0);
  });
});
