import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BrowserName } from '../harness/browsers';
import { agentSession } from '../harness/session';

const browsers: BrowserName[] = ['chromium', 'firefox'];

// A 1x1 PNG as the model would send it.
const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

describe.each(browsers)('workspace tools in %s', (name) => {
  const session = agentSession(name);
  const call = (tool: string, input: Record<string, unknown>) => () => ({ name: tool, input });

  it('round-trips binary content through a data URL and a blob URL of the extension', async () => {
    const [written, read] = await session.agentRuns([
      call('opfs_write', { path: 'images/dot.png', content: `data:image/png;base64,${PNG_BASE64}` }),
      call('opfs_read', { path: 'images/dot.png' }),
    ]);
    const size = Buffer.from(PNG_BASE64, 'base64').length;
    expect(written).toMatchObject({ isError: false, content: { path: '/images/dot.png', size } });
    expect(read!.isError).toBe(false);
    expect(read!.content).toMatchObject({ path: '/images/dot.png', mime_type: 'image/png', size });
    const url: string = read!.content.blob_url;
    expect(url).toMatch(new RegExp(`^blob:${session.ext.origin.replace(/[/.]/g, '\\$&')}/`));
    // The URL works from another page of the extension, byte for byte.
    const base64 = await session.popup.page.evaluate(async (u) => {
      const bytes = new Uint8Array(await (await fetch(u)).arrayBuffer());
      return btoa(String.fromCharCode(...bytes));
    }, url);
    expect(base64).toBe(PNG_BASE64);
  });

  it('pages a 1,000-line file: the first 200 lines with a note, then any range', async () => {
    const lines = Array.from({ length: 1000 }, (_, i) => `line ${i + 1}`).join('\n');
    const [, first, tail, list] = await session.agentRuns([
      call('opfs_write', { path: '/logs/big.txt', content: lines }),
      call('opfs_read', { path: 'logs/big.txt' }),
      call('opfs_read', { path: 'logs/big.txt', offset: 990, limit: 20 }),
      call('opfs_list', { path: 'logs' }),
    ]);
    expect(first!.content).toMatchObject({ offset: 1, lines: 200, total_lines: 1000, truncated: true, note: expect.stringMatching(/offset/) });
    expect(first!.content.content.trimEnd().split('\n').at(-1)).toBe('line 200');
    expect(tail!.content).toMatchObject({ offset: 990, lines: 11, total_lines: 1000, truncated: false });
    expect(tail!.content.content.trimEnd().split('\n')).toEqual(Array.from({ length: 11 }, (_, i) => `line ${990 + i}`));
    expect(list!.content.entries).toEqual([{ name: 'big.txt', kind: 'file', size: lines.length, last_modified: expect.any(Number) }]);
  });

  it('refuses every path that would leave the workspace, and writes nothing', async () => {
    const escapes = ['../outside.txt', 'a/../../b.txt', 'C:/x.txt', 'a\\b.txt', 'a//b.txt', 'nul\u0000.txt', `${'x'.repeat(256)}.txt`];
    const results = await session.agentRuns([...escapes.map((p) => call('opfs_write', { path: p, content: 'x' })), call('opfs_list', {})]);
    for (const r of results.slice(0, -1)) expect(r).toMatchObject({ isError: true, content: expect.stringMatching(/Invalid path|too long|more than 255/i) });
    const names = results.at(-1)!.content.entries.map((e: { name: string }) => e.name);
    expect(names.some((n: string) => /outside|b\.txt|x\.txt/.test(n))).toBe(false);
  });

  it('refuses a malformed data URL with what is wrong, and leaves no file', async () => {
    const [bad, list] = await session.agentRuns([call('opfs_write', { path: 'bad.png', content: 'data:image/png;base64,iVBOR*w0K' }), call('opfs_list', {})]);
    expect(bad).toMatchObject({ isError: true, content: expect.stringMatching(/data URL.*position/i) });
    expect(list!.content.entries.map((e: { name: string }) => e.name)).not.toContain('bad.png');
  });

  it('deletes files and whole folders; a missing path is a clear error', async () => {
    const [, , gone, list, missing, root] = await session.agentRuns([
      call('opfs_write', { path: 'tmp/a/one.txt', content: '1' }),
      call('opfs_write', { path: 'tmp/two.txt', content: '2' }),
      call('opfs_delete', { path: 'tmp' }),
      call('opfs_list', {}),
      call('opfs_read', { path: 'tmp/two.txt' }),
      call('opfs_delete', { path: '/' }),
    ]);
    expect(gone).toMatchObject({ isError: false, content: { path: '/tmp', kind: 'directory' } });
    expect(list!.content.entries.map((e: { name: string }) => e.name)).not.toContain('tmp');
    expect(missing).toMatchObject({ isError: true, content: expect.stringMatching(/not found|does not exist|No file/i) });
    expect(root).toMatchObject({ isError: true });
  });

  it('the management page lists, shows, uploads and deletes workspace files', async () => {
    await session.agentRuns([call('opfs_write', { path: 'notes/hello.md', content: '# Hello\nWritten by the agent.\n' })]);
    const page = await session.ext.open('options.html#workspace', { width: 900, height: 700 });
    page.on('dialog', (d) => void d.accept());
    await page.waitForSelector('[data-entry="notes"][data-kind="directory"] button', { timeout: 10_000 });
    await page.click('[data-entry="notes"] button');
    await page.waitForSelector('[data-entry="hello.md"]', { timeout: 10_000 });
    await page.click('button[aria-label="View hello.md"]');
    await page.waitForSelector('[data-viewer]');
    expect(await page.$eval('[data-viewer]', (el) => el.textContent)).toBe('# Hello\nWritten by the agent.\n');

    // Upload a file from disk into the folder shown.
    const file = path.join(await fs.mkdtemp(path.join(os.tmpdir(), 'pw-upload-')), 'data.csv');
    await fs.writeFile(file, 'a,b\n1,2\n');
    const input = await page.$('input[data-upload]');
    await input!.uploadFile(file);
    await page.waitForSelector('[data-entry="data.csv"]', { timeout: 10_000 });
    const [read] = await session.agentRuns([call('opfs_read', { path: 'notes/data.csv' })]);
    expect(read!.content).toMatchObject({ content: 'a,b\n1,2\n', total_lines: 2 });

    await page.click('button[aria-label="Delete data.csv"]');
    await page.waitForFunction(() => !document.querySelector('[data-entry="data.csv"]'), { polling: 100, timeout: 10_000 });
    await page.close();
  });
});
