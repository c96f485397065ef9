/**
 * The task tools' text: what create_task and update_task keep of a subject and a description.
 * The tools' schemas and the board itself are covered by tests/unit/registry.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { defaultSettings } from '../../lib/settings';
import { detachedEnv } from '../../lib/tools/env';
import { ToolRegistry, type ToolContext } from '../../lib/tools/registry';
import { cleanDescription, cleanSubject, TaskBoard } from '../../lib/tools/task-board';
import { taskTools } from '../../lib/tools/tasks';

const context = (): ToolContext => ({ conversationId: 'c1', signal: new AbortController().signal, tasks: new TaskBoard(), env: detachedEnv(defaultSettings()) });
const registry = new ToolRegistry(taskTools);

describe('cleanSubject', () => {
  it.each([
    ['Fix \u001b[31mred\u001b[0m text', 'Fix red text'],
    ['Ring\u0007 the bell', 'Ring the bell'],
    ['NUL\u0000 byte', 'NUL byte'],
    ['back\bspace\u007f', 'backspace'],
    ['C1 \u0085next\u009bline', 'C1 nextline'],
    ['\u001b]0;window title\u0007Title', 'Title'],
    ['two\nlines', 'two lines'],
    ['crlf \r\n\r\n and tab\there', 'crlf and tab here'],
    ['line\u2028sep', 'line sep'],
    ['\u202etxt.exe', 'txt.exe'],
    ['a\u2066b\u2069c\u200e\u200f\u061cd\u202a\u202b\u202c\u202d', 'abcd'],
    ['Plain, ünïcödé and עברית', 'Plain, ünïcödé and עברית'],
  ])('%j → %j', (input, output) => {
    expect(cleanSubject(input)).toBe(output);
  });
});

describe('cleanDescription', () => {
  it('keeps lines and tabs, makes every line break "\\n", and drops the other controls', () => {
    expect(cleanDescription('Step 1:\tread\r\nStep 2:\u0007 write\rStep 3\u2029end\u0000')).toBe('Step 1:\tread\nStep 2: write\nStep 3\nend');
    expect(cleanDescription('\u001b[1mbold\u001b[22m \u202eevil')).toBe('bold evil');
  });
});

describe('create_task and update_task', () => {
  const call = (name: string, input: unknown, ctx = context()) => registry.call(name, input, ctx);

  it('store the cleaned text', async () => {
    const ctx = context();
    const created = await call('create_task', { subject: '\u001b[32m  Deploy\nto prod \u0007', description: 'First\r\n\tthen\u0000 next' }, ctx);
    expect(created.isError).toBe(false);
    expect(JSON.parse(created.content)).toEqual({ task_id: '1', subject: 'Deploy to prod', description: 'First\n\tthen next', status: 'pending' });
    const updated = await call('update_task', { task_id: '1', subject: 'Deploy\u202e', description: '\u001b[0m' }, ctx);
    expect(JSON.parse(updated.content)).toMatchObject({ subject: 'Deploy', description: '' });
    expect(ctx.tasks.list()).toEqual([{ task_id: '1', subject: 'Deploy', description: '', status: 'pending' }]);
  });

  it('refuse a subject of control characters only, saying so', async () => {
    for (const subject of ['\u001b\u0007\u0000', '\u202e\u2066', '\u0085', '\u001b[31m\u001b[0m']) {
      const out = await call('create_task', { subject });
      expect(out, JSON.stringify(subject)).toEqual({
        isError: true,
        content:
          'Invalid arguments for create_task: "subject": must not be empty: it holds only control characters (such as ESC, BEL or NUL) ' +
          'or bidirectional controls, which are removed; write the title in plain text.',
      });
    }
    const ctx = context();
    ctx.tasks.create('kept');
    expect(await call('update_task', { task_id: '1', subject: '\u0000' }, ctx)).toMatchObject({ isError: true, content: expect.stringContaining('holds only control characters') });
    expect(ctx.tasks.list()[0]!.subject).toBe('kept');
  });

  it('refuse an empty or blank subject as before', async () => {
    for (const subject of ['', '   ', '\n\t']) {
      expect(await call('create_task', { subject })).toEqual({ isError: true, content: 'Invalid arguments for create_task: "subject": must not be empty.' });
    }
  });

  it('count the limit on the cleaned subject', async () => {
    expect(await call('create_task', { subject: `${'x'.repeat(200)}${'\u0007'.repeat(50)}` })).toMatchObject({ isError: false });
    expect(await call('create_task', { subject: 'x'.repeat(201) })).toMatchObject({ isError: true, content: expect.stringContaining('at most 200 characters') });
  });

  it('refuse a subject or description that is not a string, without crashing', async () => {
    expect(await call('create_task', { subject: 5 })).toMatchObject({ isError: true, content: expect.stringContaining('"subject"') });
    expect(await call('create_task', { subject: 'ok', description: null })).toMatchObject({ isError: true, content: expect.stringContaining('"description"') });
  });
});

describe('cleanSubject on long input', () => {
  it('stays linear: 200,000 spaces without a line break are cleaned at once', () => {
    const spaces = ' '.repeat(200_000);
    const start = performance.now();
    expect(cleanSubject(`${spaces}x`)).toBe(`${spaces}x`);
    expect(cleanSubject(`a ${'\n'.repeat(1000)}  b`)).toBe('a b');
    expect(performance.now() - start).toBeLessThan(1000);
  });
});
