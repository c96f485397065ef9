import { ExtractError } from './errors';

/**
 * The one sentence the model reads about our selectors (it goes into the tool description).
 * `>>>` is ours, not CSS: document.querySelectorAll cannot pierce shadow roots or frames.
 */
export const SELECTOR_NOTE =
  'Each {selector} matches exactly one element via document.querySelector(selector); ' +
  '"A >>> B" means: find A, then B inside A\'s open shadow root (or inside A\'s document when A is a same-origin iframe), chains allowed. ' +
  '[pw="N"] is a handle the reader put on the element; if the page re-renders it, the handle goes with it: read the page again.';

/**
 * Links carry no selector (they are most of a page's annotations): their URL is what following them
 * does, so the URL is how to find one.
 */
export const LINK_NOTE =
  'Links carry no {selector} (except inside shadow roots or frames): same-origin URLs are shown from their path; ' +
  'to click one, use [...document.links].find(a => a.href === new URL(url, location.href).href).';

type Scope = Document | ShadowRoot;

const CHAIN = '>>>';

/** CSS.escape (CSSOM spec), for environments without the CSS global (jsdom). */
export function cssEscape(value: string): string {
  let out = '';
  const first = value.charCodeAt(0);
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    const ch = value.charAt(i);
    if (c === 0) out += '\uFFFD';
    else if ((c >= 0x1 && c <= 0x1f) || c === 0x7f) out += `\\${c.toString(16)} `;
    else if (i === 0 && c >= 0x30 && c <= 0x39) out += `\\${c.toString(16)} `;
    else if (i === 1 && c >= 0x30 && c <= 0x39 && first === 0x2d) out += `\\${c.toString(16)} `;
    else if (i === 0 && c === 0x2d && value.length === 1) out += `\\${ch}`;
    else if (c >= 0x80 || c === 0x2d || c === 0x5f || (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a)) out += ch;
    else out += `\\${ch}`;
  }
  return out;
}

/** A CSS string literal: "…" with the characters that would end or break it escaped. */
export function cssString(value: string): string {
  return `"${value.replace(/[\\"]/g, '\\$&').replace(/[\n\r\f]/g, (c) => `\\${c.charCodeAt(0).toString(16)} `)}"`;
}

/** Splits "A >>> B >>> C" into its parts, ignoring ">>>" inside quotes or brackets. */
export function splitSelectorChain(selector: string): string[] {
  const parts: string[] = [];
  let quote = '';
  let depth = 0;
  let start = 0;
  for (let i = 0; i < selector.length; i++) {
    const ch = selector[i];
    if (ch === '\\') {
      i++;
      continue;
    }
    if (quote) {
      if (ch === quote) quote = '';
      continue;
    }
    if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '[' || ch === '(') depth++;
    else if (ch === ']' || ch === ')') depth--;
    else if (depth === 0 && selector.startsWith(CHAIN, i)) {
      parts.push(selector.slice(start, i).trim());
      start = i + CHAIN.length;
      i += CHAIN.length - 1;
    }
  }
  parts.push(selector.slice(start).trim());
  return parts;
}

/** The tree inside `el` that a `>>>` step enters: its open shadow root or its same-origin frame document. */
export function innerScope(el: Element): Scope | null {
  if (el.shadowRoot) return el.shadowRoot;
  if (el.localName === 'iframe' || el.localName === 'frame') {
    try {
      return (el as HTMLIFrameElement).contentDocument;
    } catch {
      return null; // cross-origin
    }
  }
  return null;
}

function queryAll(scope: ParentNode, part: string, whole: string): Element[] {
  if (!part) throw invalid(whole, 'an empty step around ">>>"');
  try {
    return Array.from(scope.querySelectorAll(part));
  } catch (e) {
    throw invalid(whole, e instanceof Error ? (e.message.split('\n')[0] ?? e.message) : String(e));
  }
}

function invalid(selector: string, why: string): ExtractError {
  return new ExtractError('invalid_selector', `Invalid selector ${JSON.stringify(selector)}: ${why}.`);
}

/**
 * Every element `selector` matches, understanding "A >>> B" (B inside A's shadow root or frame).
 * Earlier steps use their first match, like querySelector. Throws ExtractError invalid_selector.
 */
export function resolveSelectorAll(doc: Document, selector: string): Element[] {
  const parts = splitSelectorChain(selector.trim());
  let scope: Scope = doc;
  for (let i = 0; i < parts.length - 1; i++) {
    const host: Element | undefined = queryAll(scope, parts[i]!, selector)[0];
    const inner: Scope | null = host ? innerScope(host) : null;
    if (!inner) {
      // Still validate the remaining steps so a typo reads as invalid, not as "no match".
      for (const rest of parts.slice(i + 1)) queryAll(doc.createDocumentFragment(), rest, selector);
      return [];
    }
    scope = inner;
  }
  return queryAll(scope, parts[parts.length - 1]!, selector);
}

/** The element `selector` designates (see SELECTOR_NOTE), or null. Throws ExtractError invalid_selector. */
export function resolveSelector(doc: Document, selector: string): Element | null {
  return resolveSelectorAll(doc, selector)[0] ?? null;
}

// Framework counters and hashes: such ids change between renders or page loads.
const AUTO_ID_PREFIX =
  /^(?:ember|ext-(?:gen|comp|element)|yui_|gwt-|ui-id-|jqx|mui-|radix-|headlessui-|react-aria|rc[-_]|cdk-|mat-|j_id|__bvid__|pr_id_|vs_|el-id-|downshift-|tippy-|popover-|tooltip-)[\w:-]*?\d+[\w-]*$/i;

/** True for ids that look generated (framework counters, hashes, long digit runs): not stable enough to select by. */
export function isAutoId(id: string): boolean {
  if (!id || id.length > 48 || /\s/.test(id)) return true;
  if (/[:«»]/.test(id)) return true; // React useId: ":r1:", "«r1»"
  if (/\d{5,}/.test(id)) return true;
  if (AUTO_ID_PREFIX.test(id)) return true;
  for (const seg of id.split(/[-_.]/)) {
    if (seg.length >= 8 && /^[0-9a-f]+$/i.test(seg) && /\d/.test(seg) && /[a-f]/i.test(seg)) return true; // hex hash
    if (seg.length >= 5 && /[a-z]/i.test(seg) && (seg.match(/\d/g)?.length ?? 0) >= 2 && /\d[a-z]+\d|[a-z]\d+[a-z]/i.test(seg)) return true; // "8fk2p"
  }
  return false;
}

const TEST_ID_ATTRS = ['data-testid', 'data-test-id', 'data-test', 'data-qa', 'data-cy'];
/** Tags rare enough that, alone, they often name one element. */
const OFTEN_UNIQUE_TAGS = new Set(['main', 'nav', 'header', 'footer', 'aside', 'form', 'h1', 'search', 'dialog', 'textarea', 'select', 'iframe', 'article']);

/**
 * The attribute the reader stamps on an element that has no short selector of its own, so that
 * `[pw="17"]` names it: a six-token handle instead of a structural chain that cost dozens
 * (`#full-header > div > div > header > … > li:nth-of-type(1) > a`). It is the only thing reading
 * a page leaves on it (docs/reference/tools.md, "What reading a page leaves behind"). A re-render that replaces the
 * element drops the stamp with it: the selector then matches nothing, and the model reads again.
 */
export const STAMP_ATTR = 'pw';

/**
 * Builds short, stable selectors that match exactly one element at reading time: #id, then test ids,
 * a stamp an earlier read left, tag[name], [aria-label], a few more attributes, the same scoped
 * under the nearest ancestor that has one of the first, and when none names the element alone, a
 * stamp (STAMP_ATTR). Candidates are counted from per-attribute tallies (one querySelectorAll per
 * attribute and tree, not one per guess); the chosen selector is then checked, and the next
 * candidate is tried if that check fails (e.g. quirks-mode case folding).
 *
 * Attribute selectors come before a stamp because they survive a re-render (a framework that
 * replaces a form still names its field input[name="email"]); a stamp does not.
 *
 * Selectors unique by construction — a tallied attribute value that occurs once, a stamp — are
 * checked with matches() (one element) rather than querySelectorAll (the whole tree), except in
 * quirks mode where the tallies can be wrong; #id and the scoped guesses only querySelectorAll can
 * confirm. On a huge tree (over EXHAUSTIVE_LIMIT elements: a 5 MB page has ~100k) each
 * querySelectorAll walks the whole tree, and thousands of them took 13 s: there the scoped guesses
 * are not tried, and matches() is trusted in quirks mode too; #id is still checked (cheap).
 */
export class SelectorBuilder {
  private readonly cache = new Map<Element, string | null>();
  private readonly anchors = new Map<Element, string | null>();
  private readonly nextStamp = new Map<Scope, number>();
  private readonly frames = new Map<Document, Element>();
  private readonly tallies = new Map<Scope, Map<string, Map<string, number>>>();
  private readonly sizes = new Map<Scope, number>();

  constructor(private readonly doc: Document) {}

  /** Records the iframe a same-origin document belongs to (for "iframe >>> inner"). */
  registerFrame(frameDoc: Document, iframe: Element): void {
    this.frames.set(frameDoc, iframe);
  }

  /**
   * The full selector for `el` (with ">>>" steps when it lives in a shadow root or a frame), or null.
   * `stamp` false: only a selector the page's own attributes give (null rather than a new stamp).
   */
  selectorFor(el: Element, stamp = true): string | null {
    if (this.cache.has(el)) return this.cache.get(el)!;
    let result: string | null = null;
    const root = el.getRootNode();
    const local = isScope(root) ? this.local(el, root, stamp) : null;
    if (local && isScope(root)) {
      const host = hostOf(root, this.doc, this.frames);
      if (host === undefined) result = local;
      else if (host) {
        const prefix = this.selectorFor(host);
        result = prefix ? `${prefix} ${CHAIN} ${local}` : null;
      }
    }
    if (result !== null || stamp) this.cache.set(el, result);
    return result;
  }

  /** Whether querySelectorAll checks are affordable in `scope` (see the class comment). */
  private exhaustive(scope: Scope): boolean {
    let size = this.sizes.get(scope);
    if (size === undefined) {
      size = 'getElementsByTagName' in scope ? scope.getElementsByTagName('*').length : scope.querySelectorAll('*').length;
      this.sizes.set(scope, size);
    }
    return size <= EXHAUSTIVE_LIMIT;
  }

  /**
   * `selector` names `el` alone in `scope`; `byConstruction`: it cannot name another, only a typo could
   * fail it. Then matches() is enough — unless the tree is in quirks mode, where ids and classes
   * match case-insensitively and the tallies (exact strings) could undercount — and it costs one
   * element, not a walk of the whole tree per selector.
   */
  private check(scope: Scope, selector: string, el: Element, byConstruction: boolean): boolean {
    if (byConstruction && (!this.exhaustive(scope) || !quirks(scope))) return matches(el, selector);
    return unique(scope, selector, el);
  }

  private local(el: Element, scope: Scope, stamp: boolean): string | null {
    // A candidate longer than MAX_SELECTOR costs more tokens than the stamp that replaces it.
    const candidates = ownCandidates(el).filter((c) => c.sel.length <= MAX_SELECTOR);
    for (const c of candidates) if (this.count(scope, c) === 1 && this.check(scope, c.sel, el, c.attr !== 'id')) return c.sel;

    // Duplicated attributes (two forms with input[name="email"]) are often unique under an anchor.
    const anchor = this.nearestAnchor(el, scope);
    if (anchor && this.exhaustive(scope)) {
      for (const c of candidates.slice(0, 2)) {
        if (c.attr === 'id' || c.attr === STAMP_ATTR) continue;
        const scoped = `${anchor.selector} ${c.sel}`;
        if (scoped.length <= MAX_SELECTOR && unique(scope, scoped, el)) return scoped;
      }
    }
    return stamp ? this.stamp(el, scope) : null;
  }

  /**
   * Names `el` by a new stamp: the next number no element of `scope` carries (stamps of earlier
   * reads are kept, so a page read twice gives the same selectors). A stamp that a copy of its
   * element shares (a page cloned a stamped node) is replaced.
   */
  private stamp(el: Element, scope: Scope): string {
    let next = this.nextStamp.get(scope);
    if (next === undefined) {
      next = 1;
      for (const e of Array.from(scope.querySelectorAll(`[${STAMP_ATTR}]`))) {
        const n = Number(e.getAttribute(STAMP_ATTR));
        if (Number.isSafeInteger(n) && n >= next) next = n + 1;
      }
    }
    this.nextStamp.set(scope, next + 1);
    const value = String(next);
    const tally = this.tallies.get(scope)?.get(STAMP_ATTR);
    const old = el.getAttribute(STAMP_ATTR);
    if (tally && old !== null) tally.set(old, (tally.get(old) ?? 1) - 1);
    tally?.set(value, 1);
    el.setAttribute(STAMP_ATTR, value);
    return stampSelector(value);
  }

  /**
   * How many elements of `scope` a candidate names, from a tally of that attribute's values (one
   * querySelectorAll per attribute and tree, not one per guess). Exact except for case folding
   * (quirks-mode ids), which the final querySelectorAll check catches.
   */
  private count(scope: Scope, c: Candidate): number {
    let byAttr = this.tallies.get(scope);
    if (!byAttr) this.tallies.set(scope, (byAttr = new Map()));
    if (c.attr === 'class') {
      let classes = byAttr.get('class');
      if (!classes) byAttr.set('class', (classes = new Map()));
      let n = classes.get(c.value!);
      if (n === undefined) {
        n = 'getElementsByClassName' in scope ? scope.getElementsByClassName(c.value!).length : scope.querySelectorAll(c.sel).length;
        classes.set(c.value!, n);
      }
      return n;
    }
    const key = c.attr ?? '';
    let tally = byAttr.get(key);
    if (!tally) {
      tally = new Map();
      const add = (k: string) => tally!.set(k, (tally!.get(k) ?? 0) + 1);
      if (c.attr) {
        for (const e of Array.from(scope.querySelectorAll(`[${c.attr}]`))) {
          const v = e.getAttribute(c.attr)!;
          const value = c.attr === 'type' ? v.toLowerCase() : v;
          add(value);
          add(`${e.localName}\u0000${value}`);
        }
      }
      byAttr.set(key, tally);
    }
    if (!c.attr) {
      let n = tally.get(c.tag!);
      if (n === undefined) tally.set(c.tag!, (n = scope.querySelectorAll(c.sel).length));
      return n;
    }
    return tally.get(c.tag ? `${c.tag}\u0000${c.value}` : c.value!) ?? 0;
  }

  private nearestAnchor(el: Element, scope: Scope): { element: Element; selector: string } | null {
    for (let p = el.parentElement; p; p = p.parentElement) {
      const s = this.anchorOf(p, scope);
      if (s) return { element: p, selector: s };
    }
    return null;
  }

  /** A selector for an ancestor worth anchoring a chain at (unique id, test id or landmark tag), or null. */
  private anchorOf(el: Element, scope: Scope): string | null {
    if (this.anchors.has(el)) return this.anchors.get(el)!;
    let result: string | null = null;
    if (el.localName === 'body' || el.localName === 'html') result = el.localName;
    else {
      for (const c of ownCandidates(el)) {
        const strong = c.attr === 'id' || c.attr === 'class' || (c.attr?.startsWith('data-') ?? false) || !c.attr;
        if (strong && this.count(scope, c) === 1 && this.check(scope, c.sel, el, c.attr !== 'id')) {
          result = c.sel;
          break;
        }
      }
    }
    this.anchors.set(el, result);
    return result;
  }
}

interface Candidate {
  sel: string;
  /** The attribute it tests (none: the tag alone), its value, and the tag when the selector has one. */
  attr?: string;
  value?: string;
  tag?: string;
}

/** The attribute-based selectors that could name `el` alone, best first. */
function ownCandidates(el: Element): Candidate[] {
  const tag = el.localName;
  const t = cssEscape(tag);
  const out: Candidate[] = [];
  const id = el.getAttribute('id');
  if (id && !isAutoId(id)) out.push({ sel: `#${cssEscape(id)}`, attr: 'id', value: id });
  for (const attr of TEST_ID_ATTRS) {
    const v = el.getAttribute(attr);
    if (v) out.push({ sel: `[${attr}=${cssString(v)}]`, attr, value: v });
  }
  const stamp = el.getAttribute(STAMP_ATTR);
  if (stamp && /^\d+$/.test(stamp)) out.push({ sel: stampSelector(stamp), attr: STAMP_ATTR, value: stamp });
  const name = el.getAttribute('name');
  if (name) out.push({ sel: `${t}[name=${cssString(name)}]`, attr: 'name', value: name, tag });
  const label = el.getAttribute('aria-label');
  if (label && label.length <= 80) {
    out.push({ sel: `[aria-label=${cssString(label)}]`, attr: 'aria-label', value: label });
    out.push({ sel: `${t}[aria-label=${cssString(label)}]`, attr: 'aria-label', value: label, tag });
  }
  if (tag === 'a') {
    const href = el.getAttribute('href');
    if (href && href.length <= 100) out.push({ sel: `a[href=${cssString(href)}]`, attr: 'href', value: href, tag });
  }
  const placeholder = el.getAttribute('placeholder');
  if (placeholder && placeholder.length <= 60) out.push({ sel: `${t}[placeholder=${cssString(placeholder)}]`, attr: 'placeholder', value: placeholder, tag });
  const type = el.getAttribute('type')?.toLowerCase();
  if (type && (tag === 'input' || tag === 'button')) out.push({ sel: `${t}[type=${cssString(type)}]`, attr: 'type', value: type, tag });
  // Landmarks, and custom elements (<product-card>), are often the only one of their kind.
  if (OFTEN_UNIQUE_TAGS.has(tag) || tag.includes('-')) out.push({ sel: t, tag });
  let classes = 0;
  for (const cls of Array.from(el.classList)) {
    if (classes >= MAX_CLASSES) break;
    if (!isStableClass(cls)) continue;
    out.push({ sel: `.${cssEscape(cls)}`, attr: 'class', value: cls });
    classes++;
  }
  return out;
}

const MAX_CLASSES = 3;
/**
 * Characters past which a selector costs more tokens than a stamp (`[pw="17"]`, 6 tokens with its
 * braces): `#search-api-page-search-form-search-aclu`, `#fm-search button[type="submit"]` cost 9–11.
 */
const MAX_SELECTOR = 28;

function stampSelector(value: string): string {
  return `[${STAMP_ATTR}="${value}"]`;
}
const STATE_CLASS = /^(?:is-|has-|js-)|^(?:active|selected|open|opened|closed|hidden|visible|show|shown|focus|focused|hover|disabled|current|collapsed|expanded|in|fade|loaded|loading)$/i;

/** Classes that name what a thing is (not a state, not a build hash or a utility), safe to select by. */
export function isStableClass(cls: string): boolean {
  if (cls.length < 2 || cls.length > 40 || /[:[\]/!@()%.]/.test(cls) || /\d{3,}/.test(cls)) return false;
  if (/^(?:css|sc|jsx|svelte|emotion|styled|tw)-/i.test(cls) || /^_|__[a-z0-9]{4,}$|--[a-z0-9]{5,}$/i.test(cls)) return false;
  if (STATE_CLASS.test(cls)) return false;
  return !isAutoId(cls);
}

function isScope(node: Node): node is Scope {
  return node.nodeType === 9 || (node.nodeType === 11 && 'host' in node);
}

/** undefined: `root` is the top document; null: a tree we cannot address from outside; else its host. */
function hostOf(root: Scope, doc: Document, frames: Map<Document, Element>): Element | null | undefined {
  if (root === doc) return undefined;
  if ('host' in root) return root.mode === 'open' ? root.host : null;
  const known = frames.get(root);
  if (known) return known;
  try {
    return root.defaultView?.frameElement ?? null;
  } catch {
    return null;
  }
}

const EXHAUSTIVE_LIMIT = 20_000;

function quirks(scope: Scope): boolean {
  return ((scope.nodeType === 9 ? scope : scope.ownerDocument) as Document).compatMode === 'BackCompat';
}

function matches(el: Element, selector: string): boolean {
  try {
    return el.matches(selector);
  } catch {
    return false;
  }
}

function unique(scope: Scope, selector: string, el: Element): boolean {
  try {
    const found = scope.querySelectorAll(selector);
    return found.length === 1 && found[0] === el;
  } catch {
    return false;
  }
}
