/**
 * ask_user's waiting room: questions a run put to the user, until answered, declined, timed out
 * or stopped. Any popup attached to the conversation can answer; while a question waits the
 * toolbar badge says so, and when no popup shows the conversation a notification does too.
 */
import type { Attention } from '../contracts/ports';
import type { PendingQuestion, QuestionAnswer, QuestionInput, UserReply } from '../contracts/questions';
import type { RunEvent } from '../contracts/run-events';

interface Waiting {
  question: PendingQuestion;
  resolve(answer: QuestionAnswer): void;
}

export class QuestionBoard {
  private readonly waiting = new Map<string, Waiting>();

  constructor(
    private readonly emit: (conversationId: string, event: RunEvent) => void,
    private readonly hasViewer: (conversationId: string) => boolean,
    private readonly attention?: Attention,
  ) {}

  /** Resolves with the user's answer, or `answer: null` and why (timeout, declined, stopped). */
  ask(conversationId: string, input: QuestionInput, timeoutMs: number, signal: AbortSignal): Promise<QuestionAnswer> {
    const now = Date.now();
    const question: PendingQuestion = {
      id: crypto.randomUUID(),
      conversationId,
      question: input.question,
      ...(input.options ? { options: input.options } : {}),
      multiple: input.multiple,
      askedAt: now,
      expiresAt: now + timeoutMs,
    };
    return new Promise<QuestionAnswer>((resolve) => {
      const timer = setTimeout(() => settle({ answer: null, reason: 'timeout' }), timeoutMs);
      const onAbort = () => settle({ answer: null, reason: 'stopped' });
      const settle = (answer: QuestionAnswer) => {
        if (!this.waiting.delete(question.id)) return;
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        this.emit(conversationId, { type: 'question_closed', id: question.id });
        this.attention?.settled(question.id);
        this.attention?.waiting(this.waiting.size);
        resolve(answer);
      };
      if (signal.aborted) return resolve({ answer: null, reason: 'stopped' });
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting.set(question.id, { question, resolve: settle });
      this.emit(conversationId, { type: 'question', question });
      this.attention?.waiting(this.waiting.size);
      if (!this.hasViewer(conversationId)) this.attention?.notify(question);
    });
  }

  /** Throws with a sentence for the user when the reply does not fit the question. */
  answer(conversationId: string, questionId: string, reply: UserReply): void {
    const entry = this.waiting.get(questionId);
    if (!entry || entry.question.conversationId !== conversationId) {
      throw new Error('This question is no longer waiting for an answer (it was answered elsewhere, timed out or stopped).');
    }
    entry.resolve(toAnswer(entry.question, reply));
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

function toAnswer(q: PendingQuestion, reply: UserReply): QuestionAnswer {
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
