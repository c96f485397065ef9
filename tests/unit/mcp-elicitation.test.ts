import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { QuestionBoard } from '../../lib/agent/questions';
import type { ElicitationAnswer, ElicitationRequest, PendingQuestion } from '../../lib/contracts/questions';
import type { RunEvent } from '../../lib/contracts/run-events';
import { defaultSettings } from '../../lib/settings';
import { elicit, holdableDeadline } from '../../lib/skills/mcp-elicitation';
import { McpServerSessions } from '../../lib/skills/mcp-servers';
import type { SkillRecord } from '../../lib/skills/types';
import { detachedEnv, type ToolEnv } from '../../lib/tools/env';
import type { ToolContext } from '../../lib/tools/registry';
import { TaskBoard } from '../../lib/tools/task-board';
import { ELICITING_TOOL, startMcpServer, type McpTestServer } from '../harness/mcp-servers';
import type { ResultWithImages } from '../../lib/images';

let server: McpTestServer;
const opened: McpServerSessions[] = [];
beforeAll(async () => void (server = await startMcpServer({ extraTools: [ELICITING_TOOL] })));
afterEach(async () => void (await Promise.all(opened.splice(0).map((s) => s.closeAll()))));
afterAll(async () => server.close());

const skill: SkillRecord = {
  id: 'id-travel',
  name: 'travel',
  description: 'A travel server.',
  skill_type: 'mcp',
  config_json: JSON.stringify({ transport: 'streamable_http', url: '' }),
  is_active: true,
  created_at: 0,
  updated_at: 0,
};
const travel = () => ({ ...skill, config_json: JSON.stringify({ transport: 'streamable_http', url: server.url }) });

function sessions(timeoutMs?: number) {
  const s = new McpServerSessions({ fetch: globalThis.fetch, ...(timeoutMs ? { timeoutMs } : {}) });
  opened.push(s);
  return s;
}

/** A run's context whose user answers with `answer` (after `delayMs`), recording what was asked and noticed. */
function run(answer: (r: ElicitationRequest) => ElicitationAnswer, delayMs = 0) {
  const asked: ElicitationRequest[] = [];
  const notices: unknown[] = [];
  const signal = new AbortController().signal;
  const env: ToolEnv = {
    ...detachedEnv(defaultSettings()),
    notify: (n) => notices.push(n),
    elicit: async (request) => {
      asked.push(request);
      await new Promise((r) => setTimeout(r, delayMs));
      return answer(request);
    },
  };
  const ctx: ToolContext = { conversationId: 'c', signal, tasks: new TaskBoard(), env };
  return { call: { signal, ctx }, asked, notices };
}

/** The text a tool call returned (these tools return no images). */
const text = (r: string | ResultWithImages) => (typeof r === 'string' ? r : String(r.value));

describe('elicitation over a real MCP session', () => {
  it('declares form and URL mode, and puts the request to the user of the call in flight', async () => {
    const mcp = sessions();
    const user = run(() => ({ action: 'accept', content: { name: 'Ada', seats: 2 } }));
    const reply = await mcp.callTool(travel(), 'ask_form', {}, user.call);
    expect(JSON.parse(text(reply))).toEqual({ action: 'accept', content: { name: 'Ada', seats: 2 } });
    expect(user.asked).toEqual([
      {
        mode: 'form',
        server: 'travel',
        message: 'Who is travelling?',
        fields: [
          { name: 'name', title: 'Name', type: 'string', minLength: 2, required: true },
          { name: 'seats', title: 'Seats', type: 'integer', minimum: 1, maximum: 9, default: 2, required: false },
          { name: 'window', title: 'Window seat', type: 'boolean', required: false },
        ],
      },
    ]);
    const declined = await mcp.callTool(travel(), 'ask_form', {}, run(() => ({ action: 'decline' })).call);
    expect(JSON.parse(text(declined))).toEqual({ action: 'decline' });
    const timedOut = await mcp.callTool(travel(), 'ask_form', {}, run(() => ({ action: 'cancel', reason: 'timeout' })).call);
    expect(JSON.parse(text(timedOut))).toEqual({ action: 'cancel', _meta: { 'dev.pagewright/reason': 'The user did not answer in time.' } });
  });

  it('refuses an unsupported schema with -32602 naming the property, and tells the user', async () => {
    const mcp = sessions();
    const user = run(() => ({ action: 'decline' }));
    const schema = { type: 'object', properties: { passengers: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } } } };
    const reply = await mcp
      .callTool(travel(), 'ask_form', { schema }, user.call)
      .then((r) => r)
      .catch((e: Error) => e.message);
    expect(reply).toMatch(/The client refused the form: MCP error -32602: Unsupported elicitation schema: the property "passengers" is an array of objects/);
    expect(user.asked).toEqual([]);
    expect(user.notices).toEqual([{ kind: 'elicitation_refused', server: 'travel', problem: expect.stringContaining('"passengers" is an array of objects') }]);
  });

  it('with no run to ask (no context), cancels with the reason', async () => {
    const mcp = sessions();
    const reply = await mcp.callTool(travel(), 'ask_form', {}, { signal: new AbortController().signal });
    expect(JSON.parse(text(reply))).toEqual({ action: 'cancel', _meta: { 'dev.pagewright/reason': expect.stringMatching(/No conversation is waiting/) } });
  });

  it("holds the call's clock while the user answers: a form filled slower than the timeout still gets through", async () => {
    const mcp = sessions(800);
    const reply = await mcp.callTool(travel(), 'ask_form', {}, run(() => ({ action: 'accept', content: { name: 'Ada' } }), 1500).call);
    expect(JSON.parse(text(reply))).toEqual({ action: 'accept', content: { name: 'Ada' } });
    // The server being slow still times out.
    await expect(mcp.callTool(travel(), 'slow', { ms: 2000 }, run(() => ({ action: 'decline' })).call)).rejects.toThrow(/did not answer within/);
  });
});

describe('elicit (URL mode and malformed requests)', () => {
  const never = new AbortController().signal;
  it("puts a URL-mode request to the user as the page's address; accept means the user opened it", async () => {
    const user = run(() => ({ action: 'accept' }));
    const result = await elicit({ mode: 'url', message: 'Confirm the payment.', url: 'https://pay.example.com/c?id=7', elicitationId: 'e1' }, [{ server: 'bank', call: user.call }], never);
    expect(result).toEqual({ action: 'accept' });
    expect(user.asked).toEqual([{ mode: 'url', server: 'bank', message: 'Confirm the payment.', url: 'https://pay.example.com/c?id=7' }]);
  });

  it('refuses what cannot be shown safely or at all, with -32602', async () => {
    const entry = { server: 'bank', call: run(() => ({ action: 'accept' })).call };
    const refusal = (params: unknown) => elicit(params, [entry], never).then(() => undefined, (e: Error & { code?: number }) => [e.code, e.message]);
    expect(await refusal({ mode: 'url', message: 'x', url: 'javascript:alert(1)', elicitationId: 'e' })).toEqual([-32602, 'URL-mode elicitation needs an http(s) "url"']);
    expect(await refusal({ mode: 'url', message: 'x', url: 'https://a.example/' })).toEqual([-32602, 'URL-mode elicitation needs an "elicitationId" string']);
    expect(await refusal({ mode: 'sms', message: 'x' })).toEqual([-32602, 'Unknown elicitation mode "sms"']);
    expect(await refusal({ requestedSchema: { type: 'object', properties: {} } })).toEqual([-32602, 'elicitation/create needs a "message" string']);
    expect(await refusal(null)).toEqual([-32602, 'elicitation/create needs a "message" string']);
  });

  it('cuts a very long message, and cancels when the run stopped before anyone could answer', async () => {
    const user = run(() => ({ action: 'decline' }));
    await elicit({ message: 'x'.repeat(5000), requestedSchema: { type: 'object', properties: {} } }, [{ server: 's', call: user.call }], never);
    expect(user.asked[0]!.message).toHaveLength(2001);
    const stopped = new AbortController();
    stopped.abort();
    const result = await elicit({ message: 'Hi', requestedSchema: { type: 'object', properties: {} } }, [{ server: 's', call: { ...user.call, signal: stopped.signal } }], never);
    expect(result).toEqual({ action: 'cancel', _meta: { 'dev.pagewright/reason': expect.stringMatching(/No conversation is waiting/) } });
  });
});

describe('holdableDeadline', () => {
  it('stops while held (holds nest) and goes on with what remained', () => {
    vi.useFakeTimers();
    try {
      const d = holdableDeadline(new AbortController().signal, 1000);
      vi.advanceTimersByTime(600);
      const a = d.hold();
      const b = d.hold();
      vi.advanceTimersByTime(5000);
      a();
      a();
      vi.advanceTimersByTime(5000);
      expect(d.timedOut()).toBe(false);
      b();
      vi.advanceTimersByTime(399);
      expect(d.timedOut()).toBe(false);
      vi.advanceTimersByTime(1);
      expect(d.timedOut()).toBe(true);
      const e = holdableDeadline(new AbortController().signal, 1000);
      const release = e.hold();
      e.done();
      release();
      vi.advanceTimersByTime(2000);
      expect(e.timedOut()).toBe(false);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('QuestionBoard.elicit', () => {
  function board() {
    const events: RunEvent[] = [];
    const b = new QuestionBoard((_id, ev) => events.push(ev), () => true);
    const asked = () => (events.findLast((e) => e.type === 'question') as { question: PendingQuestion }).question;
    return { b, asked };
  }
  const form: ElicitationRequest = {
    mode: 'form',
    server: 'travel',
    message: 'Who is travelling?',
    fields: [
      { name: 'name', type: 'string', minLength: 2, required: true },
      { name: 'seats', type: 'integer', minimum: 1, default: 2, required: false },
    ],
  };
  const never = () => new AbortController().signal;

  it('takes only a form answer that fits, with the defaults applied', async () => {
    const { b, asked } = board();
    const pending = b.elicit('c1', form, 60_000, never());
    const q = asked();
    expect(q).toMatchObject({ question: 'Who is travelling?', elicitation: form });
    expect(() => b.answer('c1', q.id, { text: 'Ada' })).toThrow(/Accept, Decline or Cancel/);
    expect(() => b.answer('c1', q.id, { elicitation: 'accept', content: { name: 'A' } })).toThrow(/"name" is not filled in as the server asks \(too short\)/);
    expect(() => b.answer('c1', q.id, { elicitation: 'maybe' } as never)).toThrow(/not one this card takes/);
    b.answer('c1', q.id, { elicitation: 'accept', content: { name: 'Ada' } });
    await expect(pending).resolves.toEqual({ action: 'accept', content: { name: 'Ada', seats: 2 } });
  });

  it('declines, cancels, times out and stops; a question card refuses a form answer', async () => {
    vi.useFakeTimers();
    try {
      const { b, asked } = board();
      const declined = b.elicit('c1', form, 60_000, never());
      b.answer('c1', asked().id, { elicitation: 'decline' });
      await expect(declined).resolves.toEqual({ action: 'decline' });
      const cancelled = b.elicit('c1', { mode: 'url', server: 's', message: 'Sign the form', url: 'https://s.example/x' }, 60_000, never());
      b.answer('c1', asked().id, { elicitation: 'cancel' });
      await expect(cancelled).resolves.toEqual({ action: 'cancel', reason: 'cancelled' });
      const opened = b.elicit('c1', { mode: 'url', server: 's', message: 'Sign the form', url: 'https://s.example/x' }, 60_000, never());
      b.answer('c1', asked().id, { elicitation: 'accept' });
      await expect(opened).resolves.toEqual({ action: 'accept' });
      const late = b.elicit('c1', form, 5_000, never());
      vi.advanceTimersByTime(5_000);
      await expect(late).resolves.toEqual({ action: 'cancel', reason: 'timeout' });
      const ctrl = new AbortController();
      const stopped = b.elicit('c1', form, 5_000, ctrl.signal);
      ctrl.abort();
      await expect(stopped).resolves.toEqual({ action: 'cancel', reason: 'stopped' });
      void b.ask('c1', { question: 'Why?', multiple: false }, 5_000, never());
      expect(() => b.answer('c1', asked().id, { elicitation: 'decline' })).toThrow(/not a form/);
    } finally {
      vi.useRealTimers();
    }
  });
});
