/**
 * Workspace paths: what the model may write, and its one canonical form.
 *
 * A path names an entry under the workspace root and nothing else. It is a list of names
 * separated by "/"; the rules are lexical, so no path can reach outside the root whatever
 * the file system holds (OPFS has no links, but a rule that needs no look-up cannot be raced).
 *
 * Decisions:
 *   - One leading "/" is accepted and means the workspace root ("/notes/a.md" = "notes/a.md"):
 *     models write absolute-looking paths by habit, and inside the workspace there is no other
 *     root it could mean. "//x" (a UNC or protocol-relative form) is refused.
 *   - One trailing "/" is accepted (a folder written as "notes/"); `trailingSlash` records it,
 *     so that writing to "notes/" can be refused as naming a folder.
 *   - "." segments are dropped ("./a.md" = "a.md"): the form is common, can never move up, and
 *     "." is not a legal OPFS entry name anyway.
 *   - ".." is refused, even where it would stay inside ("a/../b"): refusing is the only rule
 *     that needs no reasoning about where a path ends up, and the model can always write the
 *     plain path.
 *   - Bidirectional controls (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069) are
 *     refused: invisible, they reorder how a name is shown, so "\u202Etxt.exe" reads as
 *     "exe.txt" in a listing, and the name the user sees is not the file. Error messages
 *     show them escaped for the same reason.
 *   - Empty segments ("a//b"), backslashes, control characters, lone surrogates, a drive
 *     letter ("C:"), a home folder ("~"), a URL ("file://…") are refused: each means the model
 *     took the path for something else, and guessing what it meant could write the wrong file.
 *   - Names with leading or trailing white space are refused: almost always a slip (copied
 *     with a space or newline), and "a.md " would otherwise be a second file that looks the same.
 *   - Names ending in ".crswap" are reserved: Chromium's createWritable() writes to a swap file
 *     "<name>.crswap" ("<name>.1.crswap" …) beside the target, visible in the folder while a
 *     write is open; a file of the model's by that name could be taken for one (lists hide them).
 *   - Names are put in Unicode NFC, so "é" typed precomposed or decomposed names one file.
 *   - Limits: 255 bytes of UTF-8 per name (what common file systems allow, so a later export
 *     to disk cannot fail on length), 4096 bytes for the whole path (Linux's PATH_MAX).
 */

import { WorkspaceError } from './errors';

export interface WorkspacePath {
  /** The names from the root down; empty for the root itself. */
  readonly segments: readonly string[];
  /** The canonical form shown to the model: "/" for the root, else "/a/b.txt". */
  readonly display: string;
  readonly isRoot: boolean;
  /** The input ended with "/" (it names a folder). */
  readonly trailingSlash: boolean;
}

export const MAX_NAME_BYTES = 255;
export const MAX_PATH_BYTES = 4096;

/** What a valid path looks like, appended to every path error so the model can retry. */
export const PATH_HINT = 'A valid path is relative to the workspace root, with names separated by "/", e.g. "notes/todo.md" or "/data/report.csv".';

const encoder = new TextEncoder();
const utf8Length = (s: string) => encoder.encode(s).length;

// C0 controls, DEL and C1 controls: invisible, and some (NUL, newline) end paths in other
// APIs, so a name holding one would read differently elsewhere.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
/** Unicode's Bidi_Control: exactly the twelve marks, embeddings, overrides and isolates. */
const BIDI = /\p{Bidi_Control}/u;
const BIDI_NAMES: Record<number, string> = {
  0x061c: 'ARABIC LETTER MARK',
  0x200e: 'LEFT-TO-RIGHT MARK',
  0x200f: 'RIGHT-TO-LEFT MARK',
  0x202a: 'LEFT-TO-RIGHT EMBEDDING',
  0x202b: 'RIGHT-TO-LEFT EMBEDDING',
  0x202c: 'POP DIRECTIONAL FORMATTING',
  0x202d: 'LEFT-TO-RIGHT OVERRIDE',
  0x202e: 'RIGHT-TO-LEFT OVERRIDE',
  0x2066: 'LEFT-TO-RIGHT ISOLATE',
  0x2067: 'RIGHT-TO-LEFT ISOLATE',
  0x2068: 'FIRST STRONG ISOLATE',
  0x2069: 'POP DIRECTIONAL ISOLATE',
};
const DRIVE = /^[A-Za-z]:/;
/** Chromium's swap files for createWritable(): "<name>.crswap", "<name>.<n>.crswap". */
export const SWAP_FILE = /\.crswap$/;
const URL_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//;

const invalid = (input: string, why: string) => new WorkspaceError('invalid_path', `Invalid path ${quote(input)}: ${why}. ${PATH_HINT}`);

const codePoint = (c: string) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/** The input quoted for a message, cut when long and with controls made visible. */
export function quote(input: string): string {
  const shown = input.length > 120 ? `${input.slice(0, 117)}…` : input;
  // JSON escapes C0 controls but not bidi ones, which would reorder the message itself.
  return JSON.stringify(shown).replace(new RegExp(BIDI.source, 'gu'), (c) => `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`);
}

/** Where a character is, for a message: its place in the path (from 1) and the name holding it. */
function where(input: string, index: number): string {
  const position = [...input.slice(0, index)].length + 1;
  const start = input.lastIndexOf('/', index) + 1;
  const end = input.indexOf('/', index);
  const name = input.slice(start, end < 0 ? undefined : end);
  return `at character ${position}${name.length < input.length ? ` (in the name ${quote(name)})` : ''}`;
}

/**
 * Validates and normalises a path. "", "/" and "." name the root.
 * @throws WorkspaceError('invalid_path') with the rule broken and what a valid path looks like.
 */
export function parsePath(input: string): WorkspacePath {
  if (typeof input !== 'string') throw invalid(String(input), 'a path must be a string');
  if (!input.isWellFormed()) throw invalid(input, 'it contains an unpaired UTF-16 surrogate (broken text), which cannot be a file name');
  const control = CONTROL.exec(input);
  if (control) {
    throw invalid(input, `it contains the control character ${codePoint(control[0])} (a newline, tab, NUL or similar) ${where(input, control.index)}; file names cannot hold control characters, remove it`);
  }
  const bidi = BIDI.exec(input);
  if (bidi) {
    const c = codePoint(bidi[0]);
    throw invalid(
      input,
      `it contains the invisible bidirectional control character ${c} (${BIDI_NAMES[bidi[0].codePointAt(0)!] ?? 'bidi control'}) ${where(input, bidi.index)}, ` +
        'which changes the order a name is displayed in (so "\\u202Etxt.exe" shows as "exe.txt"); remove it and write the name in plain characters',
    );
  }
  if (input.includes('\\')) throw invalid(input, 'it contains a backslash; use "/" to separate folders (backslashes are not allowed in names)');
  if (URL_SCHEME.test(input)) throw invalid(input, 'it is a URL; give a path inside the workspace, not an address');
  if (DRIVE.test(input)) throw invalid(input, 'it starts with a drive letter; the workspace has no drives, paths start at its root');
  if (input.startsWith('//')) throw invalid(input, 'it starts with "//"; start with at most one "/" (the workspace root)');
  if (utf8Length(input) > MAX_PATH_BYTES) throw invalid(input, `it is longer than ${MAX_PATH_BYTES} bytes (UTF-8)`);

  let body = input.startsWith('/') ? input.slice(1) : input;
  const trailingSlash = body.length > 0 && body.endsWith('/');
  if (trailingSlash) body = body.slice(0, -1);
  if (body === '') return root(trailingSlash || input.startsWith('/'));

  const raw = body.split('/');
  if (raw[0] === '~') throw invalid(input, 'it starts with "~"; there is no home folder here, paths start at the workspace root');
  const segments: string[] = [];
  for (const name of raw) {
    if (name === '') throw invalid(input, 'it has an empty name between two "/" (as in "a//b")');
    if (name === '.') continue;
    if (name === '..') throw invalid(input, '".." is not allowed: a path cannot go up a folder; write the path from the workspace root instead');
    if (/^\s|\s$/u.test(name)) throw invalid(input, `the name ${quote(name)} starts or ends with white space`);
    const normal = name.normalize('NFC');
    if (SWAP_FILE.test(normal)) throw invalid(input, `the name ${quote(normal)} ends in ".crswap", which is reserved for the browser's temporary files; choose another name`);
    if (utf8Length(normal) > MAX_NAME_BYTES) throw invalid(input, `the name ${quote(normal)} is longer than ${MAX_NAME_BYTES} bytes (UTF-8)`);
    segments.push(normal);
  }
  if (segments.length === 0) return root(trailingSlash);
  return { segments, display: `/${segments.join('/')}`, isRoot: false, trailingSlash };
}

function root(trailingSlash: boolean): WorkspacePath {
  return { segments: [], display: '/', isRoot: true, trailingSlash };
}

/** The display form of the first `n` segments ("/" for none). */
export function displayOf(segments: readonly string[], n = segments.length): string {
  return n <= 0 ? '/' : `/${segments.slice(0, n).join('/')}`;
}

/** The display form of a child of a folder. */
export function joinDisplay(folder: string, name: string): string {
  return folder === '/' ? `/${name}` : `${folder}/${name}`;
}

/** The file name's extension, lower-cased and without the dot ('' for none). */
export function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  // ".bashrc" is a name, not an extension.
  return dot > 0 && dot < name.length - 1 ? name.slice(dot + 1).toLowerCase() : '';
}
