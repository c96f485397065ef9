import type Anthropic from '@anthropic-ai/sdk';
import type { ToolContext, ToolDispatcher, ToolOutcome } from '../tools/registry';
import { backoffMs, classifyModelError, isAbort } from './errors';
import type { ModelClient, ModelRequest } from './model';
import { toApiMessages } from './messages';
import type { ContentBlock, DraftBlock, RunError, StoredMessage, ToolCallStatus, TokenUsage } from '../contracts/conversation';

export const MAX_MODEL_ATTEMPTS = 6;

export interface LoopHooks {
  draftReset(): void;
  draftBlock(index: number, block: DraftBlock): void;
  draftText(index: number, text: string): void;
  draftInput(index: number, json: string): void;
  /** Persist a finished message; the loop waits for it before the next step starts. */
  commit(message: StoredMessage): Promise<void>;
  toolStatus(id: string, status: ToolCallStatus): void;
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
  metrics?: { modelMs: number; toolMs: number; rounds: number };
}

export type LoopOutcome =
  | { kind: 'done' }
  | { kind: 'round_cap' }
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

  for (let round = 1; ; round++) {
    if (round > opts.roundCap) return { kind: 'round_cap' };
    hooks.round(round);
    const request: ModelRequest = {
      model: opts.model,
      maxTokens: opts.maxTokens,
      system,
      tools,
      messages: toApiMessages(opts.messages, { cacheLatestTurn: true }),
    };

    let reply: StreamedReply | undefined;
    for (let attempt = 0; !reply; attempt++) {
      const partial: StreamedReply = { blocks: [], stopReason: null, usage: zeroUsage() };
      hooks.draftReset();
      const t0 = performance.now();
      try {
        reply = await streamReply(opts.client, request, signal, hooks, partial);
      } catch (e) {
        if (isAbort(e, signal)) {
          hooks.usage(partial.usage);
          await commitPartialText(opts, hooks, partial.blocks);
          return { kind: 'stopped' };
        }
        const c = classifyModelError(e, partial.blocks.length > 0);
        if (!c.retryable || attempt + 1 >= MAX_MODEL_ATTEMPTS) return { kind: 'error', error: c.error };
        const delay = backoffMs(attempt, c.retryAfterMs);
        hooks.retrying({
          at: Date.now() + delay,
          attempt: attempt + 1,
          maxAttempts: MAX_MODEL_ATTEMPTS - 1,
          reason: c.error.status ? `${c.error.status} ${c.error.message}` : c.error.message,
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
    const outcomes = await runTools(opts, hooks, calls, parsedInputs);
    if (opts.metrics) opts.metrics.toolMs += performance.now() - t1;
    const decisions = Object.fromEntries(outcomes.flatMap((o, i) => (o.decision ? [[calls[i]!.id!, o.decision]] : [])));
    await commit(opts, hooks, {
      role: 'user',
      at: Date.now(),
      ...(Object.keys(decisions).length ? { decisions } : {}),
      content: calls.map((c, i) => ({
        type: 'tool_result',
        tool_use_id: c.id!,
        content: outcomes[i]!.content,
        ...(outcomes[i]!.isError ? { is_error: true } : {}),
      })),
    });
    if (signal.aborted) return { kind: 'stopped' };
  }
}

async function streamReply(
  client: ModelClient,
  request: ModelRequest,
  signal: AbortSignal,
  hooks: LoopHooks,
  out: StreamedReply,
): Promise<StreamedReply> {
  const stream = await client.stream(request, signal);
  let sawStop = false;
  for await (const ev of stream) {
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
        const outcome = input.ok
          ? await Promise.race([opts.registry.call(call.name!, input.value, { ...ctx, toolUseId: call.id! }), abort])
          : { content: input.error, isError: true };
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
async function commitPartialText(opts: LoopOptions, hooks: LoopHooks, blocks: DraftBlock[]) {
  const content: ContentBlock[] = blocks
    .filter((b) => b?.type === 'text' && b.text.trim())
    .map((b) => ({ type: 'text', text: b.text }));
  if (content.length) await commit(opts, hooks, { role: 'assistant', content, at: Date.now() });
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
