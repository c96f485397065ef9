import type { Attention, KeepAlive } from '../contracts/ports';
import type { ActivityEntry } from '../contracts/permissions';
import { PolicySession, type PermissionsSource } from '../policy/session';
import { mayNameTab } from '../policy/sites';
import { newMarker } from '../policy/fence';
import { engineUrl } from '../search-engines/run';
import { emptyUsage, MAX_SELECTION_CHARS, type Conversation, type TokenUsage, type DraftBlock, type RunState, type StoredMessage, type ToolCallStatus } from '../contracts/conversation';
import type { UserReply } from '../contracts/questions';
import type { ConversationSnapshot, RunEvent, ToolProgress } from '../contracts/run-events';
import { foldSubAgentEvent, type SubAgentView } from '../contracts/sub-agents';
import { errorMessage } from '../errors';
import type { Settings } from '../settings';
import type { SkillProblem } from '../skills/tools';
import { detachedEnv, type BrowserEnv, type ToolEnv } from '../tools/env';
import type { ToolDefinition, ToolRegistry } from '../tools/registry';
import { TaskBoards } from '../tools/task-board';
import type { ConversationStore } from './conversation-store';
import { ContextManager, contextWindowFor } from './context';
import { costOf, priceFor } from './pricing';
import { DraftInputBatch } from './draft-input-batch';
import { runLoop, type LoopHooks, type LoopOutcome } from './loop';
import { awaitsModel, regenerateCut, repairDanglingToolUse, titleFrom } from './messages';
import type { ModelClient, ModelEndpoint } from './model';
import { configuredEndpoints, endpointFor } from './providers/endpoints';
import { isProviderId, type ProviderId } from './providers/provider-ids';
import { PROVIDER_PRESETS } from './providers/presets';
import { QuestionBoard } from './questions';
import { runSubAgent } from './sub-agents';
import { summarize } from './summarize';
import { systemPrompt } from './system-prompt';

export interface RunManagerDeps {
  store: ConversationStore;
  registry: ToolRegistry;
  /**
   * The active skills' tools, read at the start of each run (so a skill enabled between two
   * messages is there for the next); absent in unit tests that have none.
   */
  skills?(signal: AbortSignal, askSignIn?: ToolEnv['askSignIn']): Promise<{ tools: readonly ToolDefinition<any>[]; problems: readonly SkillProblem[] }>;
  loadSettings(): Promise<Settings>;
  /** `run` names the conversation a run's client serves (the background's run log records by it). */
  createClient(endpoint: ModelEndpoint, run?: { conversationId: string; title: string }): ModelClient;
  keepAlive?: KeepAlive;
  /** Sub-agent budgets (tests shorten them). */
  subAgentLimits?: { rounds: number; ms: number };
  /** Badge and notifications for questions waiting on the user; absent in unit tests. */
  attention?: Attention;
  /** The browser behind the tools; absent in unit tests, where browser tools say so. */
  browser?: BrowserEnv;
  /**
   * The user's permissions and the activity log: with them every tool call of a run goes through
   * the policy (lib/policy). Absent only in unit tests of the loop's other parts.
   */
  policy?: { permissions: PermissionsSource; log?(entry: ActivityEntry): void };
  /** Dollars for `usage` of `model` at the user's prices; undefined for a model without a price. */
  cost?(usage: TokenUsage, model: string, settings: Settings, provider?: ProviderId): number | undefined;
  now?: () => Date;
}

/** Each request priced on its own (a long prompt can have its own rates). */
function defaultCost(u: TokenUsage, model: string, settings: Settings, provider: ProviderId = settings.provider): number | undefined {
  // A model on the user's own machine costs nothing per token, whatever its name.
  if (PROVIDER_PRESETS[provider].local) return 0;
  const price = priceFor(model, settings.prices);
  return price && costOf(u, price);
}

function addUsage(to: TokenUsage, u: TokenUsage) {
  to.input += u.input;
  to.output += u.output;
  to.cacheRead += u.cacheRead;
  to.cacheWrite += u.cacheWrite;
}

interface ActiveRun {
  conversation: Conversation;
  controller: AbortController;
  draft: DraftBlock[] | null;
  toolStatus: Record<string, ToolCallStatus>;
  /** The latest progress of each call still running, so a popup opened mid-call shows it. */
  toolProgress: Record<string, ToolProgress>;
  done: Promise<void>;
}

export const MAX_USER_MESSAGE_CHARS = 200_000;
const RECENT_CONVERSATIONS = 5;
const PREFERRED_FOR_MS = 5 * 60_000;
const INTERRUPTED_TOOL =
  'This tool call was interrupted: the browser stopped the extension before it finished, so its result is unknown. Check the state and call it again if it is still needed.';

/** Owns every run: starts, streams, persists step by step, stops, and lets UIs attach. */
export class RunManager {
  private readonly active = new Map<string, ActiveRun>();
  /** Conversations a request is starting a run in: claimed before the first await, so two
   *  clicks (or two popups) cannot start two runs on one conversation. */
  private readonly starting = new Set<string>();
  private readonly listeners = new Map<string, Set<(ev: RunEvent) => void>>();
  /** Per running conversation: its streamed tool arguments, gathered (see DraftInputBatch). */
  private readonly inputBatches = new Map<string, DraftInputBatch>();
  readonly tasks = new TaskBoards((id, tasks) => this.emit(id, { type: 'tasks', tasks }));
  readonly questions: QuestionBoard;
  /** Sub-agents' activity per conversation, by agent call (kept for popups that attach later). */
  private readonly subAgents = new Map<string, Record<string, SubAgentView>>();
  /**
   * Recently used conversations, so reopening the popup does not wait on IndexedDB. The
   * background is the only writer, and every change goes through the object held here.
   */
  private readonly recent = new Map<string, Conversation>();

  constructor(private readonly deps: RunManagerDeps) {
    this.questions = new QuestionBoard(
      (id, event) => this.emit(id, event),
      (id) => (this.listeners.get(id)?.size ?? 0) > 0,
      deps.attention,
    );
  }

  subscribe(conversationId: string, listener: (ev: RunEvent) => void): () => void {
    let set = this.listeners.get(conversationId);
    if (!set) this.listeners.set(conversationId, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (!set.size && this.listeners.get(conversationId) === set) {
        this.listeners.delete(conversationId);
        this.questions.viewerLeft(conversationId);
      }
    };
  }

  isRunning(conversationId: string) {
    return this.active.has(conversationId);
  }

  /** Waits for the conversation's current run, if any (tests and benchmarks). */
  async settled(conversationId: string) {
    await this.active.get(conversationId)?.done;
  }

  async snapshot(conversationId: string): Promise<ConversationSnapshot | undefined> {
    const run = this.active.get(conversationId);
    const conversation = run?.conversation ?? (await this.load(conversationId));
    if (!conversation) return undefined;
    return {
      conversation: { ...conversation, messages: conversation.messages.slice() },
      draft: run?.draft ?? null,
      toolStatus: { ...(run?.toolStatus ?? {}) },
      toolProgress: { ...(run?.toolProgress ?? {}) },
      tasks: this.tasks.peek(conversationId),
      questions: this.questions.pending(conversationId),
      subAgents: { ...(this.subAgents.get(conversationId) ?? {}) },
    };
  }

  /** A popup's answer to a waiting question; throws with a sentence for the user when it does not fit. */
  answer(conversationId: string, questionId: string, reply: UserReply) {
    this.questions.answer(conversationId, questionId, reply);
  }

  /** Adds the user's message and starts a run; creates the conversation when there is none yet. */
  async send(conversationId: string | undefined, text: string): Promise<string> {
    const trimmed = text.trim();
    if (!trimmed) throw new Error('The message is empty.');
    if (trimmed.length > MAX_USER_MESSAGE_CHARS) {
      throw new Error(`The message is too long (${trimmed.length} characters; the limit is ${MAX_USER_MESSAGE_CHARS}).`);
    }
    return this.claim(conversationId, async () => {
      const settings = await this.deps.loadSettings();
      let conversation = conversationId ? await this.load(conversationId) : undefined;
      if (conversationId && !conversation) throw new Error('This conversation no longer exists.');
      conversation ??= this.remember(await this.deps.store.create(settings.roundCap));
      await this.repair(conversation);
      if (!conversation.title) {
        conversation.title = titleFrom(trimmed);
        await this.deps.store.update(conversation.id, { title: conversation.title });
        this.emit(conversation.id, { type: 'title', title: conversation.title });
      }
      const activeTab = await this.userTab();
      await this.append(conversation, { role: 'user', content: [{ type: 'text', text: trimmed }], at: Date.now(), ...(activeTab ? { activeTab } : {}) });
      this.start(conversation, settings);
      return conversation.id;
    });
  }

  /**
   * The tab the user is looking at as they send, with what they selected in it: the model sees
   * it with the message, and the policy lets the run read its site. A tab on a site the user
   * blocked is not recorded at all: the model is not even told its address.
   */
  private async userTab(): Promise<StoredMessage['activeTab']> {
    try {
      const tab = await this.deps.browser?.tabs.userTab();
      if (!tab) return undefined;
      const permissions = await this.deps.policy?.permissions.current();
      if (permissions && !mayNameTab(permissions, tab.url)) return undefined;
      const selection = await this.deps.browser!.pages.selection(tab.id, MAX_SELECTION_CHARS);
      return { id: tab.id, url: tab.url, title: tab.title, ...(selection ? { selection, fence: newMarker() } : {}) };
    } catch {
      return undefined;
    }
  }

  private async claim<T>(conversationId: string | undefined, body: () => Promise<T>): Promise<T> {
    if (!conversationId) return body();
    if (this.active.has(conversationId) || this.starting.has(conversationId)) {
      throw new Error('A run is already active in this conversation.');
    }
    this.starting.add(conversationId);
    try {
      return await body();
    } finally {
      this.starting.delete(conversationId);
    }
  }

  /** Continues after the round cap, an interruption or an error. */
  async continueRun(conversationId: string): Promise<void> {
    if (this.active.has(conversationId) || this.starting.has(conversationId)) return;
    await this.claim(conversationId, async () => {
      const conversation = await this.load(conversationId);
      if (!conversation) throw new Error('This conversation no longer exists.');
      await this.repair(conversation);
      const settings = await this.deps.loadSettings();
      if (conversation.messages.at(-1)?.incomplete) {
        // Retry after a reply broke off: the whole reply replaces the words that had arrived.
        conversation.messages.length -= 1;
        await this.deps.store.truncate(conversationId, conversation.messages.length);
        this.emit(conversationId, { type: 'messages_replaced', messages: conversation.messages.slice() });
      }
      if (awaitsModel(conversation.messages)) {
        this.start(conversation, settings);
      } else {
        const { error: _e, ...run } = conversation.run;
        await this.setRun(conversation, { ...run, status: 'done' });
      }
    });
  }

  async regenerate(conversationId: string): Promise<void> {
    await this.claim(conversationId, async () => {
      const conversation = await this.load(conversationId);
      if (!conversation) throw new Error('This conversation no longer exists.');
      const cut = regenerateCut(conversation.messages);
      if (cut === undefined) throw new Error('There is no message to answer again.');
      conversation.messages.length = cut;
      await this.deps.store.truncate(conversationId, cut);
      // A view that reached past the cut (a forced compaction inside the last turn) would hide
      // the question being answered again: it starts over from what is left.
      const view = conversation.context;
      if (view && ((view.compaction?.through ?? 0) >= cut || view.elidedBefore > cut)) {
        conversation.context = { elidedBefore: Math.min(view.elidedBefore, cut), ...(view.compaction && view.compaction.through < cut ? { compaction: view.compaction } : {}) };
        await this.deps.store.update(conversationId, { context: conversation.context });
        this.emit(conversationId, { type: 'context', context: conversation.context });
      }
      this.emit(conversationId, { type: 'messages_replaced', messages: conversation.messages.slice() });
      this.start(conversation, await this.deps.loadSettings());
    });
  }

  stop(conversationId: string) {
    this.active.get(conversationId)?.controller.abort();
  }

  async delete(conversationId: string) {
    this.stop(conversationId);
    await this.settled(conversationId);
    this.tasks.drop(conversationId);
    this.subAgents.delete(conversationId);
    this.recent.delete(conversationId);
    await this.deps.store.delete(conversationId);
  }

  async rename(conversationId: string, title: string) {
    const clean = title.trim().replace(/\s+/g, ' ').slice(0, 200);
    if (!clean) throw new Error('A conversation name cannot be empty.');
    const conversation = this.active.get(conversationId)?.conversation ?? (await this.load(conversationId));
    if (!conversation) throw new Error('This conversation no longer exists.');
    conversation.title = clean;
    await this.deps.store.update(conversationId, { title: clean });
    this.emit(conversationId, { type: 'title', title: clean });
  }

  /**
   * The conversation to attach to when none is named: one whose question waits for the user
   * (opening the popup is how they answer it), else the most recently updated one.
   */
  async latestId(): Promise<string | undefined> {
    const preferred = this.preferred;
    if (preferred && preferred.until > Date.now()) {
      this.preferred = undefined;
      if (this.recent.has(preferred.id) || (await this.deps.store.get(preferred.id))) return preferred.id;
    }
    return this.questions.oldestWaiting() ?? this.deps.store.latestId();
  }

  /**
   * The management page's "Continue in the chat": the next chat that opens without naming a
   * conversation (the toolbar popup) attaches to this one — within a few minutes, once.
   */
  preferNext(conversationId: string) {
    this.preferred = { id: conversationId, until: Date.now() + PREFERRED_FOR_MS };
  }
  private preferred?: { id: string; until: number };

  private async load(conversationId: string): Promise<Conversation | undefined> {
    const cached = this.recent.get(conversationId);
    if (cached) return this.remember(cached);
    const stored = await this.deps.store.get(conversationId);
    return stored && this.remember(this.recent.get(conversationId) ?? stored);
  }

  private remember(conversation: Conversation): Conversation {
    this.recent.delete(conversation.id);
    this.recent.set(conversation.id, conversation);
    for (const id of this.recent.keys()) {
      if (this.recent.size <= RECENT_CONVERSATIONS) break;
      if (!this.active.has(id)) this.recent.delete(id);
    }
    return conversation;
  }

  /** After a restart, a run recorded as running was cut off: say so, so one click continues it. */
  async recoverInterrupted(): Promise<string[]> {
    const recovered: string[] = [];
    for (const summary of await this.deps.store.list()) {
      if ((summary.status === 'running' || summary.status === 'retrying') && !this.active.has(summary.id)) {
        const conversation = await this.deps.store.get(summary.id);
        if (!conversation) continue;
        const { retry: _r, ...rest } = conversation.run;
        await this.deps.store.setRun(summary.id, { ...rest, status: 'interrupted' });
        recovered.push(summary.id);
      }
    }
    return recovered;
  }

  private async repair(conversation: Conversation) {
    const fix = repairDanglingToolUse(conversation.messages, INTERRUPTED_TOOL);
    if (fix) await this.append(conversation, fix);
  }

  private async append(conversation: Conversation, message: StoredMessage) {
    conversation.messages.push(message);
    await this.persistLast(conversation, message);
  }

  private async persistLast(conversation: Conversation, message: StoredMessage) {
    await this.deps.store.append(conversation.id, conversation.messages.length - 1, message, { run: conversation.run });
    this.emit(conversation.id, { type: 'message', message });
  }

  private start(conversation: Conversation, settings: Settings) {
    const controller = new AbortController();
    const run: ActiveRun = { conversation, controller, draft: null, toolStatus: {}, toolProgress: {}, done: Promise.resolve() };
    this.active.set(conversation.id, run);
    this.deps.keepAlive?.acquire();
    run.done = this.execute(run, settings)
      .catch(async (e: unknown) => {
        // The store itself failed (quota, closed database): tell the UI rather than go silent.
        const error = { kind: 'other' as const, message: `Could not save the conversation: ${errorMessage(e)}` };
        this.emitRun(conversation, { ...conversation.run, status: 'error', error });
      })
      .finally(() => {
        this.active.delete(conversation.id);
        this.deps.keepAlive?.release();
      });
  }

  private async execute(active: ActiveRun, settings: Settings) {
    const { conversation, controller } = active;
    const state: RunState = {
      status: 'running',
      round: 0,
      roundCap: settings.roundCap,
      usage: emptyUsage(),
      startedAt: Date.now(),
    };
    await this.setRun(conversation, state);
    const main = endpointFor(settings);
    if (!main.ok) {
      await this.finish(conversation, state, { kind: 'error', error: { kind: 'config', message: main.message } });
      return;
    }
    const id = conversation.id;
    const registry = await this.registryFor(id, controller.signal, settings.askUserTimeoutSec * 1000);
    const inputBatch = new DraftInputBatch((index, json) => {
      const b = active.draft?.[index];
      if (b) b.inputJson = (b.inputJson ?? '') + json;
      this.emitNow(id, { type: 'draft_input', index, json });
    });
    this.inputBatches.set(id, inputBatch);
    const hooks: LoopHooks = {
      draftReset: () => {
        active.draft = [];
        this.emit(id, { type: 'draft_reset' });
      },
      draftBlock: (index, block) => {
        (active.draft ??= [])[index] = { ...block };
        this.emit(id, { type: 'draft_block', index, block });
      },
      draftText: (index, text) => {
        const b = active.draft?.[index];
        if (b) b.text += text;
        this.emit(id, { type: 'draft_text', index, text });
      },
      draftInput: (index, json) => inputBatch.add(index, json),
      commit: async (message) => {
        if (message.role === 'assistant') active.draft = null;
        await this.persistLast(conversation, message);
      },
      toolStatus: (toolId, status) => {
        active.toolStatus[toolId] = status;
        if (status !== 'running') delete active.toolProgress[toolId];
        this.emit(id, { type: 'tool_status', id: toolId, status });
      },
      toolProgress: (toolId, progress) => {
        active.toolProgress[toolId] = progress;
        this.emit(id, { type: 'tool_progress', id: toolId, progress });
      },
      usage: (u) => account(u, settings.model),
      round: (n) => {
        state.round = n;
        this.emitRun(conversation, state);
      },
      retrying: (info) => {
        state.status = info ? 'retrying' : 'running';
        if (info) state.retry = info;
        else delete state.retry;
        this.emitRun(conversation, state);
      },
    };
    const runInfo = { conversationId: id, title: conversation.title };
    const client = this.deps.createClient(main.endpoint, runInfo);
    const summaryModel = settings.summaryModel || settings.model;
    /** Clients of the other providers this run uses (summary model, agent profiles), made once each. */
    const clients = new Map<ProviderId, ModelClient>([[main.endpoint.provider, client]]);
    const clientFor = (provider: string | undefined): ModelClient => {
      if (provider && !isProviderId(provider)) throw new Error(`Unknown model provider "${provider}": edit the agent in Settings → Agents.`);
      const r = endpointFor(settings, provider as ProviderId | undefined);
      if (!r.ok) throw new Error(r.message);
      let c = clients.get(r.endpoint.provider);
      if (!c) clients.set(r.endpoint.provider, (c = this.deps.createClient(r.endpoint, runInfo)));
      return c;
    };
    // A summary provider that is not set up fails the summaries (as a tool error), never the run.
    const summaryClient = (): ModelClient => clientFor(settings.summaryProvider);
    /** Every model call of the run counts: the loop's, sub-agents', summaries' and compaction's. */
    const summaryProvider = settings.summaryProvider || settings.provider;
    const account = (u: TokenUsage, model: string, provider: ProviderId = settings.provider) => {
      addUsage(state.usage, u);
      const totals = (conversation.totals ??= { usage: emptyUsage(), cost: 0, unpricedTokens: 0 });
      addUsage(totals.usage, u);
      const cost = (this.deps.cost ?? defaultCost)(u, model, settings, provider);
      if (cost === undefined) {
        const n = u.input + u.output + u.cacheRead + u.cacheWrite;
        state.unpricedTokens = (state.unpricedTokens ?? 0) + n;
        totals.unpricedTokens += n;
      } else {
        state.cost = (state.cost ?? 0) + cost;
        totals.cost += cost;
      }
      this.emitRun(conversation, state);
      this.emit(id, { type: 'totals', totals: { ...totals, usage: { ...totals.usage } } });
    };
    const context = new ContextManager({
      client,
      window: contextWindowFor(settings.model, settings.contextWindow),
      threshold: settings.contextThreshold / 100,
      maxTokens: settings.maxTokens,
      model: settings.model,
      noteModel: summaryModel,
      ...(settings.summaryProvider && settings.summaryProvider !== settings.provider ? { noteClient: lazyClient(summaryClient) } : {}),
      ...(conversation.context ? { view: conversation.context } : {}),
      changed: async (view) => {
        conversation.context = view;
        await this.deps.store.update(id, { context: view });
        this.emit(id, { type: 'context', context: view });
      },
      usage: (u, model) => account(u, model, model === summaryModel ? summaryProvider : settings.provider),
    });
    const gate = this.deps.policy && this.policyFor(id, conversation, registry, settings, this.deps.policy);
    const env: ToolEnv = {
      ...detachedEnv(settings),
      ...this.deps.browser,
      summarize: (text, prompt, signal) =>
        summarize(text, prompt, { client: summaryClient(), model: summaryModel, maxTokens: settings.maxTokens, signal, usage: (u) => account(u, summaryModel, summaryProvider) }),
      notify: (notice) => this.emit(id, { type: 'notice', notice }),
      ask: (question, signal) => this.questions.ask(id, question, settings.askUserTimeoutSec * 1000, signal),
      askSignIn: (server, signal) => this.questions.signIn(id, server, `Sign in to ${server.name} (${server.origin})`, settings.askUserTimeoutSec * 1000, signal),
      elicit: (request, signal) => this.questions.elicit(id, request, settings.askUserTimeoutSec * 1000, signal),
      subAgent: (request, toolUseId, signal) =>
        runSubAgent(request, {
          client: request.profile?.provider ? clientFor(request.profile.provider) : client,
          tools: registry,
          context: { conversationId: id, env, ...(gate ? { gate } : {}) },
          model: settings.model,
          maxTokens: settings.maxTokens,
          signal,
          ...(this.deps.subAgentLimits ? { limits: this.deps.subAgentLimits } : {}),
          ...(this.deps.now ? { now: this.deps.now } : {}),
          emit: (event) => {
            const views = this.subAgents.get(id) ?? {};
            views[toolUseId] = foldSubAgentEvent(views[toolUseId], event);
            this.subAgents.set(id, views);
            this.emit(id, { type: 'sub_agent_event', toolUseId, event });
          },
          // A profile's tokens are priced as its own model on its own provider.
          usage: (u) => account(u, request.profile?.model || settings.model, (request.profile?.provider || settings.provider) as ProviderId),
        }),
    };
    let outcome: LoopOutcome;
    try {
      outcome = await runLoop(
        {
          client,
          registry,
          toolContext: { conversationId: id, tasks: this.tasks.for(id), env, ...(gate ? { gate } : {}) },
          system: systemPrompt(this.deps.now?.() ?? new Date()),
          model: settings.model,
          maxTokens: settings.maxTokens,
          roundCap: settings.roundCap,
          messages: conversation.messages,
          signal: controller.signal,
          context,
          streamIdleMs: settings.streamIdleSec * 1000,
          loopGuard: settings.loopGuardRepeats,
          budget: () => {
            const u = state.usage;
            if (settings.tokenBudget && u.input + u.output + u.cacheRead + u.cacheWrite >= settings.tokenBudget) return 'token_budget';
            if (settings.costBudget && (state.cost ?? 0) >= settings.costBudget) return 'cost_budget';
            return undefined;
          },
        },
        hooks,
      );
    } catch (e) {
      outcome = { kind: 'error', error: { kind: 'other', message: errorMessage(e) } };
    }
    active.draft = null;
    this.emit(id, { type: 'draft_reset' });
    this.inputBatches.delete(id);
    await this.finish(conversation, state, outcome);
  }

  /** The run's policy: its sub-agents share it, so what one of them reads taints them all. */
  private policyFor(id: string, conversation: Conversation, registry: ToolRegistry, settings: Settings, policy: NonNullable<RunManagerDeps['policy']>): PolicySession {
    const lastUser = conversation.messages.findLast((m) => m.role === 'user' && m.content.some((b) => b.type === 'text'));
    return new PolicySession({
      conversationId: id,
      permissions: policy.permissions,
      approve: (details, sentence, signal) => this.questions.approve(id, details, sentence, settings.askUserTimeoutSec * 1000, signal),
      ...(policy.log ? { log: policy.log } : {}),
      destinations: [...configuredEndpoints(settings).map((e) => e.baseUrl), engineUrl(settings)],
      ...(lastUser?.activeTab ? { activeTabUrl: lastUser.activeTab.url } : {}),
      history: conversation.messages,
      carriesThirdPartyText: (name) => !!registry.facts(name)?.thirdPartyText,
      timeoutSec: settings.askUserTimeoutSec,
    });
  }

  /** The built-in tools and the active skills' (a broken skill source never stops the run). */
  private async registryFor(conversationId: string, signal: AbortSignal, askTimeoutMs: number): Promise<ToolRegistry> {
    if (!this.deps.skills) return this.deps.registry;
    try {
      // An MCP server whose tools cannot be listed without a sign-in asks for it in this chat.
      const askSignIn: ToolEnv['askSignIn'] = (server, s) => this.questions.signIn(conversationId, server, `Sign in to ${server.name} (${server.origin})`, askTimeoutMs, s);
      const { tools, problems } = await this.deps.skills(signal, askSignIn);
      // The user enabled these skills: say why one is missing rather than let the model work without it.
      if (problems.length) this.emit(conversationId, { type: 'notice', notice: { kind: 'skills_unavailable', problems: [...problems] } });
      return this.deps.registry.with(tools);
    } catch (e) {
      const message = errorMessage(e);
      this.emit(conversationId, { type: 'notice', notice: { kind: 'skills_unavailable', problems: [{ skill: '*', message }] } });
      return this.deps.registry;
    }
  }

  private async finish(conversation: Conversation, state: RunState, outcome: LoopOutcome) {
    delete state.retry;
    state.endedAt = Date.now();
    if (outcome.kind === 'error') {
      state.status = 'error';
      state.error = outcome.error;
    } else if (outcome.kind === 'round_cap' || outcome.kind === 'paused') {
      state.status = 'awaiting_continue';
      state.pause = outcome.kind === 'paused' ? outcome.reason : 'round_cap';
    } else {
      state.status = outcome.kind;
    }
    if (conversation.totals) await this.deps.store.update(conversation.id, { totals: conversation.totals });
    await this.setRun(conversation, state);
  }

  private async setRun(conversation: Conversation, run: RunState) {
    conversation.run = structuredClone(run);
    await this.deps.store.setRun(conversation.id, conversation.run);
    this.emit(conversation.id, { type: 'run', run: conversation.run });
  }

  private emitRun(conversation: Conversation, run: RunState) {
    conversation.run = structuredClone(run);
    this.emit(conversation.id, { type: 'run', run: conversation.run });
  }

  private emit(conversationId: string, event: RunEvent) {
    // Streamed argument text that is still gathered goes first: the UI sees events in order.
    this.inputBatches.get(conversationId)?.flush();
    this.emitNow(conversationId, event);
  }

  private emitNow(conversationId: string, event: RunEvent) {
    const set = this.listeners.get(conversationId);
    if (!set) return;
    for (const l of set) {
      try {
        l(event);
      } catch {
        // A UI that went away must not break the run.
      }
    }
  }
}

/**
 * A client made on first use: the compaction note's client when the summary model is on another
 * provider, so a summary provider that is not set up fails only the note that needs it.
 */
function lazyClient(make: () => ModelClient): ModelClient {
  return { stream: (request, signal) => make().stream(request, signal) };
}
