/**
 * HTML character references, decoded without a DOM (a Chrome MV3 service worker has none), the
 * way the HTML Standard's tokenizer decodes them:
 *   - numeric references, decimal and hex, with or without ';'; 0, surrogates and values past
 *     U+10FFFF become U+FFFD, and &#128;–&#159; are read as windows-1252 (&#150; is '–');
 *   - named references from the table below; the legacy names (Latin-1 and amp/lt/gt/quot) also
 *     without ';', by longest prefix ("&copy2024" is "©2024", "&notit;" is "¬it;");
 *   - in attribute values a legacy name without ';' followed by '=' or a letter or digit stays as
 *     written, so a URL's "&copy=1" or "&para=x" query parameter is kept;
 *   - an unknown name stays as written, as in a browser;
 *   - one pass: "&amp;lt;" is "&lt;", never "<".
 *
 * The table is HTML 4's 253 names, &apos;, the HTML5 names that result pages, snippets and feeds
 * carry (punctuation names, Latin Extended-A letters), and every HTML5 name that starts with a
 * legacy name ("&notin;", "&ltrif;", "&timesb;"…), so the prefix rule never misreads a real name.
 * The full HTML5 table (2,231 names, ~40 kB) would cost more bytes than the pages it could help.
 */

/** U+00A0..U+00FF in order: every Latin-1 name is also a legacy name, valid without ';'. */
const LATIN1 =
  'nbsp iexcl cent pound curren yen brvbar sect uml copy ordf laquo not shy reg macr deg plusmn sup2 ' +
  'sup3 acute micro para middot cedil sup1 ordm raquo frac14 frac12 frac34 iquest Agrave Aacute Acirc ' +
  'Atilde Auml Aring AElig Ccedil Egrave Eacute Ecirc Euml Igrave Iacute Icirc Iuml ETH Ntilde Ograve ' +
  'Oacute Ocirc Otilde Ouml times Oslash Ugrave Uacute Ucirc Uuml Yacute THORN szlig agrave aacute ' +
  'acirc atilde auml aring aelig ccedil egrave eacute ecirc euml igrave iacute icirc iuml eth ntilde ' +
  'ograve oacute ocirc otilde ouml divide oslash ugrave uacute ucirc uuml yacute thorn yuml';

/**
 * Runs of names: "U+2190 larr uarr rarr" gives the names consecutive code points from U+2190.
 * A name that shares a character with another starts a run of its own.
 */
const RUNS = `
  U+0009 Tab NewLine  U+0021 excl quot num dollar percnt amp apos lpar rpar ast plus comma
  U+0022 QUOT  U+0026 AMP  U+002E period sol  U+003A colon semi lt equals gt quest commat  U+003C LT
  U+003E GT  U+005B lbrack  U+005B lsqb bsol rsqb Hat lowbar grave  U+005D rbrack
  U+007B lcub verbar rcub  U+007B lbrace vert rbrace  U+007C VerticalLine
  U+00A0 ${LATIN1}
  U+00A0 NonBreakingSpace  U+00A9 COPY  U+00AE REG  U+00B7 centerdot  U+00BD half  U+00C5 angst
  U+0100 Amacr amacr Abreve abreve Aogon aogon Cacute cacute
  U+010C Ccaron ccaron Dcaron dcaron Dstrok dstrok Emacr emacr  U+0116 Edot edot Eogon eogon Ecaron
  ecaron  U+011E Gbreve gbreve  U+012A Imacr imacr  U+0130 Idot imath  U+0131 inodot  U+0141 Lstrok
  lstrok Nacute nacute  U+0147 Ncaron ncaron  U+014C Omacr omacr  U+0150 Odblac odblac OElig oelig
  Racute racute  U+0158 Rcaron rcaron Sacute sacute  U+015E Scedil scedil Scaron scaron Tcedil tcedil
  Tcaron tcaron  U+016A Umacr umacr  U+016E Uring uring Udblac udblac  U+0178 Yuml Zacute zacute Zdot
  zdot Zcaron zcaron  U+0192 fnof
  U+02C6 circ  U+02DC tilde
  U+0391 Alpha Beta Gamma Delta Epsilon Zeta Eta Theta Iota Kappa Lambda Mu Nu Xi Omicron Pi Rho
  U+03A3 Sigma Tau Upsilon Phi Chi Psi Omega  U+03A9 ohm  U+03B1 alpha beta gamma delta epsilon zeta
  eta theta iota kappa lambda mu nu xi omicron pi rho sigmaf sigma tau upsilon phi chi psi omega
  U+03D1 thetasym upsih  U+03D6 piv
  U+2002 ensp emsp  U+2007 numsp puncsp thinsp hairsp ZeroWidthSpace zwnj zwj lrm rlm hyphen
  U+2010 dash  U+2013 ndash mdash horbar Vert  U+2018 lsquo rsquo sbquo  U+2019 rsquor lsquor
  U+201C ldquo rdquo bdquo  U+201D rdquor ldquor  U+2020 dagger Dagger bull  U+2022 bullet
  U+2025 nldr hellip  U+2026 mldr  U+2030 permil  U+2032 prime Prime  U+2039 lsaquo rsaquo
  U+203E oline  U+2044 frasl  U+2060 NoBreak  U+20AC euro
  U+2111 image  U+2113 ell  U+2116 numero copysr weierp  U+211C real  U+2122 TRADE  U+2122 trade
  U+2135 alefsym  U+2153 frac13 frac23  U+2190 larr uarr rarr darr harr  U+21B5 crarr
  U+21D0 lArr uArr rArr dArr hArr
  U+2200 forall  U+2202 part exist  U+2205 empty  U+2207 nabla isin notin  U+2209 notinva  U+220B ni
  notni  U+220C notniva  U+220F prod  U+2211 sum minus  U+2217 lowast  U+221A radic  U+221D prop infin
  U+2220 ang  U+2225 parallel  U+2227 and or cap cup int  U+2234 there4  U+223C sim  U+2245 cong
  U+2248 asymp  U+2260 ne equiv  U+2264 le ge  U+2273 gtrsim  U+2277 gtrless  U+2282 sub sup nsub
  U+2286 sube supe  U+2295 oplus  U+2297 otimes  U+22A0 timesb  U+22A5 perp  U+22B4 ltrie  U+22C5 sdot
  U+22C7 divideontimes  U+22C9 ltimes  U+22CB lthree  U+22D6 ltdot gtrdot  U+22D7 gtdot
  U+22DB gtreqless  U+22F6 notinvc notinvb  U+22FD notnivc notnivb
  U+2308 lceil rceil lfloor rfloor
  U+25C2 ltrif ltri  U+25CA loz
  U+2605 bigstar  U+2605 starf star  U+260E phone  U+2640 female  U+2642 male  U+2660 spades
  U+2663 clubs  U+2665 hearts diams
  U+2713 check  U+2713 checkmark  U+2717 cross  U+27E8 lang rang
  U+2976 ltlarr  U+2978 gtrarr  U+2995 gtlPar ltrPar
  U+2A30 timesd timesbar  U+2A79 ltcir gtcir ltquest gtquest  U+2A86 gtrapprox  U+2A8C gtreqqless
  U+2AA6 ltcc gtcc`;

function buildTable(): Map<string, string> {
  const table = new Map<string, string>();
  let code = 0;
  for (const token of RUNS.split(/\s+/)) {
    if (token.startsWith('U+')) code = parseInt(token.slice(2), 16);
    else if (token) table.set(token, String.fromCodePoint(code++));
  }
  // The two names in the set whose text is two characters (a symbol and U+0338 COMBINING LONG SOLIDUS OVERLAY).
  table.set('notinE', '\u22f9\u0338');
  table.set('notindot', '\u22f5\u0338');
  return table;
}

/** Every name this decoder knows (without '&' and ';'), and its text. */
export const NAMED_REFERENCES: ReadonlyMap<string, string> = buildTable();

/** The names HTML still decodes without ';' (the spec's legacy list: 106 names, 6 letters at most). */
const LEGACY = new Set([...LATIN1.split(' '), 'amp', 'lt', 'gt', 'quot', 'AMP', 'LT', 'GT', 'QUOT', 'COPY', 'REG']);
const LEGACY_MAX = 6;

/**
 * Numeric references to C1 controls mean windows-1252 characters (HTML Standard, "numeric
 * character reference end state"): old pages and feeds are full of &#150; and &#146;. 0x81, 0x8D,
 * 0x8F, 0x90 and 0x9D are undefined in windows-1252 and stay as they are.
 */
export const C1_REMAP: Readonly<Record<number, number>> = {
  0x80: 0x20ac, 0x82: 0x201a, 0x83: 0x0192, 0x84: 0x201e, 0x85: 0x2026, 0x86: 0x2020, 0x87: 0x2021, 0x88: 0x02c6,
  0x89: 0x2030, 0x8a: 0x0160, 0x8b: 0x2039, 0x8c: 0x0152, 0x8e: 0x017d, 0x91: 0x2018, 0x92: 0x2019, 0x93: 0x201c,
  0x94: 0x201d, 0x95: 0x2022, 0x96: 0x2013, 0x97: 0x2014, 0x98: 0x02dc, 0x99: 0x2122, 0x9a: 0x0161, 0x9b: 0x203a,
  0x9c: 0x0153, 0x9e: 0x017e, 0x9f: 0x0178,
};

/** The text of a numeric reference: U+FFFD for 0, surrogates and values past U+10FFFF. */
function numericReference(code: number): string {
  if (code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return '\uFFFD';
  return String.fromCodePoint(code >= 0x80 && code <= 0x9f ? (C1_REMAP[code] ?? code) : code);
}

// Digits and names are read whole, as the tokenizer does ("&#x110000000;" is one reference, U+FFFD).
const REF = /&(?:#[xX]([0-9a-fA-F]+);?|#([0-9]+);?|([A-Za-z][A-Za-z0-9]*)(;?))/g;
const ATTRIBUTE_STOP = /[A-Za-z0-9=]/;

export interface DecodeOptions {
  /**
   * Attribute-value rules: a legacy name without ';' followed by a letter, digit or '=' stays as
   * written, so a URL's `&copy=1` or `&para=x` query parameter is not turned into © or ¶.
   */
  attribute?: boolean;
  /**
   * Only complete references, ending in ';', with a name the table knows: for plain text from a
   * JSON API (where "R&D" or "&copy" is literal) and for XML, whose references always end in ';'
   * and where an unknown name is an entity the document declares.
   */
  strict?: boolean;
}

export function decodeEntities(text: string, options: DecodeOptions = {}): string {
  if (!text.includes('&')) return text;
  const attribute = options.attribute === true;
  const strict = options.strict === true;
  return text.replace(REF, (match: string, hex: string | undefined, dec: string | undefined, name: string | undefined, semi: string | undefined, offset: number) => {
    if (name === undefined) {
      if (strict && !match.endsWith(';')) return match;
      return numericReference(hex !== undefined ? parseInt(hex, 16) : parseInt(dec ?? '0', 10));
    }
    if (semi) {
      const full = NAMED_REFERENCES.get(name);
      if (full !== undefined) return full;
    }
    if (strict) return match;
    // Longest legacy prefix: "&copy2024" reads as "©2024", as a browser shows it.
    for (let len = Math.min(LEGACY_MAX, name.length); len >= 2; len--) {
      const prefix = name.slice(0, len);
      if (!LEGACY.has(prefix)) continue;
      const rest = name.slice(len) + (semi ?? '');
      if (attribute) {
        const next = rest ? rest[0]! : text[offset + match.length];
        if (next !== undefined && ATTRIBUTE_STOP.test(next)) return match;
      }
      return NAMED_REFERENCES.get(prefix)! + rest;
    }
    return match;
  });
}
