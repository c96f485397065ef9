import { describe, expect, it } from 'vitest';
import { cpuMs } from '../harness/cpu-time';
import { decodeBase64, decodeDataUrl, looksLikeDataUrl, percentDecode } from '../../lib/workspace/data-url';
import { WorkspaceError } from '../../lib/workspace/errors';

const text = (b: Uint8Array) => new TextDecoder().decode(b);
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

const refused = (url: string): string => {
  try {
    decodeDataUrl(url);
  } catch (e) {
    expect(e).toBeInstanceOf(WorkspaceError);
    expect((e as WorkspaceError).code).toBe('invalid_data_url');
    expect((e as WorkspaceError).message).toContain('A data URL looks like "data:[<media type>][;base64],<data>"');
    return (e as WorkspaceError).message;
  }
  throw new Error(`${url.slice(0, 60)} was accepted`);
};

describe('looksLikeDataUrl', () => {
  it.each([
    ['data:,hello', true],
    ['data:;base64,AAAA', true],
    ['DATA:text/plain,hi', true],
    ['data:image/png;base64,iVBOR', true],
    ['data:image/png;base64', true], // no comma: an attempt, reported as invalid
    ['data: 1\nother: 2', false], // YAML
    ['data:foo', false],
    ['data', false],
    ['the data:,x', false],
    [' data:,x', false],
  ])('%j → %s', (content, expected) => {
    expect(looksLikeDataUrl(content)).toBe(expected);
  });
});

describe('decodeDataUrl', () => {
  it('decodes base64 byte for byte (all 256 byte values)', () => {
    const bytes = Uint8Array.from({ length: 256 * 3 + 1 }, (_, i) => (i * 7) % 256);
    const out = decodeDataUrl(`data:application/octet-stream;base64,${b64(bytes)}`);
    expect(out.bytes).toEqual(bytes);
    expect(out).toMatchObject({ mimeType: 'application/octet-stream', base64: true });
  });

  it.each([0, 1, 2, 3, 4, 5])('round-trips %i bytes, with and without padding', (n) => {
    const bytes = Uint8Array.from({ length: n }, (_, i) => 250 - i);
    const padded = b64(bytes);
    expect(decodeDataUrl(`data:;base64,${padded}`).bytes).toEqual(bytes);
    expect(decodeDataUrl(`data:;base64,${padded.replace(/=+$/, '')}`).bytes).toEqual(bytes);
  });

  it('skips ASCII white space in base64 (wrapped lines)', () => {
    const bytes = Uint8Array.from({ length: 100 }, (_, i) => i);
    const wrapped = b64(bytes).replace(/.{20}/g, '$&\r\n ');
    expect(decodeDataUrl(`data:;base64,${wrapped}`).bytes).toEqual(bytes);
  });

  it('accepts the base64url alphabet', () => {
    const bytes = Uint8Array.from([0xfb, 0xff, 0xbf, 0xfe]);
    expect(decodeDataUrl(`data:;base64,${Buffer.from(bytes).toString('base64url')}`).bytes).toEqual(bytes);
  });

  it('percent-decodes before base64 (as the Fetch standard does)', () => {
    expect(text(decodeDataUrl('data:;base64,SGk%3D').bytes)).toBe('Hi');
  });

  it('decodes percent-encoded text as bytes', () => {
    expect(text(decodeDataUrl('data:text/plain,Hello%2C%20World%21').bytes)).toBe('Hello, World!');
    expect(decodeDataUrl('data:,%00%ff%FE').bytes).toEqual(Uint8Array.from([0, 255, 254]));
    // Non-ASCII characters are their UTF-8 bytes; a "%" without two hex digits stays.
    expect(text(decodeDataUrl('data:,caf\u00e9 100%').bytes)).toBe('café 100%');
    expect(text(decodeDataUrl('data:,%zz%4').bytes)).toBe('%zz%4');
  });

  it('keeps "#" and line breaks in the body', () => {
    expect(text(decodeDataUrl('data:text/csv,a#b\nc,d').bytes)).toBe('a#b\nc,d');
  });

  it('reads the media type and its parameters', () => {
    expect(decodeDataUrl('data:Text/HTML;Charset=UTF-8,<p>')).toMatchObject({ mimeType: 'text/html', parameters: { charset: 'UTF-8' }, base64: false });
    expect(decodeDataUrl('data:,x')).toMatchObject({ mimeType: 'text/plain', parameters: {} });
    expect(decodeDataUrl('data:;charset=utf-8,x')).toMatchObject({ mimeType: 'text/plain', parameters: { charset: 'utf-8' } });
    expect(decodeDataUrl('data:image/svg+xml;name=a.svg;base64,PHN2Zy8+')).toMatchObject({ mimeType: 'image/svg+xml', parameters: { name: 'a.svg' }, base64: true });
    expect(decodeDataUrl('data:image/png ; base64,AA==')).toMatchObject({ mimeType: 'image/png', base64: true });
    // Not a MIME type: the bytes are still decoded.
    expect(decodeDataUrl('data:png;base64,AA==')).toMatchObject({ mimeType: null, bytes: Uint8Array.from([0]) });
  });

  it('decodes an empty body', () => {
    expect(decodeDataUrl('data:,').bytes).toHaveLength(0);
    expect(decodeDataUrl('data:;base64,').bytes).toHaveLength(0);
  });

  it.each([
    ['data:image/png;base64', 'there is no comma'],
    ['data:image/png;base64,iVBOR*w0K', 'the character "*" at position 6'],
    ['data:;base64,AAAA=AAA', 'goes on after "=" padding at position 5'],
    ['data:;base64,AAAAA', 'one character too many or too few'],
    ['data:;base64,AA===', 'more than two "="'],
    ['data:;base64,AAA==', 'padding at the end does not fit'],
    ['data:;base64,ab+c-d', 'mixes the two alphabets'],
    ['data:;base64,é', 'the character "é"'],
    ['data:image/png;base64;name=x,AAAA', '";base64" must come last'],
    ['data:image/png\n;base64,AAAA', 'line break'],
    ['http://x/,y', 'does not start with "data:"'],
  ])('%j is refused: %s', (url, why) => {
    expect(refused(url)).toContain(why);
  });
});

describe('decodeBase64 and percentDecode', () => {
  it('decodes a large body quickly enough in Node (no native fromBase64 here)', () => {
    const bytes = new Uint8Array(4 * 1024 * 1024);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 31) & 0xff;
    const encoded = b64(bytes);
    const [out, ms] = cpuMs(() => decodeBase64(encoded));
    // toEqual walks 4 M elements one by one; Buffer.compare is memcmp.
    expect(Buffer.compare(out, bytes)).toBe(0);
    expect(ms).toBeLessThan(2000);
  });

  it('percentDecode passes text without "%" through as UTF-8', () => {
    expect(percentDecode('héllo')).toEqual(new TextEncoder().encode('héllo'));
  });
});
