/**
 * The non-HTML half of web_fetch's body → text step. HTML is only decoded here: turning it
 * into Markdown needs a DOM (defuddle + turndown), which the caller runs in a DOM host.
 */

import { MAX_BODY_BYTES } from './body';
import { decodeBody } from './charset';
import { classifyContent, describeBinary, formatBytes, type ContentClassification, type ContentKind } from './content-kind';
import { xmlToReadable } from './feed';
import { jsonToReadable } from './json';

export interface ReadableInfo {
  /** The response's Content-Type header. */
  contentType?: string | null;
  /** The response URL: names a binary file and resolves a feed's relative links. */
  url?: string | URL;
  /** The body was cut at the size cap. */
  capped?: boolean;
  /** The body's size in bytes (defaults to the bytes given). */
  size?: number;
  /** Where the cap was, for the note (defaults to MAX_BODY_BYTES). */
  maxBytes?: number;
}

export interface Readable {
  /** Markdown or plain text for the model; for 'html', the decoded HTML source. */
  content: string;
  /** A short remark for the model: the body was cut, did not parse, was shown differently… */
  note?: string;
  /** A feed's title. */
  title?: string;
  /** The encoding the text was decoded with (absent for binary content and given text). */
  encoding?: string;
}

/**
 * Turns a body of a known kind into text: JSON pretty-printed, feeds as Markdown, other XML
 * as an outline, binary content as a one-line description. Give bytes when you have them: they
 * are decoded with the right charset (and binary needs them); text is taken as decoded.
 */
export function toReadable(kind: ContentKind, body: string | Uint8Array, info: ReadableInfo = {}): Readable {
  const capNote = info.capped ? `Only the first ${formatBytes(info.maxBytes ?? MAX_BODY_BYTES)} of the body were read.` : undefined;
  if (kind === 'binary') {
    const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : body;
    return { content: describeBinary(bytes, info.contentType, info.url, info.size ?? bytes.length, { capped: !!info.capped }) };
  }
  let text: string;
  let encoding: string | undefined;
  if (typeof body === 'string') {
    text = body.replace(/^\uFEFF/, '');
  } else {
    const decoded = decodeBody(body, { contentType: info.contentType ?? null, kind });
    text = decoded.text;
    encoding = decoded.encoding;
  }
  const enc = encoding ? { encoding } : {};
  switch (kind) {
    case 'html':
      return { content: text, ...enc, ...notes(capNote) };
    case 'json': {
      const json = jsonToReadable(text, { capped: !!info.capped });
      return { content: json.content, ...enc, ...notes(json.note, capNote) };
    }
    case 'xml':
    case 'feed': {
      const xml = xmlToReadable(text, info.url ? { baseUrl: info.url } : {});
      return { content: xml.content, ...enc, ...(xml.title ? { title: xml.title } : {}), ...notes(xml.note, capNote) };
    }
    case 'text':
      return { content: text.replace(/\r\n?/g, '\n'), ...enc, ...notes(capNote) };
  }
}

export interface ReadableBody extends Readable {
  kind: ContentKind;
  classification: ContentClassification;
}

/** Classifies a body from its Content-Type and bytes, then converts it (see toReadable). */
export function readableFromBytes(bytes: Uint8Array, info: ReadableInfo = {}): ReadableBody {
  const classification = classifyContent(info.contentType, bytes);
  return { kind: classification.kind, classification, ...toReadable(classification.kind, bytes, info) };
}

function notes(...parts: (string | undefined)[]): { note?: string } {
  const note = parts.filter(Boolean).join(' ');
  return note ? { note } : {};
}
