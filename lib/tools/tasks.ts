import * as v from 'valibot';
import { builtinFacts } from './catalog';
import { defineTool, ToolError } from './registry';
import { cleanDescription, cleanSubject } from './task-board';

const SUBJECT_MAX = 200;
const DESCRIPTION_MAX = 4000;

// Control characters are removed before the checks, so that what is checked is what is kept.
const subject = v.pipe(
  v.string(),
  v.check(
    (s) => s.trim() === '' || cleanSubject(s).trim() !== '',
    'must not be empty: it holds only control characters (such as ESC, BEL or NUL) or bidirectional controls, which are removed; write the title in plain text',
  ),
  v.transform(cleanSubject),
  v.trim(),
  v.nonEmpty('must not be empty'),
  v.maxLength(SUBJECT_MAX, `must be at most ${SUBJECT_MAX} characters; put details in "description"`),
);
const description = v.pipe(
  v.string(),
  v.transform(cleanDescription),
  v.maxLength(DESCRIPTION_MAX, `must be at most ${DESCRIPTION_MAX} characters`),
);
const status = v.picklist(
  ['pending', 'in_progress', 'completed'],
  'must be one of "pending", "in_progress", "completed"',
);

export const createTask = defineTool({
  ...builtinFacts('create_task'),
  description:
    'Add a step to the task list, for multi-step work. Returns the task with its task_id',
  input: v.strictObject({
    subject: v.pipe(subject, v.description('Short task title')),
    description: v.optional(v.pipe(description, v.description('Detailed description'))),
  }),
  run({ subject, description }, ctx) {
    return ctx.tasks.create(subject, description);
  },
});

export const updateTask = defineTool({
  ...builtinFacts('update_task'),
  description: 'Change a task\'s status, subject or description. Returns the task',
  input: v.strictObject({
    task_id: v.pipe(v.string(), v.nonEmpty('must not be empty'), v.description('From create_task')),
    status: v.optional(v.pipe(status, v.description('New status'))),
    subject: v.optional(v.pipe(subject, v.description('New title'))),
    description: v.optional(v.pipe(description, v.description('New description'))),
  }),
  run({ task_id, ...patch }, ctx) {
    const task = ctx.tasks.update(task_id, patch);
    if (!task) {
      const known = ctx.tasks.list().map((t) => t.task_id);
      throw new ToolError(
        `No task with task_id "${task_id}". ` +
          (known.length ? `Existing task ids: ${known.join(', ')}.` : 'The task list is empty; create a task first.'),
      );
    }
    return task;
  },
});

export const listTasks = defineTool({
  ...builtinFacts('list_tasks'),
  description: 'Returns the task list: [{task_id, subject, status}]',
  input: v.strictObject({}),
  run(_input, ctx) {
    return ctx.tasks.list().map(({ task_id, subject, status }) => ({ task_id, subject, status }));
  },
});

export const taskTools = [createTask, updateTask, listTasks];
