import type { Links, Token, Tokens, TokensList } from 'marked';

/** A run of whole top-level Markdown blocks, rendered once and kept while the text grows. */
export interface MarkdownChunk {
  /** Stable for the chunk's life: the key of its place in the rendered list. */
  readonly key: number;
  /**
   * Where its Markdown source lies in the text: from one block boundary to another. (Offsets, not
   * a substring: a substring would keep that whole version of the growing text alive.)
   */
  readonly start: number;
  readonly end: number;
  /** Whether its source has a `[`: only then can a reference definition change it. */
  readonly mayUseReferences: boolean;
  readonly html: string;
  /** The reference definitions it was rendered with (their JSON). */
  readonly linksSeen: string;
}

/** How Markdown is lexed and rendered (lib/ui/markdown.ts: marked, then DOMPurify). */
export interface MarkdownEngine {
  lex(src: string, links: Links): TokensList;
  render(tokens: Token[]): string;
}

/**
 * Lexing stops at a line end at least this far on, so that one pass over a long text (a message
 * opened from storage, or a burst of deltas) is a few milliseconds, not one task for a megabyte.
 */
const WINDOW = 4096;

/**
 * Renders a Markdown text that grows at its end (a streamed reply) without re-parsing what is
 * done: the text is split into top-level blocks with marked's own lexer; blocks that a later
 * block follows are finished, rendered once and kept; only the open end (the last block and a
 * partial line) is rendered again on the next update.
 *
 * Why a boundary stays put: the lexer is only asked about complete lines, and a block counts as
 * finished only once another block has begun after it — then no text appended later can make it
 * longer (a fence is closed, a list or paragraph has met a line that is not theirs). Reference
 * definitions are the one thing that reaches back: a block that uses `[x]` before `[x]: url`
 * arrives is rendered again when the definitions change, so the result always equals rendering
 * the whole text at once (tests/component/markdown-stream.test.ts checks it).
 */
export class IncrementalMarkdown {
  /** The finished blocks, in order; a chunk is replaced only when the definitions change. */
  chunks: readonly MarkdownChunk[] = [];
  /** The open end rendered; empty while the finished part still has to catch up. */
  tailHtml = '';

  private text = '';
  /** How much of `text` the chunks cover. */
  private stable = 0;
  /** Definitions from finished blocks: the first definition of a label wins. */
  private links: Links = Object.create(null);
  private tailSrc: string | null = null;
  /** The definitions the open end was lexed with, and those it adds: all the text's so far. */
  private tailSeed = '';
  private allLinks = '{}';
  private nextKey = 0;

  constructor(private readonly engine: MarkdownEngine) {}

  /**
   * Brings the rendering up to `text`. Work stops at `deadline` (a performance.now() time) once at
   * least one step is done; the answer says whether anything is left for the next call.
   */
  update(text: string, deadline = Infinity): { done: boolean } {
    // marked reads \r\n and \r as \n: do the same first, so block sources add up to the text.
    if (text.includes('\r')) text = text.replace(/\r\n?/g, '\n');
    if (!text.startsWith(this.text.slice(0, this.stable))) this.reset();
    this.text = text;
    const chunks = [...this.chunks];
    const end = text.lastIndexOf('\n') + 1;
    let window = WINDOW;
    let steps = 0;
    let done = true;
    while (this.stable < end) {
      if (steps > 0 && performance.now() >= deadline) {
        done = false;
        break;
      }
      steps++;
      const stop = this.stable + window >= end ? end : text.indexOf('\n', this.stable + window) + 1;
      const tokens = this.engine.lex(text.slice(this.stable, stop), this.links);
      const open = lastBlockIndex(tokens);
      const finished = open > 0 ? tokens.slice(0, open) : [];
      const src = finished.map((t) => t.raw).join('');
      // The lexer's sources always add up to its input; if that ever failed, the open end
      // (rendered whole below) would still be right, only slower.
      if (!src || !text.startsWith(src, this.stable)) {
        if (stop === end) break;
        window *= 2;
        continue;
      }
      collectDefinitions(finished, this.links);
      const start = this.stable;
      this.stable += src.length;
      chunks.push({
        key: this.nextKey++,
        start,
        end: this.stable,
        mayUseReferences: src.includes('['),
        html: this.engine.render(finished),
        linksSeen: JSON.stringify(tokens.links),
      });
      window = WINDOW;
    }

    if (!done) {
      // The open end is far behind: leave it out rather than render most of the text in one go.
      this.tailSrc = null;
      this.tailHtml = '';
      this.chunks = chunks;
      return { done };
    }
    const tail = text.slice(this.stable);
    const seed = JSON.stringify(this.links);
    if (tail !== this.tailSrc || seed !== this.tailSeed) {
      const tokens = this.engine.lex(tail, this.links);
      this.tailSrc = tail;
      this.tailSeed = seed;
      this.tailHtml = tail ? this.engine.render(tokens) : '';
      this.allLinks = JSON.stringify(tokens.links);
    }
    // A definition arrived (or changed): blocks that may use it are rendered with it.
    for (let i = 0; i < chunks.length; i++) {
      const c = chunks[i]!;
      if (c.linksSeen === this.allLinks || !c.mayUseReferences) continue;
      const html = this.engine.render(this.engine.lex(text.slice(c.start, c.end), JSON.parse(this.allLinks) as Links));
      chunks[i] = { ...c, html, linksSeen: this.allLinks };
    }
    if (chunks.length !== this.chunks.length || chunks.some((c, i) => c !== this.chunks[i])) this.chunks = chunks;
    return { done };
  }

  private reset() {
    this.chunks = [];
    this.tailHtml = '';
    this.text = '';
    this.stable = 0;
    this.links = Object.create(null);
    this.tailSrc = null;
    this.tailSeed = '';
    this.allLinks = '{}';
  }
}

/** Index of the last token that is not blank space (-1 if none): the block still open. */
function lastBlockIndex(tokens: Token[]): number {
  for (let i = tokens.length - 1; i >= 0; i--) if (tokens[i]!.type !== 'space') return i;
  return -1;
}

/** Reference definitions among block tokens (also inside quotes and list items), first one wins. */
function collectDefinitions(tokens: Token[], into: Links) {
  for (const t of tokens) {
    if (t.type === 'def') {
      const def = t as Tokens.Def;
      if (!(def.tag in into)) into[def.tag] = { href: def.href, title: def.title };
    } else if (t.type === 'blockquote') {
      collectDefinitions((t as Tokens.Blockquote).tokens, into);
    } else if (t.type === 'list') {
      for (const item of (t as Tokens.List).items) collectDefinitions(item.tokens, into);
    }
  }
}
