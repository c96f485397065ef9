import type { Task } from '../contracts/conversation';

// Terminal escape sequences (CSI "ESC [ … m", a terminated OSC "ESC ] … BEL") go whole:
// removing only ESC would leave "[31m" behind in the title.
// eslint-disable-next-line no-control-regex
const ESCAPE_SEQUENCE = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)/g;
/** C0 and C1 controls and Unicode's bidi controls: invisible, and they garble or reorder the task list. */
const CONTROLS = /[\p{Cc}\p{Bidi_Control}]/gu;

/** A task's subject as one line of plain text: line breaks and tabs become one space. */
export function cleanSubject(text: string): string {
  return text
    .replace(ESCAPE_SEQUENCE, '')
    // Each run of white space is matched once, whole (a pattern that looked for a break after
    // any number of spaces rescanned every run of spaces: seconds for a long subject). A run with
    // a line break or tab in it becomes one space; plain spaces stay as they are.
    .replace(/[ \t\n\v\f\r\u0085\u2028\u2029]+/g, (run) => (/[^ ]/.test(run) ? ' ' : run))
    .replace(CONTROLS, '');
}

/** A task's description as plain text that keeps its lines and tabs (any line break becomes "\n"). */
export function cleanDescription(text: string): string {
  return text
    .replace(ESCAPE_SEQUENCE, '')
    .replace(/\r\n?|[\u0085\u2028\u2029]/g, '\n')
    .replace(CONTROLS, (c) => (c === '\n' || c === '\t' ? c : ''));
}

/**
 * One conversation's task list. The contract says task data is not persisted, so it lives in
 * memory only; listeners let the popup show it live.
 */
export class TaskBoard {
  private tasks: Task[] = [];
  private nextId = 1;

  constructor(private readonly onChange: (tasks: Task[]) => void = () => {}) {}

  list(): Task[] {
    return this.tasks.map((t) => ({ ...t }));
  }

  get(id: string): Task | undefined {
    return this.tasks.find((t) => t.task_id === id);
  }

  create(subject: string, description?: string): Task {
    const task: Task = { task_id: String(this.nextId++), subject, status: 'pending' };
    if (description !== undefined) task.description = description;
    this.tasks.push(task);
    this.changed();
    return { ...task };
  }

  update(id: string, patch: Partial<Omit<Task, 'task_id'>>): Task | undefined {
    const task = this.get(id);
    if (!task) return undefined;
    for (const [k, val] of Object.entries(patch)) {
      if (val !== undefined) (task as unknown as Record<string, unknown>)[k] = val;
    }
    this.changed();
    return { ...task };
  }

  private changed() {
    this.onChange(this.list());
  }
}

/** Task boards by conversation id. */
export class TaskBoards {
  private readonly boards = new Map<string, TaskBoard>();

  constructor(private readonly onChange: (conversationId: string, tasks: Task[]) => void = () => {}) {}

  for(conversationId: string): TaskBoard {
    let board = this.boards.get(conversationId);
    if (!board) {
      board = new TaskBoard((tasks) => this.onChange(conversationId, tasks));
      this.boards.set(conversationId, board);
    }
    return board;
  }

  peek(conversationId: string): Task[] {
    return this.boards.get(conversationId)?.list() ?? [];
  }

  drop(conversationId: string) {
    this.boards.delete(conversationId);
  }
}
