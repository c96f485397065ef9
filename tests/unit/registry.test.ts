import * as v from 'valibot';
import { describe, expect, it, vi } from 'vitest';
import { createBuiltinRegistry } from '../../lib/tools';
import { defineTool, ToolError, ToolRegistry, type ToolContext } from '../../lib/tools/registry';
import { detachedEnv } from '../../lib/tools/env';
import { TaskBoard } from '../../lib/tools/task-board';
import { defaultSettings } from '../../lib/settings';
import { createTask, listTasks, taskTools, updateTask } from '../../lib/tools/tasks';
import { STUB_FACTS } from './helpers';
import { PageError } from '../../lib/browser/pages';
import { TabError } from '../../lib/browser/tabs';
import { DatabaseError } from '../../lib/database/errors';
import { isModelFacing } from '../../lib/errors';
import { ExtractError } from '../../lib/extract/errors';
import { ChartDataError } from '../../lib/skills/builtin/chart-data';
import { WorkspaceError } from '../../lib/workspace/errors';

const context = (extra: Partial<ToolContext> = {}): ToolContext => ({
  conversationId: 'c1',
  signal: new AbortController().signal,
  tasks: new TaskBoard(),
  env: detachedEnv(defaultSettings()),
  ...extra,
});

type JsonSchema = {
  type: string;
  properties: Record<string, { type?: string; enum?: string[]; description?: string; maxLength?: number; minLength?: number }>;
  required: string[];
  additionalProperties: boolean;
};

describe('ToolRegistry.modelTools()', () => {
  const tools = createBuiltinRegistry().modelTools();
  const schemaOf = (name: string) => tools.find((t) => t.name === name)!.input_schema as unknown as JsonSchema;

  it('lists the built-in tools in order, each with a description', () => {
    expect(tools.map((t) => t.name)).toEqual([
      'web_fetch', 'web_search',
      'list_tabs', 'open_tab', 'close_tab', 'activate_tab', 'get_tab_content', 'screenshot', 'execute_script', 'page_action', 'opfs_write', 'opfs_read', 'opfs_list', 'opfs_delete', 'ask_user', 'agent',
      'create_task', 'update_task', 'list_tasks', 'propose_skill',
    ]);
    for (const t of tools) expect(t.description!.length).toBeGreaterThan(20);
  });

  it('web_search: query required, max_results an integer of at least 1 (no maximum: above 10 is capped, not refused)', () => {
    const s = schemaOf('web_search');
    expect(s.required).toEqual(['query']);
    expect(s.properties.query).toMatchObject({ type: 'string', minLength: 1, maxLength: 2000 });
    expect(s.properties.max_results).toMatchObject({ type: 'integer', minimum: 1 });
    expect(s.properties.max_results).not.toHaveProperty('maximum');
  });

  it('create_task: an object schema generated from valibot, with limits and descriptions', () => {
    const s = schemaOf('create_task');
    expect(s).not.toHaveProperty('$schema');
    expect(s.type).toBe('object');
    expect(s.additionalProperties).toBe(false);
    expect(s.required).toEqual(['subject']);
    expect(Object.keys(s.properties)).toEqual(['subject', 'description']);
    expect(s.properties.subject).toMatchObject({ type: 'string', minLength: 1, maxLength: 200, description: 'Short task title' });
    expect(s.properties.description).toMatchObject({ type: 'string', maxLength: 4000, description: 'Detailed description' });
  });

  it('update_task: task_id required, status as an enum, every property described', () => {
    const s = schemaOf('update_task');
    expect(s.type).toBe('object');
    expect(s.additionalProperties).toBe(false);
    expect(s.required).toEqual(['task_id']);
    expect(Object.keys(s.properties)).toEqual(['task_id', 'status', 'subject', 'description']);
    expect(s.properties.status).toMatchObject({ type: 'string', enum: ['pending', 'in_progress', 'completed'] });
    for (const [key, prop] of Object.entries(s.properties)) expect(prop.description, key).toBeTruthy();
  });

  it('list_tasks: an empty object schema that refuses extra properties', () => {
    const s = schemaOf('list_tasks');
    expect(s).toMatchObject({ type: 'object', properties: {}, additionalProperties: false });
    expect(s.required ?? []).toEqual([]);
  });

  it('is computed once and reused (a stable prompt-cache prefix)', () => {
    const registry = new ToolRegistry(taskTools);
    expect(registry.modelTools()).toBe(registry.modelTools());
  });

  it('refuses duplicate tool names', () => {
    expect(() => new ToolRegistry([createTask, listTasks, createTask])).toThrow('duplicate tool name create_task');
  });
});

describe('ToolRegistry.call()', () => {
  const throwing = (error: unknown) =>
    defineTool({
      name: 'explode',
      ...STUB_FACTS,
      description: 'Throws.',
      input: v.strictObject({}),
      run() {
        throw error;
      },
    });

  it('returns strings as they are and other results as JSON', async () => {
    const registry = new ToolRegistry([
      defineTool({ name: 'str', ...STUB_FACTS, description: 'd', input: v.object({}), run: () => 'plain text' }),
      defineTool({ name: 'obj', ...STUB_FACTS, description: 'd', input: v.object({}), run: async () => ({ a: [1, 'b'] }) }),
    ]);
    expect(await registry.call('str', {}, context())).toEqual({ content: 'plain text', isError: false });
    expect(await registry.call('obj', {}, context())).toEqual({ content: '{"a":[1,"b"]}', isError: false });
  });

  it('a ToolError becomes an is_error result with exactly its message', async () => {
    const registry = new ToolRegistry([throwing(new ToolError('The page has no form; open one first.'))]);
    expect(await registry.call('explode', {}, context())).toEqual({ content: 'The page has no form; open one first.', isError: true });
  });

  it.each([
    ['WorkspaceError', new WorkspaceError('not_found', '"a.txt" does not exist.'), 'not_found'],
    ['DatabaseError', new DatabaseError('not_read_only', 'DELETE is refused.'), 'not_read_only'],
    ['ExtractError', new ExtractError('no_match', 'No element matches the selector "#x".'), 'no_match'],
    ['PageError', new PageError('invalid_selector', 'The selector "##" is not valid CSS.'), 'invalid_selector'],
    ['TabError', new TabError('not_found', 'No tab with id 9.'), 'not_found'],
    ['ChartDataError', new ChartDataError('The data has no points: labels is empty.'), 'chart_data'],
  ] as const)('a %s is model-facing: exactly its message, its code kept', async (_name, error, code) => {
    expect(isModelFacing(error)).toBe(true);
    expect(error.code).toBe(code);
    const registry = new ToolRegistry([throwing(error)]);
    expect(await registry.call('explode', {}, context())).toEqual({ content: error.message, isError: true });
  });

  it('any other error becomes "<tool> failed: <message>"', async () => {
    const registry = new ToolRegistry([throwing(new TypeError('x is undefined'))]);
    expect(await registry.call('explode', {}, context())).toEqual({ content: 'explode failed: x is undefined', isError: true });
    const nonError = new ToolRegistry([throwing('just a string')]);
    expect(await nonError.call('explode', {}, context())).toEqual({ content: 'explode failed: just a string', isError: true });
  });

  it('an error after the user stopped the run says so', async () => {
    const controller = new AbortController();
    controller.abort();
    const registry = new ToolRegistry([throwing(new Error('aborted'))]);
    expect(await registry.call('explode', {}, context({ signal: controller.signal }))).toEqual({
      content: 'Stopped by the user before this tool finished.',
      isError: true,
    });
  });

  it('refuses input over maxInputChars without running the tool', async () => {
    const run = vi.fn(() => 'ran');
    const registry = new ToolRegistry([
      defineTool({ name: 'echo', ...STUB_FACTS, description: 'd', maxInputChars: 50, input: v.object({ text: v.string() }), run }),
    ]);
    const big = { text: 'x'.repeat(100) };
    const size = JSON.stringify(big).length;
    expect(await registry.call('echo', big, context())).toEqual({
      content: `Invalid arguments for echo: the input is ${size} characters; the limit is 50.`,
      isError: true,
    });
    expect(run).not.toHaveBeenCalled();

    // Exactly at the limit is accepted.
    const fits = { text: 'y'.repeat(50 - JSON.stringify({ text: '' }).length) };
    expect(JSON.stringify(fits)).toHaveLength(50);
    expect(await registry.call('echo', fits, context())).toEqual({ content: 'ran', isError: false });
  });

  it('names an unknown tool and lists the available ones', async () => {
    const registry = new ToolRegistry(taskTools);
    expect(await registry.call('nope', {}, context())).toEqual({
      content: 'Unknown tool "nope". Available tools: create_task, update_task, list_tasks.',
      isError: true,
    });
  });

  it('update_task on an unknown id lists the existing ids', async () => {
    const registry = new ToolRegistry(taskTools);
    const ctx = context();
    ctx.tasks.create('one');
    ctx.tasks.create('two');
    expect(await registry.call(updateTask.name, { task_id: '9', status: 'completed' }, ctx)).toEqual({
      content: 'No task with task_id "9". Existing task ids: 1, 2.',
      isError: true,
    });
    expect(await registry.call(updateTask.name, { task_id: '9' }, context())).toEqual({
      content: 'No task with task_id "9". The task list is empty; create a task first.',
      isError: true,
    });
  });

  it('the task tools work end to end on the board', async () => {
    const registry = new ToolRegistry(taskTools);
    const changes: number[] = [];
    const ctx = context({ tasks: new TaskBoard((t) => changes.push(t.length)) });
    const created = await registry.call('create_task', { subject: '  Trim me  ', description: 'long text' }, ctx);
    expect(JSON.parse(created.content)).toEqual({ task_id: '1', subject: 'Trim me', description: 'long text', status: 'pending' });
    const updated = await registry.call('update_task', { task_id: '1', status: 'in_progress' }, ctx);
    expect(JSON.parse(updated.content)).toMatchObject({ task_id: '1', status: 'in_progress' });
    const listed = await registry.call('list_tasks', {}, ctx);
    expect(JSON.parse(listed.content)).toEqual([{ task_id: '1', subject: 'Trim me', status: 'in_progress' }]);
    expect(changes).toEqual([1, 1]);
  });

  it('refuses a bad status with the allowed values', async () => {
    const registry = new ToolRegistry(taskTools);
    const outcome = await registry.call('update_task', { task_id: '1', status: 'done' }, context());
    expect(outcome.isError).toBe(true);
    expect(outcome.content).toBe('Invalid arguments for update_task: "status": must be one of "pending", "in_progress", "completed".');
  });
});
