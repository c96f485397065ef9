/**
 * Content-Type parsing after the WHATWG MIME Sniffing "parse a MIME type" algorithm, reduced
 * to what web_fetch needs: the essence (type/subtype, lower-cased) and the parameters. Real
 * servers send `Text/HTML;Charset="UTF-8"`, stray semicolons, duplicate parameters and worse.
 */

export interface MimeType {
  /** `type/subtype`, lower-cased. */
  essence: string;
  type: string;
  subtype: string;
  /** Parameter names lower-cased; the first occurrence of a name wins, as the spec says. */
  params: Map<string, string>;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const HTTP_WS = /^[\t\n\r ]+|[\t\n\r ]+$/g;

/** Parses a Content-Type value; null when it is missing or not a MIME type at all. */
export function parseMimeType(raw: string | null | undefined): MimeType | null {
  if (!raw) return null;
  const input = raw.replace(HTTP_WS, '');
  const slash = input.indexOf('/');
  if (slash <= 0) return null;
  const type = input.slice(0, slash);
  let end = input.indexOf(';', slash);
  if (end < 0) end = input.length;
  const subtype = input.slice(slash + 1, end).replace(/[\t\n\r ]+$/, '');
  if (!TOKEN.test(type) || !subtype || !TOKEN.test(subtype)) return null;
  const params = new Map<string, string>();
  let pos = end;
  while (pos < input.length) {
    pos++; // past ';'
    while (pos < input.length && /[\t\n\r ]/.test(input[pos]!)) pos++;
    let nameEnd = pos;
    while (nameEnd < input.length && input[nameEnd] !== ';' && input[nameEnd] !== '=') nameEnd++;
    const name = input.slice(pos, nameEnd).toLowerCase();
    pos = nameEnd;
    if (pos >= input.length || input[pos] === ';') continue;
    pos++; // past '='
    let value: string;
    if (input[pos] === '"') {
      // Quoted string: backslash escapes the next character; anything after the closing quote
      // up to ';' is ignored.
      value = '';
      pos++;
      while (pos < input.length && input[pos] !== '"') {
        if (input[pos] === '\\' && pos + 1 < input.length) pos++;
        value += input[pos];
        pos++;
      }
      while (pos < input.length && input[pos] !== ';') pos++;
    } else {
      let valueEnd = input.indexOf(';', pos);
      if (valueEnd < 0) valueEnd = input.length;
      value = input.slice(pos, valueEnd).replace(HTTP_WS, '');
      pos = valueEnd;
      if (!value) continue;
    }
    if (name && TOKEN.test(name) && !params.has(name)) params.set(name, value);
  }
  const lowerType = type.toLowerCase();
  const lowerSubtype = subtype.toLowerCase();
  return { essence: `${lowerType}/${lowerSubtype}`, type: lowerType, subtype: lowerSubtype, params };
}
