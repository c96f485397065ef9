/**
 * What a response is, from its Content-Type and its first bytes. The header is trusted for
 * text types unless the bytes plainly say otherwise (a PDF or PNG served as text/html, JSON
 * served as text/html by a PHP default); a missing, generic (application/octet-stream) or
 * unknown type is sniffed, loosely after the WHATWG MIME Sniffing standard.
 */

import { sniffBom } from './bom';
import { parseMimeType } from './mime';

export type ContentKind = 'html' | 'json' | 'xml' | 'feed' | 'text' | 'binary';

export interface ContentClassification {
  kind: ContentKind;
  /** The declared MIME essence (`type/subtype`), or null when missing or unparseable. */
  mimeType: string | null;
  /** True when the bytes, not the declared type, decided the kind. */
  sniffed: boolean;
  /** For binary content whose format the bytes reveal. */
  format?: BinaryFormat;
}

export interface BinaryFormat {
  /** Short id: 'pdf', 'png', 'zip', 'docx' … */
  id: string;
  /** For people: "PDF document", "PNG image" … */
  label: string;
}

/** How far into the body sniffing looks. */
const SNIFF_BYTES = 8192;

const GENERIC_TYPES = new Set([
  'application/octet-stream', 'binary/octet-stream', 'application/unknown', 'unknown/unknown', 'application/x-unknown',
  'application/download', 'application/x-download', 'application/force-download', 'application/binary', '*/*',
]);

const TEXT_APPLICATION_TYPES = new Set([
  'application/javascript', 'application/x-javascript', 'application/ecmascript', 'application/x-ecmascript',
  'application/x-sh', 'application/x-shellscript', 'application/x-csh', 'application/x-perl', 'application/x-python',
  'application/x-ruby', 'application/x-php', 'application/x-httpd-php', 'application/sql', 'application/graphql',
  'application/x-yaml', 'application/yaml', 'application/toml', 'application/x-toml', 'application/x-tex',
  'application/x-latex', 'application/x-subrip', 'application/x-www-form-urlencoded', 'application/x-ndjson',
  'application/jsonl', 'application/x-jsonlines', 'application/json-seq', 'application/csv', 'application/x-csv',
  'application/rtf', 'application/x-rtf', 'application/mbox', 'application/pgp-signature', 'application/pgp-keys',
  'application/x-pem-file', 'application/n-triples', 'application/n-quads', 'application/trig', 'application/x-troff',
  'application/x-diff', 'application/x-patch', 'application/vnd.apple.mpegurl', 'application/x-mpegurl',
]);

const FEED_TYPES = new Set(['application/rss+xml', 'application/atom+xml', 'application/rdf+xml', 'application/x-rss+xml', 'application/feed+xml']);

const JSON_TYPES = new Set(['application/json', 'text/json', 'text/x-json', 'application/x-json', 'application/javascript-json']);

const NDJSON_TYPES = new Set(['application/x-ndjson', 'application/jsonl', 'application/x-jsonlines', 'application/json-seq']);

/** Classifies a response. `bytes` may be just the start of the body. */
export function classifyContent(contentType: string | null | undefined, bytes: Uint8Array): ContentClassification {
  const mime = parseMimeType(contentType);
  const mimeType = mime?.essence ?? null;
  const format = sniffBinaryFormat(bytes);
  const declared = mime && !GENERIC_TYPES.has(mime.essence) ? declaredKind(mime.essence) : null;

  if (declared === 'binary') return { kind: 'binary', mimeType, sniffed: false, ...(format ? { format } : {}) };
  if (declared) {
    // Text types lie: a download served as text/html, a gzip body without Content-Encoding.
    if (format) return { kind: 'binary', mimeType, sniffed: true, format };
    if (controlShare(bytes) > 0.1) return { kind: 'binary', mimeType, sniffed: true };
    const refined = refineDeclared(declared, mime!.essence, bytes);
    return { kind: refined, mimeType, sniffed: refined !== declared };
  }
  if (format) return { kind: 'binary', mimeType, sniffed: true, format };
  return { kind: sniffText(bytes), mimeType, sniffed: true };
}

/** The kind a MIME type names, or null when only the bytes can tell. */
function declaredKind(essence: string): ContentKind | null {
  if (essence === 'text/html' || essence === 'application/xhtml+xml' || essence === 'application/vnd.wap.xhtml+xml') return 'html';
  if (FEED_TYPES.has(essence)) return 'feed';
  if (NDJSON_TYPES.has(essence)) return 'text';
  if (JSON_TYPES.has(essence) || essence.endsWith('+json')) return 'json';
  if (essence === 'text/xml' || essence === 'application/xml' || essence.endsWith('+xml')) return 'xml';
  if (essence.startsWith('text/')) return 'text';
  if (TEXT_APPLICATION_TYPES.has(essence)) return 'text';
  if (/^(image|audio|video|font|model)\//.test(essence)) return 'binary';
  if (/^application\/(pdf|zip|gzip|x-gzip|x-tar|x-7z-compressed|x-rar-compressed|vnd\.rar|wasm|msword|x-msdownload|java-archive|x-bzip2|x-xz|zstd|epub\+zip|vnd\.(ms-|openxmlformats|oasis\.opendocument|android))/.test(essence)) {
    return 'binary';
  }
  return null;
}

/** Second thoughts on a declared text type, for the common lies that cost the reader. */
function refineDeclared(declared: ContentKind, essence: string, bytes: Uint8Array): ContentKind {
  const head = textHead(bytes);
  const start = head.trimStart();
  // PHP and many frameworks answer JSON as text/html; raw-file hosts serve .json as text/plain.
  if ((declared === 'html' || essence === 'text/plain') && /^[{[]/.test(start) && parsesAsJson(bytes)) return 'json';
  if (declared === 'html' && isFeedStart(start)) return 'feed';
  if (declared === 'xml' && isFeedStart(start)) return 'feed';
  return declared;
}

/** Sniffs a body with no useful Content-Type. */
function sniffText(bytes: Uint8Array): ContentKind {
  if (!sniffBom(bytes) && hasBinaryDataByte(bytes)) return 'binary';
  const start = textHead(bytes).trimStart();
  if (isFeedStart(start)) return 'feed';
  if (/^<\?xml[\s?]/.test(start)) return 'xml';
  if (isHtmlStart(start)) return 'html';
  if (/^[{[]/.test(start) && parsesAsJson(bytes)) return 'json';
  return 'text';
}

/**
 * The MIME Sniffing standard's HTML signatures (a tag name then a space or '>'), plus an
 * initial comment, which the standard also counts.
 */
function isHtmlStart(start: string): boolean {
  return /^(<!doctype\s+html|<(html|head|script|iframe|h1|div|font|table|a|style|title|b|body|br|p|meta|link)[\s>/]|<!--)/i.test(start);
}

/** A feed's root element, after an XML declaration, comments, PIs and a doctype. */
function isFeedStart(start: string): boolean {
  const rest = start.replace(/^(?:\s*(?:<\?[\s\S]*?\?>|<!--[\s\S]*?-->|<!DOCTYPE[^>[]*(?:\[[\s\S]*?\])?\s*>))*\s*/i, '');
  return /^<(rss|feed|rdf:RDF)[\s>]/i.test(rest) || (/^<[\w.-]+:RDF[\s>]/i.test(rest) && /<(?:\w+:)?channel[\s>]/i.test(rest));
}

function parsesAsJson(bytes: Uint8Array): boolean {
  try {
    JSON.parse(new TextDecoder().decode(bytes));
    return true;
  } catch {
    return false;
  }
}

/** The start of the body as text, for signature checks (UTF-16 bodies are decoded). */
function textHead(bytes: Uint8Array): string {
  const bom = sniffBom(bytes);
  const head = bytes.subarray(0, SNIFF_BYTES);
  return new TextDecoder(bom ?? 'utf-8').decode(head);
}

/** The MIME Sniffing standard's "binary data byte": C0 controls other than TAB LF FF CR ESC. */
const isBinaryDataByte = (b: number) => b <= 0x08 || b === 0x0b || (b >= 0x0e && b <= 0x1a) || (b >= 0x1c && b <= 0x1f);

function hasBinaryDataByte(bytes: Uint8Array): boolean {
  const n = Math.min(bytes.length, SNIFF_BYTES);
  for (let i = 0; i < n; i++) if (isBinaryDataByte(bytes[i]!)) return true;
  return false;
}

/** Share of binary data bytes at the start; a declared text type may carry a stray one. */
function controlShare(bytes: Uint8Array): number {
  if (sniffBom(bytes)?.startsWith('utf-16')) return 0;
  const n = Math.min(bytes.length, SNIFF_BYTES);
  if (!n) return 0;
  let count = 0;
  for (let i = 0; i < n; i++) if (isBinaryDataByte(bytes[i]!)) count++;
  return count / n;
}

// --- Binary formats --------------------------------------------------------------------------

const ascii = (bytes: Uint8Array, at: number, text: string) => {
  if (bytes.length < at + text.length) return false;
  for (let i = 0; i < text.length; i++) if (bytes[at + i] !== text.charCodeAt(i)) return false;
  return true;
};

const magic = (bytes: Uint8Array, at: number, sig: readonly number[]) => {
  if (bytes.length < at + sig.length) return false;
  return sig.every((b, i) => bytes[at + i] === b);
};

/** The binary format the first bytes reveal (magic numbers), or null. */
export function sniffBinaryFormat(bytes: Uint8Array): BinaryFormat | null {
  const f = (id: string, label: string): BinaryFormat => ({ id, label });
  if (ascii(bytes, 0, '%PDF-')) return f('pdf', 'PDF document');
  if (magic(bytes, 0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return f('png', 'PNG image');
  if (magic(bytes, 0, [0xff, 0xd8, 0xff])) return f('jpeg', 'JPEG image');
  if (ascii(bytes, 0, 'GIF87a') || ascii(bytes, 0, 'GIF89a')) return f('gif', 'GIF image');
  if (ascii(bytes, 0, 'RIFF') && ascii(bytes, 8, 'WEBP')) return f('webp', 'WebP image');
  if (ascii(bytes, 0, 'RIFF') && ascii(bytes, 8, 'WAVE')) return f('wav', 'WAV audio');
  if (ascii(bytes, 0, 'RIFF') && ascii(bytes, 8, 'AVI ')) return f('avi', 'AVI video');
  if (magic(bytes, 0, [0x50, 0x4b, 0x03, 0x04]) || magic(bytes, 0, [0x50, 0x4b, 0x05, 0x06])) return zipFormat(bytes);
  if (magic(bytes, 0, [0x1f, 0x8b])) return f('gzip', 'gzip-compressed data');
  if (magic(bytes, 0, [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c])) return f('7z', '7-Zip archive');
  if (ascii(bytes, 0, 'Rar!\x1a\x07')) return f('rar', 'RAR archive');
  if (magic(bytes, 0, [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00])) return f('xz', 'xz-compressed data');
  if (magic(bytes, 0, [0x28, 0xb5, 0x2f, 0xfd])) return f('zstd', 'Zstandard-compressed data');
  if (ascii(bytes, 0, 'BZh') && ascii(bytes, 4, '1AY&SY')) return f('bzip2', 'bzip2-compressed data');
  if (ascii(bytes, 257, 'ustar')) return f('tar', 'tar archive');
  if (ascii(bytes, 4, 'ftyp')) return isoMediaFormat(bytes);
  if ((ascii(bytes, 0, 'ID3') && bytes[3]! >= 2 && bytes[3]! <= 4) || (bytes[0] === 0xff && (bytes[1] === 0xfb || bytes[1] === 0xf3 || bytes[1] === 0xf2))) return f('mp3', 'MP3 audio');
  if (ascii(bytes, 0, 'OggS')) return f('ogg', 'Ogg media');
  if (ascii(bytes, 0, 'fLaC')) return f('flac', 'FLAC audio');
  if (magic(bytes, 0, [0x1a, 0x45, 0xdf, 0xa3])) return f('webm', 'WebM/Matroska video');
  if (ascii(bytes, 0, 'wOFF')) return f('woff', 'WOFF font');
  if (ascii(bytes, 0, 'wOF2')) return f('woff2', 'WOFF2 font');
  if (ascii(bytes, 0, 'OTTO')) return f('otf', 'OpenType font');
  if (magic(bytes, 0, [0x00, 0x01, 0x00, 0x00, 0x00])) return f('ttf', 'TrueType font');
  if (magic(bytes, 0, [0x00, 0x61, 0x73, 0x6d])) return f('wasm', 'WebAssembly module');
  if (magic(bytes, 0, [0x7f, 0x45, 0x4c, 0x46])) return f('elf', 'ELF executable');
  if (ascii(bytes, 0, 'MZ') && bytes.length > 64 && hasBinaryDataByte(bytes)) return f('exe', 'Windows executable');
  if (magic(bytes, 0, [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1])) return f('ole', 'legacy Microsoft Office document (OLE)');
  if (ascii(bytes, 0, 'SQLite format 3\0')) return f('sqlite', 'SQLite database');
  if (ascii(bytes, 0, '8BPS')) return f('psd', 'Photoshop image');
  if (ascii(bytes, 0, 'II*\0') || ascii(bytes, 0, 'MM\0*')) return f('tiff', 'TIFF image');
  if (magic(bytes, 0, [0x00, 0x00, 0x01, 0x00]) && bytes.length > 6 && bytes[4]! > 0) return f('ico', 'icon image');
  if (ascii(bytes, 0, 'BM') && bytes.length > 18 && [12, 40, 56, 108, 124].includes(readU32LE(bytes, 14))) return f('bmp', 'BMP image');
  return null;
}

function isoMediaFormat(bytes: Uint8Array): BinaryFormat {
  const brand = String.fromCharCode(...bytes.subarray(8, 12));
  if (brand === 'avif' || brand === 'avis') return { id: 'avif', label: 'AVIF image' };
  if (/^(heic|heix|heim|heis|mif1|msf1)$/.test(brand)) return { id: 'heic', label: 'HEIF image' };
  if (brand === 'qt  ') return { id: 'mov', label: 'QuickTime video' };
  if (brand.startsWith('M4A') || brand.startsWith('M4B')) return { id: 'm4a', label: 'MPEG-4 audio' };
  if (brand.startsWith('3g')) return { id: '3gp', label: '3GPP video' };
  return { id: 'mp4', label: 'MPEG-4 video' };
}

/** ZIP, and the formats built on it, told apart by the entry names near the start. */
function zipFormat(bytes: Uint8Array): BinaryFormat {
  const head = latin1(bytes.subarray(0, 64 * 1024));
  if (head.startsWith('mimetype', 30)) {
    if (head.includes('application/epub+zip')) return { id: 'epub', label: 'EPUB e-book' };
    const odf = /application\/vnd\.oasis\.opendocument\.(text|spreadsheet|presentation|graphics)/.exec(head);
    if (odf) {
      const kind = { text: ['odt', 'OpenDocument text'], spreadsheet: ['ods', 'OpenDocument spreadsheet'], presentation: ['odp', 'OpenDocument presentation'], graphics: ['odg', 'OpenDocument drawing'] }[odf[1] as 'text'];
      return { id: kind[0]!, label: kind[1]! };
    }
  }
  if (head.includes('[Content_Types].xml') || /(word|xl|ppt)\//.test(head)) {
    if (head.includes('word/')) return { id: 'docx', label: 'Word document (.docx)' };
    if (head.includes('xl/')) return { id: 'xlsx', label: 'Excel spreadsheet (.xlsx)' };
    if (head.includes('ppt/')) return { id: 'pptx', label: 'PowerPoint presentation (.pptx)' };
    return { id: 'ooxml', label: 'Office Open XML document' };
  }
  if (head.includes('AndroidManifest.xml')) return { id: 'apk', label: 'Android package (APK)' };
  if (head.includes('META-INF/MANIFEST.MF')) return { id: 'jar', label: 'Java archive (JAR)' };
  return { id: 'zip', label: 'ZIP archive' };
}

// --- Describing binary content ---------------------------------------------------------------

export interface DescribeBinaryOptions {
  /** True when the body was cut at the size cap: `size` is then a lower bound. */
  capped?: boolean;
}

/**
 * A short description of a body web_fetch does not show, with what is cheap to learn from
 * it: "Binary content: report.pdf (PDF document, 2.4 MB, application/pdf) — not shown; web_fetch
 * returns text only. PDF 1.7, about 12 pages."
 */
export function describeBinary(
  bytes: Uint8Array,
  contentType: string | null | undefined,
  url: URL | string | null | undefined,
  size: number,
  { capped = false }: DescribeBinaryOptions = {},
): string {
  const format = sniffBinaryFormat(bytes);
  const mime = parseMimeType(contentType)?.essence;
  const name = fileName(url);
  const facts = [format?.label ?? (mime && !GENERIC_TYPES.has(mime) ? null : 'unrecognised binary data'), `${capped ? 'over ' : ''}${formatBytes(size)}`, mime ?? null]
    .filter((x): x is string => !!x);
  const details = format ? formatDetails(format, bytes, capped) : null;
  return `Binary content${name ? `: ${name}` : ''} (${facts.join(', ')}) — not shown; web_fetch returns text only.${details ? ` ${details}` : ''}`;
}

/** Bytes for people: 1024-based, one decimal, as browsers' download lists show them. */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} byte${n === 1 ? '' : 's'}`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = n / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value >= 100 ? Math.round(value) : value.toFixed(1).replace(/\.0$/, '')} ${units[unit]}`;
}

function fileName(url: URL | string | null | undefined): string | null {
  if (!url) return null;
  try {
    const path = new URL(String(url)).pathname;
    const last = decodeURIComponent(path.slice(path.lastIndexOf('/') + 1));
    // Only a name that looks like a file name: "download" or "get" says nothing.
    return /^[^\s/\\][^/\\\x00-\x1f]{0,99}\.[A-Za-z0-9]{1,8}$/.test(last) ? last : null;
  } catch {
    return null;
  }
}

function formatDetails(format: BinaryFormat, bytes: Uint8Array, capped: boolean): string | null {
  switch (format.id) {
    case 'pdf':
      return pdfDetails(bytes, capped);
    case 'png':
      return bytes.length >= 24 ? dims(readU32BE(bytes, 16), readU32BE(bytes, 20)) : null;
    case 'gif':
      return bytes.length >= 10 ? dims(readU16LE(bytes, 6), readU16LE(bytes, 8)) : null;
    case 'jpeg': {
      const d = jpegSize(bytes);
      return d ? dims(d[0], d[1]) : null;
    }
    case 'webp': {
      const d = webpSize(bytes);
      return d ? dims(d[0], d[1]) : null;
    }
    case 'bmp':
      return bytes.length >= 26 ? dims(readU32LE(bytes, 18), Math.abs(readI32LE(bytes, 22))) : null;
    case 'zip':
    case 'docx':
    case 'xlsx':
    case 'pptx':
    case 'ooxml':
    case 'epub':
    case 'jar':
    case 'apk':
    case 'odt':
    case 'ods':
    case 'odp':
    case 'odg': {
      const entries = capped ? null : zipEntryCount(bytes);
      return entries === null ? null : `${entries} entr${entries === 1 ? 'y' : 'ies'} in the archive.`;
    }
    case 'gzip': {
      const name = gzipName(bytes);
      return name ? `Compressed file name: ${name}.` : null;
    }
    default:
      return null;
  }
}

function dims(width: number, height: number): string | null {
  return width > 0 && height > 0 ? `${width}×${height} pixels.` : null;
}

/**
 * PDF version from the header, and a page count: exact from a linearized PDF's first
 * dictionary (/N), otherwise the number of /Type /Page objects. PDFs since 1.5 may keep their
 * page objects in compressed object streams, where they cannot be counted; then none is given.
 */
function pdfDetails(bytes: Uint8Array, capped: boolean): string | null {
  const head = latin1(bytes.subarray(0, 1024));
  const version = /^%PDF-(\d\.\d)/.exec(head)?.[1];
  const parts: string[] = [];
  if (version) parts.push(`PDF ${version}`);
  const linearized = /\/Linearized\s[^>]*?\/N\s+(\d+)/.exec(head)?.[1];
  if (linearized) {
    parts.push(`${linearized} page${linearized === '1' ? '' : 's'}`);
  } else {
    const text = latin1(bytes);
    const pages = text.match(/\/Type\s*\/Page(?![A-Za-z])/g)?.length ?? 0;
    if (pages > 0) parts.push(`${capped ? 'at least' : 'about'} ${pages} page${pages === 1 ? '' : 's'}`);
  }
  return parts.length ? `${parts.join(', ')}.` : null;
}

/** JPEG: walk the segments to the first start-of-frame marker, which holds the size. */
function jpegSize(bytes: Uint8Array): [number, number] | null {
  let pos = 2;
  while (pos + 9 < bytes.length) {
    if (bytes[pos] !== 0xff) return null;
    const marker = bytes[pos + 1]!;
    if (marker === 0xff) {
      pos++;
      continue;
    }
    // SOF0–SOF15 except DHT (C4), JPG (C8) and DAC (CC).
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return [readU16BE(bytes, pos + 7), readU16BE(bytes, pos + 5)];
    }
    if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      pos += 2;
      continue;
    }
    pos += 2 + readU16BE(bytes, pos + 2);
  }
  return null;
}

function webpSize(bytes: Uint8Array): [number, number] | null {
  if (bytes.length < 30) return null;
  if (ascii(bytes, 12, 'VP8X')) return [1 + (bytes[24]! | (bytes[25]! << 8) | (bytes[26]! << 16)), 1 + (bytes[27]! | (bytes[28]! << 8) | (bytes[29]! << 16))];
  if (ascii(bytes, 12, 'VP8L')) {
    const b = readU32LE(bytes, 21);
    return [1 + (b & 0x3fff), 1 + ((b >>> 14) & 0x3fff)];
  }
  if (ascii(bytes, 12, 'VP8 ')) return [readU16LE(bytes, 26) & 0x3fff, readU16LE(bytes, 28) & 0x3fff];
  return null;
}

/** Entry count from the ZIP end-of-central-directory record (the file's last bytes). */
function zipEntryCount(bytes: Uint8Array): number | null {
  const min = Math.max(0, bytes.length - 22 - 0xffff);
  for (let i = bytes.length - 22; i >= min; i--) {
    if (bytes[i] === 0x50 && bytes[i + 1] === 0x4b && bytes[i + 2] === 0x05 && bytes[i + 3] === 0x06) return readU16LE(bytes, i + 10);
  }
  return null;
}

function gzipName(bytes: Uint8Array): string | null {
  if (bytes.length < 11 || !((bytes[3] ?? 0) & 0x08)) return null;
  let pos = 10;
  if ((bytes[3] ?? 0) & 0x04) pos += 2 + readU16LE(bytes, 10);
  const end = bytes.indexOf(0, pos);
  if (end < 0 || end - pos > 255) return null;
  const name = latin1(bytes.subarray(pos, end));
  return /^[\x20-\x7e\xa0-\xff]+$/.test(name) ? name : null;
}

const readU16BE = (b: Uint8Array, i: number) => ((b[i] ?? 0) << 8) | (b[i + 1] ?? 0);
const readU16LE = (b: Uint8Array, i: number) => (b[i] ?? 0) | ((b[i + 1] ?? 0) << 8);
const readU32BE = (b: Uint8Array, i: number) => (((b[i] ?? 0) << 24) | ((b[i + 1] ?? 0) << 16) | ((b[i + 2] ?? 0) << 8) | (b[i + 3] ?? 0)) >>> 0;
const readU32LE = (b: Uint8Array, i: number) => readI32LE(b, i) >>> 0;
const readI32LE = (b: Uint8Array, i: number) => (b[i] ?? 0) | ((b[i + 1] ?? 0) << 8) | ((b[i + 2] ?? 0) << 16) | ((b[i + 3] ?? 0) << 24);

/** Bytes as one character each, for ASCII-level scanning of binary data. */
function latin1(bytes: Uint8Array): string {
  // windows-1252 maps every byte to one UTF-16 unit and keeps ASCII as is, which is all the
  // scans need; a native decoder beats building the string in JavaScript on a 10 MB body.
  return new TextDecoder('windows-1252').decode(bytes);
}
