/**
 * Rendering work that shares each animation frame. A streamed reply asks for a render on every
 * delta, and a long conversation asks for hundreds as it opens: a request runs at once while the
 * frame's small synchronous budget lasts (a lone delta shows without waiting), and is otherwise
 * queued and run once before the next paint however many times it was asked for — newest first,
 * for at most FRAME_BUDGET_MS a frame, so no burst turns into one long task.
 */

/** Work that runs until `deadline` (a performance.now() time) and says whether it finished. */
export type FrameWork = (deadline: number) => boolean;

const SYNC_BUDGET_MS = 4;
const FRAME_BUDGET_MS = 10;
/**
 * While work is left over from the frame before (a stream arriving faster than one frame renders
 * it), frames take longer rather than fall behind: 20 ms a frame is still far from a long task.
 */
const CATCH_UP_BUDGET_MS = 20;
/** How long the synchronous budget lasts: about one frame at 60 Hz. */
const EPOCH_MS = 16;
/** Frames never come to a page that turned hidden after asking: a timer stands in. */
const FRAME_FALLBACK_MS = 100;

let epochStart = -Infinity;
let spent = 0;
const waiting = new Set<FrameTask>();
let frame: number | undefined;
let timer: ReturnType<typeof setTimeout> | undefined;
/** Whether the last frame left work unfinished. */
let behind = false;

export class FrameTask {
  /**
   * `later`: work the user is not looking at yet (rows above the ones shown). It never runs at
   * once, and in a frame only after every other queued task.
   */
  constructor(
    private readonly work: FrameWork,
    readonly later = false,
  ) {}

  /**
   * Runs the work now if this frame can afford it, else once before the next paint. `soon`: the
   * caller knows the work is too big to run at once (a long reply), so it waits for the frame.
   */
  request(soon = false): void {
    if (waiting.has(this)) return;
    if (this.later || soon) return enqueue(this);
    const now = performance.now();
    if (now - epochStart > EPOCH_MS) {
      epochStart = now;
      spent = 0;
    }
    if (spent < SYNC_BUDGET_MS) run(this, now + SYNC_BUDGET_MS - spent);
    else enqueue(this);
  }

  cancel(): void {
    waiting.delete(this);
  }

  /** @internal */
  perform(deadline: number): boolean {
    return this.work(deadline);
  }
}

function run(task: FrameTask, deadline: number) {
  const start = performance.now();
  const finished = task.perform(deadline);
  spent += performance.now() - start;
  if (!finished) enqueue(task);
}

function enqueue(task: FrameTask) {
  // Re-adding moves it to the newest end: what was asked for last is what the user looks at.
  waiting.delete(task);
  waiting.add(task);
  schedule();
}

function schedule() {
  if (frame !== undefined || timer !== undefined) return;
  if (typeof document !== 'undefined' && document.visibilityState === 'hidden') {
    timer = setTimeout(flush, 0);
  } else {
    frame = requestAnimationFrame(flush);
    timer = setTimeout(flush, FRAME_FALLBACK_MS);
  }
}

function flush() {
  if (frame !== undefined) cancelAnimationFrame(frame);
  clearTimeout(timer);
  frame = timer = undefined;
  epochStart = performance.now();
  spent = 0;
  const deadline = epochStart + (behind ? CATCH_UP_BUDGET_MS : FRAME_BUDGET_MS);
  const queued = [...waiting].reverse();
  waiting.clear();
  const order = [...queued.filter((t) => !t.later), ...queued.filter((t) => t.later)];
  let i = 0;
  for (; i < order.length; i++) {
    const task = order[i]!;
    if (i > 0 && performance.now() >= deadline) break;
    // Work asked for while this frame ran (rows just mounted) comes before more `later` work.
    if (task.later && [...waiting].some((t) => !t.later)) break;
    run(task, deadline);
  }
  behind = i < order.length || [...waiting].some((t) => order.includes(t));
  if (i < order.length) {
    // What did not fit keeps its place, older than what was asked for meanwhile.
    const asked = [...waiting];
    waiting.clear();
    for (const t of [...order.slice(i).reverse(), ...asked]) waiting.add(t);
    schedule();
  }
}
