/**
 * What an MCP tool's result (CallToolResult) carries to the model (issue 19): its words as text,
 * its images as image blocks (ResultWithImages, which the registry turns into the tool_result's
 * image blocks, or on Chat Completions a user message after the tool message), and everything
 * the model cannot take (audio, binary resources, unsupported or broken images) described in
 * words so it knows it was there and why it does not see it.
 *
 * The text is the server's, not ours: mcp tools are thirdPartyText (lib/skills/facts.ts), so the
 * registry fences the whole of it as untrusted before the model reads it. Nothing here fences.
 */
import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import { IMAGE_MEDIA_TYPES, imageDimensions, ResultWithImages, type ImageMediaType, type ToolImage } from '../images';
import { ToolError } from '../tools/registry';
import { formatBytes } from '../web/content-kind';
import { errorMessage } from '../errors';
import { cutText, SKILL_MAX_RESULT_CHARS } from './http-request';
import { truncationNote } from './mcp-common';

/** Brings an image to the size the model is sent (fitToolImage in the background). */
export type ImageFitter = (image: ToolImage) => Promise<ToolImage>;

/**
 * The largest image (decoded bytes) passed on. Anthropic's Messages API refuses any image over
 * 5 MB, so a larger one could only be sent after scaling; and scaling means decoding it into a
 * bitmap in the background (a 5 MB PNG can hold hundreds of megapixels), which a busy service
 * worker should not risk for one tool result. Larger images are described instead.
 */
export const MAX_MCP_IMAGE_BYTES = 5 * 1024 * 1024;
/** Images decoded for scaling at most this many pixels (40 MP is 160 MB as an RGBA bitmap). */
export const MAX_MCP_IMAGE_PIXELS = 40_000_000;
/** Images per result at most: each costs up to ~1,600 tokens, and the API caps a request's images. */
export const MAX_MCP_IMAGES = 10;
/** The lines standing for items not shown as text (links, images, audio), at most, in characters. */
const MAX_NOTE_CHARS = 8000;
/** How much of an error result the model is shown. */
const ERROR_CHARS = 2000;

export interface McpContentOptions {
  /** The most of the result's text the model gets; defaults to SKILL_MAX_RESULT_CHARS. */
  maxChars?: number;
  /** Scales images to the model's size; without one, images are passed as the server sent them. */
  fitImage?: ImageFitter;
}

/**
 * `result` as the model gets it: a string, or ResultWithImages when it carries images the model
 * can see. A result flagged isError throws a ToolError with the server's words. `what` names the
 * tool ("the tool \"x\" of the MCP server \"y\"").
 */
export async function toolResultForModel(
  result: CallToolResult | { toolResult: unknown },
  what: string,
  { maxChars = SKILL_MAX_RESULT_CHARS, fitImage }: McpContentOptions = {},
): Promise<string | ResultWithImages> {
  const What = what.charAt(0).toUpperCase() + what.slice(1);
  const budget = new TextBudget(maxChars);
  // The protocol's 2024-10-07 form: a bare value, passed on as JSON.
  if ('toolResult' in result) {
    budget.add(JSON.stringify(result.toolResult, null, 2) ?? '');
    return budget.finish();
  }
  const content: ContentBlock[] = Array.isArray(result.content) ? result.content : [];
  if (result.isError) {
    const words = content.flatMap((c) => (c.type === 'text' ? [c.text] : []));
    throw new ToolError(`${What} reported a failure: ${cutText(words.join('\n'), ERROR_CHARS).text || '(no message)'}`);
  }
  const images: ToolImage[] = [];
  const texts: string[] = [];
  for (const item of content) {
    switch (item.type) {
      case 'text':
        texts.push(item.text);
        budget.add(item.text);
        break;
      case 'image':
        budget.note(await imageItem(item.data, item.mimeType, 'Image', images, fitImage));
        break;
      case 'audio':
        budget.note(`[Audio (${item.mimeType}, ${formatBytes(base64Bytes(item.data))}) not shown: audio is not passed to the model.]`);
        break;
      case 'resource_link':
        budget.note(`[Resource link: ${resourceFacts(item)}${item.description ? `; description: ${oneLine(item.description, 300)}` : ''}. Not fetched; its content is not shown.]`);
        break;
      case 'resource': {
        const r = item.resource;
        const facts = resourceFacts(r);
        if ('text' in r && typeof r.text === 'string') {
          budget.note(`[Embedded resource: ${facts}. Its text follows.]`);
          budget.add(r.text);
        } else if ('blob' in r && typeof r.blob === 'string') {
          const mime = r.mimeType?.toLowerCase();
          if (mime?.startsWith('image/')) budget.note(await imageItem(r.blob, mime, `Embedded image resource ${r.uri}`, images, fitImage));
          else budget.note(`[Embedded resource: ${facts}, ${formatBytes(base64Bytes(r.blob))} of binary data, not shown: only text and images are passed to the model.]`);
        } else {
          budget.note(`[Embedded resource: ${facts}, with no content.]`);
        }
        break;
      }
      default:
        budget.note(`[A content item of an unknown type (${oneLine(String((item as { type?: unknown }).type ?? 'none'), 40)}) not shown.]`);
    }
  }
  // The SDK has checked structuredContent against the tool's outputSchema; a text item that is
  // the same JSON (the spec asks servers to send one) would only repeat it.
  if (result.structuredContent !== undefined && !texts.some((t) => sameJson(t, result.structuredContent))) {
    budget.note('[Structured result (JSON):]');
    budget.add(JSON.stringify(result.structuredContent, null, 2));
  }
  if (budget.empty) return `[${What} returned no content.]`;
  const text = budget.finish();
  return images.length ? new ResultWithImages(text, images) : text;
}

/**
 * One image (an image item or an image blob resource): attached when the model can see it,
 * else described. Returns the line the text carries in its place.
 */
async function imageItem(data: string, declared: string, label: string, images: ToolImage[], fitImage: ImageFitter | undefined): Promise<string> {
  const bytes = base64Bytes(data);
  const facts = `${declared || 'no MIME type'}, ${formatBytes(bytes)}`;
  const notShown = (why: string) => `[${label} (${facts}) not shown: ${why}]`;
  const mediaType = declared.toLowerCase().split(';')[0]!.trim();
  if (!IMAGE_MEDIA_TYPES.includes(mediaType as ImageMediaType)) return notShown('the model takes only PNG, JPEG, GIF and WebP images.');
  if (bytes > MAX_MCP_IMAGE_BYTES) return notShown(`it is larger than the ${formatBytes(MAX_MCP_IMAGE_BYTES)} an image may be.`);
  if (images.length >= MAX_MCP_IMAGES) return notShown(`the model is shown at most ${MAX_MCP_IMAGES} images of one result.`);
  const sniffed = sniffImageType(data);
  if (!sniffed) return notShown('its data is not a readable PNG, JPEG, GIF or WebP image.');
  const size = imageDimensions(data, sniffed);
  if (!size || size.width <= 0 || size.height <= 0) return notShown('its size cannot be read from its header (a damaged image).');
  if (size.width * size.height > MAX_MCP_IMAGE_PIXELS) return notShown(`it is ${size.width}×${size.height} pixels, too large to scale down here.`);
  // A server may name the wrong type; the API refuses an image whose bytes are not its type.
  let image: ToolImage = { mediaType: sniffed, data, width: size.width, height: size.height };
  if (fitImage) {
    try {
      image = await fitImage(image);
    } catch (e) {
      return notShown(`it could not be decoded (${oneLine(errorMessage(e), 200)}).`);
    }
  }
  images.push(image);
  const scaled = image.width !== size.width || image.height !== size.height ? `, scaled to ${image.width}×${image.height} px` : '';
  return `[${label} (${facts}, ${size.width}×${size.height} px${scaled}) is attached after this text as image ${images.length}.]`;
}

/** The image type the data's first bytes say, whatever the server declared. */
function sniffImageType(base64: string): ImageMediaType | undefined {
  let head: string;
  try {
    head = atob(base64.slice(0, 24).replace(/=+$/, '').slice(0, 16));
  } catch {
    return undefined;
  }
  const at = (i: number) => head.charCodeAt(i);
  if (at(0) === 0x89 && head.slice(1, 4) === 'PNG') return 'image/png';
  if (at(0) === 0xff && at(1) === 0xd8 && at(2) === 0xff) return 'image/jpeg';
  if (head.startsWith('GIF87a') || head.startsWith('GIF89a')) return 'image/gif';
  if (head.startsWith('RIFF') && head.slice(8, 12) === 'WEBP') return 'image/webp';
  return undefined;
}

/** Decoded size of base64 data, from its length (no decoding). */
function base64Bytes(data: string): number {
  const clean = data.replace(/\s/g, '');
  const pad = clean.endsWith('==') ? 2 : clean.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((clean.length * 3) / 4) - pad);
}

function resourceFacts(r: { uri: string; name?: string; title?: string; mimeType?: string }): string {
  return [
    oneLine(r.uri, 500),
    r.name ? `name "${oneLine(r.name, 200)}"` : '',
    r.title ? `title "${oneLine(r.title, 200)}"` : '',
    r.mimeType ? `MIME type ${oneLine(r.mimeType, 100)}` : '',
  ]
    .filter(Boolean)
    .join(', ');
}

const oneLine = (s: string, max: number) => cutText(s.replace(/\s+/g, ' ').trim(), max).text;

function sameJson(text: string, value: unknown): boolean {
  const t = text.trim();
  if (!t.startsWith('{') && !t.startsWith('[')) return false;
  try {
    return canonical(JSON.parse(t)) === canonical(value);
  } catch {
    return false;
  }
}

/** JSON with object keys sorted, so key order does not make two equal values differ. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}

/**
 * The result's text within the cap: the server's words (text items, text resources, the
 * structured JSON) share `max` characters; the short lines standing for other items have an
 * allowance of their own, so a cut in a long text does not hide that an image was attached.
 */
class TextBudget {
  private readonly parts: string[] = [];
  private used = 0;
  private total = 0;
  private cut = false;
  private dropped = 0;
  private noted = 0;

  constructor(private readonly max: number) {}

  get empty(): boolean {
    return this.parts.length === 0 && this.dropped === 0;
  }

  add(text: string): void {
    this.total += text.length;
    const room = this.max - this.used;
    if (room <= 0) {
      if (text.length) this.cut = true;
      return;
    }
    const part = cutText(text, room);
    if (part.truncated) this.cut = true;
    this.parts.push(part.text);
    this.used += part.text.length;
  }

  note(line: string): void {
    // Notes past their allowance (a server sending thousands of links) are counted, not listed.
    if (this.noted + line.length > MAX_NOTE_CHARS) {
      this.dropped++;
      return;
    }
    this.parts.push(line);
    this.noted += line.length;
  }

  finish(): string {
    let text = this.parts.join('\n\n');
    if (this.dropped) text += `\n\n[${this.dropped} more content item${this.dropped === 1 ? '' : 's'} not listed.]`;
    if (this.cut) text += truncationNote(this.total, this.max);
    return text;
  }
}

/**
 * The problems of a reply the SDK refused (a zod error: a result or message not shaped as the
 * protocol says), in one line, or undefined when `e` is not one.
 */
export function protocolProblems(e: unknown): string | undefined {
  const issues = (e as { issues?: unknown } | null)?.issues;
  if (!(e instanceof Error) || !Array.isArray(issues) || !issues.length) return undefined;
  const lines = issues.slice(0, 3).map((issue: { path?: unknown[]; message?: unknown }) => {
    const path = (issue.path ?? []).map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i ? '.' : ''}${String(p)}`)).join('');
    return `${path || 'the message'}: ${oneLine(String(issue.message ?? 'invalid'), 200)}`;
  });
  return lines.join('; ') + (issues.length > 3 ? `; and ${issues.length - 3} more` : '');
}
