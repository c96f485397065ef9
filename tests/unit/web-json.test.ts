import { describe, expect, it } from 'vitest';
import { cpuMs } from '../harness/cpu-time';
import { formatJson, jsonToReadable } from '../../lib/web/json';

const pretty = (value: unknown) => JSON.stringify(value, null, 2);

describe('formatJson', () => {
  it.each([
    ['{"a":1,"b":[true,false,null],"c":{"d":"e"}}'],
    ['[]'],
    ['{}'],
    ['"just a string"'],
    ['42'],
    ['  \n[ 1 , [ ] , { } , [ [ 2 ] ] ]\n'],
    ['{"nested":{"deeper":{"deepest":[{"x":-1.5,"y":2e+21}]}}}'],
    ['{"empty":{},"list":[],"s":""}'],
  ])('matches JSON.stringify(…, null, 2) for %s', (text) => {
    expect(formatJson(text)).toEqual({ ok: true, text: pretty(JSON.parse(text)) });
  });

  it('keeps numbers exactly as written: big IDs, 1.0, exponents', () => {
    const r = formatJson('{"id":1234567890123456789,"price":1.0,"tiny":1E-7,"neg":-0}');
    expect(r).toEqual({ ok: true, text: '{\n  "id": 1234567890123456789,\n  "price": 1.0,\n  "tiny": 1E-7,\n  "neg": -0\n}' });
    // The round trip the printer avoids would have changed the ID:
    expect(JSON.stringify(JSON.parse('1234567890123456789'))).toBe('1234567890123456800');
  });

  it('keeps duplicate keys and key order', () => {
    expect(formatJson('{"b":1,"a":2,"b":3}')).toEqual({ ok: true, text: '{\n  "b": 1,\n  "a": 2,\n  "b": 3\n}' });
  });

  it('decodes \\u escapes and \\/ for reading, and keeps the escapes JSON needs', () => {
    const r = formatJson('{"name":"Caf\\u00e9 \\/ \\"Bar\\"","lines":"a\\nb\\tc","emoji":"\\ud83d\\ude00","lone":"\\ud800","bs":"\\\\"}');
    expect(r).toEqual({
      ok: true,
      text: '{\n  "name": "Café / \\"Bar\\"",\n  "lines": "a\\nb\\tc",\n  "emoji": "😀",\n  "lone": "\\ud800",\n  "bs": "\\\\"\n}',
    });
  });

  it('keeps raw non-ASCII and U+2028 as they are', () => {
    expect(formatJson('["ğüşıöç İ","\u2028"]')).toEqual({ ok: true, text: '[\n  "ğüşıöç İ",\n  "\u2028"\n]' });
  });

  it.each([
    ['{"a":1,}', 1, 8, /property name in double quotes \(a trailing comma\?\)/],
    ['[1,2,]', 1, 6, /expected a value \(a trailing comma\?\)/],
    ["{'a':1}", 1, 2, /property name in double quotes/],
    ['{"a":\'x\'}', 1, 6, /strings need double quotes/],
    ['{"a" 1}', 1, 6, /expected ':'/],
    ['{"a":1 "b":2}', 1, 8, /expected ',' or '}'/],
    ['[1 2]', 1, 4, /expected ',' or '\]'/],
    ['{\n  "a": 1,\n  "b": tru\n}', 3, 8, /expected a value/],
    ['{"a":"line\nbreak"}', 1, 11, /control character/],
    ['{"a":"\\x41"}', 1, 7, /invalid escape/],
    ['{"a":01}', 1, 7, /expected ',' or '}'/],
    ['{"a":-}', 1, 6, /invalid number/],
    ['{"a":NaN}', 1, 6, /expected a value/],
    ['{"a":[1,2', 1, 10, /ends before the JSON is complete/],
    ['{"a":"unterminated', 1, 19, /ends inside a string/],
    ['{"a":', 1, 6, /ends where a value should be/],
    ['{', 1, 2, /ends inside an object/],
    ['{"a"', 1, 5, /ends before the JSON is complete/],
    ['{"a":1}}', 1, 8, /unexpected text after the JSON value/],
    ['{"a":1} {"b":2}', 1, 9, /unexpected text after/],
    ['', 1, 1, /ends where a value should be/],
  ])('%j fails at line %d, column %d', (text, line, column, message) => {
    const r = formatJson(text);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect({ line: r.line, column: r.column }).toEqual({ line, column });
    expect(r.message).toMatch(message);
    expect(() => JSON.parse(text)).toThrow(); // the printer is no more lenient than the engine
  });

  it('formats several MB quickly and exactly', () => {
    const items = Array.from({ length: 40_000 }, (_, i) => ({
      id: i,
      name: `item ${i} "quoted" \u00e9`,
      tags: ['a', 'b', 'c'],
      price: i / 7,
      nested: { ok: i % 2 === 0, note: null, list: [1, 2, { x: 'y' }] },
    }));
    const text = JSON.stringify({ items });
    expect(text.length).toBeGreaterThan(5_000_000);
    const [r, ms] = cpuMs(() => formatJson(text));
    expect(r).toEqual({ ok: true, text: pretty({ items }) });
    expect(ms).toBeLessThan(5000); // ~0.7 s here; a quadratic printer would take minutes
  });

  it('handles deep nesting without recursion or indentation blow-up', () => {
    const text = `${'[1,'.repeat(50_000)}2${']'.repeat(50_000)}`;
    const r = formatJson(text);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.text.length).toBeLessThan(10_000_000);
    expect(r.text.replace(/\s+/g, '')).toBe(text);
    expect(r.text.split('\n')[200]).toBe(`${'  '.repeat(32)}[`); // depth 100, indented as 32
  });
});

describe('jsonToReadable', () => {
  it('pretty-prints and strips a UTF-8 BOM', () => {
    expect(jsonToReadable('\uFEFF{"a":[1]}')).toEqual({ ok: true, content: '{\n  "a": [\n    1\n  ]\n}' });
  });

  it('returns invalid JSON as is, with a note saying where it stopped', () => {
    const text = '{\n  "user": "ada",\n  "roles": ["admin" "dev"]\n}';
    expect(jsonToReadable(text)).toEqual({
      ok: false,
      content: text,
      note: "The body did not parse as JSON (line 3, column 21: expected ',' or ']' after an array element); shown as is.",
    });
  });

  it('an HTML error page served as JSON is shown as is', () => {
    const r = jsonToReadable('<!DOCTYPE html><html><body>502 Bad Gateway</body></html>');
    expect(r.ok).toBe(false);
    expect(r.content).toContain('502 Bad Gateway');
    expect(r.note).toMatch(/line 1, column 1: expected a value/);
  });

  it('blames the size cap when a capped body ends early', () => {
    const r = jsonToReadable('{"items":[{"id":1},{"id":2},{"id"', { capped: true });
    expect(r.ok).toBe(false);
    expect(r.note).toBe(
      'The body did not parse as JSON (line 1, column 34: the text ends before the JSON is complete); shown as is, because the body was cut at the size limit.',
    );
    // …but not when the error is elsewhere.
    expect(jsonToReadable('{"a":1,,"b":2}', { capped: true }).note).not.toMatch(/size limit/);
  });

  it('removes anti-hijacking prefixes and JSONP callbacks, and says so', () => {
    expect(jsonToReadable(")]}'\n{\"a\":1}")).toEqual({ ok: true, content: '{\n  "a": 1\n}', note: "An anti-hijacking prefix ()]}') before the JSON was removed." });
    expect(jsonToReadable('for (;;);{"a":1}').content).toBe('{\n  "a": 1\n}');
    expect(jsonToReadable('while(1);[1]').content).toBe('[\n  1\n]');
    expect(jsonToReadable('/**/ jQuery123_456({"a":[1,2]});')).toEqual({
      ok: true,
      content: '{\n  "a": [\n    1,\n    2\n  ]\n}',
      note: 'The JSONP callback jQuery123_456(…) around the JSON was removed.',
    });
    expect(jsonToReadable('callback(not json)').ok).toBe(false);
  });

  it('says an empty body is empty', () => {
    expect(jsonToReadable('  \n')).toEqual({ ok: false, content: '', note: 'The JSON body is empty.' });
  });
});
