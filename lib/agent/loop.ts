import type Anthropic from '@anthropic-ai/sdk';
import type { ToolContext, ToolDispatcher, ToolOutcome } from '../tools/registry';
import { toImageBlock } from './messages';
import { backoffMs, classifyModelError, isAbort } from './errors';
import { isPromptTooLong, reportedTokens, type ContextManager } from './context';
import type { ModelClient, ModelRequest } from './model';
import { toApiMessages } from './messages';
import type { ContentBlock, DraftBlock, RunError, StoredMessage, ToolCallStatus, TokenUsage } from '../contracts/conversation';
import type { ToolProgress } from '../contracts/run-events';
import { throttledProgress } from './tool-progress';

export const MAX_MODEL_ATTEMPTS = 6;
export const DEFAULT_STREAM_IDLE_MS = 60_000;

/** A reply that stopped arriving while its connection stayed open. */
export class StreamStalledError extends Error {
  override name = 'StreamStalledError';
  constructor(readonly idleMs: number) {
    super(`The reply stopped arriving: nothing came for ${Math.round(idleMs / 1000)} s.`);
  }
}

export interface LoopHooks {
  draftReset(): void;
  draftBlock(index: number, block: DraftBlock): void;
  draftText(index: number, text: string): void;
  draftInput(index: number, json: string): void;
  /** Persist a finished message; the loop waits for it before the next step starts. */
  commit(message: StoredMessage): Promise<void>;
  toolStatus(id: string, status: ToolCallStatus): void;
  /** A running call's progress (already throttled); absent where no UI shows it (sub-agents). */
  toolProgress?(id: string, progress: ToolProgress): void;
  usage(round: TokenUsage): void;
  round(n: number): void;
  retrying(info: { at: number; attempt: number; maxAttempts: number; reason: string } | undefined): void;
}

export interface LoopOptions {
  client: ModelClient;
  registry: ToolDispatcher;
  toolContext: Omit<ToolContext, 'signal' | 'toolUseId'>;
  system: string;
  model: string;
  maxTokens: number;
  roundCap: number;
  /** The conversation so far; committed messages are appended to it. */
  messages: StoredMessage[];
  signal: AbortSignal;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Filled in when given: time spent waiting on the model and on tools (for the loop benchmark). */
  metrics?: { modelMs: number; toolMs: number; rounds: number; contextMs?: number };
  /** Keeps the request inside the context window; without it the whole conversation is sent. */
  context?: ContextManager;
  /** A stream without an event for this long is broken (default 60 s). */
  streamIdleMs?: number;
  /** The same tool with the same arguments this many times in a row stops the run; 0: off. */
  loopGuard?: number;
  /** Checked before each round after the first: a budget the run has reached pauses it. */
  budget?(): 'token_budget' | 'cost_budget' | undefined;
}

export type LoopOutcome =
  | { kind: 'done' }
  | { kind: 'round_cap' }
  | { kind: 'paused'; reason: 'token_budget' | 'cost_budget' }
  | { kind: 'stopped' }
  | { kind: 'error'; error: RunError };

interface StreamedReply {
  blocks: DraftBlock[];
  stopReason: string | null;
  usage: TokenUsage;
}

/** Runs model rounds and tool rounds until the model ends its turn, the cap, a stop or an error. */
export async function runLoop(opts: LoopOptions, hooks: LoopHooks): Promise<LoopOutcome> {
  const { signal } = opts;
  const sleep = opts.sleep ?? abortableSleep;
  const tools = withCacheBreakpoint(opts.registry.modelTools());
  const system: Anthropic.TextBlockParam[] = [
    { type: 'text', text: opts.system, cache_control: { type: 'ephemeral' } },
  ];

  opts.context?.setFixed(system, tools);
  const guard = loopGuard(opts.loopGuard ?? 0);

  for (let round = 1; ; round++) {
    if (round > opts.roundCap) return { kind: 'round_cap' };
    const over = round > 1 ? opts.budget?.() : undefined;
    if (over) return { kind: 'paused', reason: over };
    hooks.round(round);
    const base = { model: opts.model, maxTokens: opts.maxTokens, system, tools };
    const tc = performance.now();
    let view = opts.context ? await opts.context.prepare(opts.messages, base, signal).catch(stoppedOr(signal)) : undefined;
    if (opts.metrics) opts.metrics.contextMs = (opts.metrics.contextMs ?? 0) + performance.now() - tc;
    if (view === STOPPED) return { kind: 'stopped' };
    const request: ModelRequest = { ...base, messages: view ? view.api : toApiMessages(opts.messages, { cacheLatestTurn: true }) };

    let reply: StreamedReply | undefined;
    let forced = false;
    let stalls = 0;
    for (let attempt = 0; !reply; attempt++) {
      const partial: StreamedReply = { blocks: [], stopReason: null, usage: zeroUsage() };
      hooks.draftReset();
      const t0 = performance.now();
      try {
        reply = await streamReply(opts.client, request, signal, hooks, partial, opts.streamIdleMs ?? DEFAULT_STREAM_IDLE_MS);
      } catch (e) {
        if (isAbort(e, signal)) {
          hooks.usage(partial.usage);
          await commitPartialText(opts, hooks, partial.blocks);
          return { kind: 'stopped' };
        }
        const c = classifyModelError(e, partial.blocks.length > 0);
        // Too long for the window: shorten the view harder and try once more, at once.
        if (opts.context && view && !forced && c.error.kind === 'bad_request' && isPromptTooLong(c.error.message)) {
          forced = true;
          attempt--;
          opts.context.refused(reportedTokens(c.error.message), view.messages);
          const again = await opts.context.prepare(opts.messages, base, signal, true).catch(stoppedOr(signal));
          if (again === STOPPED) return { kind: 'stopped' };
          view = again;
          request.messages = view.api;
          continue;
        }
        // A silent stream is retried once; a second silence is shown, with the text so far.
        const stalled = e instanceof StreamStalledError;
        if (stalled) stalls++;
        const retryable = stalled ? stalls < 2 : c.retryable;
        if (!retryable || attempt + 1 >= MAX_MODEL_ATTEMPTS) {
          hooks.usage(partial.usage);
          if (stalled) await commitPartialText(opts, hooks, partial.blocks, true);
          return { kind: 'error', error: stalled ? { kind: 'stream', message: (e as Error).message } : c.error };
        }
        const delay = backoffMs(attempt, c.retryAfterMs);
        hooks.retrying({
          at: Date.now() + delay,
          attempt: stalled ? stalls : attempt + 1,
          maxAttempts: stalled ? 1 : MAX_MODEL_ATTEMPTS - 1,
          reason: stalled ? (e as Error).message : c.error.status ? `${c.error.status} ${c.error.message}` : c.error.message,
        });
        try {
          await sleep(delay, signal);
        } catch {
          return { kind: 'stopped' };
        } finally {
          hooks.retrying(undefined);
        }
      } finally {
        if (opts.metrics) opts.metrics.modelMs += performance.now() - t0;
      }
    }
    if (view) opts.context!.observe(reply.usage, view.messages.length);
    if (opts.metrics) opts.metrics.rounds++;
    hooks.usage(reply.usage);

    const calls = reply.blocks.filter((b) => b.type === 'tool_use');
    const parsedInputs = calls.map((c) => parseToolInput(c, reply.stopReason));
    const content: ContentBlock[] = [];
    reply.blocks.forEach((b) => {
      if (b.type === 'text') {
        if (b.text) content.push({ type: 'text', text: b.text });
      } else {
        const parsed = parsedInputs[calls.indexOf(b)];
        content.push({ type: 'tool_use', id: b.id!, name: b.name!, input: parsed?.ok ? parsed.value : {} });
      }
    });
    if (content.length) await commit(opts, hooks, { role: 'assistant', content, at: Date.now() });
    if (!calls.length) return { kind: 'done' };

    const t1 = performance.now();
    const repeated = calls.map((c, i) => guard(c.name!, parsedInputs[i]!));
    const outcomes = await runTools(opts, hooks, calls, parsedInputs, repeated);
    if (opts.metrics) opts.metrics.toolMs += performance.now() - t1;
    const decisions = Object.fromEntries(outcomes.flatMap((o, i) => (o.decision ? [[calls[i]!.id!, o.decision]] : [])));
    await commit(opts, hooks, {
      role: 'user',
      at: Date.now(),
      ...(Object.keys(decisions).length ? { decisions } : {}),
      content: calls.map((c, i) => toolResultBlock(c.id!, outcomes[i]!)),
    });
    if (signal.aborted) return { kind: 'stopped' };
    const looped = repeated.findIndex((n) => n > 0);
    if (looped >= 0) {
      const n = repeated[looped]!;
      return { kind: 'error', error: { kind: 'loop', message: loopMessage(calls[looped]!.name!, n) } };
    }
  }
}

/**
 * A tool's outcome as the Messages API's tool_result: its text alone as a string (as results always
 * were stored), or with images a text block followed by one image block each.
 */
export function toolResultBlock(toolUseId: string, outcome: ToolOutcome): Anthropic.ToolResultBlockParam {
  const images = outcome.images ?? [];
  return {
    type: 'tool_result',
    tool_use_id: toolUseId,
    content: images.length ? [{ type: 'text', text: outcome.content }, ...images.map(toImageBlock)] : outcome.content,
    ...(outcome.isError ? { is_error: true } : {}),
  };
}

const STOPPED = Symbol('stopped');
/** A stop during context work ends the run like any stop; other failures are real errors. */
const stoppedOr = (signal: AbortSignal) => (e: unknown): typeof STOPPED => {
  if (isAbort(e, signal)) return STOPPED;
  throw e;
};

/**
 * Counts identical calls in a row (same tool, same arguments, across replies): the runaway loop
 * that spends a user's money. Returns, per call, the count when it reached the limit, else 0.
 */
function loopGuard(limit: number) {
  let last = '';
  let count = 0;
  return (name: string, input: ParsedInput): number => {
    if (!limit) return 0;
    const key = `${name}\u0000${input.ok ? stableJson(input.value) : input.error}`;
    count = key === last ? count + 1 : 1;
    last = key;
    return count >= limit ? count : 0;
  };
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${stableJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

const loopMessage = (name: string, n: number) =>
  `Pagewright stopped the run: ${name} was called ${n} times in a row with the same arguments, which usually means the agent is stuck in a loop.`;

async function streamReply(
  client: ModelClient,
  request: ModelRequest,
  signal: AbortSignal,
  hooks: LoopHooks,
  out: StreamedReply,
  idleMs: number,
): Promise<StreamedReply> {
  // Each attempt has its own controller, so a silent stream can be cut without stopping the run.
  const attempt = new AbortController();
  const both = AbortSignal.any([signal, attempt.signal]);
  const watch = watchdog(idleMs, () => attempt.abort());
  try {
    const stream = await watch.race(client.stream(request, both));
    const it = stream[Symbol.asyncIterator]();
    return await readEvents({ next: () => watch.race(it.next()) }, hooks, out);
  } finally {
    watch.done();
  }
}

/** Rejects a pending step with StreamStalledError when nothing arrived for `idleMs`. */
function watchdog(idleMs: number, onStall: () => void) {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let fail: ((e: Error) => void) | undefined;
  const stalled = new Promise<never>((_, reject) => (fail = reject));
  stalled.catch(() => {});
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      onStall();
      fail!(new StreamStalledError(idleMs));
    }, idleMs);
  };
  arm();
  return {
    race<T>(step: Promise<T>): Promise<T> {
      return Promise.race([step, stalled]).then((v) => (arm(), v));
    },
    done: () => clearTimeout(timer),
  };
}

async function readEvents(
  it: { next(): Promise<IteratorResult<Anthropic.RawMessageStreamEvent>> },
  hooks: LoopHooks,
  out: StreamedReply,
): Promise<StreamedReply> {
  let sawStop = false;
  for (let r = await it.next(); !r.done; r = await it.next()) {
    const ev = r.value;
    switch (ev.type) {
      case 'message_start': {
        const u = ev.message.usage;
        out.usage.input = u.input_tokens ?? 0;
        out.usage.output = u.output_tokens ?? 0;
        out.usage.cacheRead = u.cache_read_input_tokens ?? 0;
        out.usage.cacheWrite = u.cache_creation_input_tokens ?? 0;
        break;
      }
      case 'content_block_start': {
        const b = ev.content_block;
        const block: DraftBlock =
          b.type === 'tool_use'
            ? { type: 'tool_use', id: b.id, name: b.name, text: '', inputJson: '' }
            : { type: 'text', text: b.type === 'text' ? b.text : '' };
        // Other block kinds (thinking, server tools) are not shown yet; keep indices aligned.
        out.blocks[ev.index] = block;
        hooks.draftBlock(ev.index, block);
        break;
      }
      case 'content_block_delta': {
        const block = out.blocks[ev.index];
        if (!block) break;
        if (ev.delta.type === 'text_delta') {
          block.text += ev.delta.text;
          hooks.draftText(ev.index, ev.delta.text);
        } else if (ev.delta.type === 'input_json_delta') {
          block.inputJson = (block.inputJson ?? '') + ev.delta.partial_json;
          hooks.draftInput(ev.index, ev.delta.partial_json);
        }
        break;
      }
      case 'message_delta':
        out.stopReason = ev.delta.stop_reason ?? out.stopReason;
        if (ev.usage.output_tokens != null) out.usage.output = ev.usage.output_tokens;
        if (ev.usage.input_tokens != null) out.usage.input = ev.usage.input_tokens;
        // Cumulative, as the Messages API defines them; a Chat Completions stream knows its usage
        // only at the end, so its provider reports everything here.
        if (ev.usage.cache_read_input_tokens != null) out.usage.cacheRead = ev.usage.cache_read_input_tokens;
        if (ev.usage.cache_creation_input_tokens != null) out.usage.cacheWrite = ev.usage.cache_creation_input_tokens;
        break;
      case 'message_stop':
        sawStop = true;
        break;
    }
  }
  if (!sawStop) throw new Error('The reply stream ended before message_stop.');
  out.blocks = out.blocks.filter(Boolean);
  return out;
}

type ParsedInput = { ok: true; value: Record<string, unknown> } | { ok: false; error: string };

function parseToolInput(block: DraftBlock, stopReason: string | null): ParsedInput {
  const raw = block.inputJson?.trim() || '{}';
  try {
    const value = JSON.parse(raw) as unknown;
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      return { ok: true, value: value as Record<string, unknown> };
    }
    return { ok: false, error: `Invalid arguments for ${block.name}: the input must be a JSON object.` };
  } catch (e) {
    const why =
      stopReason === 'max_tokens'
        ? 'the reply hit max_tokens before the arguments were complete; send a shorter call'
        : `they are not valid JSON (${(e as Error).message})`;
    return { ok: false, error: `Invalid arguments for ${block.name}: ${why}.` };
  }
}

async function runTools(
  opts: LoopOptions,
  hooks: LoopHooks,
  calls: DraftBlock[],
  inputs: ParsedInput[],
  repeated: number[],
): Promise<ToolOutcome[]> {
  const { signal } = opts;
  const ctx: ToolContext = { ...opts.toolContext, signal };
  const stopped: ToolOutcome = { content: 'Stopped by the user before this tool ran to the end.', isError: true };
  // Independent calls of one reply run in parallel; a stop settles every one of them at once,
  // even a handler that ignores the signal.
  let onAbort = () => {};
  const abort = new Promise<ToolOutcome>((resolve) => {
    onAbort = () => resolve(stopped);
    if (signal.aborted) resolve(stopped);
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.all(
      calls.map(async (call, i) => {
        hooks.toolStatus(call.id!, 'running');
        const input = inputs[i]!;
        const toolProgress = hooks.toolProgress;
        const reporter = toolProgress ? throttledProgress((p) => toolProgress(call.id!, p)) : undefined;
        const callCtx: ToolContext = { ...ctx, toolUseId: call.id!, ...(reporter ? { progress: (p: ToolProgress) => reporter.report(p) } : {}) };
        const outcome: ToolOutcome = repeated[i]
          ? {
              content:
                `${loopMessage(call.name!, repeated[i]!)} This call was not run. When the user continues, do not repeat it: ` +
                'try a different approach, or tell the user what you were trying to do and what keeps failing.',
              isError: true,
            }
          : input.ok
          ? await Promise.race([opts.registry.call(call.name!, input.value, callCtx), abort])
          : { content: input.error, isError: true };
        reporter?.close();
        hooks.toolStatus(call.id!, outcome.isError ? 'error' : 'done');
        return outcome;
      }),
    );
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

async function commit(opts: LoopOptions, hooks: LoopHooks, message: StoredMessage) {
  opts.messages.push(message);
  await hooks.commit(message);
}

/** A stopped reply keeps the text the user already saw; half-streamed tool calls are dropped. */
async function commitPartialText(opts: LoopOptions, hooks: LoopHooks, blocks: DraftBlock[], incomplete = false) {
  const content: ContentBlock[] = blocks
    .filter((b) => b?.type === 'text' && b.text.trim())
    .map((b) => ({ type: 'text', text: b.text }));
  if (content.length) await commit(opts, hooks, { role: 'assistant', content, at: Date.now(), ...(incomplete ? { incomplete: true as const } : {}) });
}

function withCacheBreakpoint(tools: Anthropic.Tool[]): Anthropic.Tool[] {
  if (!tools.length) return tools;
  const copy = tools.slice();
  copy[copy.length - 1] = { ...copy[copy.length - 1]!, cache_control: { type: 'ephemeral' } };
  return copy;
}

const zeroUsage = (): TokenUsage => ({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0 });

export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new Error('aborted'));
    const t = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(new Error('aborted'));
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
