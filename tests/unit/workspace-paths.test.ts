import { describe, expect, it } from 'vitest';
import { WorkspaceError } from '../../lib/workspace/errors';
import { displayOf, extensionOf, MAX_NAME_BYTES, MAX_PATH_BYTES, parsePath } from '../../lib/workspace/paths';

const refused = (input: string): WorkspaceError => {
  try {
    parsePath(input);
  } catch (e) {
    expect(e).toBeInstanceOf(WorkspaceError);
    expect((e as WorkspaceError).code).toBe('invalid_path');
    // Every refusal says what a valid path looks like.
    expect((e as WorkspaceError).message).toContain('e.g. "notes/todo.md"');
    return e as WorkspaceError;
  }
  throw new Error(`${JSON.stringify(input)} was accepted`);
};

describe('parsePath: accepted forms', () => {
  it.each([
    ['a.txt', ['a.txt']],
    ['notes/todo.md', ['notes', 'todo.md']],
    ['/notes/todo.md', ['notes', 'todo.md']],
    ['./notes/todo.md', ['notes', 'todo.md']],
    ['notes/./todo.md', ['notes', 'todo.md']],
    ['notes/', ['notes']],
    ['/notes/', ['notes']],
    ['a b/c d.txt', ['a b', 'c d.txt']],
    ['.hidden', ['.hidden']],
    ['...', ['...']],
    ['a..b', ['a..b']],
    ['~$lock.docx', ['~$lock.docx']],
    ['a/~', ['a', '~']],
    ['a/C:/b', ['a', 'C:', 'b']],
    ['notes.CRSWAP.txt', ['notes.CRSWAP.txt']],
    ['日本語/ファイル.txt', ['日本語', 'ファイル.txt']],
    ['emoji/😀.md', ['emoji', '😀.md']],
  ])('%j → %j', (input, segments) => {
    const p = parsePath(input);
    expect(p.segments).toEqual(segments);
    expect(p.display).toBe(`/${segments.join('/')}`);
    expect(p.isRoot).toBe(false);
  });

  it.each(['', '/', '.', './', '/./'])('%j is the root', (input) => {
    const p = parsePath(input);
    expect(p).toMatchObject({ segments: [], display: '/', isRoot: true });
  });

  it('records a trailing slash', () => {
    expect(parsePath('a/b/').trailingSlash).toBe(true);
    expect(parsePath('a/b').trailingSlash).toBe(false);
  });

  it('puts names in NFC', () => {
    const decomposed = 'cafe\u0301.txt';
    expect(parsePath(decomposed).segments).toEqual(['caf\u00e9.txt']);
    expect(parsePath(decomposed).display).toBe(parsePath('café.txt').display);
  });

  it('accepts names up to 255 UTF-8 bytes and paths up to 4096', () => {
    expect(parsePath('x'.repeat(MAX_NAME_BYTES)).segments[0]).toHaveLength(255);
    // 85 three-byte characters = 255 bytes.
    expect(parsePath('語'.repeat(85)).segments).toHaveLength(1);
    const long = Array.from({ length: 16 }, () => 'y'.repeat(255)).join('/'); // 16*255 + 15 = 4095
    expect(parsePath(long).segments).toHaveLength(16);
  });
});

describe('parsePath: refusals', () => {
  it.each([
    ['..', '".." is not allowed'],
    ['../etc/passwd', '".." is not allowed'],
    ['a/../b', '".." is not allowed'],
    ['a/..', '".." is not allowed'],
    ['/..', '".." is not allowed'],
    ['./../x', '".." is not allowed'],
    ['//server/share', 'starts with "//"'],
    ['//', 'starts with "//"'],
    ['C:', 'drive letter'],
    ['C:/Windows', 'drive letter'],
    ['c:file.txt', 'drive letter'],
    ['C:\\Windows', 'backslash'],
    ['~', '"~"'],
    ['~/notes.md', '"~"'],
    ['/~/notes.md', '"~"'],
    ['a\\b.txt', 'backslash'],
    ['a//b', 'empty name'],
    ['a/b//', 'empty name'],
    ['a\u0000b', 'U+0000'],
    ['a\nb', 'U+000A'],
    ['a\tb', 'U+0009'],
    ['a\u007fb', 'U+007F'],
    ['a\u0085b', 'U+0085'],
    ['a\ud800b', 'surrogate'],
    ['file:///etc/passwd', 'URL'],
    ['https://example.com/a', 'URL'],
    [' a.txt', 'white space'],
    ['a.txt ', 'white space'],
    ['dir /a.txt', 'white space'],
    ['\u00a0a', 'white space'],
    ['doc.txt.crswap', 'reserved'],
    ['a/doc.txt.1.crswap', 'reserved'],
  ])('%j', (input, why) => {
    expect(refused(input).message).toContain(why);
  });

  it.each([
    ['\u202etxt.exe', 'U+202E', 'RIGHT-TO-LEFT OVERRIDE'],
    ['a\u202ab', 'U+202A', 'LEFT-TO-RIGHT EMBEDDING'],
    ['a\u202bb', 'U+202B', 'RIGHT-TO-LEFT EMBEDDING'],
    ['a\u202cb', 'U+202C', 'POP DIRECTIONAL FORMATTING'],
    ['a\u202db', 'U+202D', 'LEFT-TO-RIGHT OVERRIDE'],
    ['a\u2066b', 'U+2066', 'LEFT-TO-RIGHT ISOLATE'],
    ['a\u2067b', 'U+2067', 'RIGHT-TO-LEFT ISOLATE'],
    ['a\u2068b', 'U+2068', 'FIRST STRONG ISOLATE'],
    ['a\u2069b', 'U+2069', 'POP DIRECTIONAL ISOLATE'],
    ['a\u200eb', 'U+200E', 'LEFT-TO-RIGHT MARK'],
    ['a\u200fb', 'U+200F', 'RIGHT-TO-LEFT MARK'],
    ['a\u061cb', 'U+061C', 'ARABIC LETTER MARK'],
  ])('refuses the bidirectional control in %j, naming it', (input, code, name) => {
    const message = refused(input).message;
    expect(message).toContain(`bidirectional control character ${code} (${name})`);
    expect(message).toContain('remove it and write the name in plain characters');
  });

  it('says where the bidi control is, and never prints it raw', () => {
    const message = refused('reports/invoice\u202egpj.exe').message;
    expect(message).toContain('at character 16 (in the name "invoice\\u202Egpj.exe")');
    expect(message).toContain('Invalid path "reports/invoice\\u202Egpj.exe"');
    expect(message).not.toMatch(/\p{Bidi_Control}/u);
    // Counted in characters, not UTF-16 units: the emoji is one.
    expect(refused('😀/\u2067x').message).toContain('at character 3 (in the name "\\u2067x")');
    // A path of one name has no name to repeat.
    expect(refused('\u202etxt.exe').message).toContain('at character 1,');
  });

  it('says where a control character is', () => {
    expect(refused('notes/a\u001bb.md').message).toContain('U+001B (a newline, tab, NUL or similar) at character 8 (in the name "a\\u001bb.md")');
  });

  it('accepts right-to-left text itself, which needs no controls', () => {
    expect(parsePath('מסמכים/דוח.txt').segments).toEqual(['מסמכים', 'דוח.txt']);
    expect(parsePath('تقرير.md').segments).toEqual(['تقرير.md']);
  });

  it('refuses names over 255 UTF-8 bytes and paths over 4096', () => {
    expect(refused('x'.repeat(256)).message).toContain('longer than 255 bytes');
    expect(refused(`a/${'é'.repeat(128)}`).message).toContain('longer than 255 bytes');
    expect(refused(Array.from({ length: 17 }, () => 'y'.repeat(250)).join('/')).message).toContain(`longer than ${MAX_PATH_BYTES} bytes`);
  });

  it('quotes the offending input, shortened when long', () => {
    expect(refused('a//b').message).toContain('"a//b"');
    const message = refused(`${'z'.repeat(300)}//b`).message;
    expect(message).toContain('…');
    expect(message.length).toBeLessThan(500);
  });
});

describe('helpers', () => {
  it('displayOf', () => {
    expect(displayOf(['a', 'b', 'c'], 0)).toBe('/');
    expect(displayOf(['a', 'b', 'c'], 2)).toBe('/a/b');
    expect(displayOf(['a', 'b'])).toBe('/a/b');
  });

  it('extensionOf', () => {
    expect(extensionOf('a.PNG')).toBe('png');
    expect(extensionOf('archive.tar.gz')).toBe('gz');
    expect(extensionOf('.bashrc')).toBe('');
    expect(extensionOf('README')).toBe('');
    expect(extensionOf('dot.')).toBe('');
  });
});
