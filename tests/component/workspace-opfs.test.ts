/**
 * The workspace on the real Origin Private File System of headless Chromium: each test works in
 * a fresh folder of its own under the OPFS root, removed afterwards.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cdp } from 'vitest/browser';
import { WorkspaceError, type WorkspaceErrorCode } from '../../lib/workspace/errors';
import { DEFAULT_LIST_LIMIT, openWorkspace, Workspace, WORKSPACE_DIR, type BlobReadResult, type TextReadResult } from '../../lib/workspace/workspace';

let opfs: FileSystemDirectoryHandle;
let folder: FileSystemDirectoryHandle;
let folderName: string;
let ws: Workspace;

beforeEach(async () => {
  opfs = await navigator.storage.getDirectory();
  folderName = `test-${crypto.randomUUID()}`;
  folder = await opfs.getDirectoryHandle(folderName, { create: true });
  ws = new Workspace(folder);
});

afterEach(async () => {
  await opfs.removeEntry(folderName, { recursive: true }).catch(() => undefined);
});

const base64 = (bytes: Uint8Array) => {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
};
const sameBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i]);

async function names(dir: FileSystemDirectoryHandle = folder): Promise<string[]> {
  const out: string[] = [];
  for await (const key of dir.keys()) out.push(key);
  return out.sort();
}

async function fails(promise: Promise<unknown>, code: WorkspaceErrorCode): Promise<WorkspaceError> {
  try {
    await promise;
  } catch (e) {
    expect(e).toBeInstanceOf(WorkspaceError);
    expect((e as WorkspaceError).code, (e as Error).message).toBe(code);
    return e as WorkspaceError;
  }
  throw new Error(`expected a ${code} error`);
}

const asText = (r: unknown) => {
  expect((r as TextReadResult).kind).toBe('text');
  return r as TextReadResult;
};
const asBlob = (r: unknown) => {
  expect((r as BlobReadResult).kind).toBe('blob');
  return r as BlobReadResult;
};

describe('write and read', () => {
  it('writes text, creating parent folders, and reads it back', async () => {
    const written = await ws.write('notes/2024/todo.md', '# Todo\n- milk\n');
    expect(written).toEqual({ path: '/notes/2024/todo.md', size: 14, created: true });
    expect(await names()).toEqual(['notes']);
    const read = asText(await ws.read('/notes/2024/todo.md'));
    expect(read).toMatchObject({ path: '/notes/2024/todo.md', content: '# Todo\n- milk\n', encoding: 'utf-8', size: 14, total_lines: 2, truncated: false });
    expect(read.note).toBeUndefined();
    expect(Math.abs(read.last_modified - Date.now())).toBeLessThan(60_000);
  });

  it('overwrites, leaving nothing of the longer old content', async () => {
    await ws.write('a.txt', 'a long first version\n');
    const second = await ws.write('a.txt', 'short');
    expect(second.created).toBe(false);
    expect(asText(await ws.read('a.txt')).content).toBe('short');
  });

  it('round-trips binary through a base64 data URL byte for byte', async () => {
    const bytes = new Uint8Array(300_001);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 131 + (i >> 8)) & 0xff;
    bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const result = await ws.write('img/picture.png', `data:image/png;base64,${base64(bytes)}`);
    expect(result).toEqual({ path: '/img/picture.png', size: bytes.length, created: true, data_url_type: 'image/png' });
    const read = asBlob(await ws.read('img/picture.png'));
    expect(read).toMatchObject({ mime_type: 'image/png', detected: 'binary', format: 'PNG image', size: bytes.length });
    expect(sameBytes(read.bytes, bytes)).toBe(true);
    // The same through a Blob, as the tool layer will show it.
    const blob = new Blob([read.bytes as BlobPart], { type: read.mime_type });
    expect(sameBytes(new Uint8Array(await blob.arrayBuffer()), bytes)).toBe(true);
  });

  it('round-trips every byte value through a percent-encoded data URL', async () => {
    const bytes = Uint8Array.from({ length: 256 }, (_, i) => i);
    const encoded = [...bytes].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
    await ws.write('all.bin', `data:application/octet-stream,${encoded}`);
    expect(sameBytes((await ws.readBytes('all.bin')).bytes, bytes)).toBe(true);
  });

  it('writes bytes and Blobs as given', async () => {
    await ws.write('u8.bin', Uint8Array.from([0, 1, 2, 255]));
    await ws.write('blob.txt', new Blob(['from a blob']));
    expect([...(await ws.readBytes('u8.bin')).bytes]).toEqual([0, 1, 2, 255]);
    expect(asText(await ws.read('blob.txt')).content).toBe('from a blob');
  });

  it('decodes data URLs with the native decoder (white space, base64url) and reports faults precisely', async () => {
    expect((Uint8Array as unknown as { fromBase64?: unknown }).fromBase64).toBeTypeOf('function');
    await ws.write('w.bin', 'data:;base64,AAEC\n AwQF');
    expect([...(await ws.readBytes('w.bin')).bytes]).toEqual([0, 1, 2, 3, 4, 5]);
    await ws.write('u.bin', 'data:;base64,-_8');
    expect([...(await ws.readBytes('u.bin')).bytes]).toEqual([0xfb, 0xff]);
    const error = await fails(ws.write('bad.png', 'data:image/png;base64,iVBOR*w0K'), 'invalid_data_url');
    expect(error.message).toContain('the character "*" at position 6');
    expect(await names()).toEqual(['u.bin', 'w.bin']);
  });

  it('keeps text that merely starts with "data:" as text, and a data URL as text when asked', async () => {
    await ws.write('config.yaml', 'data: 1\nmore: 2\n');
    expect(asText(await ws.read('config.yaml')).content).toBe('data: 1\nmore: 2\n');
    const written = await ws.write('url.txt', 'data:,hello', { decodeDataUrl: false });
    expect(written).toEqual({ path: '/url.txt', size: 11, created: true });
    expect(asText(await ws.read('url.txt')).content).toBe('data:,hello');
  });

  it('decides text or binary by the bytes, not the name', async () => {
    await ws.write('looks-like.png', 'plain words');
    expect(asText(await ws.read('looks-like.png')).content).toBe('plain words');
    await ws.write('looks-like.txt', Uint8Array.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]));
    expect(asBlob(await ws.read('looks-like.txt'))).toMatchObject({ mime_type: 'application/gzip', format: 'gzip-compressed data' });
  });

  it('reads UTF-16 with a BOM as text', async () => {
    const text = 'Grüße\nzweite Zeile\n';
    const bytes = new Uint8Array(2 + text.length * 2);
    bytes.set([0xff, 0xfe]);
    for (let i = 0; i < text.length; i++) bytes[2 + 2 * i] = text.charCodeAt(i);
    await ws.write('utf16.txt', bytes);
    expect(asText(await ws.read('utf16.txt'))).toMatchObject({ content: text, encoding: 'utf-16le', total_lines: 2 });
  });

  it('pages a 1,000-line file: 200 lines and a note by default, offset/limit after', async () => {
    const text = Array.from({ length: 1000 }, (_, i) => `row ${i + 1}`).join('\n') + '\n';
    await ws.write('big.txt', text);
    const first = asText(await ws.read('big.txt'));
    expect(first).toMatchObject({ offset: 1, lines: 200, total_lines: 1000, truncated: true });
    expect(first.content.split('\n').slice(-2)).toEqual(['row 200', '']);
    expect(first.note).toContain('offset=201');

    const middle = asText(await ws.read('big.txt', { offset: 500, limit: 2 }));
    expect(middle).toMatchObject({ content: 'row 500\nrow 501\n', offset: 500, lines: 2, total_lines: 1000 });

    let all = '';
    for (let offset = 1; offset <= 1000; offset += 300) all += asText(await ws.read('big.txt', { mode: 'text', offset, limit: 300 })).content;
    expect(all).toBe(text);
    await fails(ws.read('big.txt', { offset: 1001 }), 'invalid_argument');
  });

  it('blob mode gives bytes and a type for text too; text mode decodes binary anyway', async () => {
    await ws.write('page.html', '<!doctype html><p>hi</p>');
    const blob = asBlob(await ws.read('page.html', { mode: 'blob' }));
    expect(blob).toMatchObject({ mime_type: 'text/html;charset=utf-8', detected: 'text' });
    expect(blob.note).toBeUndefined();
    expect(asBlob(await ws.read('page.html', { mode: 'blob', offset: 2 })).note).toContain('they apply to mode "text"');
    await ws.write('raw.bin', Uint8Array.from([0x41, 0, 0x42]));
    expect(asText(await ws.read('raw.bin', { mode: 'text' }))).toMatchObject({ content: 'A\0B', looks_binary: true });
    const auto = asBlob(await ws.read('raw.bin', { limit: 5 }));
    expect(auto.note).toContain('offset and limit were ignored');
    await fails(ws.read('raw.bin', { mode: 'lines' as 'text' }), 'invalid_argument');
  });

  it('reads again when the file changed between getFile() and reading it', async () => {
    await ws.write('changing.txt', 'old');
    const real = await folder.getFileHandle('changing.txt');
    const stale = await real.getFile();
    await ws.write('changing.txt', 'new content');
    await expect(stale.text()).rejects.toThrow(); // a stale snapshot is not readable
    let calls = 0;
    const handle = { kind: 'file', name: real.name, getFile: () => (calls++ === 0 ? Promise.resolve(stale) : real.getFile()) };
    const dir = { getFileHandle: async () => handle, getDirectoryHandle: () => Promise.reject(new DOMException('', 'NotFoundError')) };
    const reader = new Workspace(dir as unknown as FileSystemDirectoryHandle);
    expect(asText(await reader.read('changing.txt')).content).toBe('new content');
    expect(calls).toBe(2);
  });

  it('two writes to one file at once leave one of them whole', async () => {
    const a = 'A'.repeat(100_000);
    const b = 'B'.repeat(50_000);
    await Promise.all([ws.write('race.txt', a), ws.write('race.txt', b)]);
    const content = new TextDecoder().decode((await ws.readBytes('race.txt')).bytes);
    expect([a, b]).toContain(content);
    expect(await names()).toEqual(['race.txt']);
  });
});

describe('paths stay inside the workspace', () => {
  const ESCAPES = ['..', '../x', '../secret/key.txt', 'a/../../x', '/../x', '//x', 'C:/x', 'C:\\x', '~/x', '~', 'a\\..\\x', 'a//b', 'a\0b', 'a\nb', 'file:///x', `${'n'.repeat(256)}`];

  it.each(ESCAPES)('%j is refused by every operation, and nothing changes', async (path) => {
    const secret = await opfs.getDirectoryHandle(`${folderName}-sibling`, { create: true });
    try {
      await (await secret.getFileHandle('key.txt', { create: true })).createWritable().then(async (w) => {
        await w.write('secret');
        await w.close();
      });
      await ws.write('keep.txt', 'keep');
      const before = await names(opfs);
      for (const op of [ws.write(path, 'x'), ws.read(path), ws.list(path), ws.delete(path), ws.stat(path)]) {
        const error = await fails(op, 'invalid_path');
        expect(error.message).toContain('A valid path is relative to the workspace root');
      }
      expect(await names(opfs)).toEqual(before);
      expect(await names()).toEqual(['keep.txt']);
      expect(await (await (await secret.getFileHandle('key.txt')).getFile()).text()).toBe('secret');
    } finally {
      await opfs.removeEntry(`${folderName}-sibling`, { recursive: true });
    }
  });

  it('treats a leading "/" and "./" as the workspace root', async () => {
    await ws.write('/a/b.txt', 'x');
    expect(asText(await ws.read('./a/b.txt')).content).toBe('x');
    expect(asText(await ws.read('a/./b.txt')).path).toBe('/a/b.txt');
  });

  it('lists the root for "" and "/" but refuses to write or delete it', async () => {
    await ws.write('x.txt', 'x');
    expect((await ws.list('')).entries.map((e) => e.name)).toEqual(['x.txt']);
    expect((await ws.list('/')).path).toBe('/');
    expect((await ws.list()).entries).toHaveLength(1);
    await fails(ws.write('/', 'x'), 'root_refused');
    await fails(ws.write('', 'x'), 'root_refused');
    await fails(ws.delete('/'), 'root_refused');
    await fails(ws.delete(''), 'root_refused');
    await fails(ws.read('/'), 'not_a_file');
    expect(await ws.stat('/')).toEqual({ path: '/', kind: 'directory' });
    expect(await names()).toEqual(['x.txt']);
  });

  it('refuses to write to a path ending in "/"', async () => {
    const error = await fails(ws.write('notes/', 'x'), 'invalid_path');
    expect(error.message).toContain('"/notes/file.txt"');
    expect(await names()).toEqual([]);
  });

  it('openWorkspace uses the "workspace" folder of the OPFS root', async () => {
    const workspace = await openWorkspace();
    expect(workspace.root.name).toBe(WORKSPACE_DIR);
    const probe = `probe-${crypto.randomUUID()}.txt`;
    await workspace.write(probe, 'p');
    const wsFolder = await opfs.getDirectoryHandle(WORKSPACE_DIR);
    expect(await (await (await wsFolder.getFileHandle(probe)).getFile()).text()).toBe('p');
    await workspace.delete(probe);
    // A sibling of the workspace folder is not reachable by any path.
    await fails(workspace.read(`../${folderName}/x`), 'invalid_path');
  });
});

describe('list', () => {
  it('gives folders first, then files, in natural order, with size and time for files', async () => {
    for (const name of ['file10.txt', 'file2.txt', 'File1.txt', 'b.bin']) await ws.write(name, name);
    await ws.write('zeta/inner.txt', 'x');
    await ws.write('alpha/inner.txt', 'x');
    const listed = await ws.list();
    expect(listed.entries.map((e) => `${e.kind[0]}:${e.name}`)).toEqual(['d:alpha', 'd:zeta', 'f:b.bin', 'f:File1.txt', 'f:file2.txt', 'f:file10.txt']);
    expect(listed).toMatchObject({ path: '/', total: 6, offset: 1, truncated: false, files: 4, directories: 2 });
    expect(listed.entries[0]).toEqual({ name: 'alpha', kind: 'directory' });
    const file = listed.entries.find((e) => e.name === 'file10.txt')!;
    expect(file.size).toBe(10);
    expect(Math.abs(file.last_modified! - Date.now())).toBeLessThan(60_000);
    expect((await ws.list('alpha')).entries).toEqual([expect.objectContaining({ name: 'inner.txt', kind: 'file', size: 1 })]);
  });

  it('pages with offset/limit over the sorted entries, with the whole folder\'s counts', async () => {
    await folder.getDirectoryHandle('sub', { create: true });
    for (let i = 1; i <= 12; i++) await ws.write(`n${i}.txt`, 'x'.repeat(i));
    const page = await ws.list('/', { offset: 5, limit: 3 });
    expect(page.entries.map((e) => e.name)).toEqual(['n4.txt', 'n5.txt', 'n6.txt']);
    expect(page.entries.map((e) => e.size)).toEqual([4, 5, 6]);
    expect(page).toMatchObject({ total: 13, offset: 5, truncated: true, files: 12, directories: 1 });
    expect(page.note).toBe('Showing entries 5–7 of 13 (folders first, then files by name). To see more, call again with offset=8.');
    const last = await ws.list('/', { offset: 12, limit: 10 });
    expect(last.entries.map((e) => e.name)).toEqual(['n11.txt', 'n12.txt']);
    expect(last.truncated).toBe(false);
    expect(last.note).toBe('Showing entries 12–13 of 13 (folders first, then files by name).');
    const past = await ws.list('/', { offset: 50 });
    expect(past.entries).toEqual([]);
    expect(past.note).toBe('offset 50 is past the last entry: the folder has 13.');
    expect((await ws.list('/')).note).toBeUndefined();
    await fails(ws.list('/', { offset: 0 }), 'invalid_argument');
    await fails(ws.list('/', { limit: 0 }), 'invalid_argument');
  });

  it('lists an empty folder', async () => {
    await folder.getDirectoryHandle('empty', { create: true });
    expect(await ws.list('empty/')).toEqual({ path: '/empty', entries: [], total: 0, offset: 1, truncated: false, files: 0, directories: 0 });
  });

  it('does not show the swap file of a write in progress', async () => {
    await ws.write('doc.txt', 'v1');
    const handle = await folder.getFileHandle('doc.txt');
    const writable = await handle.createWritable();
    await writable.write('v2 in progress');
    const second = await handle.createWritable();
    // Chromium's swap files sit beside the target while the writes are open…
    expect(await names()).toEqual(['doc.txt', 'doc.txt.1.crswap', 'doc.txt.crswap']);
    // …and are neither listed nor reachable.
    expect((await ws.list()).entries.map((e) => e.name)).toEqual(['doc.txt']);
    await fails(ws.read('doc.txt.crswap'), 'invalid_path');
    expect(asText(await ws.read('doc.txt')).content).toBe('v1');
    // Deleting the file while it is being written is refused as busy.
    await fails(ws.delete('doc.txt'), 'busy');
    await second.abort();
    await writable.close();
    expect(asText(await ws.read('doc.txt')).content).toBe('v2 in progress');
  });

  it('lists 3,000 files: the first DEFAULT_LIST_LIMIT by default, all with limit Infinity', async () => {
    const handles = await Promise.all(Array.from({ length: 3000 }, (_, i) => folder.getFileHandle(`f${i}.txt`, { create: true })));
    expect(handles).toHaveLength(3000);
    const page = await ws.list();
    expect(page).toMatchObject({ total: 3000, files: 3000, offset: 1, truncated: true });
    expect(page.entries).toHaveLength(DEFAULT_LIST_LIMIT);
    const t0 = performance.now();
    const listed = await ws.list('/', { limit: Number.POSITIVE_INFINITY });
    const ms = performance.now() - t0;
    expect(listed.entries).toHaveLength(3000);
    expect(listed.truncated).toBe(false);
    expect(listed.entries[0]!.name).toBe('f0.txt');
    expect(listed.entries[2999]!.name).toBe('f2999.txt');
    expect(listed.entries.every((e) => e.size === 0 && typeof e.last_modified === 'number')).toBe(true);
    expect(ms).toBeLessThan(5000);
  });
});

describe('delete', () => {
  it('deletes a file', async () => {
    await ws.write('a/b.txt', 'x');
    expect(await ws.delete('a/b.txt')).toEqual({ path: '/a/b.txt', kind: 'file' });
    expect((await ws.list('a')).entries).toEqual([]);
  });

  it('deletes a folder with everything in it', async () => {
    await ws.write('tree/a.txt', 'a');
    await ws.write('tree/sub/b.txt', 'b');
    await ws.write('tree/sub/deeper/c.bin', Uint8Array.from([1]));
    await ws.write('keep.txt', 'k');
    expect(await ws.delete('/tree/')).toEqual({ path: '/tree', kind: 'directory' });
    expect(await names()).toEqual(['keep.txt']);
    await fails(ws.read('tree/sub/b.txt'), 'not_found');
  });

  it('reports a missing entry', async () => {
    const error = await fails(ws.delete('ghost.txt'), 'not_found');
    expect(error.message).toContain('"/ghost.txt" does not exist');
  });
});

describe('errors the model can act on', () => {
  it('not found: names the nearest existing folder and suggests opfs_list', async () => {
    await ws.write('docs/guide/intro.md', 'x');
    const deep = await fails(ws.read('docs/guide/missing/file.md'), 'not_found');
    expect(deep.message).toBe('"/docs/guide/missing/file.md" does not exist: "/docs/guide" has no "missing". The nearest existing folder is "/docs/guide"; call opfs_list with path "/docs/guide" to see what it holds.');
    const leaf = await fails(ws.read('docs/guide/outro.md'), 'not_found');
    expect(leaf.message).toContain('"/docs/guide/outro.md" does not exist.');
    expect(leaf.message).toContain('call opfs_list with path "/docs/guide"');
    const top = await fails(ws.list('nowhere'), 'not_found');
    expect(top.message).toContain('The nearest existing folder is "/"');
  });

  it('not found: suggests a name that differs only in case', async () => {
    await ws.write('Reports/Q1.csv', 'x');
    const error = await fails(ws.read('reports/Q1.csv'), 'not_found');
    expect(error.message).toContain('Did you mean "/Reports"? Names are case-sensitive.');
  });

  it('reading a folder as a file', async () => {
    await ws.write('dir/x.txt', 'x');
    const error = await fails(ws.read('dir'), 'not_a_file');
    expect(error.message).toContain('"/dir" is a folder, not a file. Use opfs_list');
  });

  it('writing over a folder', async () => {
    await ws.write('dir/x.txt', 'x');
    const error = await fails(ws.write('dir', 'x'), 'not_a_file');
    expect(error.message).toContain('it is a folder');
    expect((await ws.list('dir')).files).toBe(1);
  });

  it('writing where a parent segment is a file leaves no folders behind', async () => {
    await ws.write('a.txt', 'x');
    const under = await fails(ws.write('a.txt/b/c.txt', 'x'), 'not_a_directory');
    expect(under.message).toContain('"/a.txt" is a file, not a folder, so "/a.txt/b/c.txt" cannot be inside it');
    await fails(ws.write('new/a.txt/c.txt', 'x').then(() => ws.write('new/a.txt/c.txt/d.txt', 'x')), 'not_a_directory');
    expect(await names()).toEqual(['a.txt', 'new']);
    expect(asText(await ws.read('a.txt')).content).toBe('x');
  });

  it('listing a file', async () => {
    await ws.write('notes/a.md', 'x');
    const error = await fails(ws.list('notes/a.md'), 'not_a_directory');
    expect(error.message).toBe('"/notes/a.md" is a file, not a folder. Read it with opfs_read, or list its folder "/notes".');
  });

  it('reading through a file', async () => {
    await ws.write('a.txt', 'x');
    await fails(ws.read('a.txt/b'), 'not_a_directory');
  });

  it('an invalid data URL writes nothing (not even folders)', async () => {
    const error = await fails(ws.write('new/folder/x.png', 'data:image/png;base64,abcde'), 'invalid_data_url');
    expect(error.message).toContain('one character too many or too few');
    expect(await names()).toEqual([]);
  });
});

// --- storage failures ----------------------------------------------------------------------------

type Fault = 'createWritable' | 'write' | 'close';

const quotaError = () => new DOMException('The quota has been exceeded.', 'QuotaExceededError');

/**
 * A folder whose files fail at one step of a write as a full disk would. Handles are wrapped
 * (not proxied): native methods refuse a Proxy as `this`.
 */
function faulty(dir: FileSystemDirectoryHandle, fault: Fault): FileSystemDirectoryHandle {
  const wrapFile = (file: FileSystemFileHandle) =>
    ({
      kind: 'file',
      name: file.name,
      getFile: () => file.getFile(),
      createWritable: async (options?: FileSystemCreateWritableOptions) => {
        if (fault === 'createWritable') throw quotaError();
        const writable = await file.createWritable(options);
        return {
          write: async (data: FileSystemWriteChunkType) => {
            if (fault === 'write') throw quotaError();
            await writable.write(data);
          },
          close: async () => {
            if (fault === 'close') throw quotaError();
            await writable.close();
          },
          abort: (reason?: unknown) => writable.abort(reason),
        };
      },
    }) as unknown as FileSystemFileHandle;
  return {
    kind: 'directory',
    name: dir.name,
    getDirectoryHandle: async (name: string, options?: FileSystemGetDirectoryOptions) => faulty(await dir.getDirectoryHandle(name, options), fault),
    getFileHandle: async (name: string, options?: FileSystemGetFileOptions) => wrapFile(await dir.getFileHandle(name, options)),
    removeEntry: (name: string, options?: FileSystemRemoveOptions) => dir.removeEntry(name, options),
    keys: () => dir.keys(),
    values: () => dir.values(),
    entries: () => dir.entries(),
  } as unknown as FileSystemDirectoryHandle;
}

describe('quota exceeded: nothing half-written', () => {
  it.each<Fault>(['createWritable', 'write', 'close'])('a failure at %s keeps the old content of an existing file', async (fault) => {
    await ws.write('data/report.csv', 'old,content\n');
    const broken = new Workspace(faulty(folder, fault));
    const error = await fails(broken.write('data/report.csv', 'new,content,much,longer\n'), 'quota_exceeded');
    expect(error.message).toContain('storage quota is used up');
    expect(error.message).toContain('Nothing was written');
    expect(error.message).toContain('opfs_delete');
    expect(asText(await ws.read('data/report.csv')).content).toBe('old,content\n');
    expect(await names()).toEqual(['data']);
  });

  it.each<Fault>(['createWritable', 'write', 'close'])('a failure at %s leaves no new file and no new folders', async (fault) => {
    await ws.write('existing/keep.txt', 'k');
    const broken = new Workspace(faulty(folder, fault));
    await fails(broken.write('existing/new/deeper/file.bin', Uint8Array.from([1, 2, 3])), 'quota_exceeded');
    await fails(broken.write('fresh.txt', 'x'), 'quota_exceeded');
    expect(await names()).toEqual(['existing']);
    expect((await ws.list('existing')).entries.map((e) => e.name)).toEqual(['keep.txt']);
  });

  it('with a real quota (CDP Storage.overrideQuotaForOrigin), a write over quota fails cleanly', async () => {
    const session = cdp();
    const { usage = 0 } = await navigator.storage.estimate();
    await session.send('Storage.overrideQuotaForOrigin', { origin: location.origin, quotaSize: usage + 512 * 1024 });
    try {
      await ws.write('small.txt', 'fits');
      const big = new Uint8Array(4 * 1024 * 1024).fill(0x61);
      const error = await fails(ws.write('big/huge.txt', big), 'quota_exceeded');
      // QuotaExceededError or, at times, the AbortError; estimate() does not see the override,
      // so no figures are added.
      expect(error.message).toMatch(/^Cannot write "\/big\/huge.txt" \(4 MB\): .*storage quota is used up\. Nothing was written\./);
      // Overwriting reports the quota as "AbortError: Failed to write data to data pipe" at times.
      await fails(ws.write('small.txt', big), 'quota_exceeded');
      expect(asText(await ws.read('small.txt')).content).toBe('fits');
      expect(await names()).toEqual(['small.txt']);
    } finally {
      await session.send('Storage.overrideQuotaForOrigin', { origin: location.origin });
    }
    await ws.write('big/huge.txt', new Uint8Array(4 * 1024 * 1024));
    expect((await ws.stat('big/huge.txt')).size).toBe(4 * 1024 * 1024);
  });
});

describe('contexts', () => {
  it('a dedicated worker has OPFS and createWritable', async () => {
    const source = `postMessage({ dir: typeof navigator.storage?.getDirectory, writable: typeof FileSystemFileHandle?.prototype.createWritable })`;
    const worker = new Worker(URL.createObjectURL(new Blob([source], { type: 'text/javascript' })));
    const result = await new Promise((resolve) => (worker.onmessage = (e) => resolve(e.data)));
    worker.terminate();
    expect(result).toEqual({ dir: 'function', writable: 'function' });
  });
});
