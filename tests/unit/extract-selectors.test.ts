import { JSDOM, VirtualConsole } from 'jsdom';
import { describe, expect, it } from 'vitest';
import { ANNOTATION_RE, ExtractError, extractPage, resolveSelector, resolveSelectorAll } from '../../lib/extract';
import { cssEscape, isAutoId, isStableClass, SelectorBuilder, splitSelectorChain } from '../../lib/extract/selectors';

function page(body: string): Document {
  return new JSDOM(`<!doctype html><html><head><title>T</title></head><body>${body}</body></html>`, {
    url: 'https://shop.example/p',
    virtualConsole: new VirtualConsole(),
  }).window.document;
}

/** querySelectorAll counts at each level of a ">>>" chain: each must be exactly 1. */
function levelCounts(doc: Document, selector: string): number[] {
  const counts: number[] = [];
  let scope: Document | ShadowRoot | null = doc;
  for (const part of splitSelectorChain(selector)) {
    if (!scope) return [...counts, 0];
    const found: NodeListOf<Element> = scope.querySelectorAll(part);
    counts.push(found.length);
    const el: Element | undefined = found[0];
    scope = el ? (el.shadowRoot ?? (el as HTMLIFrameElement).contentDocument ?? null) : null;
  }
  return counts;
}

function selectorsIn(markdown: string): string[] {
  return (markdown.match(ANNOTATION_RE) ?? []).map((a) => a.trim().slice(1, -1));
}

/** The selector SelectorBuilder gives `el`, checked to be unique at every level and to resolve back to `el`. */
function selectorOf(doc: Document, el: Element): string {
  const sel = new SelectorBuilder(doc).selectorFor(el);
  expect(sel).not.toBeNull();
  expect(levelCounts(doc, sel!).every((n) => n === 1)).toBe(true);
  expect(resolveSelector(doc, sel!)).toBe(el);
  return sel!;
}

describe('selectors', () => {
  it('prefers a stable #id', () => {
    const doc = page('<div><button id="save">Save</button><button>Other</button></div>');
    expect(selectorOf(doc, doc.getElementById('save')!)).toBe('#save');
  });

  it('skips auto-generated ids', () => {
    for (const id of ['ember1234', ':r1:', '«r3»', 'a1b2c3d4e5f6', '3f2504e0-4f89-11d3-9a0c-0305e82c3301', 'mat-input-0', 'x8fk2pq', 'field-123456']) {
      expect(isAutoId(id), id).toBe(true);
    }
    for (const id of ['email', 'main-nav', 'post-title', 'h2o', 'step-2']) expect(isAutoId(id), id).toBe(false);
    const doc = page('<form><input id="ember1234" name="q"><input id=":r7:" name="q2"></form>');
    expect(selectorOf(doc, doc.querySelector('[name=q]')!)).toBe('input[name="q"]');
    expect(selectorOf(doc, doc.querySelector('[name=q2]')!)).toBe('input[name="q2"]');
  });

  it('uses data-testid, then name, then aria-label', () => {
    const doc = page(`
      <button data-testid="checkout">Pay</button>
      <input name="coupon">
      <button aria-label="Close dialog">×</button>`);
    expect(selectorOf(doc, doc.querySelector('button')!)).toBe('[data-testid="checkout"]');
    expect(selectorOf(doc, doc.querySelector('input')!)).toBe('input[name="coupon"]');
    expect(selectorOf(doc, doc.querySelector('[aria-label]')!)).toBe('[aria-label="Close dialog"]');
  });

  it('escapes what CSS needs escaped', () => {
    expect(cssEscape('1st')).toBe('\\31 st');
    expect(cssEscape('a.b:c')).toBe('a\\.b\\:c');
    const doc = page('<p id="1st">x</p><input name=\'say "hi"\'>');
    expect(selectorOf(doc, doc.querySelector('p')!)).toBe('#\\31 st');
    expect(selectorOf(doc, doc.querySelector('input')!)).toBe('input[name="say \\"hi\\""]');
  });

  it('stamps an element nothing else names alone, and reuses the stamp on the next read', () => {
    const doc = page('<div id="toolbar"><span><button>A</button><button>B</button></span><span><button>C</button></span></div>');
    const b = doc.querySelectorAll('button')[1]!;
    const sel = selectorOf(doc, b);
    expect(sel).toBe('[pw="1"]');
    expect(b.getAttribute('pw')).toBe('1');
    // A second read (a new builder) finds the stamp and gives the same selector, adding nothing.
    expect(selectorOf(doc, b)).toBe(sel);
    expect(doc.querySelectorAll('[pw]')).toHaveLength(1);
    expect(selectorOf(doc, doc.querySelectorAll('button')[2]!)).toBe('[pw="2"]');
  });

  it('never hands out a stamp two elements carry: numbers the page uses are skipped, a cloned stamp replaced', () => {
    const doc = page('<p pw="7">page\'s own</p><p pw="x">other</p><ul><li>one</li><li>two</li></ul>');
    const [one, two] = Array.from(doc.querySelectorAll('li'));
    expect(selectorOf(doc, one!)).toBe('[pw="8"]');
    // The page clones the stamped item: the stamp is now on two elements.
    one!.parentElement!.append(one!.cloneNode(true));
    const builder = new SelectorBuilder(doc);
    const again = builder.selectorFor(one!)!;
    expect(again).not.toBe('[pw="8"]');
    expect(doc.querySelectorAll(again)).toHaveLength(1);
    expect(resolveSelector(doc, again)).toBe(one);
    const clone = doc.querySelectorAll('li')[2]!;
    expect(resolveSelector(doc, builder.selectorFor(clone)!)).toBe(clone);
    expect(resolveSelector(doc, builder.selectorFor(two!)!)).toBe(two);
  });

  it('stamps inside a shadow root, addressed through its host', () => {
    const doc = page('<x-list id="l"></x-list>');
    const root = doc.getElementById('l')!.attachShadow({ mode: 'open' });
    root.innerHTML = '<button>1</button><button>2</button>';
    const sel = selectorOf(doc, root.querySelectorAll('button')[1]!);
    expect(sel).toBe('#l >>> [pw="1"]');
  });

  it('prefers a stamp to a selector that costs more tokens than one', () => {
    const doc = page('<div><button class="page-search__search-button-wide">Go</button><form id="newsletter-signup-form-footer-2"></form><form></form></div>');
    expect(selectorOf(doc, doc.querySelector('button')!)).toBe('[pw="1"]');
    expect(selectorOf(doc, doc.querySelector('form')!)).toBe('[pw="2"]');
  });

  it('gives elements with duplicate names distinct selectors', () => {
    const doc = page(`
      <form id="login"><input name="email"><button>Sign in</button></form>
      <form id="signup"><input name="email"><button>Join</button></form>`);
    const [a, b] = Array.from(doc.querySelectorAll('input[name=email]'));
    const sa = selectorOf(doc, a!);
    const sb = selectorOf(doc, b!);
    expect(sa).not.toBe(sb);
    expect(sa).toBe('#login input[name="email"]');
    expect(sb).toBe('#signup input[name="email"]');
  });

  it('does not use an id that two elements share', () => {
    const doc = page('<div><p id="dup">a</p></div><section><p id="dup">b</p></section>');
    const second = doc.querySelectorAll('p')[1]!;
    expect(selectorOf(doc, second)).not.toContain('#dup');
  });

  it('uses stable class names, not state or hashed ones', () => {
    expect(isStableClass('site-search')).toBe(true);
    for (const c of ['active', 'is-open', 'css-1x2y3z', 'sm:flex', 'w-[12px]', 'jsx-123456', 'x8fk2pq']) expect(isStableClass(c), c).toBe(false);
    const doc = page('<div><a class="active nav-link-home" href="/">Home</a></div>');
    expect(selectorOf(doc, doc.querySelector('a')!)).toBe('a[href="/"]');
  });

  it('reaches into open shadow roots with >>>', () => {
    const doc = page('<my-widget id="w"></my-widget><other-widget></other-widget>');
    const root = doc.getElementById('w')!.attachShadow({ mode: 'open' });
    root.innerHTML = '<p>Inside</p><button class="buy">Buy</button><inner-part></inner-part>';
    const nested = root.querySelector('inner-part')!.attachShadow({ mode: 'open' });
    nested.innerHTML = '<button>Deep</button>';
    const sel = selectorOf(doc, root.querySelector('button')!);
    expect(sel).toBe('#w >>> .buy');
    const deep = selectorOf(doc, nested.querySelector('button')!);
    expect(deep.split('>>>')).toHaveLength(3);
  });

  it('reaches into same-origin iframes with >>>', () => {
    const doc = page('<iframe id="pay" title="Payment"></iframe>');
    const frame = doc.getElementById('pay') as HTMLIFrameElement;
    frame.contentDocument!.body.innerHTML = '<label>Card <input name="card"></label>';
    const builder = new SelectorBuilder(doc);
    builder.registerFrame(frame.contentDocument!, frame);
    const sel = builder.selectorFor(frame.contentDocument!.querySelector('input')!);
    expect(sel).toBe('#pay >>> input[name="card"]');
    expect(resolveSelector(doc, sel!)).toBe(frame.contentDocument!.querySelector('input'));
    // jsdom knows the frame's frameElement too, without registration.
    expect(new SelectorBuilder(doc).selectorFor(frame.contentDocument!.querySelector('input')!)).toBe(sel);
  });

  it('resolveSelector: ">>>" inside quotes is not a step; bad selectors are invalid_selector', () => {
    expect(splitSelectorChain('a[title="x >>> y"] >>> b')).toEqual(['a[title="x >>> y"]', 'b']);
    const doc = page('<p>x</p>');
    expect(resolveSelectorAll(doc, 'p')).toHaveLength(1);
    expect(resolveSelector(doc, 'p >>> b')).toBeNull(); // p has no shadow root: no match, not an error
    for (const bad of ['p[', '>>> p', 'p >>>', 'p >>> [']) {
      let error: unknown;
      try {
        resolveSelector(doc, bad);
      } catch (e) {
        error = e;
      }
      expect(error, bad).toBeInstanceOf(ExtractError);
      expect((error as ExtractError).code).toBe('invalid_selector');
      expect((error as ExtractError).message).toContain(JSON.stringify(bad));
    }
  });

  it('every selector in a busy page output is unique at every level and resolves', () => {
    const doc = page(`
      <header><nav aria-label="Main"><a href="/">Home</a><a href="/docs">Docs</a></nav>
        <form role="search"><input type="search" name="q" aria-label="Search"><button>Go</button></form></header>
      <main>
        <h1>Account</h1>
        <section id="profile"><h2>Profile</h2>
          <label>Name <input value="Ada"></label>
          <label>Name <input value="Grace"></label>
          <button>Save</button><button>Save</button>
        </section>
        <section aria-label="Danger zone"><h2>Danger</h2><button class="danger">Delete</button></section>
        <ul><li><button>x</button></li><li><button>x</button></li><li><button>x</button></li></ul>
        <host-el></host-el>
      </main>`);
    const host = doc.querySelector('host-el')!.attachShadow({ mode: 'open' });
    host.innerHTML = '<h3>Shadow title</h3><button>Shadow button</button><button>Shadow button</button>';
    const md = extractPage(doc).content;
    const sels = selectorsIn(md);
    expect(sels.length).toBeGreaterThan(12);
    for (const sel of sels) {
      expect(levelCounts(doc, sel), sel).toEqual(splitSelectorChain(sel).map(() => 1));
      expect(resolveSelector(doc, sel), sel).not.toBeNull();
    }
    expect(sels.some((s) => s.includes('>>>'))).toBe(true);
  });
});
