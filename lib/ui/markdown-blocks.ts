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
  /** Set when the chunk is a piece of a block shown as its text (see PLAIN_BEYOND): how it looks. */
  readonly plain?: PlainLook;
}

/** How a block shown as text looks: as text that keeps its line breaks, or as code. */
export type PlainLook = 'text' | 'code';

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
 * A block (a paragraph, table, list, code block…) that has grown past this many characters is
 * shown as its text from then on, in pieces, instead of as Markdown. marked can only render a
 * block whole, so a block still open is rendered again on every frame the text grows, and the cost
 * of that grows with the block: in Chromium a 16 K table costs about 60 ms to render, sanitise and
 * lay out, a 16 K list 35 ms, a 64 K paragraph 15 ms (and 1 MB a whole second, every frame). Past
 * this size the rendering would stall the popup, so the text is shown as it is (line breaks kept,
 * code as code) and only its last piece is redrawn as it grows.
 */
export const PLAIN_BEYOND = 16_384;

/** The size of the pieces a block shown as text is kept in: the part redrawn as it grows. */
const PIECE = 8192;

/** How much text one step of looking for the end of a block shown as text reads. */
const SCAN_STEP = 262_144;

/** A block shown as its text, as it grows: where it began and where it is known to end. */
interface PlainBlock {
  look: PlainLook;
  /** Where it begins: its first line never ends it. */
  start: number;
  /** A fenced code block's fence (its character, as long as it is): only its like closes it. */
  fence?: string;
  /** Where the text shown begins (after a code fence's opening line, once that is known). */
  from?: number;
  /** The line the search for its end has reached (the start of a complete line). */
  scan: number;
  /** Where it ends (the start of the closing blank line, or after the closing fence), once seen. */
  endAt?: number;
  /** Where the text shown ends (before the closing fence). */
  shownEnd?: number;
}

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
  /** Set when the open end is the last part of a block shown as text (see PLAIN_BEYOND). */
  tailPlain: PlainLook | undefined = undefined;

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
  /** How far past the finished part the next lexing step reaches (it doubles until a block ends). */
  private window = WINDOW;
  /** Where the open end began when it was last rendered. */
  private tailFrom = -1;
  /** The block being shown as text, while it lasts. */
  private plain: PlainBlock | null = null;

  constructor(private readonly engine: MarkdownEngine) {}

  /**
   * Brings the rendering up to `text`. Work stops at `deadline` (a performance.now() time) once at
   * least one step is done; the answer says whether anything is left for the next call. Every step
   * keeps its progress (a committed block, a larger window, a piece), so a text of any shape is
   * done after enough calls, however short each is.
   */
  update(text: string, deadline = Infinity): { done: boolean } {
    // marked reads \r\n and \r as \n: do the same first, so block sources add up to the text.
    if (text.includes('\r')) text = text.replace(/\r\n?/g, '\n');
    if (!text.startsWith(this.text.slice(0, this.stable))) this.reset();
    this.text = text;
    const chunks = [...this.chunks];
    const end = text.lastIndexOf('\n') + 1;
    const tailFrom = this.tailFrom;
    let steps = 0;
    let done = true;
    for (;;) {
      if (steps > 0 && performance.now() >= deadline) {
        done = false;
        break;
      }
      if (this.plain) {
        if (!this.plainStep(text, end, chunks)) break;
      } else if (this.stable < end && this.markdownStep(text, end, chunks)) {
        // A block committed, a larger window to try, or a block found too large to render.
      } else if (text.length - this.stable > PLAIN_BEYOND) {
        // The open end is too large to render, with its last line not yet complete (one huge line).
        this.startPlain(text, this.stable, []);
      } else {
        break;
      }
      steps++;
    }

    if (!done) {
      // The open end is far behind: leave it out rather than render most of the text in one go —
      // unless the last rendering of it still starts where the open end starts (the same block,
      // a little shorter): then it stays, rather than blink out until the next frame.
      if (this.stable !== tailFrom) {
        this.tailSrc = null;
        this.tailHtml = '';
        this.tailPlain = undefined;
      }
      this.chunks = chunks;
      return { done };
    }
    this.tailFrom = this.stable;
    if (this.plain) {
      const from = Math.max(this.stable, this.plain.from ?? this.stable);
      this.tailSrc = null;
      this.tailHtml = escapeHtml(text.slice(from));
      this.tailPlain = this.plain.look;
    } else {
      this.tailPlain = undefined;
      const tail = text.slice(this.stable);
      const seed = JSON.stringify(this.links);
      if (tail !== this.tailSrc || seed !== this.tailSeed) {
        const tokens = this.engine.lex(tail, this.links);
        this.tailSrc = tail;
        this.tailSeed = seed;
        this.tailHtml = tail ? this.engine.render(tokens) : '';
        this.allLinks = JSON.stringify(tokens.links);
      }
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

  /**
   * One step of Markdown: lexes complete lines from the end of the finished part, as far as the
   * window reaches, and commits the blocks another block follows. False when the lexer reached the
   * last complete line and found nothing finished (the rest is the open end).
   */
  private markdownStep(text: string, end: number, chunks: MarkdownChunk[]): boolean {
    const reach = this.stable + this.window;
    let stop = reach >= end ? end : text.indexOf('\n', reach) + 1;
    // A huge last line is not lexed: what precedes it is, and if nothing there is finished, the
    // block runs into that line and is too large to render.
    const lastLine = text.lastIndexOf('\n', stop - 2) + 1;
    const hugeLine = stop - lastLine > PLAIN_BEYOND;
    if (hugeLine && lastLine === this.stable) {
      this.startPlain(text, this.stable, []);
      return true;
    }
    if (hugeLine) stop = lastLine;
    const tokens = this.engine.lex(text.slice(this.stable, stop), this.links);
    const open = lastBlockIndex(tokens);
    // Only blank lines: nothing later can join them to a block.
    const finished = open > 0 ? tokens.slice(0, open) : open < 0 ? tokens : [];
    const src = finished.map((t) => t.raw).join('');
    // The lexer's sources always add up to its input; if that ever failed, the open end
    // (rendered whole) would still be right, only slower.
    if (!src || !text.startsWith(src, this.stable)) {
      if (hugeLine || stop - this.stable >= PLAIN_BEYOND) {
        this.startPlain(text, this.stable, tokens);
        return true;
      }
      if (stop === end) return false;
      // The window is kept for the next call: a block longer than one call can lex is found in
      // several, not started over each time.
      this.window *= 2;
      return true;
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
    this.window = WINDOW;
    return true;
  }

  /** The block at `at` is too large to render: from here on it is shown as text. */
  private startPlain(text: string, at: number, tokens: Token[]) {
    let first = tokens.find((t) => t.type !== 'space');
    // Which block it is, from its beginning alone (the lexer never saw all of it).
    first ??= this.engine.lex(text.slice(at, at + 1024), this.links).find((t) => t.type !== 'space');
    const fence = first?.type === 'code' ? /^ {0,3}(`{3,}|~{3,})/.exec(first.raw)?.[1] : undefined;
    this.plain = { look: first?.type === 'code' ? 'code' : 'text', start: at, ...(fence ? { fence } : {}), scan: at };
    this.tailSrc = null;
  }

  /**
   * One step of a block shown as text: looks for its end among complete lines, then commits a
   * piece of it. False when nothing can be done until more text comes.
   */
  private plainStep(text: string, end: number, chunks: MarkdownChunk[]): boolean {
    const p = this.plain!;
    if (p.fence && p.from === undefined) {
      // A code block's text begins after its opening line (```ts).
      const nl = text.indexOf('\n', this.stable);
      if (nl < 0 || nl >= end) return this.plainPiece(text, chunks);
      p.from = p.scan = nl + 1;
    }
    if (p.endAt === undefined && p.scan < end) {
      // Its end: a blank line, or for a fenced code block the closing fence.
      const stop = Math.min(end, p.scan + SCAN_STEP);
      while (p.scan < end) {
        const nl = text.indexOf('\n', p.scan);
        if (p.scan > p.start && nl - p.scan <= 256 && closes(p, text.slice(p.scan, nl))) {
          p.endAt = p.fence ? nl + 1 : p.scan;
          p.shownEnd = p.scan;
          break;
        }
        p.scan = nl + 1;
        if (p.scan >= stop && p.scan < end) return true;
      }
    }
    return this.plainPiece(text, chunks);
  }

  /** Commits the next piece of the block shown as text, if there is a whole one (or its last). */
  private plainPiece(text: string, chunks: MarkdownChunk[]): boolean {
    const p = this.plain!;
    const start = this.stable;
    let cut: number;
    if (p.endAt !== undefined && p.endAt - start <= PIECE) {
      cut = p.endAt;
    } else {
      const limit = p.endAt ?? text.length;
      if (limit - start <= PIECE) return false;
      // A piece ends at a line end if one is near, else after a space, else anywhere (never
      // between the two halves of a surrogate pair). Each piece is a box of its own, so a cut
      // inside a line starts a new line there: after a space, that reads as a wrap.
      const most = start + PIECE;
      const half = start + PIECE / 2;
      const nl = text.lastIndexOf('\n', most - 1);
      const space = text.lastIndexOf(' ', most - 1);
      cut = nl >= half ? nl + 1 : space >= half ? space + 1 : most;
      if (cut === most && /[\ud800-\udbff]/.test(text[cut - 1]!)) cut--;
    }
    const from = Math.max(start, p.from ?? start);
    const to = p.shownEnd !== undefined && cut === p.endAt ? p.shownEnd : cut;
    this.stable = cut;
    chunks.push({
      key: this.nextKey++,
      start,
      end: cut,
      mayUseReferences: false,
      html: escapeHtml(text.slice(from, Math.max(from, to))),
      linksSeen: '',
      plain: p.look,
    });
    if (cut === p.endAt) {
      // Back to Markdown after it.
      this.plain = null;
      this.window = WINDOW;
    }
    return true;
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
    this.window = WINDOW;
    this.tailFrom = -1;
    this.plain = null;
    this.tailPlain = undefined;
  }
}

/** Whether a complete line (without its newline) ends a block shown as text. */
function closes(p: PlainBlock, line: string): boolean {
  if (!p.fence) return /^[ \t]*$/.test(line);
  const m = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(line);
  return !!m && m[1]![0] === p.fence[0] && m[1]!.length >= p.fence.length;
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : '&gt;'));
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
