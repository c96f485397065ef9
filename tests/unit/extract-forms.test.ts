import { JSDOM, VirtualConsole } from 'jsdom';
import { describe, expect, it } from 'vitest';
import { extractPage, resolveSelector } from '../../lib/extract';
import { describeControl, labelOf } from '../../lib/extract/interactive';

function page(body: string): Document {
  return new JSDOM(`<!doctype html><html><head><title>Form</title></head><body>${body}</body></html>`, {
    url: 'https://shop.example/checkout',
    virtualConsole: new VirtualConsole(),
  }).window.document;
}

/** The bracketed control line the output has for the element `selector` names. */
function lineFor(markdown: string, doc: Document, el: Element): string {
  const line = markdown.split('\n').find((l) => {
    const m = /\{((?:"(?:[^"\\]|\\.)*"|[^{}"])+)\}\]$/.exec(l.trim());
    return m && resolveSelector(doc, m[1]!) === el;
  });
  expect(line, `no line for ${el.outerHTML}`).toBeDefined();
  return line!.trim();
}

describe('form fields', () => {
  it('names fields by label[for], wrapping label, aria-label, aria-labelledby, placeholder', () => {
    const doc = page(`
      <form>
        <label for="a">Street</label><input id="a">
        <label>City <input name="city"></label>
        <input aria-label="Postcode" name="zip">
        <span id="c-label">Country</span><input aria-labelledby="c-label" name="country">
        <input placeholder="Phone number" name="phone">
        <input name="nickname">
      </form>`);
    const label = (sel: string) => labelOf(doc.querySelector(sel)!);
    expect(label('#a')).toBe('Street');
    expect(label('[name=city]')).toBe('City');
    expect(label('[name=zip]')).toBe('Postcode');
    expect(label('[name=country]')).toBe('Country');
    expect(label('[name=phone]')).toBe('Phone number');
    expect(label('[name=nickname]')).toBe('nickname');
    const md = extractPage(doc).content;
    expect(lineFor(md, doc, doc.querySelector('#a')!)).toBe('[input "Street" {#a}]');
    expect(lineFor(md, doc, doc.querySelector('[name=city]')!)).toBe('[input "City" {input[name="city"]}]');
    // A label's text is said once, by its field.
    expect(md.match(/Street/g)).toHaveLength(1);
  });

  it('shows the CURRENT value, checked state and selection, not the attributes', () => {
    const doc = page(`
      <form id="f">
        <input name="email" type="email" value="old@example.com">
        <input name="agree" type="checkbox">
        <input name="news" type="checkbox" checked>
        <select name="size"><option>S</option><option selected>M</option><option>L</option></select>
        <textarea name="note">draft</textarea>
      </form>`);
    // What a page script or the user did after load:
    (doc.querySelector('[name=email]') as HTMLInputElement).value = 'new@example.com';
    (doc.querySelector('[name=agree]') as HTMLInputElement).checked = true;
    (doc.querySelector('[name=news]') as HTMLInputElement).checked = false;
    (doc.querySelector('[name=size]') as HTMLSelectElement).selectedIndex = 2;
    (doc.querySelector('[name=note]') as HTMLTextAreaElement).value = 'final text';
    const md = extractPage(doc).content;
    expect(md).toContain('[input email "email" = "new@example.com" {input[name="email"]}]');
    expect(md).not.toContain('old@example.com');
    expect(md).toContain('[checkbox "agree" checked {input[name="agree"]}]');
    expect(md).toContain('[checkbox "news" {input[name="news"]}]');
    expect(md).toContain('[select "size" = "L" options: "S", "M", "L" {select[name="size"]}]');
    expect(md).toContain('[textarea "note" = "final text" {textarea[name="note"]}]');
  });

  it('never shows a password', () => {
    const doc = page('<form><label>Password <input type="password" name="pw" value="hunter2"></label><label>Again <input type="password" name="pw2"></label></form>');
    (doc.querySelector('[name=pw2]') as HTMLInputElement).value = 'typed-secret';
    const md = extractPage(doc).content;
    expect(md).not.toContain('hunter2');
    expect(md).not.toContain('typed-secret');
    expect(md).toContain('[input password "Password" = "••••" {input[name="pw"]}]');
    expect(describeControl(doc.querySelector('[name=pw2]')!).value).toBe('••••');
    (doc.querySelector('[name=pw2]') as HTMLInputElement).value = '';
    expect(describeControl(doc.querySelector('[name=pw2]')!).value).toBeUndefined();
  });

  it('skips hidden fields and hidden controls', () => {
    const doc = page(`
      <form>
        <input type="hidden" name="csrf" value="tok">
        <div style="display: none"><input name="in-hidden-div"></div>
        <input name="hidden-attr" hidden>
        <div aria-hidden="true"><button>Decorative</button></div>
        <div style="visibility:hidden"><button>Invisible</button></div>
        <input name="shown">
      </form>`);
    const md = extractPage(doc).content;
    for (const gone of ['csrf', 'tok', 'in-hidden-div', 'hidden-attr', 'Decorative', 'Invisible']) expect(md).not.toContain(gone);
    expect(md).toContain('input[name="shown"]');
  });

  it('lists a checkbox the page hides behind its styled label, where the label is', () => {
    const doc = page('<form><input type="checkbox" id="terms" style="display:none" checked><label for="terms">I accept the terms</label></form>');
    expect(extractPage(doc).content).toBe('[form {form}]\n\n[checkbox "I accept the terms" checked {#terms}]');
  });

  it('caps long option lists', () => {
    const options = Array.from({ length: 30 }, (_, i) => `<option>Country ${i}</option>`).join('');
    const doc = page(`<label>Country <select name="c">${options}</select></label>`);
    const md = extractPage(doc).content;
    expect(md).toContain('"Country 19", +10 more');
    expect(md).not.toContain('Country 20"');
  });

  it('describes ARIA widgets by role and state', () => {
    const doc = page(`
      <div role="tablist"><div role="tab" aria-selected="true">Overview</div><div role="tab" aria-selected="false">Specs</div></div>
      <div role="checkbox" aria-checked="true" tabindex="0">Gift wrap</div>
      <div role="switch" aria-checked="false" aria-label="Express"></div>
      <button aria-expanded="false" aria-controls="m">Menu</button>
      <div role="combobox" aria-label="City">Paris</div>
      <div contenteditable="true" aria-label="Message">Hello there</div>
      <button disabled>Pay now</button>`);
    const md = extractPage(doc).content;
    expect(md).toMatch(/\[tab "Overview" selected \{[^}]+\}\]/);
    expect(md).toMatch(/\[tab "Specs" \{[^}]+\}\]/);
    expect(md).toMatch(/\[checkbox "Gift wrap" checked \{[^}]+\}\]/);
    expect(md).toMatch(/\[switch "Express" \{\[aria-label="Express"\]\}\]/);
    expect(md).toMatch(/\[button "Menu" collapsed \{[^}]+\}\]/);
    expect(md).toMatch(/\[combobox "City" = "Paris" \{[^}]+\}\]/);
    expect(md).toMatch(/\[editable "Message" = "Hello there" \{[^}]+\}\]/);
    expect(md).toMatch(/\[button "Pay now" disabled \{[^}]+\}\]/);
  });
});
