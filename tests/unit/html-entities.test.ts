import { JSDOM } from 'jsdom';
import { describe, expect, it } from 'vitest';
import { C1_REMAP, NAMED_REFERENCES, decodeEntities } from '../../lib/html/entities';

describe('decodeEntities', () => {
  it.each([
    ['Tom &amp; Jerry', 'Tom & Jerry'],
    ['&lt;p&gt; &quot;q&quot; &apos;a&apos;', '<p> "q" \'a\''],
    ['caf&eacute; &Eacute;t&eacute; &ndash; &mdash; &hellip; &euro; &trade; &nbsp;', 'café Été – — … € ™ \u00a0'],
    ['&eacute;&Uuml;&szlig; &alpha;&Omega; &rarr; &trade; &apos; &ccaron;', 'éÜß αΩ → ™ \' č'],
    ['&Alpha;&omega;&rarr;&le;&infin; &lang;x&rang;', 'Αω→≤∞ ⟨x⟩'],
    ['&#233;&#xE9;&#XE9;&#x1F600; &#20320;&#x597D;', 'ééé😀 你好'],
    ['&#150; &#147;x&#148; &#128; &#x9F;', '– “x” € Ÿ'], // windows-1252 meanings of C1 references
    ['&#129; &#x8D;', '\u0081 \u008d'], // undefined in windows-1252: kept
    ['&#0; &#xD800; &#x110000; &#99999999999999999999;', '\uFFFD \uFFFD \uFFFD \uFFFD'],
    ['&#39 and &#x27', "' and '"], // numeric references without ';'
    ['&# &#x; &#xg;', '&# &#x; &#xg;'],
    ['&amp;lt; &ampamp;', '&lt; &amp;'], // one pass only
    ['R&D &unknown; AT&T; a & b &;', 'R&D &unknown; AT&T; a & b &;'],
    ['&copy2024 &amp x &AMP &REG', '©2024 & x & ®'], // legacy names without ';'
    ['&hellip &Amp;', '&hellip &Amp;'], // other names need ';', and names are case-sensitive
    ['&notit; &notin &notin; &notinva;', '¬it; ¬in ∉ ∉'], // longest match, as the spec's "&notit;" example
    ['&ltrif; &gtrsim; &timesb; &parallel; &notinE;', '◂ ≳ ⊠ ∥ ⋹̸'],
  ])('%j → %j', (input, output) => {
    expect(decodeEntities(input)).toBe(output);
  });

  it('attribute values keep a legacy name without ";" before "=", a letter or a digit', () => {
    expect(decodeEntities('?a=1&copy=2&para&amp;lang=en', { attribute: true })).toBe('?a=1&copy=2¶&lang=en');
    expect(decodeEntities('?x=1&notify=1&copy2&amp', { attribute: true })).toBe('?x=1&notify=1&copy2&');
    expect(decodeEntities('&lt;b&gt; &#39;q&#39 &copy;=', { attribute: true })).toBe("<b> 'q' ©=");
  });

  it('strict mode (API text, XML) decodes only complete references with a known name', () => {
    expect(decodeEntities('Q&amp;A &copy 2024 &#39;x&#39; &#39 &copy2024; &custom;', { strict: true })).toBe("Q&A &copy 2024 'x' &#39 &copy2024; &custom;");
  });

  it('returns text without "&" as it is', () => {
    const text = 'plain <text>';
    expect(decodeEntities(text)).toBe(text);
  });

  it('reads long runs of digits and letters in linear time', () => {
    const started = performance.now();
    expect(decodeEntities(`&#${'9'.repeat(100_000)};`)).toBe('\uFFFD');
    expect(decodeEntities(`&not${'i'.repeat(100_000)}`)).toBe(`¬${'i'.repeat(100_000)}`);
    expect(decodeEntities('&amp'.repeat(50_000), { attribute: true })).toBe('&'.repeat(50_000));
    expect(performance.now() - started).toBeLessThan(2000);
  });
});

describe('decodeEntities against a browser parser (jsdom)', () => {
  const document = new JSDOM('').window.document;
  /** How the HTML parser reads each of `refs` as text and in an attribute value (one parse: a DOM node each would be slow). */
  function parsed(refs: readonly string[]): { text: string; attr: string }[] {
    const SEP = '\ue000'; // a character no reference decodes to
    const joined = refs.join(SEP);
    const div = document.createElement('div');
    div.innerHTML = `<p title="${joined}">${joined}</p>`;
    const p = div.firstElementChild!;
    const attrs = (p.getAttribute('title') ?? '').split(SEP);
    return (p.textContent ?? '').split(SEP).map((text, i) => ({ text, attr: attrs[i] ?? '' }));
  }
  function mismatches(refs: readonly string[]): string[] {
    const expected = parsed(refs);
    expect(expected).toHaveLength(refs.length);
    return refs.flatMap((ref, i) => {
      const text = decodeEntities(ref);
      const attr = decodeEntities(ref, { attribute: true });
      const e = expected[i]!;
      return [...(text === e.text ? [] : [`text ${ref}: ${text} ≠ ${e.text}`]), ...(attr === e.attr ? [] : [`attr ${ref}: ${attr} ≠ ${e.attr}`])];
    });
  }

  it('decodes every name in its table as the HTML parser does, with and without ";", before any character', () => {
    const refs = [...NAMED_REFERENCES.keys()].flatMap((name) => ['', ';', 'x', '=', '1', ' ', ';x'].map((after) => `a&${name}${after}b`));
    expect(mismatches(refs)).toEqual([]);
  });

  it('reads numeric references as the HTML parser does', () => {
    const codes = [0, 9, 10, 13, 0x1f, 0x7f, ...Object.keys(C1_REMAP).map(Number), 0x81, 0x8d, 0x8f, 0x90, 0x9d, 0xa0, 0xd7ff, 0xd800, 0xdfff, 0xfffe, 0x1f600, 0x10ffff, 0x110000, 2 ** 32 + 65];
    const refs = codes.flatMap((code) => [`&#${code};`, `&#${code}x`, `&#x${code.toString(16)};`, `&#X${code.toString(16).toUpperCase()} `]);
    expect(mismatches(refs)).toEqual([]);
  });

  it('leaves malformed references as the HTML parser does', () => {
    expect(mismatches(['&', '&&', '& x', '&;', '&#', '&#;', '&#x', '&#xg;', '&#-1;', '&1;', '&amp;amp;', '&ampamp;', '&AMP;', '&notit;', '&copy2024;', '&para=1'])).toEqual([]);
  });
});
