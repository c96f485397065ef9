/**
 * journal_write and text_to_chart: the real Workspace over an in-memory stand-in for OPFS
 * (Node has no OPFS; the real one is covered by the component and e2e tests).
 */
import { XMLValidator } from 'fast-xml-parser';
import { beforeEach, describe, expect, it } from 'vitest';
import { defaultSettings } from '../../lib/settings';
import { builtinSkillTools } from '../../lib/skills/builtin';
import { appendJournalEntry, countJournalEntries, journalPath } from '../../lib/skills/builtin/journal';
import { chartFileName } from '../../lib/skills/builtin/text-to-chart';
import type { SkillServices } from '../../lib/skills/services';
import type { SkillRecord } from '../../lib/skills/types';
import { detachedEnv } from '../../lib/tools/env';
import { ToolRegistry, type ToolContext } from '../../lib/tools/registry';
import { TaskBoard } from '../../lib/tools/task-board';
import { Workspace } from '../../lib/workspace';

// ---------- an in-memory FileSystemDirectoryHandle, as much of it as Workspace uses ----------

const domError = (name: string) => new DOMException(name, name);

class MemFile {
  readonly kind = 'file' as const;
  data = new Uint8Array();
  lastModified = Date.now();
  constructor(readonly name: string) {}
  async getFile() {
    return new File([this.data], this.name, { lastModified: this.lastModified });
  }
  async createWritable() {
    const chunks: Uint8Array[] = [];
    return {
      write: async (chunk: Uint8Array | Blob | string) => {
        chunks.push(chunk instanceof Blob ? new Uint8Array(await chunk.arrayBuffer()) : typeof chunk === 'string' ? new TextEncoder().encode(chunk) : chunk);
      },
      close: async () => {
        const size = chunks.reduce((n, c) => n + c.length, 0);
        const data = new Uint8Array(size);
        let at = 0;
        for (const c of chunks) data.set(c, (at += c.length) - c.length);
        this.data = data;
        this.lastModified = Date.now();
      },
      abort: async () => {},
    };
  }
}

class MemDir {
  readonly kind = 'directory' as const;
  readonly entries = new Map<string, MemDir | MemFile>();
  constructor(readonly name = '') {}
  async getDirectoryHandle(name: string, options: { create?: boolean } = {}) {
    const e = this.entries.get(name);
    if (e) {
      if (e.kind !== 'directory') throw domError('TypeMismatchError');
      return e;
    }
    if (!options.create) throw domError('NotFoundError');
    const dir = new MemDir(name);
    this.entries.set(name, dir);
    return dir;
  }
  async getFileHandle(name: string, options: { create?: boolean } = {}) {
    const e = this.entries.get(name);
    if (e) {
      if (e.kind !== 'file') throw domError('TypeMismatchError');
      return e;
    }
    if (!options.create) throw domError('NotFoundError');
    const file = new MemFile(name);
    this.entries.set(name, file);
    return file;
  }
  async removeEntry(name: string) {
    if (!this.entries.delete(name)) throw domError('NotFoundError');
  }
  async *values() {
    yield* this.entries.values();
  }
  async *keys() {
    yield* this.entries.keys();
  }
}

const memoryWorkspace = () => new Workspace(new MemDir() as unknown as FileSystemDirectoryHandle);

// ---------- harness ----------

const skill = (name: string, config = '{}', description = ''): SkillRecord => ({
  id: `skill-${name}`,
  name,
  description,
  skill_type: 'builtin',
  config_json: config,
  is_active: true,
  created_at: 0,
  updated_at: 0,
});
const services: SkillServices = { profiles: async () => [], mcp: {} as SkillServices['mcp'] };

let workspace: Workspace;
beforeEach(() => {
  workspace = memoryWorkspace();
});

async function harness(name: string, fn: string, conversationId = 'conv-1') {
  const tools = await builtinSkillTools(skill(name), { function_name: fn as never }, services);
  const registry = new ToolRegistry(tools);
  const ctx: ToolContext = {
    conversationId,
    signal: new AbortController().signal,
    tasks: new TaskBoard(),
    env: { ...detachedEnv(defaultSettings()), workspace: async () => workspace },
  };
  const call = async (input: unknown) => {
    const out = await registry.call(name, input, ctx);
    return out.isError ? { error: out.content } : { result: JSON.parse(out.content) };
  };
  return { call, registry };
}

const readText = async (path: string) => new TextDecoder().decode((await workspace.readBytes(path)).bytes);

// ---------- journal_write ----------

describe('journal_write', () => {
  it('puts the journal at /journals/<conversation id>.md, whatever the id holds', () => {
    expect(journalPath('3f2a-77')).toBe('/journals/3f2a-77.md');
    expect(journalPath('a/../b c')).toBe('/journals/a____b_c.md');
    expect(journalPath('')).toBe('/journals/conversation.md');
  });

  it('creates the journal with a heading, then appends timestamped entries', async () => {
    const { call } = await harness('diary', 'journal_write');
    const first = await call({ entry: 'Found **three** sources.', title: 'Research' });
    expect(first).toEqual({ result: { path: '/journals/conv-1.md', entries: 1, bytes: expect.any(Number), workspace_file: '/journals/conv-1.md' } });
    const second = await call({ entry: '- item one\n- item two\n\n' });
    expect(second.result).toMatchObject({ path: '/journals/conv-1.md', entries: 2 });

    const text = await readText('/journals/conv-1.md');
    expect(second.result.bytes).toBe(new TextEncoder().encode(text).length);
    expect(text).toMatch(/^# Journal\n\nConversation conv-1, started \d{4}-\d\d-\d\dT[\d:.]+Z\.\n/);
    expect(text).toMatch(/\n## \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z — Research\n\nFound \*\*three\*\* sources\.\n/);
    expect(text).toMatch(/\n## \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\n\n- item one\n- item two\n$/);
    expect(countJournalEntries(text)).toBe(2);
  });

  it('keeps one journal per conversation', async () => {
    await (await harness('j', 'journal_write', 'a')).call({ entry: 'in a' });
    await (await harness('j', 'journal_write', 'b')).call({ entry: 'in b' });
    expect(await readText('/journals/a.md')).toContain('in a');
    expect(await readText('/journals/b.md')).not.toContain('in a');
  });

  it('loses no entry when several are written at once', async () => {
    const { call } = await harness('j', 'journal_write');
    const outs = await Promise.all(Array.from({ length: 8 }, (_, i) => call({ entry: `entry ${i}` })));
    expect(outs.every((o) => 'result' in o)).toBe(true);
    const text = await readText(journalPath('conv-1'));
    for (let i = 0; i < 8; i++) expect(text).toContain(`entry ${i}`);
    expect(countJournalEntries(text)).toBe(8);
  });

  it('uses the time it is given, in ISO form', async () => {
    await appendJournalEntry(workspace, 'c', 'x', 'T', new Date('2025-03-04T05:06:07.089Z'));
    expect(await readText('/journals/c.md')).toContain('\n## 2025-03-04T05:06:07.089Z — T\n\nx\n');
  });

  it.each<[string, unknown, RegExp]>([
    ['no entry', {}, /"entry" is required/],
    ['an empty entry', { entry: '   ' }, /entry.*must not be empty/],
    ['a number as entry', { entry: 5 }, /entry.*string/],
    ['a title that is not a string', { entry: 'x', title: ['a'] }, /title.*string/],
    ['an unknown argument', { entry: 'x', file: 'y.md' }, /unknown argument "file"/],
    ['an entry of 100001 characters', { entry: 'x'.repeat(100_001) }, /entry.*at most 100000/],
  ])('refuses %s', async (_name, input, message) => {
    const { call } = await harness('j', 'journal_write');
    expect((await call(input)).error).toMatch(message);
  });

  it('says so when a folder stands where the journal goes', async () => {
    await workspace.write('/journals/conv-1.md/inner.txt', 'x');
    const { call } = await harness('j', 'journal_write');
    expect((await call({ entry: 'x' })).error).toMatch(/^Could not write the journal: .*folder/);
  });
});

// ---------- text_to_chart ----------

describe('text_to_chart', () => {
  it('draws data into charts/<title>.svg and says where it is for the chat to show', async () => {
    const { call } = await harness('chart', 'text_to_chart');
    const out = await call({ type: 'bar', title: 'Sales 2024 (€)', data: { labels: ['Q1', 'Q2'], series: [{ name: 'EU', values: [1, 2] }, { name: 'US', values: [3, 4] }] } });
    expect(out).toEqual({
      result: { path: '/charts/Sales-2024.svg', type: 'bar', width: 800, height: 500, series: ['EU', 'US'], points: 2, workspace_image: '/charts/Sales-2024.svg' },
    });
    const svg = await readText('/charts/Sales-2024.svg');
    expect(XMLValidator.validate(svg)).toBe(true);
    expect(svg).toContain('<title id="chart-title">Sales 2024 (€)</title>');
  });

  it('parses text when data is absent', async () => {
    const { call } = await harness('chart', 'text_to_chart');
    const out = await call({ type: 'pie', text: 'Rent: 50, Food: 30, Fun: 20' });
    expect(out.result).toMatchObject({ path: '/charts/pie-chart.svg', series: ['Value'], points: 3 });
    expect(await readText(out.result.path)).toContain('Rent — 50.0%');
  });

  it('does not overwrite an earlier chart of the same title, but does with an explicit filename', async () => {
    const { call } = await harness('chart', 'text_to_chart');
    const input = { type: 'line', title: 'Trend', text: '1, 2, 3' };
    expect((await call(input)).result.path).toBe('/charts/Trend.svg');
    expect((await call(input)).result.path).toBe('/charts/Trend-2.svg');
    expect((await call({ ...input, filename: 'trend.svg' })).result.path).toBe('/charts/trend.svg');
    expect((await call({ ...input, filename: 'trend.svg', title: 'Other' })).result.path).toBe('/charts/trend.svg');
    expect(await readText('/charts/trend.svg')).toContain('Other');
  });

  it('makes safe file names', () => {
    expect(chartFileName('Umsätze / Q1: "Köln" <2024>')).toBe('Umsatze-Q1-Koln-2024');
    expect(chartFileName('../../etc/passwd')).toBe('etc-passwd');
    expect(chartFileName('***')).toBe('chart');
    expect(chartFileName('x'.repeat(300))).toHaveLength(80);
  });

  it.each<[string, unknown, RegExp]>([
    ['no type', { text: 'a: 1' }, /"type" is required/],
    ['an unknown type', { type: 'radar', text: 'a: 1' }, /type.*must be one of bar, line, pie/],
    ['neither data nor text', { type: 'bar' }, /either data \{labels, series\} or text.*Q1: 10, Q2: 15/],
    ['text that is not data', { type: 'bar', text: 'it went up' }, /Could not read chart data.*Q1: 10, Q2: 15/],
    ['labels and values of different lengths', { type: 'bar', data: { labels: ['a', 'b'], series: [{ name: 's', values: [1] }] } }, /"s" has 1 value but there are 2 labels/],
    ['a string among the values', { type: 'line', data: { labels: ['a'], series: [{ name: 's', values: ['1'] }] } }, /data\.series\.0\.values\.0.*must be a number/],
    ['labels that are not an array', { type: 'bar', data: { labels: 'a,b', series: [] } }, /labels.*array of strings/],
    ['no points', { type: 'bar', data: { labels: [], series: [{ name: 's', values: [] }] } }, /no points/],
    ['1001 labels', { type: 'bar', data: { labels: Array.from({ length: 1001 }, String), series: [] } }, /labels.*at most 1000/],
    ['a negative pie value', { type: 'pie', text: 'a: 1, b: -2' }, /pie chart cannot show negative values: "b" is -2/],
    ['a pie summing to zero', { type: 'pie', text: 'a: 0, b: 0' }, /sum is positive/],
    ['an unknown argument', { type: 'bar', text: 'a: 1', colour: 'red' }, /unknown argument "colour"/],
  ])('refuses %s with a clear error, writing nothing', async (_name, input, message) => {
    const { call } = await harness('chart', 'text_to_chart');
    expect((await call(input)).error).toMatch(message);
    expect((await workspace.list('/')).entries).toHaveLength(0);
  });
});
