/**
 * Background loop overhead per tool round.
 *
 * Runs runLoop against the local FakeAnthropic server (real HTTP + SSE through the SDK) for
 * 1,000 rounds where every reply is one tool_use of a no-op tool, then a final text reply.
 * Per round:  overhead = round wall time − model stream time − tool time
 *   round wall time   from the loop starting round k (hooks.round(k)) to it starting round k+1
 *   model stream time from the loop calling ModelClient.stream() to the end of the event stream
 *   tool time         the registry call of the no-op tool
 * What is left is the loop's own work: building the request from the conversation, parsing the
 * tool input, dispatching tools, committing both messages and the hooks.
 *
 * Three passes: an in-memory commit hook, ConversationStore on fake-indexeddb (persistence cost),
 * and the in-memory pass with the trust policy on (lib/policy: every call authorised by a
 * PolicySession against 500 site rules, the conversation tainted, so the exfiltration guard runs
 * too); the policy check itself (gate.authorize, targets included) is timed per call. A fourth
 * pass starts from a 150,000-token conversation with the context manager on (lib/agent/context.ts)
 * and times its check per round (measured size plus the estimate of what was added).
 * The in-memory and ConversationStore passes run once per provider: the Messages API
 * (FakeAnthropic) and OpenAI Chat Completions (FakeOpenAI, through the provider that translates
 * requests and chunks). For the latter the request translation (toChatRequest) is timed on each
 * round's request outside the model span as well, so its overhead figure includes it once.
 * Run: npx vite-node scripts/bench-loop.ts [--rounds N] [--strict]
 */
import 'fake-indexeddb/auto';
import * as v from 'valibot';
import { ConversationStore } from '../lib/agent/conversation-store';
import { runLoop, type LoopHooks, type LoopOptions } from '../lib/agent/loop';
import type { ModelClient, ModelRequest } from '../lib/agent/model';
import { createAnthropicClient } from '../lib/agent/providers/anthropic-messages';
import { createOpenAIChatClient, dialectOf, toChatRequest } from '../lib/agent/providers/openai-chat';
import { idleRun, type RunState, type StoredMessage } from '../lib/contracts/conversation';
import { defineTool, ToolRegistry, type ToolContext, type ToolOutcome } from '../lib/tools/registry';
import { TaskBoard } from '../lib/tools/task-board';
import { detachedEnv } from '../lib/tools/env';
import { defaultSettings } from '../lib/settings';
import * as anthropicFake from '../tests/harness/fake-anthropic';
import * as openaiFake from '../tests/harness/fake-openai';
import { defaultPermissions, type Permissions } from '../lib/contracts/permissions';
import type { ToolGate } from '../lib/contracts/tools';
import { PolicySession } from '../lib/policy/session';
import { ContextManager } from '../lib/agent/context';
import { estimateContentTokens } from '../lib/agent/token-estimate';

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const ROUNDS = Number(arg('--rounds') ?? 1000);
const WARMUP_ROUNDS = 50;
const ROUND_CAP = 2000;
const TARGET_MEDIAN_MS = 2;

const TARGET_POLICY_MS = 1;

const noop = defineTool({
  name: 'noop',
  risk: 'send_off_machine',
  subAgents: [],
  description: 'Does nothing (benchmark).',
  input: v.strictObject({}),
  // What the policy sees: a send to a site among many rules (allowed, so no one is asked).
  targets: () => [{ access: 'send', url: 'https://api.site250.example/v1/items?q=1' }],
  run: () => 'ok',
});

/** A session as a real run has it: a long site list, a tainted conversation, a few named hosts. */
function benchPolicy(onCheck: (ms: number) => void): ToolGate {
  const permissions: Permissions = {
    ...defaultPermissions(),
    sites: Array.from({ length: 500 }, (_, i) => ({ site: `https://site${i}.example`, subdomains: i % 2 === 0, read: 'allow' as const, act: 'ask' as const, send: 'ask' as const, createdAt: i })),
  };
  const session = new PolicySession({
    conversationId: 'bench',
    permissions: { current: () => permissions, grant: async () => {} },
    approve: async () => ({ choice: 'deny' }),
    destinations: ['https://api.anthropic.com', 'https://html.duckduckgo.com/html/'],
    history: [{ role: 'user', content: [{ type: 'text', text: 'Compare shop.example.com with https://other.example/path and mail bob@corp.example' }], at: 0 }],
    carriesThirdPartyText: () => false,
    timeoutSec: 300,
  });
  session.taint();
  return {
    fence: (t, s) => session.fence(t, s),
    taint: () => session.taint(),
    async authorize(call, signal) {
      const t0 = performance.now();
      try {
        return await session.authorize(call, signal);
      } finally {
        onCheck(performance.now() - t0);
      }
    },
  };
}

interface RoundTiming {
  start: number;
  modelMs: number;
  /** Part of modelMs spent waiting inside the SDK's stream iterator (HTTP, SSE parsing). */
  modelWaitMs: number;
  toolMs: number;
  /** runLoop's own metrics (modelMs + toolMs) when the round started. */
  metricsAtStart: number;
}

class TimedRegistry extends ToolRegistry {
  onCall: (ms: number) => void = () => {};
  override async call(name: string, rawInput: unknown, ctx: ToolContext): Promise<ToolOutcome> {
    const t0 = performance.now();
    try {
      return await super.call(name, rawInput, ctx);
    } finally {
      this.onCall(performance.now() - t0);
    }
  }
}

/** Wraps a client so each round's stream time (call → last event) is measured. */
function timedClient(inner: ModelClient, onDone: (spanMs: number, waitMs: number) => void): ModelClient {
  return {
    async stream(request, signal) {
      const t0 = performance.now();
      const iterable = await inner.stream(request, signal);
      let waitMs = performance.now() - t0;
      return {
        [Symbol.asyncIterator]() {
          const it = iterable[Symbol.asyncIterator]();
          return {
            async next() {
              const a = performance.now();
              const r = await it.next();
              const b = performance.now();
              waitMs += b - a;
              if (r.done) onDone(b - t0, waitMs);
              return r;
            },
            async return(value?: unknown) {
              await it.return?.(value);
              return { done: true as const, value: undefined };
            },
          };
        },
      };
    },
  };
}

type Commit = (message: StoredMessage, messages: StoredMessage[], run: RunState) => Promise<void>;

/** What a pass needs of a provider: its fake server, its client, and how to script a reply. */
interface Provider {
  name: string;
  fake: { url: string; requests: unknown[]; reset(): void; script(...replies: never[]): unknown; start(): Promise<string>; stop(): Promise<void> };
  client(): ModelClient;
  toolCall(): unknown;
  text(): unknown;
  /** Provider work done before the request is sent, timed apart (counted as loop overhead). */
  translate?(request: ModelRequest): void;
}

function providers(): Provider[] {
  const a = new anthropicFake.FakeAnthropic();
  const o = new openaiFake.FakeOpenAI();
  return [
    {
      name: 'Messages API',
      fake: a,
      client: () => createAnthropicClient({ apiKey: 'bench-key', baseUrl: a.url }),
      toolCall: () => anthropicFake.toolCall('noop', {}),
      text: () => anthropicFake.text('All done.'),
    },
    {
      name: 'Chat Completions',
      fake: o,
      client: () => createOpenAIChatClient({ apiKey: 'bench-key', baseUrl: o.url, kind: 'openai' }),
      toolCall: () => openaiFake.toolCall('noop', {}),
      text: () => openaiFake.text('All done.'),
      translate: (request) => void toChatRequest(request, dialectOf(o.url)),
    },
  ];
}

interface PassResult {
  rounds: RoundTiming[];
  wall: number[];
  overhead: number[];
  totalMs: number;
  metrics: { modelMs: number; toolMs: number; rounds: number; contextMs?: number };
  outcome: string;
  /** Per round, the provider's request translation when it has one. */
  translateMs: number[];
}

/** Earlier turns of about `tokens` tokens: questions, tool calls and 2,000-character results. */
function history(tokens: number): StoredMessage[] {
  const out: StoredMessage[] = [];
  let n = 0;
  for (let i = 0; n < tokens; i++) {
    const turn: StoredMessage[] = [
      { role: 'user', content: [{ type: 'text', text: `Question ${i}: read the next page of the report and list what changed.` }], at: i },
      { role: 'assistant', content: [{ type: 'tool_use', id: `h${i}`, name: 'noop', input: {} }], at: i },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: `h${i}`, content: `Page ${i} of the report. `.repeat(80) }], at: i },
      { role: 'assistant', content: [{ type: 'text', text: `Page ${i}: nothing changed that matters.` }], at: i },
    ];
    for (const m of turn) n += estimateContentTokens(m.content) + 4;
    out.push(...turn);
  }
  return out;
}

async function pass(provider: Provider, toolRounds: number, commitTo: Commit, gate?: ToolGate, contextTokens = 0): Promise<PassResult> {
  const { fake } = provider;
  fake.reset();
  fake.script(...([...Array.from({ length: toolRounds }, () => provider.toolCall()), provider.text()] as never[]));
  const translateMs: number[] = [];

  const timings: RoundTiming[] = [];
  const current = () => timings[timings.length - 1]!;
  const registry = new TimedRegistry([noop]);
  registry.onCall = (ms) => void (current().toolMs += ms);
  const timed = timedClient(provider.client(), (span, wait) => {
    current().modelMs += span;
    current().modelWaitMs += wait;
  });
  const client: ModelClient = provider.translate
    ? {
        stream(request, signal) {
          const t = performance.now();
          provider.translate!(request);
          translateMs.push(performance.now() - t);
          return timed.stream(request, signal);
        },
      }
    : timed;
  const metrics = { modelMs: 0, toolMs: 0, rounds: 0 };
  const messages: StoredMessage[] = [...history(contextTokens), { role: 'user', content: [{ type: 'text', text: 'Run the no-op tool until told otherwise.' }], at: Date.now() }];
  const run: RunState = { ...idleRun(ROUND_CAP), status: 'running', startedAt: Date.now() };
  await commitTo(messages[0]!, messages, run);

  const noopHook = () => {};
  const hooks: LoopHooks = {
    draftReset: noopHook,
    draftBlock: noopHook,
    draftText: noopHook,
    draftInput: noopHook,
    toolStatus: noopHook,
    retrying: noopHook,
    usage: (u) => {
      run.usage.input += u.input;
      run.usage.output += u.output;
    },
    round: (n) => {
      run.round = n;
      // The fake keeps every request body; the conversation grows, so drop them as we go.
      fake.requests.length = 0;
      timings.push({ start: performance.now(), modelMs: 0, modelWaitMs: 0, toolMs: 0, metricsAtStart: metrics.modelMs + metrics.toolMs });
    },
    commit: (message) => commitTo(message, messages, run),
  };
  const opts: LoopOptions = {
    client,
    registry,
    toolContext: { conversationId: 'bench', tasks: new TaskBoard(), env: detachedEnv(defaultSettings()), ...(gate ? { gate } : {}) },
    system: 'You are a benchmark.',
    model: 'fake-model',
    maxTokens: 1024,
    roundCap: ROUND_CAP,
    messages,
    signal: new AbortController().signal,
    metrics,
    ...(contextTokens
      ? {
          // A window the conversation stays under: what is timed is the check every round pays.
          context: new ContextManager({ client, window: 400_000, threshold: 0.75, maxTokens: 1024, model: 'fake-model', noteModel: 'fake-model', changed: async () => {} }),
        }
      : {}),
  };

  const t0 = performance.now();
  const outcome = await runLoop(opts, hooks);
  const end = performance.now();
  if (outcome.kind !== 'done') throw new Error(`loop ended with ${JSON.stringify(outcome)}`);
  if (timings.length !== toolRounds + 1) throw new Error(`expected ${toolRounds + 1} rounds, got ${timings.length}`);

  // Tool rounds only: round k ends where round k+1 starts.
  const wall: number[] = [];
  const overhead: number[] = [];
  for (let k = 0; k < toolRounds; k++) {
    const r = timings[k]!;
    const w = timings[k + 1]!.start - r.start;
    wall.push(w);
    overhead.push(w - r.modelMs - r.toolMs);
  }
  return { rounds: timings.slice(0, toolRounds), wall, overhead, totalMs: end - t0, metrics, outcome: outcome.kind, translateMs };
}

const sorted = (xs: number[]) => xs.slice().sort((a, b) => a - b);
function quantile(xs: number[], q: number) {
  const s = sorted(xs);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!;
}
const median = (xs: number[]) => {
  const s = sorted(xs);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const ms = (n: number) => n.toFixed(3);

async function main() {
  const [anthropic, openai] = providers();
  await Promise.all([anthropic!.fake.start(), openai!.fake.start()]);

  const inMemory: Commit = async () => {};
  let dbCount = 0;
  const withStore = async (fn: (commit: Commit) => Promise<PassResult>) => {
    const store = await ConversationStore.open(`bench-loop-${dbCount++}`);
    const { id } = await store.create(ROUND_CAP, 'bench');
    try {
      return await fn((message, messages, run) => store.append(id, messages.length - 1, message, { run: structuredClone(run) }));
    } finally {
      store.close();
    }
  };

  try {
    // Warm up the JIT, the SDK and the keep-alive connection; discarded.
    for (const p of [anthropic!, openai!]) {
      await pass(p, WARMUP_ROUNDS, inMemory);
      await withStore((commit) => pass(p, WARMUP_ROUNDS, commit));
    }

    const checks: number[] = [];
    await pass(anthropic!, WARMUP_ROUNDS, inMemory, benchPolicy(() => {}));
    const results: [string, PassResult][] = [
      ['Messages API, in-memory commit', await pass(anthropic!, ROUNDS, inMemory)],
      ['Messages API, ConversationStore (fake-indexeddb)', await withStore((commit) => pass(anthropic!, ROUNDS, commit))],
      ['Messages API, in-memory, policy on', await pass(anthropic!, ROUNDS, inMemory, benchPolicy((ms) => checks.push(ms)))],
      ['Chat Completions, in-memory commit', await pass(openai!, ROUNDS, inMemory)],
      ['Chat Completions, ConversationStore (fake-indexeddb)', await withStore((commit) => pass(openai!, ROUNDS, commit))],
    ];
    const CONTEXT_ROUNDS = Math.min(ROUNDS, 200);
    const context = await pass(anthropic!, CONTEXT_ROUNDS, inMemory, undefined, 150_000);

    console.log(
      `Loop overhead per tool round — ${ROUNDS} tool rounds + 1 text reply, per provider: FakeAnthropic (Messages API) and FakeOpenAI ` +
        `(Chat Completions, through the translating provider) over HTTP on 127.0.0.1, Node ${process.version}`,
    );
    console.log('overhead = round wall − model stream (stream() call → last event) − tool call; all figures in ms\n');
    const header = ['pass', 'median', 'p95', 'mean', 'max', 'med 1st 100', 'med last 100', 'wall med', 'model med', 'tool med', 'total s'];
    const rows = results.map(([name, r]) => [
      name,
      ms(median(r.overhead)),
      ms(quantile(r.overhead, 0.95)),
      ms(mean(r.overhead)),
      ms(Math.max(...r.overhead)),
      ms(median(r.overhead.slice(0, 100))),
      ms(median(r.overhead.slice(-100))),
      ms(median(r.wall)),
      ms(median(r.rounds.map((t) => t.modelMs))),
      ms(median(r.rounds.map((t) => t.toolMs))),
      (r.totalMs / 1000).toFixed(2),
    ]);
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
    const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
    console.log(line(header));
    console.log(widths.map((w) => '-'.repeat(w)).join('  '));
    for (const row of rows) console.log(line(row));

    console.log('\nCross-check with runLoop metrics (whole run, incl. the final text round):');
    for (const [name, r] of results) {
      const { modelMs, toolMs, rounds } = r.metrics;
      const perRound = (r.totalMs - modelMs - toolMs) / rounds;
      const inStream = median(r.rounds.map((t) => t.modelMs - t.modelWaitMs));
      console.log(
        `  ${name}: ${rounds} model rounds, modelMs ${modelMs.toFixed(0)}, toolMs ${toolMs.toFixed(1)}, ` +
          `(total − modelMs − toolMs) / rounds = ${ms(perRound)} ms; loop event handling inside the stream (counted as model time): median ${ms(inStream)} ms`,
      );
    }

    const [, memory] = results[0]!;
    const [, idb] = results[1]!;
    console.log(`\nPersistence cost (fake-indexeddb − in-memory), median per round: ${ms(median(idb.overhead) - median(memory.overhead))} ms`);
    const translate = results[3]![1].translateMs;
    console.log(
      `Chat Completions request translation (toChatRequest, counted in its overhead above), ${translate.length} requests: ` +
        `median ${ms(median(translate))} ms, p95 ${ms(quantile(translate, 0.95))} ms`,
    );
    for (const [name, r] of [results[0]!, results[3]!]) console.log(`Loop overhead median per round — ${name}: ${ms(median(r.overhead))} ms`);
    let over = false;
    for (const [name, r] of results) {
      const m = median(r.overhead);
      over ||= m > TARGET_MEDIAN_MS;
      console.log(`Target: median overhead ≤ ${TARGET_MEDIAN_MS} ms per round — ${name}: ${ms(m)} ms ${m <= TARGET_MEDIAN_MS ? 'OK' : 'OVER'}`);
    }
    const policyMedian = median(checks);
    console.log(
      `Policy check per tool call (gate.authorize: 500 site rules, tainted conversation), ${checks.length} calls: median ${ms(policyMedian)} ms, p95 ${ms(quantile(checks, 0.95))} ms, max ${ms(Math.max(...checks))} ms — ` +
        `target ≤ ${TARGET_POLICY_MS} ms median: ${policyMedian <= TARGET_POLICY_MS ? 'OK' : 'OVER'}`,
    );
    over ||= policyMedian > TARGET_POLICY_MS;
    const perRound = (context.metrics.contextMs ?? 0) / context.metrics.rounds;
    console.log(
      `Context check per round at a 150,000-token conversation (${context.metrics.rounds} rounds, ${context.rounds.length} tool rounds): mean ${ms(perRound)} ms — ` +
        `target ≤ 1 ms: ${perRound <= 1 ? 'OK' : 'OVER'}; loop overhead median there ${ms(median(context.overhead))} ms (the request is rebuilt from 150,000 tokens each round)`,
    );
    over ||= perRound > 1;
    if (over && process.argv.includes('--strict')) process.exitCode = 1;
  } finally {
    await Promise.all([anthropic!.fake.stop(), openai!.fake.stop()]);
  }
}

await main();
