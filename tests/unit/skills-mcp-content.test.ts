import { deflateSync, crc32 } from 'node:zlib';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { ResultWithImages, type ToolImage } from '../../lib/images';
import { MAX_MCP_IMAGE_BYTES, MAX_MCP_IMAGES, toolResultForModel } from '../../lib/skills/mcp-content';

const WHAT = 'the tool "t" of the MCP server "s"';

function chunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

/** A real (grey) PNG of `w`×`h`, base64. */
function png(w: number, h: number): string {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 0; // greyscale
  const rows = Buffer.alloc((w + 1) * h, 0x80);
  for (let y = 0; y < h; y++) rows[y * (w + 1)] = 0;
  const sig = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([sig, chunk('IHDR', ihdr), chunk('IDAT', deflateSync(rows)), chunk('IEND', Buffer.alloc(0))]).toString('base64');
}

const GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64').toString('base64');

/** Halves an image's size without decoding it (what matters is that the fitter's output is sent). */
const halve = async (image: ToolImage): Promise<ToolImage> => ({ ...image, data: png(Math.ceil(image.width / 2), Math.ceil(image.height / 2)), mediaType: 'image/png', width: Math.ceil(image.width / 2), height: Math.ceil(image.height / 2) });

const run = (result: CallToolResult, options: Parameters<typeof toolResultForModel>[2] = {}) => toolResultForModel(result, WHAT, options);

async function withImages(result: CallToolResult, options: Parameters<typeof toolResultForModel>[2] = {}): Promise<ResultWithImages> {
  const out = await run(result, options);
  expect(out).toBeInstanceOf(ResultWithImages);
  return out as ResultWithImages;
}

describe('MCP tool results for the model: text', () => {
  it('joins text items; no content says so', async () => {
    expect(await run({ content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] })).toBe('a\n\nb');
    expect(await run({ content: [] })).toBe('[The tool "t" of the MCP server "s" returned no content.]');
  });

  it('isError throws the server\'s words, cut', async () => {
    await expect(run({ isError: true, content: [{ type: 'text', text: 'boom' }] })).rejects.toThrow(/^The tool "t" of the MCP server "s" reported a failure: boom$/);
    await expect(run({ isError: true, content: [] })).rejects.toThrow(/\(no message\)/);
    await expect(run({ isError: true, content: [{ type: 'text', text: 'x'.repeat(5000) }] })).rejects.toThrow(/^.{0,2100}$/s);
  });

  it('the old toolResult form is passed on as JSON', async () => {
    expect(await toolResultForModel({ toolResult: { a: 1 } }, WHAT)).toBe('{\n  "a": 1\n}');
  });

  it('text past the cap is cut with the note; the lines for other items stay', async () => {
    const out = await withImages({ content: [{ type: 'text', text: 'x'.repeat(50) }, { type: 'image', data: png(2, 2), mimeType: 'image/png' }] }, { maxChars: 20 });
    expect(out.value).toMatch(/^x{20}\n\n\[Image \(image\/png, \d+ bytes, 2×2 px\) is attached after this text as image 1\.\]\n\n\[Truncated: the reply has 50 characters; only the first 20 are shown\.\]$/);
  });
});

describe('MCP tool results for the model: images', () => {
  it('a PNG becomes an image block, with a line in the text where it was', async () => {
    const data = png(3, 2);
    const out = await withImages({ content: [{ type: 'text', text: 'before' }, { type: 'image', data, mimeType: 'image/png' }, { type: 'text', text: 'after' }] });
    expect(out.images).toEqual([{ mediaType: 'image/png', data, width: 3, height: 2 }]);
    expect(out.value).toMatch(/^before\n\n\[Image \(image\/png, .* 3×2 px\) is attached after this text as image 1\.\]\n\nafter$/);
  });

  it('the fitter (the background\'s fitToolImage) scales it, and the text says so', async () => {
    const out = await withImages({ content: [{ type: 'image', data: png(40, 20), mimeType: 'image/png' }] }, { fitImage: halve });
    expect(out.images[0]).toMatchObject({ width: 20, height: 10 });
    expect(out.value).toMatch(/40×20 px, scaled to 20×10 px/);
  });

  it('an image of another type than declared goes with the type its bytes have', async () => {
    const out = await withImages({ content: [{ type: 'image', data: GIF, mimeType: 'image/png' }] });
    expect(out.images[0]).toMatchObject({ mediaType: 'image/gif', width: 1, height: 1 });
  });

  it('an image blob resource is an image too', async () => {
    const out = await withImages({ content: [{ type: 'resource', resource: { uri: 'file:///a.png', mimeType: 'image/png', blob: png(1, 1) } }] });
    expect(out.images).toHaveLength(1);
    expect(out.value).toMatch(/^\[Embedded image resource file:\/\/\/a\.png/);
  });

  it('unsupported types are described, not sent', async () => {
    const out = await run({ content: [{ type: 'image', data: png(1, 1), mimeType: 'image/tiff' }, { type: 'image', data: 'PHN2Zy8+', mimeType: 'image/svg+xml' }] });
    expect(out).toBe(
      '[Image (image/tiff, 67 bytes) not shown: the model takes only PNG, JPEG, GIF and WebP images.]\n\n[Image (image/svg+xml, 6 bytes) not shown: the model takes only PNG, JPEG, GIF and WebP images.]',
    );
  });

  it('data that is not an image, or a damaged header, is described', async () => {
    const notImage = Buffer.from('hello, this is not a PNG at all').toString('base64');
    expect(await run({ content: [{ type: 'image', data: notImage, mimeType: 'image/png' }] })).toMatch(/^\[Image \(image\/png, 31 bytes\) not shown: its data is not a readable PNG, JPEG, GIF or WebP image\.\]$/);
    // The PNG signature alone: no IHDR to read a size from.
    expect(await run({ content: [{ type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' }] })).toMatch(/not shown: its size cannot be read from its header \(a damaged image\)/);
    expect(await run({ content: [{ type: 'image', data: '', mimeType: 'image/png' }] })).toMatch(/^\[Image \(image\/png, 0 bytes\) not shown: its data is not a readable/);
  });

  it('a 10 MB image is described, not decoded and not put in the context', async () => {
    const head = Buffer.from(png(4000, 3000), 'base64');
    const big = Buffer.concat([head, Buffer.alloc(10 * 1024 * 1024 - head.length)]).toString('base64');
    let fitted = 0;
    const out = await run({ content: [{ type: 'text', text: 'see' }, { type: 'image', data: big, mimeType: 'image/png' }] }, { fitImage: async (i) => (fitted++, i) });
    expect(out).toBe(`see\n\n[Image (image/png, 10 MB) not shown: it is larger than the ${MAX_MCP_IMAGE_BYTES / 1024 / 1024} MB an image may be.]`);
    expect(fitted).toBe(0);
  });

  it('an image too many pixels to scale is described', async () => {
    expect(await run({ content: [{ type: 'image', data: png(10_000, 5_000), mimeType: 'image/png' }] })).toMatch(/not shown: it is 10000×5000 pixels, too large to scale down here\./);
  });

  it('an image the fitter cannot decode is described; the others still go', async () => {
    const out = await withImages(
      { content: [{ type: 'image', data: png(5, 5), mimeType: 'image/png' }, { type: 'image', data: png(6, 6), mimeType: 'image/png' }] },
      { fitImage: async (i) => { if (i.width === 5) throw new Error('The source image could not be decoded.'); return i; } },
    );
    expect(out.images.map((i) => i.width)).toEqual([6]);
    expect(out.value).toMatch(/^\[Image \(image\/png, .*\) not shown: it could not be decoded \(The source image could not be decoded\.\)\.\]\n\n\[Image .* as image 1\.\]$/);
  });

  it(`at most ${MAX_MCP_IMAGES} images of one result are sent`, async () => {
    const out = await withImages({ content: Array.from({ length: MAX_MCP_IMAGES + 2 }, () => ({ type: 'image' as const, data: png(1, 1), mimeType: 'image/png' })) });
    expect(out.images).toHaveLength(MAX_MCP_IMAGES);
    expect(String(out.value).match(/not shown: the model is shown at most/g)).toHaveLength(2);
  });
});

describe('MCP tool results for the model: audio and resources', () => {
  it('audio is described with its type and size', async () => {
    expect(await run({ content: [{ type: 'audio', data: Buffer.alloc(3000).toString('base64'), mimeType: 'audio/wav' }] })).toBe('[Audio (audio/wav, 2.9 KB) not shown: audio is not passed to the model.]');
  });

  it('resource links are listed with URI, name, title, MIME type and description', async () => {
    const out = await run({
      content: [
        { type: 'text', text: 'Links:' },
        { type: 'resource_link', uri: 'demo://resource/static/document/a.md', name: 'a.md', title: 'The A', mimeType: 'text/markdown', description: 'A\ndocument' },
        { type: 'resource_link', uri: 'demo://b', name: 'b' },
      ],
    });
    expect(out).toBe(
      'Links:\n\n[Resource link: demo://resource/static/document/a.md, name "a.md", title "The A", MIME type text/markdown; description: A document. Not fetched; its content is not shown.]\n\n[Resource link: demo://b, name "b". Not fetched; its content is not shown.]',
    );
  });

  it('an embedded text resource is included inline under the cap; a binary one is described', async () => {
    const out = await run(
      {
        content: [
          { type: 'resource', resource: { uri: 'demo://t', mimeType: 'text/plain', text: 'the resource text, long' } },
          { type: 'resource', resource: { uri: 'demo://b', mimeType: 'application/octet-stream', blob: Buffer.alloc(2048).toString('base64') } },
        ],
      },
      { maxChars: 17 },
    );
    expect(out).toBe(
      '[Embedded resource: demo://t, MIME type text/plain. Its text follows.]\n\nthe resource text\n\n[Embedded resource: demo://b, MIME type application/octet-stream, 2 KB of binary data, not shown: only text and images are passed to the model.]\n\n[Truncated: the reply has 23 characters; only the first 17 are shown.]',
    );
  });

  it('thousands of links do not blow the cap: the rest are counted', async () => {
    const links = Array.from({ length: 5000 }, (_, i) => ({ type: 'resource_link' as const, uri: `demo://r/${i}`, name: `r${i}` }));
    const out = String(await run({ content: links }, { maxChars: 1000 }));
    expect(out.length).toBeLessThan(9100);
    expect(out).toMatch(/\[\d{4} more content items not listed\.\]$/);
  });

  it('an item of an unknown type is named, not shown', async () => {
    expect(await run({ content: [{ type: 'hologram' } as never] })).toBe('[A content item of an unknown type (hologram) not shown.]');
  });
});

describe('MCP tool results for the model: structuredContent', () => {
  it('is shown as JSON when no text item carries it', async () => {
    expect(await run({ content: [{ type: 'text', text: 'Sum computed.' }], structuredContent: { sum: 3 } })).toBe('Sum computed.\n\n[Structured result (JSON):]\n\n{\n  "sum": 3\n}');
    expect(await run({ content: [], structuredContent: { sum: 3 } })).toBe('[Structured result (JSON):]\n\n{\n  "sum": 3\n}');
  });

  it('is not repeated when a text item is the same JSON (key order aside)', async () => {
    expect(await run({ content: [{ type: 'text', text: '{"b":2,"a":{"y":1,"x":0}}' }], structuredContent: { a: { x: 0, y: 1 }, b: 2 } })).toBe('{"b":2,"a":{"y":1,"x":0}}');
  });
});
