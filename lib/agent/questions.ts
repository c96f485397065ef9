/**
 * The waiting room for what a run needs from the user: ask_user's questions, the policy's
 * approvals and MCP servers' requests for input (elicitation), until answered, declined, timed out or stopped. Any popup attached to the
 * conversation can answer (the first answer wins; a second is told it came too late); while one
 * waits the toolbar badge says so, and when no popup shows the conversation a notification does.
 */
import * as v from 'valibot';
import type { Attention } from '../contracts/ports';
import type { ApprovalDetails } from '../contracts/permissions';
import type { ApprovalAnswer, ElicitationAnswer, ElicitationRequest, PendingQuestion, QuestionAnswer, QuestionInput, SignInServer, UserReply } from '../contracts/questions';
import type { RunEvent } from '../contracts/run-events';
import { checkElicitationAnswer } from '../skills/elicitation-form';

const ReplySchema = v.union([
  v.strictObject({ text: v.string() }),
  v.strictObject({ selected: v.array(v.string()) }),
  v.strictObject({ decline: v.literal(true) }),
  v.strictObject({ approval: v.picklist(['once', 'always', 'deny']) }),
  v.strictObject({ signIn: v.boolean() }),
  v.strictObject({ elicitation: v.literal('accept'), content: v.optional(v.record(v.string(), v.unknown())) }),
  v.strictObject({ elicitation: v.picklist(['decline', 'cancel']) }),
]);

interface Waiting {
  question: PendingQuestion;
  /** Turns a reply into the outcome and settles; throws when the reply does not fit. */
  reply(reply: UserReply): void;
}

type Settle<T> = (outcome: T) => void;

export class QuestionBoard {
  private readonly waiting = new Map<string, Waiting>();

  constructor(
    private readonly emit: (conversationId: string, event: RunEvent) => void,
    private readonly hasViewer: (conversationId: string) => boolean,
    private readonly attention?: Attention,
  ) {}

  /** Resolves with the user's answer, or `answer: null` and why (timeout, declined, stopped). */
  ask(conversationId: string, input: QuestionInput, timeoutMs: number, signal: AbortSignal): Promise<QuestionAnswer> {
    const question = this.pendingOf(conversationId, timeoutMs, {
      question: input.question,
      ...(input.options ? { options: input.options } : {}),
      multiple: input.multiple,
    });
    return this.wait<QuestionAnswer>(question, timeoutMs, signal, {
      timeout: { answer: null, reason: 'timeout' },
      stopped: { answer: null, reason: 'stopped' },
      reply: (reply, settle) => settle(toAnswer(question, reply)),
    });
  }

  /** An approval card: resolves with the button the user clicked, or null and why none was. */
  approve(conversationId: string, details: ApprovalDetails, sentence: string, timeoutMs: number, signal: AbortSignal): Promise<ApprovalAnswer> {
    const question = this.pendingOf(conversationId, timeoutMs, { question: sentence, multiple: false, approval: details });
    return this.wait<ApprovalAnswer>(question, timeoutMs, signal, {
      timeout: { choice: null, reason: 'timeout' },
      stopped: { choice: null, reason: 'stopped' },
      reply: (reply, settle) => {
        if (!('approval' in reply)) throw new Error('This card takes Allow once, Always or Deny.');
        if (reply.approval === 'always' && !details.canAlways) throw new Error('This action can only be allowed once.');
        settle({ choice: reply.approval });
      },
    });
  }

  /**
   * An MCP server wants the user signed in: a "Sign in to <server>" card. Resolves true when the
   * user clicked Sign in (the background then opens the browser's sign-in window), false on
   * Not now, a timeout or Stop.
   */
  signIn(conversationId: string, server: SignInServer, sentence: string, timeoutMs: number, signal: AbortSignal): Promise<boolean> {
    const question = this.pendingOf(conversationId, timeoutMs, { question: sentence, multiple: false, signIn: server });
    return this.wait<boolean>(question, timeoutMs, signal, {
      timeout: false,
      stopped: false,
      reply: (reply, settle) => {
        if ('decline' in reply) return settle(false);
        if (!('signIn' in reply)) throw new Error('This card takes Sign in or Not now.');
        settle(reply.signIn);
      },
    });
  }

  /** An MCP server's request for input: resolves with the user's accept (and the checked content), decline or cancel. */
  elicit(conversationId: string, request: ElicitationRequest, timeoutMs: number, signal: AbortSignal): Promise<ElicitationAnswer> {
    const question = this.pendingOf(conversationId, timeoutMs, { question: request.message, multiple: false, elicitation: request });
    return this.wait<ElicitationAnswer>(question, timeoutMs, signal, {
      timeout: { action: 'cancel', reason: 'timeout' },
      stopped: { action: 'cancel', reason: 'stopped' },
      reply: (reply, settle) => settle(toElicitationAnswer(request, reply)),
    });
  }

  private pendingOf(conversationId: string, timeoutMs: number, body: Omit<PendingQuestion, 'id' | 'conversationId' | 'askedAt' | 'expiresAt'>): PendingQuestion {
    const now = Date.now();
    return { id: crypto.randomUUID(), conversationId, ...body, askedAt: now, expiresAt: now + timeoutMs };
  }

  private wait<T>(
    question: PendingQuestion,
    timeoutMs: number,
    signal: AbortSignal,
    outcomes: { timeout: T; stopped: T; reply(reply: UserReply, settle: Settle<T>): void },
  ): Promise<T> {
    const { conversationId } = question;
    return new Promise<T>((resolve) => {
      const timer = setTimeout(() => settle(outcomes.timeout), timeoutMs);
      const onAbort = () => settle(outcomes.stopped);
      const settle: Settle<T> = (outcome) => {
        if (!this.waiting.delete(question.id)) return;
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        this.emit(conversationId, { type: 'question_closed', id: question.id });
        this.attention?.settled(question.id);
        this.attention?.waiting(this.waiting.size);
        resolve(outcome);
      };
      if (signal.aborted) return resolve(outcomes.stopped);
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting.set(question.id, { question, reply: (reply) => outcomes.reply(reply, settle) });
      this.emit(conversationId, { type: 'question', question });
      this.attention?.waiting(this.waiting.size);
      if (!this.hasViewer(conversationId)) this.attention?.notify(question);
    });
  }

  /** Throws with a sentence for the user when the reply does not fit the question. */
  answer(conversationId: string, questionId: string, reply: UserReply): void {
    // The reply crossed a message channel: its shape is checked, not trusted.
    if (!v.is(ReplySchema, reply)) throw new Error('The answer is not one this card takes.');
    const entry = this.waiting.get(questionId);
    if (!entry || entry.question.conversationId !== conversationId) {
      throw new Error('This question is no longer waiting for an answer (it was answered elsewhere, timed out or stopped).');
    }
    entry.reply(reply);
  }

  /** The last popup showing the conversation closed: its waiting questions now need a notification. */
  viewerLeft(conversationId: string): void {
    for (const q of this.pending(conversationId)) this.attention?.notify(q);
  }

  pending(conversationId: string): PendingQuestion[] {
    return [...this.waiting.values()].filter((w) => w.question.conversationId === conversationId).map((w) => w.question);
  }

  /** The conversation whose question has waited longest: opening the popup shows it first. */
  oldestWaiting(): string | undefined {
    return this.waiting.values().next().value?.question.conversationId;
  }
}

function toElicitationAnswer(request: ElicitationRequest, reply: UserReply): ElicitationAnswer {
  if (!('elicitation' in reply)) throw new Error('This card takes Accept, Decline or Cancel.');
  if (reply.elicitation === 'decline') return { action: 'decline' };
  if (reply.elicitation === 'cancel') return { action: 'cancel', reason: 'cancelled' };
  if (request.mode === 'url') return { action: 'accept' };
  // The card checked the answer; it crossed a message channel, so it is checked again.
  const checked = checkElicitationAnswer(request.fields, ('content' in reply ? reply.content : undefined) ?? {});
  if (!checked.ok) {
    const [name, problem] = Object.entries(checked.problems)[0]!;
    throw new Error(`The field "${name}" is not filled in as the server asks (${problem.code.replace('_', ' ')}).`);
  }
  return { action: 'accept', content: checked.content };
}

function toAnswer(q: PendingQuestion, reply: UserReply): QuestionAnswer {
  if ('elicitation' in reply) throw new Error('This question takes an answer, not a form.');
  if ('approval' in reply) throw new Error('This question takes an answer, not an approval.');
  if ('signIn' in reply) throw new Error('This question takes an answer, not a sign-in.');
  if ('decline' in reply) return { answer: null, reason: 'declined' };
  if ('text' in reply) {
    const text = reply.text.trim();
    if (!text) throw new Error('The answer is empty.');
    if (q.options) throw new Error('This question takes one of its options.');
    return { answer: text };
  }
  if (!q.options) throw new Error('This question takes a written answer.');
  const chosen = [...new Set(reply.selected)];
  const unknown = chosen.find((c) => !q.options!.includes(c));
  if (unknown !== undefined) throw new Error(`"${unknown}" is not one of the options.`);
  if (!chosen.length) throw new Error('Choose an option.');
  if (!q.multiple && chosen.length > 1) throw new Error('Choose only one option.');
  // In the options' order, whatever order they were clicked in.
  const selected = q.options.filter((o) => chosen.includes(o));
  return q.multiple ? { answer: selected.join(', '), selected } : { answer: selected[0]! };
}
