/**
 * Hidden text: the pure CSS-value helpers behind the rendered-page checks, and what a parsed
 * document (jsdom here; web_fetch's DOMParser copy in the extension) can tell from markup alone.
 * The rendered checks themselves run in real browsers: tests/e2e/hidden-text.e2e.test.ts.
 */
import { JSDOM, VirtualConsole } from 'jsdom';
import { describe, expect, it } from 'vitest';
import { extractPage } from '../../lib/extract';
import { approxPx, clipPathHides, contrastRatio, indistinct, INVISIBLE_CONTRAST, over, parseColor, WHITE, zeroAreaClip } from '../../lib/extract/css-values';
import { labelOf } from '../../lib/extract/interactive';
import { HIDDEN, markupVerdict, SHOWN, TEXT_HIDDEN } from '../../lib/extract/visibility';

function page(body: string): Document {
  return new JSDOM(`<!doctype html><html><head><title>Page</title></head><body>${body}</body></html>`, {
    url: 'https://site.example/page',
    virtualConsole: new VirtualConsole(),
  }).window.document;
}

describe('colours and contrast', () => {
  it('parses the colours computed styles and style attributes give', () => {
    expect(parseColor('rgb(255, 255, 255)')).toEqual(WHITE);
    expect(parseColor('rgba(0, 0, 0, 0.5)')).toEqual({ r: 0, g: 0, b: 0, a: 0.5 });
    expect(parseColor('rgb(10 20 30 / 25%)')).toEqual({ r: 10, g: 20, b: 30, a: 0.25 });
    expect(parseColor('#FeFeFe')).toEqual({ r: 254, g: 254, b: 254, a: 1 });
    expect(parseColor('#fff')).toEqual(WHITE);
    expect(parseColor('#00000000')).toEqual({ r: 0, g: 0, b: 0, a: 0 });
    expect(parseColor('transparent')?.a).toBe(0);
    // Unknown is never judged.
    for (const v of ['', 'currentcolor', 'oklch(0.7 0.1 200)', 'hsl(0 0% 100%)', 'rebeccapurple', '#ggg', 'rgb(1, 2)']) expect(parseColor(v)).toBeNull();
  });

  it('gives the WCAG contrast ratio, alpha applied', () => {
    const black = parseColor('#000')!;
    expect(contrastRatio(black, WHITE)).toBeCloseTo(21, 5);
    expect(contrastRatio(WHITE, WHITE)).toBe(1);
    expect(contrastRatio(parseColor('#fefefe')!, WHITE)).toBeLessThan(1.01);
    // #767676 is the classic lightest grey that passes 4.5 on white.
    expect(contrastRatio(parseColor('#767676')!, WHITE)).toBeCloseTo(4.54, 2);
    // Half-transparent black on white is a mid grey, far from invisible.
    expect(contrastRatio({ ...black, a: 0.5 }, WHITE)).toBeGreaterThan(3);
    expect(contrastRatio({ ...black, a: 0 }, WHITE)).toBe(1);
  });

  it('draws the line below faint-but-readable text', () => {
    expect(contrastRatio(parseColor('#f4f4f4')!, WHITE)).toBeLessThan(INVISIBLE_CONTRAST);
    expect(contrastRatio(parseColor('#dddddd')!, WHITE)).toBeGreaterThan(INVISIBLE_CONTRAST);
    expect(contrastRatio(parseColor('#bbbbbb')!, WHITE)).toBeGreaterThan(INVISIBLE_CONTRAST);
    const navy = parseColor('#123456')!;
    expect(contrastRatio(navy, navy)).toBe(1);
    expect(contrastRatio(parseColor('#f0f0f0')!, navy)).toBeGreaterThan(10);
  });

  it('tells colours apart by hue too: pure yellow on white is garish, not hidden', () => {
    const yellow = parseColor('#ff0')!;
    expect(contrastRatio(yellow, WHITE)).toBeLessThan(INVISIBLE_CONTRAST);
    expect(indistinct(yellow, WHITE)).toBe(false);
    expect(indistinct(parseColor('#fefefe')!, WHITE)).toBe(true);
    expect(indistinct(parseColor('#ffeeee')!, WHITE)).toBe(true);
    expect(indistinct(parseColor('#ffffcc')!, WHITE)).toBe(false);
    expect(indistinct(parseColor('rgba(0, 0, 0, 0)')!, WHITE)).toBe(true);
    expect(indistinct(parseColor('#333')!, WHITE)).toBe(false);
  });

  it('composites a translucent background over the one below', () => {
    const veil = over({ r: 0, g: 0, b: 0, a: 0.5 }, WHITE);
    expect(veil.a).toBe(1);
    expect(veil.r).toBeCloseTo(127.5, 5);
    expect(over({ r: 0, g: 0, b: 0, a: 0 }, WHITE)).toEqual(WHITE);
  });
});

describe('clips and lengths', () => {
  it('knows a clip rectangle that leaves nothing', () => {
    expect(zeroAreaClip('rect(0px, 0px, 0px, 0px)')).toBe(true);
    expect(zeroAreaClip('rect(0 0 0 0)')).toBe(true);
    expect(zeroAreaClip('rect(1px, 1px, 1px, 1px)')).toBe(true);
    expect(zeroAreaClip('rect(0px, 100px, 50px, 0px)')).toBe(false);
    expect(zeroAreaClip('auto')).toBe(false);
    expect(zeroAreaClip('rect(auto, auto, auto, auto)')).toBe(false);
  });

  it('knows a clip-path that leaves nothing', () => {
    expect(clipPathHides('inset(50%)')).toBe(true);
    expect(clipPathHides('inset(50% 0)')).toBe(true);
    expect(clipPathHides('inset(0 60% 0 40%)')).toBe(true);
    expect(clipPathHides('circle(0px at 50% 50%)')).toBe(true);
    expect(clipPathHides('inset(10%)')).toBe(false);
    expect(clipPathHides('inset(10px)')).toBe(false);
    expect(clipPathHides('circle(40%)')).toBe(false);
    expect(clipPathHides('none')).toBe(false);
  });

  it('reads lengths as style attributes write them', () => {
    expect(approxPx('-9999px')).toBe(-9999);
    expect(approxPx('-100em')).toBe(-1600);
    expect(approxPx('0')).toBe(0);
    expect(approxPx('12')).toBeNull();
    expect(approxPx('50%')).toBeNull();
  });
});

describe('hidden text in a parsed document (markup only)', () => {
  // One document for all the cases: a jsdom window is costly to make.
  const doc = page('');
  const verdict = (html: string) => {
    doc.body.innerHTML = html;
    return markupVerdict(doc.body.firstElementChild!);
  };

  it('reads what a style attribute says', () => {
    expect(verdict('<p style="opacity: 0">x</p>')).toBe(HIDDEN);
    expect(verdict('<p style="opacity:0.0 !important">x</p>')).toBe(HIDDEN);
    expect(verdict('<p style="opacity: .4">x</p>')).toBe(SHOWN);
    expect(verdict('<div style="width:0;height:0;overflow:hidden">x</div>')).toBe(HIDDEN);
    expect(verdict('<div style="height:0">x</div>')).toBe(SHOWN); // overflows, visibly
    expect(verdict('<span style="position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0,0,0,0)">x</span>')).toBe(HIDDEN);
    expect(verdict('<span style="clip-path: inset(50%)">x</span>')).toBe(HIDDEN);
    expect(verdict('<div style="position:absolute; left:-9999px">x</div>')).toBe(HIDDEN);
    expect(verdict('<div style="position:relative; left:-20px">x</div>')).toBe(SHOWN);
    expect(verdict('<h1 style="text-indent:-9999px">x</h1>')).toBe(HIDDEN);
    expect(verdict('<p style="font-size:0">x</p>')).toBe(TEXT_HIDDEN);
    expect(verdict('<p style="font-size: 1px">x</p>')).toBe(TEXT_HIDDEN);
    expect(verdict('<p style="font-size: 10px">x</p>')).toBe(SHOWN);
    expect(verdict('<p style="color: transparent">x</p>')).toBe(TEXT_HIDDEN);
    expect(verdict('<p style="color:#fff;background-color:#fefefe">x</p>')).toBe(TEXT_HIDDEN);
    expect(verdict('<p style="color:#fff;background:#000">x</p>')).toBe(SHOWN);
    // Gradient text: the colour is transparent so that the background shows through the letters.
    expect(verdict('<p style="color:transparent;background:linear-gradient(red,blue);-webkit-background-clip:text">x</p>')).toBe(SHOWN);
    expect(verdict('<p aria-hidden="true">x</p>')).toBe(HIDDEN);
    expect(verdict('<p aria-hidden="false">x</p>')).toBe(SHOWN);
    // An image is seen whatever assistive tech is told (Wikipedia's formulas: images, aria-hidden).
    expect(verdict('<img aria-hidden="true" alt="E = mc^2" src="f.svg">')).toBe(SHOWN);
    // A transparent file input over a styled button is still the button.
    expect(verdict('<input type="file" style="opacity:0">')).toBe(SHOWN);
  });

  it('leaves hidden text out of web_fetch-style Markdown, and keeps what is visible', () => {
    const doc = page(`<main>
      <p>Visible VISIBLE-ONE.</p>
      <p style="opacity:0">HIDDEN-OPACITY</p>
      <div style="position:absolute;left:-10000px"><p>HIDDEN-OFFSCREEN</p></div>
      <p>Before <span style="font-size:0">HIDDEN-FONTSIZE</span> after.</p>
      <div style="font-size:0">HIDDEN-FONTSIZE-OWN <span style="font-size:16px">VISIBLE-RESET</span></div>
      <p style="color:#ffffff;background:#ffffff">HIDDEN-COLOUR</p>
      <div aria-hidden="true"><p>HIDDEN-ARIA</p></div>
      <p><a href="/docs"><i aria-hidden="true">HIDDEN-ICON</i> Docs VISIBLE-LINK</a></p>
    </main>`);
    const md = extractPage(doc, { annotate: false }).content;
    for (const seen of ['VISIBLE-ONE', 'VISIBLE-RESET', '[Docs VISIBLE-LINK](/docs)']) expect(md).toContain(seen);
    expect(md).not.toMatch(/HIDDEN-/);
  });

  it('reads the page behind an open modal dialog, which the dialog set aria-hidden', () => {
    const doc = page(`<div id="app" aria-hidden="true"><main><p>Behind the dialog BEHIND-MODAL.</p><p><span aria-hidden="true">HIDDEN-ICON</span> glyph</p></main></div>
      <div role="dialog" aria-modal="true" aria-label="Cookies"><p>The dialog DIALOG-TEXT.</p></div>`);
    const md = extractPage(doc).content;
    expect(md).toContain('BEHIND-MODAL');
    expect(md).toContain('DIALOG-TEXT');
    expect(md).not.toContain('HIDDEN-ICON');
  });

  it('names controls by their accessible name: visually hidden text in, aria-hidden icons out', () => {
    const doc = page(`
      <button id="search"><svg aria-hidden="true"></svg><span class="sr-only">Search the site</span></button>
      <button id="close"><span aria-hidden="true">×</span><span class="sr-only">Close</span></button>
      <a id="cart" href="/cart"><span class="material-icons" aria-hidden="true">shopping_cart</span> Cart</a>
      <button id="menu" aria-label="Open the menu"><span aria-hidden="true">☰</span></button>
      <label for="q"><span aria-hidden="true">🔍</span> Find</label><input id="q">`);
    const label = (id: string) => labelOf(doc.getElementById(id)!);
    expect(label('search')).toBe('Search the site');
    expect(label('close')).toBe('Close');
    expect(label('cart')).toBe('Cart');
    expect(label('menu')).toBe('Open the menu');
    expect(label('q')).toBe('Find');
  });

  it('keeps an icon button listed when its only text is hidden', () => {
    const doc = page(`<main><p>Some words of the page.</p><p><button type="button"><span aria-hidden="true">ICON</span><span style="position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)">Share this page</span></button></p></main>`);
    const md = extractPage(doc).content;
    expect(md).toMatch(/\[button "Share this page" \{[^}]+\}\]/);
    expect(md).not.toContain('ICON');
    // Once, as a control: never as prose.
    expect(md.match(/Share this page/g)).toHaveLength(1);
  });
});
