/**
 * Text or binary, decided by the bytes (never by the name: the model names files as it likes),
 * and a MIME type for a blob: magic numbers first, then the extension, then the text itself.
 *
 * The verdict looks at the first SAMPLE_BYTES, as git (8000 bytes) and file(1) do: the start of
 * a file says what it is, and a 50 MB file should not be scanned twice. In order:
 *   1. empty → text;
 *   2. a byte order mark → text in that encoding (UTF-8, UTF-16LE/BE; UTF-16 is full of NUL
 *      bytes, so the BOM must win over the NUL rule). UTF-32's BOM → binary: no TextDecoder;
 *   3. a known binary format's magic number (lib/web/content-kind's sniffBinaryFormat) → binary;
 *   4. any NUL byte → binary (no text encoding but UTF-16/32 uses NUL, and those need a BOM here);
 *   5. more than CONTROL_SHARE of the MIME Sniffing standard's "binary data bytes" (C0 controls
 *      other than TAB LF FF CR ESC) → binary. A share, not "any": logs keep a stray backspace or
 *      bell, and showing them as text costs nothing;
 *   6. valid UTF-8 → text (UTF-8);
 *   7. invalid UTF-8 but at least LEGACY_ASCII_SHARE printable ASCII → text in windows-1252
 *      (a legacy Latin-1 file: mostly ASCII, the odd accented byte). Compressed or encrypted
 *      data has about 37 % printable ASCII, so the two are far apart;
 *   8. otherwise binary.
 */

import { sniffBom } from '../web/bom';
import { classifyContent, sniffBinaryFormat, type BinaryFormat } from '../web/content-kind';
import { extensionOf } from './paths';

export type TextEncodingName = 'utf-8' | 'utf-16le' | 'utf-16be' | 'windows-1252';

export type ContentVerdict =
  | { kind: 'text'; encoding: TextEncodingName; bom: boolean }
  | { kind: 'binary'; reason: string; format?: BinaryFormat };

/** How much of the start decides. */
export const SAMPLE_BYTES = 64 * 1024;
/** Above this share of binary data bytes, content is binary. */
export const CONTROL_SHARE = 0.01;
/** Invalid UTF-8 with at least this share of printable ASCII is read as windows-1252. */
export const LEGACY_ASCII_SHARE = 0.7;

// TAB LF FF CR ESC are text; so are all bytes from SPACE up.
const isBinaryDataByte = (b: number) => b <= 0x08 || b === 0x0b || (b >= 0x0e && b <= 0x1a) || (b >= 0x1c && b <= 0x1f);

/** Decides whether bytes are text, and in which encoding. */
export function detectText(bytes: Uint8Array): ContentVerdict {
  if (bytes.length === 0) return { kind: 'text', encoding: 'utf-8', bom: false };
  const sample = bytes.subarray(0, SAMPLE_BYTES);
  const whole = sample.length === bytes.length;

  const bom = sniffBom(sample);
  if (bom === 'utf-16le' && sample[2] === 0 && sample[3] === 0) return { kind: 'binary', reason: 'UTF-32 text (not supported as text)' };
  if (bom) return { kind: 'text', encoding: bom, bom: true };

  const format = sniffBinaryFormat(sample);
  if (format) return { kind: 'binary', reason: format.label, format };
  if (sample.includes(0)) return { kind: 'binary', reason: 'contains NUL bytes' };

  let controls = 0;
  for (let i = 0; i < sample.length; i++) if (isBinaryDataByte(sample[i]!)) controls++;
  if (controls / sample.length > CONTROL_SHARE) return { kind: 'binary', reason: 'many control characters' };

  if (isUtf8(sample, whole)) return { kind: 'text', encoding: 'utf-8', bom: false };

  let printable = 0;
  for (let i = 0; i < sample.length; i++) {
    const b = sample[i]!;
    if ((b >= 0x20 && b < 0x7f) || b === 0x09 || b === 0x0a || b === 0x0d) printable++;
  }
  if (printable / sample.length >= LEGACY_ASCII_SHARE) return { kind: 'text', encoding: 'windows-1252', bom: false };
  return { kind: 'binary', reason: 'not valid UTF-8 text' };
}

/**
 * Strict UTF-8 validity. A sample cut from a longer file may end inside a character: streaming
 * mode leaves an incomplete tail pending instead of calling it an error.
 */
export function isUtf8(bytes: Uint8Array, complete = true): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: !complete });
    return true;
  } catch {
    return false;
  }
}

/** Decodes text in the verdict's encoding; a BOM is dropped, invalid bytes become U+FFFD. */
export function decodeText(bytes: Uint8Array, encoding: TextEncodingName): string {
  // TextDecoder drops a BOM matching its own encoding (ignoreBOM defaults to false).
  return new TextDecoder(encoding).decode(bytes);
}

// --- MIME types --------------------------------------------------------------------------------

/** MIME types for sniffBinaryFormat's ids. */
const FORMAT_MIME: Record<string, string> = {
  pdf: 'application/pdf', png: 'image/png', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp', wav: 'audio/wav',
  avi: 'video/x-msvideo', zip: 'application/zip', gzip: 'application/gzip', '7z': 'application/x-7z-compressed',
  rar: 'application/vnd.rar', xz: 'application/x-xz', zstd: 'application/zstd', bzip2: 'application/x-bzip2',
  tar: 'application/x-tar', avif: 'image/avif', heic: 'image/heic', mov: 'video/quicktime', m4a: 'audio/mp4',
  '3gp': 'video/3gpp', mp4: 'video/mp4', mp3: 'audio/mpeg', ogg: 'application/ogg', flac: 'audio/flac', webm: 'video/webm',
  woff: 'font/woff', woff2: 'font/woff2', otf: 'font/otf', ttf: 'font/ttf', wasm: 'application/wasm',
  elf: 'application/x-executable', exe: 'application/vnd.microsoft.portable-executable', ole: 'application/x-ole-storage',
  sqlite: 'application/vnd.sqlite3', psd: 'image/vnd.adobe.photoshop', tiff: 'image/tiff', ico: 'image/x-icon', bmp: 'image/bmp',
  epub: 'application/epub+zip', apk: 'application/vnd.android.package-archive', jar: 'application/java-archive',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  ooxml: 'application/octet-stream',
  odt: 'application/vnd.oasis.opendocument.text', ods: 'application/vnd.oasis.opendocument.spreadsheet',
  odp: 'application/vnd.oasis.opendocument.presentation', odg: 'application/vnd.oasis.opendocument.graphics',
};

/** Containers whose magic number says less than the extension can (an OLE file is a .doc or .xls …). */
const GENERIC_FORMATS = new Set(['zip', 'ole', 'ooxml', 'ogg', 'mp4', 'gzip']);

/** MIME types by extension, for what the bytes do not reveal (text formats above all). */
const EXTENSION_MIME: Record<string, string> = {
  txt: 'text/plain', text: 'text/plain', log: 'text/plain', md: 'text/markdown', markdown: 'text/markdown',
  csv: 'text/csv', tsv: 'text/tab-separated-values', html: 'text/html', htm: 'text/html', xhtml: 'application/xhtml+xml',
  css: 'text/css', js: 'text/javascript', mjs: 'text/javascript', cjs: 'text/javascript', json: 'application/json',
  jsonl: 'application/jsonl', ndjson: 'application/x-ndjson', map: 'application/json', xml: 'application/xml',
  xsl: 'application/xml', rss: 'application/rss+xml', atom: 'application/atom+xml', svg: 'image/svg+xml',
  yaml: 'application/yaml', yml: 'application/yaml', toml: 'application/toml', ics: 'text/calendar', vcf: 'text/vcard',
  vtt: 'text/vtt', srt: 'application/x-subrip', rtf: 'application/rtf', tex: 'application/x-tex', sh: 'application/x-sh',
  py: 'text/x-python', ts: 'text/plain', tsx: 'text/plain', jsx: 'text/javascript', sql: 'application/sql',
  diff: 'text/x-diff', patch: 'text/x-diff', ini: 'text/plain', conf: 'text/plain',
  png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp', avif: 'image/avif',
  bmp: 'image/bmp', ico: 'image/x-icon', tif: 'image/tiff', tiff: 'image/tiff', heic: 'image/heic',
  pdf: 'application/pdf', zip: 'application/zip', gz: 'application/gzip', tgz: 'application/gzip', tar: 'application/x-tar',
  '7z': 'application/x-7z-compressed', rar: 'application/vnd.rar', bz2: 'application/x-bzip2', xz: 'application/x-xz',
  zst: 'application/zstd', mp3: 'audio/mpeg', wav: 'audio/wav', ogg: 'audio/ogg', oga: 'audio/ogg', opus: 'audio/ogg',
  flac: 'audio/flac', m4a: 'audio/mp4', aac: 'audio/aac', mp4: 'video/mp4', m4v: 'video/mp4', mov: 'video/quicktime',
  webm: 'video/webm', mkv: 'video/x-matroska', avi: 'video/x-msvideo', ogv: 'video/ogg',
  woff: 'font/woff', woff2: 'font/woff2', ttf: 'font/ttf', otf: 'font/otf', wasm: 'application/wasm',
  doc: 'application/msword', dot: 'application/msword', xls: 'application/vnd.ms-excel', ppt: 'application/vnd.ms-powerpoint',
  msg: 'application/vnd.ms-outlook', docx: FORMAT_MIME.docx!, xlsx: FORMAT_MIME.xlsx!, pptx: FORMAT_MIME.pptx!,
  odt: FORMAT_MIME.odt!, ods: FORMAT_MIME.ods!, odp: FORMAT_MIME.odp!, epub: 'application/epub+zip',
  jar: 'application/java-archive', apk: 'application/vnd.android.package-archive',
  sqlite: 'application/vnd.sqlite3', db: 'application/vnd.sqlite3',
};

/** Media types that are text without saying text/: they get a charset like text/*. */
const TEXTUAL_TYPE = /^(text\/|application\/(json|jsonl|x-ndjson|xml|xhtml\+xml|rss\+xml|atom\+xml|yaml|toml|x-subrip|rtf|x-tex|x-sh|sql)$|image\/svg\+xml$)/;

/**
 * A MIME type for a Blob of these bytes: the magic number's, else the extension's, else one read
 * from the text (HTML, JSON, XML, SVG) or text/plain, else application/octet-stream. Text types
 * carry the charset the bytes were detected in ("text/html;charset=utf-8").
 */
export function guessMimeType(bytes: Uint8Array, name: string, verdict: ContentVerdict = detectText(bytes)): string {
  const fromExtension = EXTENSION_MIME[extensionOf(name)];
  if (verdict.kind === 'binary') {
    const format = verdict.format ?? sniffBinaryFormat(bytes.subarray(0, SAMPLE_BYTES));
    const fromMagic = format ? FORMAT_MIME[format.id] : undefined;
    if (fromMagic && !(fromExtension && GENERIC_FORMATS.has(format!.id) && !TEXTUAL_TYPE.test(fromExtension))) return fromMagic;
    if (fromExtension && !TEXTUAL_TYPE.test(fromExtension)) return fromExtension;
    return 'application/octet-stream';
  }
  const charset = `;charset=${verdict.encoding}`;
  // A text file named .png is text: the bytes win over a binary extension.
  if (fromExtension && TEXTUAL_TYPE.test(fromExtension)) return fromExtension + charset;
  return textMimeType(bytes) + charset;
}

/** The type the text itself shows: an SVG or HTML start, JSON that parses, XML, or plain text. */
function textMimeType(bytes: Uint8Array): string {
  const head = bytes.subarray(0, SAMPLE_BYTES);
  const start = new TextDecoder(sniffBom(head) ?? 'utf-8').decode(head.subarray(0, 1024)).trimStart();
  if (/^(?:<\?xml[^>]*>\s*)?(?:<!--[\s\S]*?-->\s*)*(?:<!DOCTYPE\s+svg[^>]*>\s*)?<svg[\s>]/i.test(start)) return 'image/svg+xml';
  switch (classifyContent(null, head).kind) {
    case 'html':
      return 'text/html';
    case 'json':
      return 'application/json';
    case 'feed':
    case 'xml':
      return 'application/xml';
    default:
      return 'text/plain';
  }
}
