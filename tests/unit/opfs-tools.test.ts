import { describe, expect, it } from 'vitest';
import { defaultSettings } from '../../lib/settings';
import { detachedEnv } from '../../lib/tools/env';
import { opfsTools } from '../../lib/tools/opfs';
import { ToolRegistry, type ToolContext } from '../../lib/tools/registry';
import { TaskBoard } from '../../lib/tools/task-board';

// Validation happens before the workspace is touched: the detached env would throw if it were.
const ctx: ToolContext = { conversationId: 'c', signal: new AbortController().signal, tasks: new TaskBoard(), env: detachedEnv(defaultSettings()) };
const registry = new ToolRegistry(opfsTools);

describe('opfs tools refuse bad input before touching the workspace', () => {
  it.each<[string, string, unknown, RegExp]>([
    ['opfs_write', 'no path', { content: 'x' }, /path/],
    ['opfs_write', 'no content', { path: 'a.txt' }, /content/],
    ['opfs_write', 'a number as content', { path: 'a.txt', content: 42 }, /content.*string/],
    ['opfs_write', 'an empty path', { path: '', content: 'x' }, /path.*empty/],
    ['opfs_write', 'a 200 MB data URL', { path: 'big.bin', content: `data:application/octet-stream;base64,${'A'.repeat(200 * 1024 * 1024)}` }, /limit is/],
    ['opfs_read', 'no path', {}, /path/],
    ['opfs_read', 'an unknown mode', { path: 'a.txt', mode: 'binary' }, /mode.*"text", "blob" or "auto"/],
    ['opfs_read', 'offset 0', { path: 'a.txt', offset: 0 }, /offset.*at least 1/],
    ['opfs_read', 'a fractional limit', { path: 'a.txt', limit: 2.5 }, /limit.*whole number/],
    ['opfs_read', 'offset as text', { path: 'a.txt', offset: '10' }, /offset.*number/],
    ['opfs_list', 'a number as path', { path: 7 }, /path.*string/],
    ['opfs_list', 'an unknown argument', { folder: 'a' }, /folder/],
    ['opfs_list', 'offset 0', { offset: 0 }, /offset.*at least 1/],
    ['opfs_delete', 'no path', {}, /path/],
    ['opfs_delete', 'a list as path', { path: ['a'] }, /path.*string/],
  ])('%s with %s', async (tool, _name, input, message) => {
    const out = await registry.call(tool, input, ctx);
    expect(out.isError).toBe(true);
    expect(out.content).toMatch(message);
    expect(out.content).not.toMatch(/not available here/);
  });
});
