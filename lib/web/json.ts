/**
 * JSON bodies, pretty-printed with 2-space indents. The printer re-indents the text token by
 * token instead of JSON.parse + JSON.stringify, because a round trip changes data: integers
 * past 2^53 (tweet and snowflake IDs) lose digits, 1.0 becomes 1, and duplicate keys vanish.
 * It validates as it goes, so a body that is not JSON gets an exact line and column, worded the
 * same in every browser (engines word JSON.parse errors differently).
 */

export interface JsonReadable {
  content: string;
  note?: string;
  /** True when the body parsed and `content` is the pretty-printed JSON. */
  ok: boolean;
}

export interface JsonReadableOptions {
  /** The body was cut at the size cap, so it may end mid-value. */
  capped?: boolean;
}

export type JsonFormatResult =
  | { ok: true; text: string }
  | { ok: false; message: string; offset: number; line: number; column: number };

/** A JSON body → pretty JSON, or the text as is with a note saying where it stopped parsing. */
export function jsonToReadable(text: string, { capped = false }: JsonReadableOptions = {}): JsonReadable {
  const source = text.replace(/^\uFEFF/, '');
  if (!source.trim()) return { content: '', ok: false, note: 'The JSON body is empty.' };
  const result = formatJson(source);
  if (result.ok) return { content: result.text, ok: true };
  const unwrapped = unwrap(source);
  if (unwrapped) return { content: unwrapped.text, ok: true, note: unwrapped.note };
  const endsEarly = result.offset >= source.trimEnd().length;
  const why = capped && endsEarly ? ', because the body was cut at the size limit' : '';
  return {
    content: source,
    ok: false,
    note: `The body did not parse as JSON (line ${result.line}, column ${result.column}: ${result.message}); shown as is${why}.`,
  };
}

/**
 * Anti-hijacking prefixes (Google's `)]}'`, Facebook's `for (;;);`) and JSONP callbacks wrap
 * real JSON; the wrapper goes, and the note says so.
 */
function unwrap(text: string): { text: string; note: string } | null {
  const prefix = /^\s*(\)\]\}'?,?|while\s*\(\s*1\s*\)\s*;|for\s*\(\s*;\s*;\s*\)\s*;)/.exec(text);
  if (prefix) {
    const inner = formatJson(text.slice(prefix[0].length));
    if (inner.ok) return { text: inner.text, note: `An anti-hijacking prefix (${prefix[1]}) before the JSON was removed.` };
  }
  const jsonp = /^\s*(?:\/\*\*\/\s*)?([A-Za-z_$][\w$.]*)\s*\(([\s\S]*)\)\s*;?\s*$/.exec(text);
  if (jsonp) {
    const inner = formatJson(jsonp[2]!);
    if (inner.ok) return { text: inner.text, note: `The JSONP callback ${jsonp[1]}(…) around the JSON was removed.` };
  }
  return null;
}

const MAX_INDENT_DEPTH = 32;
const LITERALS = ['true', 'false', 'null'] as const;
const OBJECT = 1;
const ARRAY = 2;

const WS = /[ \t\n\r]*/y;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
// One character class, so no backtracking however long the string.
const PLAIN_CHARS = /[^"\\\x00-\x1f]*/y;
const ESCAPE = /\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})/y;

class JsonSyntaxError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

/** Validates and re-indents JSON text (2 spaces), keeping numbers and keys exactly as written. */
export function formatJson(text: string): JsonFormatResult {
  try {
    return { ok: true, text: new Printer(text).run() };
  } catch (e) {
    if (!(e instanceof JsonSyntaxError)) throw e;
    const before = text.slice(0, e.offset);
    const line = before.split('\n').length;
    const column = e.offset - before.lastIndexOf('\n');
    return { ok: false, message: e.message, offset: e.offset, line, column };
  }
}

class Printer {
  private readonly out: string[] = [];
  private readonly stack: number[] = [];
  private readonly indents: string[] = ['\n'];
  private i = 0;

  constructor(private readonly text: string) {}

  run(): string {
    const { text } = this;
    this.skipWs();
    let expect: 'value' | 'key' | 'after' = 'value';
    for (;;) {
      if (expect === 'value') {
        expect = this.value();
        continue;
      }
      if (expect === 'key') {
        if (text.charCodeAt(this.i) !== 0x22) {
          const c = text.charCodeAt(this.i);
          throw this.error(
            this.i >= text.length ? 'the text ends inside an object' : `expected a property name in double quotes${c === 0x7d ? ' (a trailing comma?)' : ''}`,
          );
        }
        this.string();
        this.skipWs();
        if (text.charCodeAt(this.i) !== 0x3a) throw this.error("expected ':' after the property name");
        this.i++;
        this.out.push(': ');
        this.skipWs();
        expect = 'value';
        continue;
      }
      // after a value
      this.skipWs();
      const top = this.stack[this.stack.length - 1];
      if (top === undefined) {
        if (this.i < text.length) throw this.error('unexpected text after the JSON value');
        return this.out.join('');
      }
      const c = text.charCodeAt(this.i);
      if (c === 0x2c) {
        this.i++;
        this.skipWs();
        this.out.push(',', this.indent(this.stack.length));
        expect = top === OBJECT ? 'key' : 'value';
      } else if ((top === OBJECT && c === 0x7d) || (top === ARRAY && c === 0x5d)) {
        this.stack.pop();
        this.out.push(this.indent(this.stack.length), text[this.i]!);
        this.i++;
      } else if (this.i >= text.length) {
        throw this.error('the text ends before the JSON is complete');
      } else {
        throw this.error(top === OBJECT ? "expected ',' or '}' after a property value" : "expected ',' or ']' after an array element");
      }
    }
  }

  /** Reads one value (or opens a container) and says what comes next. */
  private value(): 'key' | 'value' | 'after' {
    const { text } = this;
    const c = text.charCodeAt(this.i);
    if (c === 0x7b || c === 0x5b) {
      const close = c === 0x7b ? '}' : ']';
      this.i++;
      this.skipWs();
      if (text[this.i] === close) {
        this.i++;
        this.out.push(c === 0x7b ? '{}' : '[]');
        return 'after';
      }
      this.stack.push(c === 0x7b ? OBJECT : ARRAY);
      this.out.push(c === 0x7b ? '{' : '[', this.indent(this.stack.length));
      return c === 0x7b ? 'key' : 'value';
    }
    if (c === 0x22) {
      this.string();
      return 'after';
    }
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      NUMBER.lastIndex = this.i;
      const m = NUMBER.exec(text);
      if (!m) throw this.error('invalid number');
      this.out.push(m[0]);
      this.i += m[0].length;
      return 'after';
    }
    for (const word of LITERALS) {
      if (text.startsWith(word, this.i)) {
        this.out.push(word);
        this.i += word.length;
        return 'after';
      }
    }
    if (this.i >= text.length) throw this.error('the text ends where a value should be');
    const hint = c === 0x27 ? ' (strings need double quotes)' : c === 0x7d || c === 0x5d ? ' (a trailing comma?)' : '';
    throw this.error(`expected a value${hint}`);
  }

  /** Copies a string literal; escapes other than \" \\ and controls are decoded for reading. */
  private string(): void {
    const { text } = this;
    const start = this.i;
    let pos = start + 1;
    let escaped = false;
    for (;;) {
      PLAIN_CHARS.lastIndex = pos;
      PLAIN_CHARS.exec(text);
      pos = PLAIN_CHARS.lastIndex;
      const c = text.charCodeAt(pos);
      if (c === 0x22) break;
      if (c === 0x5c) {
        ESCAPE.lastIndex = pos;
        if (!ESCAPE.exec(text)) throw this.error('invalid escape in a string', pos);
        // Only \uXXXX and \/ read differently once decoded; \" \\ \n … stay as they are.
        if (text.charCodeAt(pos + 1) === 0x75 || text.charCodeAt(pos + 1) === 0x2f) escaped = true;
        pos = ESCAPE.lastIndex;
        continue;
      }
      if (pos >= text.length) throw this.error('the text ends inside a string', pos);
      throw this.error('a control character (such as a raw line break) inside a string', pos);
    }
    const literal = text.slice(start, pos + 1);
    // "\u00e9" and "\/" are noise to a reader; a round trip through the engine prints é and /
    // and keeps the escapes JSON needs.
    this.out.push(escaped ? JSON.stringify(JSON.parse(literal) as string) : literal);
    this.i = pos + 1;
  }

  private skipWs(): void {
    const c = this.text.charCodeAt(this.i);
    // Minified JSON has no whitespace: skip the regex call in the common case.
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return;
    WS.lastIndex = this.i;
    WS.exec(this.text);
    this.i = WS.lastIndex;
  }

  private indent(depth: number): string {
    // Indentation grows with depth × lines: 50,000 nested arrays would print gigabytes. Past
    // MAX_INDENT_DEPTH lines keep the same indent; the JSON stays valid.
    const d = Math.min(depth, MAX_INDENT_DEPTH);
    while (this.indents.length <= d) this.indents.push(`\n${'  '.repeat(this.indents.length)}`);
    return this.indents[d]!;
  }

  private error(message: string, offset = this.i): JsonSyntaxError {
    // At the end of the text "expected X" misleads: nothing is wrong but the missing rest.
    const atEnd = offset >= this.text.length && !message.startsWith('the text ends');
    return new JsonSyntaxError(atEnd ? 'the text ends before the JSON is complete' : message, offset);
  }
}
