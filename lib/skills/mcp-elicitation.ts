/**
 * MCP elicitation (elicitation/create, spec 2025-11-25): a server asks, during a tool call, for
 * input only the user may give. The request is put to the user of the run whose tools/call is in
 * flight on that session, as a form card (or, in URL mode, a card that opens the server's page);
 * the model never sees a way to answer it. With no run waiting there is nobody to ask: the server
 * is told cancel, with the reason in _meta.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ErrorCode, type ClientCapabilities, type ElicitResult, type JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import type { ElicitationAnswer, ElicitationRequest } from '../contracts/questions';
import { errorMessage } from '../errors';
import { parseElicitationSchema, UnsupportedElicitationSchema } from './elicitation-form';
import type { McpCall } from './services';

export { checkElicitationAnswer, elicitationDefaults, parseElicitationSchema, UnsupportedElicitationSchema } from './elicitation-form';

/** Form mode, and URL mode (a page of the server's the user opens themselves). */
export const ELICITATION_CAPABILITIES = { elicitation: { form: {}, url: {} } } satisfies ClientCapabilities;

/** A server's message is shown whole up to this; a longer one is cut (a card is not a page). */
const MAX_MESSAGE_CHARS = 2000;
/** Where the reason for a cancel that no user chose goes (a Result may carry _meta). */
const REASON_META = 'dev.pagewright/reason';

/** A tools/call in flight on a session: whose user answers the server's requests during it. */
export interface CallInFlight {
  /** The skill's name, as the user named the server. */
  server: string;
  call: McpCall;
  /** Stops the call's clock while the user answers; the returned function starts it again. */
  hold?: () => () => void;
}

const inFlight = new WeakMap<Client, Set<CallInFlight>>();

/** Runs `op` (a tools/call on `client`) with the call registered, so an elicitation during it finds its run. */
export async function duringCall<T>(client: Client, entry: CallInFlight, op: () => Promise<T>): Promise<T> {
  let calls = inFlight.get(client);
  if (!calls) inFlight.set(client, (calls = new Set()));
  calls.add(entry);
  try {
    return await op();
  } finally {
    calls.delete(entry);
  }
}

/**
 * Answers the session's elicitation requests. Installed as the fallback handler, not through
 * Client.setRequestHandler(ElicitRequestSchema): the SDK checks a request against its own schema
 * before that handler runs and answers a bad one itself, so the user would never hear that a
 * server asked for a form Pagewright cannot show. Here the raw request is read (with valibot),
 * and any other method still gets "Method not found".
 */
export function answerElicitations(client: Client): void {
  client.fallbackRequestHandler = async (request: JSONRPCRequest, extra) => {
    if (request.method !== 'elicitation/create') throw Object.assign(new Error('Method not found'), { code: ErrorCode.MethodNotFound });
    return (await elicit(request.params, [...(inFlight.get(client) ?? [])], extra.signal)) as never;
  };
}

/** The spec's answer to one elicitation/create, from the user of the call it came during. */
export async function elicit(params: unknown, calls: readonly CallInFlight[], signal: AbortSignal): Promise<ElicitResult> {
  // The server does not say which of its calls it asks for; calls of one session almost always
  // serve one run. The oldest still running is taken.
  const entry = calls.find((c) => c.call.ctx && !c.call.signal.aborted);
  const p = (params && typeof params === 'object' ? params : {}) as Record<string, unknown>;
  if (typeof p['message'] !== 'string') throw invalidParams('elicitation/create needs a "message" string');
  const message = p['message'].length > MAX_MESSAGE_CHARS ? `${p['message'].slice(0, MAX_MESSAGE_CHARS)}…` : p['message'];
  const server = entry?.server ?? 'MCP server';
  const request = requestOf(p, server, message, entry);
  if (!entry) return unanswered('No conversation is waiting on this server: Pagewright asks the user only during a tool call of a running conversation.');
  const release = entry.hold?.();
  try {
    const answer = await entry.call.ctx!.env.elicit(request, AbortSignal.any([signal, entry.call.signal]));
    return resultOf(answer);
  } catch (e) {
    return unanswered(`The question could not be put to the user: ${errorMessage(e)}`);
  } finally {
    release?.();
  }
}

function requestOf(p: Record<string, unknown>, server: string, message: string, entry: CallInFlight | undefined): ElicitationRequest {
  const mode = p['mode'] ?? 'form';
  if (mode === 'url') {
    const url = typeof p['url'] === 'string' ? safeUrl(p['url']) : undefined;
    if (!url) throw invalidParams('URL-mode elicitation needs an http(s) "url"');
    if (typeof p['elicitationId'] !== 'string') throw invalidParams('URL-mode elicitation needs an "elicitationId" string');
    return { mode: 'url', server, message, url };
  }
  if (mode !== 'form') throw invalidParams(`Unknown elicitation mode ${JSON.stringify(mode)}`);
  try {
    return { mode: 'form', server, message, fields: parseElicitationSchema(p['requestedSchema']) };
  } catch (e) {
    if (!(e instanceof UnsupportedElicitationSchema)) throw e;
    // The user hears of it too: a tool that needed their input fails, and the server's own
    // error text (if any) reaches only the model.
    entry?.call.ctx?.env.notify({ kind: 'elicitation_refused', server, problem: e.message });
    throw invalidParams(`Unsupported elicitation schema: ${e.message}`, e.property === undefined ? undefined : { property: e.property });
  }
}

/** Only a page the browser opens as a page: never javascript:, data: or the like. */
function safeUrl(raw: string): string | undefined {
  try {
    const url = new URL(raw);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A JSON-RPC error for the server. Not an McpError: the SDK sends a handler's error message as it
 * is, and McpError's message already starts "MCP error -32602:", which the server would print twice.
 */
function invalidParams(message: string, data?: unknown): Error {
  return Object.assign(new Error(message), { code: ErrorCode.InvalidParams, ...(data === undefined ? {} : { data }) });
}

function resultOf(answer: ElicitationAnswer): ElicitResult {
  if (answer.action === 'accept') return answer.content ? { action: 'accept', content: answer.content } : { action: 'accept' };
  if (answer.action === 'decline') return { action: 'decline' };
  return answer.reason === 'cancelled' ? { action: 'cancel' } : unanswered(answer.reason === 'timeout' ? 'The user did not answer in time.' : 'The user stopped the conversation.');
}

function unanswered(reason: string): ElicitResult {
  return { action: 'cancel', _meta: { [REASON_META]: reason } };
}

/**
 * A deadline whose clock stops while it is held (the user filling a server's form is not the
 * server being slow). Holds nest; each release gives back what remained when the first began.
 */
export function holdableDeadline(userSignal: AbortSignal, ms: number): { signal: AbortSignal; timedOut: () => boolean; done: () => void; hold: () => () => void } {
  const timer = new AbortController();
  let remaining = ms;
  let startedAt = Date.now();
  let id: ReturnType<typeof setTimeout> | undefined;
  let holds = 0;
  let finished = false;
  const start = () => {
    if (finished) return;
    startedAt = Date.now();
    id = setTimeout(() => timer.abort(new DOMException(`timed out after ${Math.round(ms / 1000)} s`, 'TimeoutError')), remaining);
  };
  start();
  return {
    signal: AbortSignal.any([userSignal, timer.signal]),
    timedOut: () => timer.signal.aborted,
    done: () => {
      finished = true;
      clearTimeout(id);
    },
    hold: () => {
      if (holds++ === 0 && !timer.signal.aborted) {
        clearTimeout(id);
        remaining = Math.max(0, remaining - (Date.now() - startedAt));
      }
      let released = false;
      return () => {
        if (released) return;
        released = true;
        if (--holds === 0 && !timer.signal.aborted) start();
      };
    },
  };
}
