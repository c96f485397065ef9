import { foldSubAgentEvent, type SubAgentView } from '../contracts/sub-agents';
import type { ContextView, ConversationTotals, DraftBlock, RunState, StoredMessage, Task, ToolCallStatus } from '../contracts/conversation';
import type { PendingQuestion } from '../contracts/questions';
import type { RunEvent, ToolProgress } from '../contracts/run-events';
import type { Notice } from '../contracts/notices';

/** The attached conversation as the UI sees it, rebuilt from the background's events. */
export class ChatState {
  conversationId = $state<string | undefined>(undefined);
  title = $state('');
  messages = $state.raw<StoredMessage[]>([]);
  draft = $state<DraftBlock[] | null>(null);
  toolStatus = $state<Record<string, ToolCallStatus>>({});
  /** The latest progress of running tool calls (not in the snapshot: the next update brings it). */
  toolProgress = $state<Record<string, ToolProgress>>({});
  run = $state<RunState | null>(null);
  tasks = $state.raw<Task[]>([]);
  /** ask_user questions waiting for this user, oldest first. */
  questions = $state.raw<PendingQuestion[]>([]);
  /** Sub-agents' live activity, by the agent call's tool_use id. */
  subAgents = $state.raw<Record<string, SubAgentView>>({});
  /** The latest thing a tool asked to tell the user, until dismissed. */
  notice = $state<Notice | null>(null);
  /** What the model sees of a long conversation: where its view begins, what it sees shortened. */
  context = $state.raw<ContextView | undefined>(undefined);
  /** Tokens and cost of every run of this conversation. */
  totals = $state.raw<ConversationTotals | undefined>(undefined);
  /** False until the first snapshot after attaching (and while reconnecting). */
  loaded = $state(false);

  running = $derived(this.run?.status === 'running' || this.run?.status === 'retrying');

  /** `loaded` is false while a snapshot is awaited (always, unless this is a new chat). */
  reset(conversationId?: string, loaded = conversationId === undefined) {
    this.conversationId = conversationId;
    this.title = '';
    this.messages = [];
    this.draft = null;
    this.toolStatus = {};
    this.toolProgress = {};
    this.run = null;
    this.tasks = [];
    this.questions = [];
    this.subAgents = {};
    this.notice = null;
    this.context = undefined;
    this.totals = undefined;
    this.loaded = loaded;
  }

  apply(ev: RunEvent) {
    switch (ev.type) {
      case 'snapshot': {
        const { conversation, draft, toolStatus, toolProgress, tasks, questions, subAgents } = ev.snapshot;
        this.conversationId = conversation.id;
        this.title = conversation.title;
        this.messages = conversation.messages;
        this.draft = draft;
        this.toolStatus = toolStatus;
        this.toolProgress = toolProgress ?? {};
        this.run = conversation.run;
        this.tasks = tasks;
        this.questions = questions ?? [];
        this.subAgents = subAgents ?? {};
        this.context = conversation.context;
        this.totals = conversation.totals;
        this.loaded = true;
        break;
      }
      case 'draft_reset':
        this.draft = null;
        break;
      case 'draft_block':
        // Assign first, then index through the field: `(this.draft ??= [])` would yield the raw
        // array, not the reactive proxy, and the block would never render.
        if (!this.draft) this.draft = [];
        this.draft[ev.index] = { ...ev.block };
        break;
      case 'draft_text': {
        const b = this.draft?.[ev.index];
        if (b) b.text += ev.text;
        break;
      }
      case 'draft_input': {
        const b = this.draft?.[ev.index];
        if (b) b.inputJson = (b.inputJson ?? '') + ev.json;
        break;
      }
      case 'message':
        this.messages = [...this.messages, ev.message];
        if (ev.message.role === 'assistant') this.draft = null;
        break;
      case 'messages_replaced':
        this.messages = ev.messages;
        this.draft = null;
        break;
      case 'tool_status':
        this.toolStatus[ev.id] = ev.status;
        if (ev.status !== 'running') delete this.toolProgress[ev.id];
        break;
      case 'tool_progress':
        this.toolProgress[ev.id] = ev.progress;
        break;
      case 'run':
        this.run = ev.run;
        break;
      case 'question':
        this.questions = [...this.questions.filter((q) => q.id !== ev.question.id), ev.question];
        break;
      case 'sub_agent_event':
        this.subAgents = { ...this.subAgents, [ev.toolUseId]: foldSubAgentEvent(this.subAgents[ev.toolUseId], ev.event) };
        break;
      case 'question_closed':
        this.questions = this.questions.filter((q) => q.id !== ev.id);
        break;
      case 'tasks':
        this.tasks = ev.tasks;
        break;
      case 'title':
        this.title = ev.title;
        break;
      case 'notice':
        this.notice = ev.notice;
        break;
      case 'context':
        this.context = ev.context;
        break;
      case 'totals':
        this.totals = ev.totals;
        break;
    }
  }
}
