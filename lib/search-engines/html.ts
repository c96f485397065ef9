/**
 * A small forgiving HTML parser: text → a light element tree, with no DOM.
 *
 * Why our own: the parsers must run in a Chrome MV3 service worker, which has no DOMParser, and
 * result pages only need "find the elements with this class, read their text and links". The
 * tokens come from lib/html/tokenizer.ts (raw-text elements, quoted attribute values holding '>',
 * comments and doctype skipped); this is not the HTML5 tree-construction algorithm, it keeps what
 * matters for that job:
 *   - void elements never take children; `<p>`, `<li>`, `<dt>/<dd>`, `<option>`, table cells and
 *     `<a>` close implicitly the way browsers do; a stray end tag is ignored, an end tag closes
 *     whatever it skips over (as a browser's "generate implied end tags" roughly does);
 *   - character references are decoded in text and attribute values.
 */
import { decodeEntities } from '../html/entities';
import { attributeValue, tokenizeHtml, type TokenSink } from '../html/tokenizer';

export type HtmlNode = HtmlElement | string;

export class HtmlElement {
  readonly children: HtmlNode[] = [];
  private classSet: Set<string> | undefined;
  private attrRecord: Record<string, string> | undefined;

  /**
   * Attributes are kept as parallel arrays of names and raw values, decoded when read: building
   * an object per element and decoding every value was most of the parse time on Bing's pages,
   * while a parser reads a handful of attributes from a few dozen elements.
   */
  constructor(
    readonly tag: string,
    private readonly names: readonly string[],
    private readonly values: readonly string[],
    readonly parent: HtmlElement | null,
  ) {}

  attr(name: string): string | undefined {
    return attributeValue(this.names, this.values, name);
  }

  hasAttr(name: string): boolean {
    return this.names.includes(name);
  }

  /** All attributes, decoded (first of duplicate names wins, as in browsers). */
  get attrs(): Readonly<Record<string, string>> {
    if (!this.attrRecord) {
      // No prototype: an attribute named "__proto__" is a plain entry, not a prototype change.
      const record = Object.create(null) as Record<string, string>;
      for (const name of this.names) {
        if (!Object.hasOwn(record, name)) record[name] = this.attr(name) ?? '';
      }
      this.attrRecord = record;
    }
    return this.attrRecord;
  }

  get classes(): ReadonlySet<string> {
    this.classSet ??= new Set((this.attr('class') ?? '').split(/\s+/).filter(Boolean));
    return this.classSet;
  }

  hasClass(name: string): boolean {
    // Most elements are tested against a class they do not have: a substring check first is cheap.
    const raw = this.rawClass();
    return raw !== undefined && raw.includes(name) && this.classes.has(name);
  }

  private rawClass(): string | undefined {
    const i = this.names.indexOf('class');
    return i < 0 ? undefined : this.values[i];
  }

  /** The nearest ancestor (not this element) that matches. */
  closest(pred: (el: HtmlElement) => boolean): HtmlElement | null {
    for (let el = this.parent; el; el = el.parent) if (pred(el)) return el;
    return null;
  }
}

const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'keygen', 'link', 'meta', 'param', 'source', 'track', 'wbr']);

/** Start tags that close an open <p> (the HTML spec's list, shortened to what pages use). */
const CLOSES_P = new Set([
  'address', 'article', 'aside', 'blockquote', 'details', 'div', 'dl', 'fieldset', 'figcaption', 'figure',
  'footer', 'form', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hr', 'main', 'menu', 'nav', 'ol', 'p',
  'pre', 'section', 'table', 'ul',
]);

/** For a start tag: which open element it closes, and which open elements stop that search. */
const IMPLIED = new Map<string, { closes: readonly string[]; stopAt: readonly string[] }>(Object.entries({
  li: { closes: ['li'], stopAt: ['ul', 'ol', 'menu', 'table', 'div'] },
  dt: { closes: ['dt', 'dd'], stopAt: ['dl', 'table', 'div'] },
  dd: { closes: ['dt', 'dd'], stopAt: ['dl', 'table', 'div'] },
  option: { closes: ['option'], stopAt: ['select', 'datalist', 'optgroup'] },
  optgroup: { closes: ['option', 'optgroup'], stopAt: ['select'] },
  tr: { closes: ['tr', 'td', 'th'], stopAt: ['table', 'tbody', 'thead', 'tfoot'] },
  td: { closes: ['td', 'th'], stopAt: ['tr', 'table'] },
  th: { closes: ['td', 'th'], stopAt: ['tr', 'table'] },
  tbody: { closes: ['tbody', 'thead', 'tfoot', 'tr', 'td', 'th'], stopAt: ['table'] },
  thead: { closes: ['tbody', 'thead', 'tfoot', 'tr', 'td', 'th'], stopAt: ['table'] },
  tfoot: { closes: ['tbody', 'thead', 'tfoot', 'tr', 'td', 'th'], stopAt: ['table'] },
  // Nested links are not allowed: a browser closes the open one first.
  a: { closes: ['a'], stopAt: ['table', 'td', 'th', 'div', 'li', 'p'] },
}));
/** Elements a <p> auto-close does not look past. */
const P_SCOPE = new Set(['button', 'table', 'td', 'th', 'li', 'div', 'section', 'article', 'body', 'html']);

class TreeBuilder implements TokenSink {
  readonly root = new HtmlElement('#document', [], [], null);
  private stack: HtmlElement[] = [this.root];

  private get current(): HtmlElement {
    return this.stack[this.stack.length - 1] ?? this.root;
  }

  text(raw: string, decode: boolean): void {
    if (!raw) return;
    const text = decode ? decodeEntities(raw) : raw;
    const siblings = this.current.children;
    const last = siblings[siblings.length - 1];
    if (typeof last === 'string') siblings[siblings.length - 1] = last + text;
    else siblings.push(text);
  }

  open(tag: string, names: string[], values: string[], selfClosing: boolean): HtmlElement {
    if (CLOSES_P.has(tag)) this.closeWithin('p', P_SCOPE);
    const implied = IMPLIED.get(tag); // a Map: a tag named "constructor" must not find Object's
    if (implied) {
      for (let i = this.stack.length - 1; i > 0; i--) {
        const open = this.stack[i]!.tag;
        if (implied.closes.includes(open)) {
          this.stack.length = i;
          break;
        }
        if (implied.stopAt.includes(open)) break;
      }
    }
    const el = new HtmlElement(tag, names, values, this.current);
    this.current.children.push(el);
    if (!selfClosing && !VOID.has(tag)) this.stack.push(el);
    return el;
  }

  /** Pops to and including the nearest open `tag`; a stray end tag changes nothing. */
  close(tag: string): void {
    for (let i = this.stack.length - 1; i > 0; i--) {
      if (this.stack[i]!.tag === tag) {
        this.stack.length = i;
        return;
      }
    }
  }

  private closeWithin(tag: string, scope: ReadonlySet<string>): void {
    for (let i = this.stack.length - 1; i > 0; i--) {
      const open = this.stack[i]!.tag;
      if (open === tag) {
        this.stack.length = i;
        return;
      }
      if (scope.has(open)) return;
    }
  }
}

/** Parses a whole page. Never throws: malformed input yields whatever structure could be read. */
export function parseHtml(html: string): HtmlElement {
  const tree = new TreeBuilder();
  tokenizeHtml(html, tree);
  return tree.root;
}

// ---------- queries ----------

export type ElementPredicate = (el: HtmlElement) => boolean;

/**
 * Elements matching `pred`, in document order. By default the search does not look inside a
 * match (a result block nested in a result block is one result).
 */
export function findAll(root: HtmlElement, pred: ElementPredicate, options: { nested?: boolean } = {}): HtmlElement[] {
  const out: HtmlElement[] = [];
  const visit = (el: HtmlElement): void => {
    for (const child of el.children) {
      if (typeof child === 'string') continue;
      if (pred(child)) {
        out.push(child);
        if (!options.nested) continue;
      }
      visit(child);
    }
  };
  visit(root);
  return out;
}

export function findFirst(root: HtmlElement, pred: ElementPredicate): HtmlElement | null {
  for (const child of root.children) {
    if (typeof child === 'string') continue;
    if (pred(child)) return child;
    const found = findFirst(child, pred);
    if (found) return found;
  }
  return null;
}

export const byTag = (tag: string): ElementPredicate => (el) => el.tag === tag;
export const byClass = (cls: string): ElementPredicate => (el) => el.hasClass(cls);
export const byId = (id: string): ElementPredicate => (el) => el.attr('id') === id;

/** Elements whose text is not page text a reader sees. */
const NO_TEXT = new Set(['script', 'style', 'noscript', 'template', 'head', 'svg', 'select', 'textarea', 'button']);
/** Elements that separate words when rendered (so "a</div><div>b" reads "a b", not "ab"). */
const BREAKS = new Set([
  'br', 'p', 'div', 'li', 'ul', 'ol', 'dl', 'dt', 'dd', 'tr', 'td', 'th', 'table', 'section', 'article',
  'header', 'footer', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'blockquote', 'pre', 'hr', 'img', 'figure', 'figcaption',
]);

/**
 * The element's visible text, whitespace not yet collapsed (see cleanText). `skip` leaves out
 * sub-trees (a snippet without its URL line, for instance).
 */
export function textOf(el: HtmlElement, skip?: ElementPredicate): string {
  const parts: string[] = [];
  const visit = (node: HtmlElement): void => {
    for (const child of node.children) {
      if (typeof child === 'string') {
        parts.push(child);
        continue;
      }
      if (NO_TEXT.has(child.tag) || (skip && skip(child))) continue;
      const breaks = BREAKS.has(child.tag);
      if (breaks) parts.push(' ');
      visit(child);
      if (breaks) parts.push(' ');
    }
  };
  visit(el);
  return parts.join('');
}

/** The text of the document's <title>, or ''. */
export function titleOf(root: HtmlElement): string {
  const title = findFirst(root, byTag('title'));
  return title ? textOf(title) : '';
}
