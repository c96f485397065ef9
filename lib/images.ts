/**
 * Images the model sees (a screenshot, an MCP tool's image): their size, what they cost and how
 * far to scale them. Pure, importing none of Pagewright, so that the browser adapters, the tools,
 * the context accounting and the UI share one set of numbers.
 */
import type Anthropic from '@anthropic-ai/sdk';

/**
 * The long edge an image is sent at, at most. Anthropic scales anything longer down to it before
 * the model sees it (https://docs.anthropic.com/en/docs/build-with-claude/vision), so a larger image
 * costs upload time and context-window bytes for no gain in what the model can read.
 */
export const MAX_IMAGE_EDGE = 1_568;

/** What one image costs at most: Anthropic's ~1.15 megapixel limit ÷ 750 pixels per token. */
export const MAX_IMAGE_TOKENS = 1_600;

/** Pixels per token in Anthropic's rule, tokens = (width × height) / 750. */
const PIXELS_PER_TOKEN = 750;

export type ImageMediaType = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';

export const IMAGE_MEDIA_TYPES: readonly ImageMediaType[] = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];

/** An image a tool returns for the model to see. */
export interface ToolImage {
  mediaType: ImageMediaType;
  /** The encoded image, base64 (no data: prefix): what both APIs take. */
  data: string;
  width: number;
  height: number;
}

export interface Size {
  width: number;
  height: number;
}

/**
 * `size` scaled down (never up) so that its long edge is at most `maxEdge`, aspect kept, each side
 * at least 1 px. Rounded to whole pixels, as a canvas needs.
 */
export function fitLongEdge(size: Size, maxEdge = MAX_IMAGE_EDGE): Size & { scale: number } {
  const long = Math.max(size.width, size.height);
  if (long <= maxEdge || long <= 0) return { width: Math.round(size.width), height: Math.round(size.height), scale: 1 };
  const scale = maxEdge / long;
  return { width: Math.max(1, Math.round(size.width * scale)), height: Math.max(1, Math.round(size.height * scale)), scale };
}

/**
 * The input tokens an image costs on Anthropic's models: (w × h) / 750 once it is within the long
 * edge the API scales to, and never more than the ~1,600 of its size limit. OpenAI prices images in
 * 512 px tiles instead, which comes out near this for a screenshot; one rule keeps the context
 * check simple and errs on the side of compacting early.
 */
export function imageTokens(size: Size): number {
  const fitted = fitLongEdge(size);
  if (fitted.width <= 0 || fitted.height <= 0) return 0;
  return Math.min(MAX_IMAGE_TOKENS, Math.ceil((fitted.width * fitted.height) / PIXELS_PER_TOKEN));
}

/** The bytes base64 `data` starts with, at most `max`, decoded without decoding the rest. */
function leadingBytes(data: string, max: number): Uint8Array {
  const chars = Math.min(data.length - (data.length % 4), Math.ceil(max / 3) * 4);
  let binary: string;
  try {
    binary = atob(data.slice(0, chars));
  } catch {
    return new Uint8Array(0);
  }
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

/** JPEG's start-of-frame markers (which hold the size): C0–CF except DHT (C4), JPG (C8) and DAC (CC). */
const isStartOfFrame = (m: number) => m >= 0xc0 && m <= 0xcf && m !== 0xc4 && m !== 0xc8 && m !== 0xcc;

/**
 * Width and height read from an encoded image's header (PNG, JPEG, GIF, WebP), or undefined when
 * the data is not one of them or is cut short. Stored images carry no size of their own (the
 * Messages API refuses extra fields on an image block), so the context accounting reads it here.
 */
export function imageDimensions(base64: string, mediaType?: string): Size | undefined {
  // A JPEG's frame header may follow a large EXIF block: read further for it.
  const b = leadingBytes(base64, mediaType === 'image/jpeg' || base64.startsWith('/9j/') ? 256 * 1024 : 64);
  const u16be = (i: number) => (b[i]! << 8) | b[i + 1]!;
  const u16le = (i: number) => b[i]! | (b[i + 1]! << 8);
  const u32be = (i: number) => ((b[i]! << 24) >>> 0) + (b[i + 1]! << 16) + (b[i + 2]! << 8) + b[i + 3]!;
  const ascii = (i: number, n: number) => String.fromCharCode(...b.subarray(i, i + n));
  if (b.length >= 24 && b[0] === 0x89 && ascii(1, 3) === 'PNG' && ascii(12, 4) === 'IHDR') return { width: u32be(16), height: u32be(20) };
  if (b.length >= 10 && (ascii(0, 6) === 'GIF87a' || ascii(0, 6) === 'GIF89a')) return { width: u16le(6), height: u16le(8) };
  if (b.length >= 30 && ascii(0, 4) === 'RIFF' && ascii(8, 4) === 'WEBP') {
    const chunk = ascii(12, 4);
    if (chunk === 'VP8X') return { width: 1 + (b[24]! | (b[25]! << 8) | (b[26]! << 16)), height: 1 + (b[27]! | (b[28]! << 8) | (b[29]! << 16)) };
    if (chunk === 'VP8 ') return { width: u16le(26) & 0x3fff, height: u16le(28) & 0x3fff };
    if (chunk === 'VP8L') {
      const bits = b[21]! | (b[22]! << 8) | (b[23]! << 16) | (b[24]! << 24);
      return { width: 1 + (bits & 0x3fff), height: 1 + ((bits >>> 14) & 0x3fff) };
    }
    return undefined;
  }
  if (b.length >= 4 && b[0] === 0xff && b[1] === 0xd8) {
    for (let i = 2; i + 9 < b.length; ) {
      if (b[i] !== 0xff) return undefined;
      const marker = b[i + 1]!;
      // Fill bytes and markers without a length.
      if (marker === 0xff) {
        i++;
        continue;
      }
      if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
        i += 2;
        continue;
      }
      if (isStartOfFrame(marker)) return { width: u16be(i + 7), height: u16be(i + 5) };
      i += 2 + u16be(i + 2);
    }
  }
  return undefined;
}

/** What an image block costs, read from its header; the size limit's price when it cannot be read. */
export function base64ImageTokens(base64: string, mediaType?: string): number {
  const size = imageDimensions(base64, mediaType);
  return size ? imageTokens(size) : MAX_IMAGE_TOKENS;
}

/**
 * A tool's result with images for the model: `value` is what it says in words (JSON as usual),
 * the images follow it in the tool result. A handler returns one of these instead of a plain value;
 * the registry takes it apart (lib/tools/registry.ts), so the fence and the JSON see `value` only.
 */
export class ResultWithImages {
  constructor(
    readonly value: unknown,
    readonly images: readonly ToolImage[],
  ) {}
}

/** An image of a stored tool result, as the card and the export show it. */
export interface ShownImage {
  mediaType: string;
  data: string;
  /** Absent when the header cannot be read. */
  size?: Size;
  /** What it costs the model (imageTokens), or the limit's price when its size is unknown. */
  tokens: number;
}

/** The images of a tool_result with their sizes (read from their headers), for the card and the export. */
export function resultImages(block: Anthropic.ToolResultBlockParam): ShownImage[] {
  if (typeof block.content === 'string' || !block.content) return [];
  return block.content.flatMap((c) => {
    if (c.type !== 'image' || c.source.type !== 'base64') return [];
    const size = imageDimensions(c.source.data, c.source.media_type);
    return [{ mediaType: c.source.media_type, data: c.source.data, ...(size ? { size } : {}), tokens: size ? imageTokens(size) : MAX_IMAGE_TOKENS }];
  });
}

/** A tool_result's words (its text blocks), without its images. */
export function resultWords(block: Anthropic.ToolResultBlockParam): string {
  if (typeof block.content === 'string') return block.content;
  return (block.content ?? []).flatMap((c) => (c.type === 'text' ? [c.text] : [])).join('\n');
}
