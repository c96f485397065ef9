/**
 * Settings' model list and Test button: what an endpoint lists, and what happened when it was sent
 * one tiny request with one tool. Pure: the fetch and the endpoint's client are passed in, so the
 * same code runs in the background and in tests against the local fakes.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import * as v from 'valibot';
import { classifyModelError } from '../errors';
import type { ModelClient, ModelEndpoint } from '../model';
import {
  modelListUrl,
  PROVIDER_IDS,
  PROVIDER_PRESETS,
  type ModelListResult,
  type ModelListSource,
  type ProbeProblem,
  type ProviderForm,
  type TestResult,
} from './presets';
import { isLocalUrl } from './hosts';

export type { ModelListResult, ProbeProblem, ProviderForm, TestResult };

/** What the settings form sends for a model list or a test: its values as typed, saved or not. */
export const ProviderFormSchema = v.object({
  provider: v.picklist(PROVIDER_IDS, 'Unknown provider.'),
  baseUrl: v.pipe(
    v.string(),
    v.trim(),
    v.check((s) => {
      try {
        return ['http:', 'https:'].includes(new URL(s).protocol);
      } catch {
        return false;
      }
    }, 'The base URL must be an http(s) address.'),
  ),
  apiKey: v.pipe(v.string(), v.trim(), v.maxLength(4096, 'The key is too long.')),
  authHeader: v.picklist(['x-api-key', 'bearer', 'none'], 'Unknown auth header.'),
  model: v.pipe(v.string(), v.trim(), v.maxLength(200, 'The model name is too long.')),
});
// The schema's output is exactly the form the protocol declares.
const _formMatches: [v.InferOutput<typeof ProviderFormSchema>, ProviderForm] extends [ProviderForm, v.InferOutput<typeof ProviderFormSchema>] ? true : never = true;
void _formMatches;

/** The one tool of the test: trivial, so any model that calls tools at all calls this one. */
export const TEST_TOOL = {
  name: 'report_ok',
  description: 'Report that you received this message. Call it exactly once.',
  input_schema: { type: 'object' as const, properties: { ok: { type: 'boolean', description: 'Always true.' } }, required: ['ok'] },
};
const TEST_PROMPT = 'This is a connection test. Call the report_ok tool with {"ok": true}. Do not write anything else.';
/** Enough for one tool call; small, so a test costs next to nothing. */
const TEST_MAX_TOKENS = 64;
/**
 * The second try for a reply cut off at TEST_MAX_TOKENS before any tool call: a reasoning model
 * (OpenAI's o-series and gpt-5, gpt-oss, Qwen3 or DeepSeek-R1 on a local server) spends its
 * limit thinking before it calls anything, and would otherwise be reported as not calling tools.
 */
const TEST_REASONING_MAX_TOKENS = 1024;

/** The endpoint's model list; the source defaults to the kind's own list (`/v1/models` or `/models`). */
export async function listModels(
  endpoint: ModelEndpoint,
  fetchFn: typeof fetch,
  signal: AbortSignal,
  source: ModelListSource = endpoint.kind === 'openai' ? { path: 'models', style: 'openai' } : { path: 'v1/models', style: 'anthropic' },
): Promise<ModelListResult> {
  let url: string;
  try {
    url = modelListUrl(endpoint.baseUrl, source);
  } catch {
    return { ok: false, problem: { kind: 'other', message: `Not a URL: ${endpoint.baseUrl}` } };
  }
  // Anthropic's list is paged (20 by default, 1000 at most).
  if (source.style === 'anthropic') url += (url.includes('?') ? '&' : '?') + 'limit=1000';
  let res: Response;
  try {
    res = await fetchFn(url, { headers: listHeaders(endpoint, source), signal });
  } catch (e) {
    return { ok: false, problem: connectionProblem(e, signal) };
  }
  const text = await res.text().catch(() => '');
  if (!res.ok) return { ok: false, problem: httpProblem(res.status, errorText(text), !text.trim(), endpoint.baseUrl, '') };
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { ok: false, problem: { kind: 'other', status: res.status, message: `The model list at ${url} is not JSON.` } };
  }
  const models = modelIds(body);
  if (!models) return { ok: false, problem: { kind: 'other', status: res.status, message: `The answer from ${url} is not a model list.` } };
  return { ok: true, models };
}

/**
 * Sends ONE small streamed request with ONE tool and an instruction to call it, and reads the reply
 * with the loop's own event vocabulary. Only a reply that ran out of tokens before calling the tool
 * is tried once more, with room to think first.
 */
export async function testEndpoint(endpoint: ModelEndpoint, model: string, client: ModelClient, signal: AbortSignal): Promise<TestResult> {
  const first = await attempt(endpoint, model, client, signal, TEST_MAX_TOKENS);
  if (!first.ranOut) return first.result;
  const second = await attempt(endpoint, model, client, signal, TEST_REASONING_MAX_TOKENS);
  if (!second.ranOut) return second.result;
  return {
    ok: false,
    problem: { kind: 'other', message: `The reply reached the test's limit of ${TEST_REASONING_MAX_TOKENS} tokens before it called the tool or finished.` },
  };
}

/** One test request; `ranOut`: it stopped at its token limit without a tool call, which proves nothing yet. */
async function attempt(
  endpoint: ModelEndpoint,
  model: string,
  client: ModelClient,
  signal: AbortSignal,
  maxTokens: number,
): Promise<{ ranOut: false; result: TestResult } | { ranOut: true }> {
  const fail = (problem: ProbeProblem) => ({ ranOut: false as const, result: { ok: false as const, problem } });
  let stream: AsyncIterable<{ type: string; [k: string]: any }>;
  try {
    stream = await client.stream(
      {
        model,
        maxTokens,
        system: [{ type: 'text', text: 'You are checking that tool calls work.' }],
        tools: [TEST_TOOL],
        messages: [{ role: 'user', content: TEST_PROMPT }],
      },
      signal,
    );
  } catch (e) {
    return fail(problemOf(e, endpoint, model, signal));
  }
  let reported: string | undefined;
  let calledTool = false;
  let sawStop = false;
  let stopReason: unknown;
  try {
    for await (const ev of stream) {
      if (ev.type === 'message_start') reported = typeof ev.message?.model === 'string' && ev.message.model ? ev.message.model : undefined;
      else if (ev.type === 'content_block_start' && ev.content_block?.type === 'tool_use') calledTool = true;
      else if (ev.type === 'message_delta') stopReason = ev.delta?.stop_reason;
      else if (ev.type === 'message_stop') sawStop = true;
    }
  } catch (e) {
    // An error event in the stream (overloaded, a server-side failure) or a broken connection:
    // the server was reached, so a broken connection here is a broken reply, not "unreachable".
    const p = problemOf(e, endpoint, model, signal);
    return fail(p.kind === 'unreachable' ? { kind: 'other', message: `The reply stream broke off: ${p.message}` } : p);
  }
  // No message_stop: the stream ended early (OpenAI kind: without a finish_reason), which a run
  // would treat as a broken reply too.
  if (!sawStop) return fail({ kind: 'other', message: 'The reply stream broke off before the reply was complete.' });
  if (!calledTool && stopReason === 'max_tokens') return { ranOut: true };
  return { ranOut: false, result: { ok: true, ...(reported ? { model: reported } : {}), calledTool } };
}

/** The form's values as an endpoint, with the preset's API kind (the form never picks a kind itself). */
export function endpointOf(form: ProviderForm): ModelEndpoint {
  return { apiKey: form.apiKey, baseUrl: form.baseUrl, kind: PROVIDER_PRESETS[form.provider].kind, authHeader: form.authHeader };
}

function listHeaders(endpoint: ModelEndpoint, source: ModelListSource): Record<string, string> {
  const headers: Record<string, string> = { accept: 'application/json' };
  const key = endpoint.apiKey.trim();
  if (source.style === 'anthropic') {
    headers['anthropic-version'] = '2023-06-01';
    const style = endpoint.authHeader ?? 'x-api-key';
    if (key && style === 'x-api-key') headers['x-api-key'] = key;
    if (key && style === 'bearer') headers.authorization = `Bearer ${key}`;
  } else if (key && endpoint.authHeader !== 'none') {
    headers.authorization = `Bearer ${key}`;
  }
  return headers;
}

/** `data[].id` (OpenAI, Anthropic), `models[].name|model|id` (Ollama's /api/tags), or plain strings; sorted, unique. */
function modelIds(body: unknown): string[] | undefined {
  const o = body as { data?: unknown; models?: unknown } | null;
  const list = Array.isArray(o?.data) ? o.data : Array.isArray(o?.models) ? o.models : Array.isArray(body) ? body : undefined;
  if (!list) return undefined;
  const ids = list
    .map((m: any) => (typeof m === 'string' ? m : (m?.id ?? m?.name ?? m?.model)))
    .filter((id): id is string => typeof id === 'string' && id.length > 0 && id.length <= 200);
  return [...new Set(ids)].sort((a, b) => a.localeCompare(b));
}

/** The server's message from an error body: Anthropic's {error:{message}}, OpenAI's the same, Ollama's {error:"…"}. */
function errorText(text: string): string {
  try {
    const b = JSON.parse(text);
    const m = b?.error?.message ?? b?.error ?? b?.message ?? b?.detail;
    if (typeof m === 'string') return m;
  } catch {
    // not JSON: the text itself
  }
  return text.trim().slice(0, 500);
}

/**
 * What a failed test means for the user. classifyModelError reads both SDKs' errors as a run
 * does (the status, the API's own words in whichever body shape the server sent); this adds what
 * only the Settings line needs: the system error behind an unreachable host, an Origin refusal,
 * and which 400s mean an unknown model or a model without tools.
 */
export function problemOf(e: unknown, endpoint: ModelEndpoint, model: string, signal: AbortSignal): ProbeProblem {
  if (signal.aborted) return connectionProblem(e, signal);
  const { error } = classifyModelError(e, false);
  if (error.status === undefined) {
    // classifyModelError calls any error it does not know "network" (a run retries those); for
    // the Test only a connection that failed is "unreachable".
    return isConnectionFailure(e) ? connectionProblem(e, signal) : { kind: 'other', message: error.message };
  }
  return httpProblem(error.status, error.message, hasNoBody(e), endpoint.baseUrl, model);
}

/** The SDKs wrap a failed fetch in their APIConnectionError; a bare fetch throws a TypeError. */
const isConnectionFailure = (e: unknown): boolean =>
  e instanceof Anthropic.APIConnectionError || e instanceof OpenAI.APIConnectionError || e instanceof TypeError;

/** No JSON body (Ollama's refused Origin sends none at all): both SDKs keep a parsed body in `error`. */
function hasNoBody(e: unknown): boolean {
  const body = (e as { error?: unknown } | null)?.error;
  return body === undefined || body === null || body === '';
}

/**
 * Status first, then the wording: servers word "no tools" differently, and a 400 naming the model is
 * an unknown model, not a bad request.
 */
function httpProblem(status: number, message: string, emptyBody: boolean, baseUrl: string, model: string): ProbeProblem {
  if (status === 403 && emptyBody && isLocalUrl(baseUrl)) return { kind: 'origin_refused', status };
  if (status === 401 || (status === 403 && !emptyBody)) return { kind: 'bad_key', status, message };
  if ((status === 400 || status === 422 || status === 500 || status === 501) && NO_TOOLS.some((re) => re.test(message))) {
    return { kind: 'no_tools', status, message };
  }
  if (status === 404) return { kind: 'unknown_model', status, message };
  if (status === 400 && namesModel(message, model)) return { kind: 'unknown_model', status, message };
  return { kind: 'other', status, message: message || `HTTP ${status}` };
}

/**
 * Real wordings: Ollama "registry.ollama.ai/library/gemma3:4b does not support tools";
 * llama.cpp "tools param requires --jinja flag" (older: "Unsupported param: tools");
 * vLLM "\"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set";
 * servers whose chat template has no tools (LM Studio, Unsloth) "… template does not support tools";
 * Groq "tool calling is not supported with this model".
 */
const NO_TOOLS = [
  /does(?: not|n't) support (?:tools|tool use|tool calling|function calling)/i,
  /tools param requires --jinja/i,
  /unsupported param(?:eter)?:? tools/i,
  /tool choice requires --enable-auto-tool-choice/i,
  /(?:tools?|tool calling|function calling) (?:is |are )?not supported/i,
];

function namesModel(message: string, model: string): boolean {
  if (model && message.toLowerCase().includes(model.toLowerCase())) return true;
  return /\bmodel\b/i.test(message) && /not (?:found|exist|available|supported)|unknown|invalid|no such/i.test(message);
}

function connectionProblem(e: unknown, signal: AbortSignal): ProbeProblem {
  const reason = signal.aborted ? (signal.reason as { name?: string } | undefined) : undefined;
  if (reason?.name === 'TimeoutError') return { kind: 'unreachable', message: 'No answer in time.' };
  const message = typeof (e as { message?: unknown })?.message === 'string' ? (e as Error).message : String(e);
  // The SDKs wrap fetch's TypeError, which wraps the system error: its code (ECONNREFUSED,
  // ENOTFOUND) says the most.
  let cause = (e as { cause?: unknown })?.cause as { code?: unknown; message?: unknown; cause?: unknown } | undefined;
  let detail = '';
  for (let depth = 0; cause && depth < 4; depth++, cause = cause.cause as typeof cause) {
    if (typeof cause.code === 'string') {
      detail = cause.code;
      break;
    }
    if (!detail && typeof cause.message === 'string' && cause.message !== message) detail = cause.message;
  }
  return { kind: 'unreachable', message: detail ? `${message} (${detail})` : message };
}
