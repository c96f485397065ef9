/**
 * The OpenAI Chat Completions provider. Pagewright's internal format is the Messages API's
 * (requests, stored conversations, stream events), so this client translates a ModelRequest into
 * a Chat Completions request and the streamed chunks back into Messages stream events: the loop,
 * the tools and the store never know which API answered.
 */
import type Anthropic from '@anthropic-ai/sdk';
import OpenAI, { type ClientOptions } from 'openai';
import type {
  ChatCompletionAssistantMessageParam,
  ChatCompletionChunk,
  ChatCompletionContentPart,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionToolMessageParam,
} from 'openai/resources/chat/completions';
import type { AuthHeader, ModelClient, ModelEndpoint, ModelRequest } from '../model';
import { toOpenAITools } from './tool-schemas';

/** No countTokens: Chat Completions has no count endpoint, and the context manager estimates. */
export function createOpenAIChatClient(endpoint: ModelEndpoint): ModelClient {
  const baseURL = endpoint.baseUrl.replace(/\/+$/, '');
  const client = new OpenAI({
    ...openAIAuth(endpoint.apiKey, endpoint.authHeader ?? 'bearer'),
    baseURL,
    // Never read from the environment (Node tests, bench): only what the user configured is sent.
    organization: null,
    project: null,
    webhookSecret: null,
    // The key belongs to the user and is only sent to the endpoint they configured.
    dangerouslyAllowBrowser: true,
    // Retries are the loop's, so the UI can show the countdown.
    maxRetries: 0,
    timeout: 10 * 60 * 1000,
  });
  const dialect = dialectOf(baseURL);
  return {
    async stream(req, signal) {
      const chunks = await client.chat.completions.create(toChatRequest(req, dialect), { signal });
      return toMessagesEvents(chunks, req.model, signal);
    },
  };
}

/**
 * The SDK sends `apiKey` as `Authorization: Bearer` and refuses to start without one, so the
 * other styles pass a placeholder and drop that header (a `null` header is the SDK's way to
 * omit one). An empty key sends no auth header at all: a local server needs none, and
 * "Bearer " with nothing after it is no key.
 */
function openAIAuth(apiKey: string, style: AuthHeader): Pick<ClientOptions, 'apiKey' | 'defaultHeaders'> {
  if (style === 'bearer' && apiKey) return { apiKey };
  if (style === 'x-api-key' && apiKey) return { apiKey: 'unused', defaultHeaders: { Authorization: null, 'x-api-key': apiKey } };
  return { apiKey: 'unused', defaultHeaders: { Authorization: null } };
}

/** Where servers that call themselves compatible still differ in what they accept. */
export interface ChatDialect {
  /**
   * OpenAI deprecated `max_tokens` for `max_completion_tokens` and its reasoning models (o-series,
   * gpt-5) refuse `max_tokens` outright. Compatible servers mostly know only `max_tokens`:
   * Ollama and LM Studio ignore `max_completion_tokens` (the reply is then unbounded), Mistral
   * refuses it as an unknown field (422); llama.cpp, vLLM, Groq, DeepSeek, OpenRouter and Gemini
   * take `max_tokens`. So OpenAI's own API gets the new name and every other server the old one.
   */
  tokenLimit: 'max_tokens' | 'max_completion_tokens';
  /**
   * `stream_options.include_usage` asks for the final usage chunk. Mistral refuses the field
   * (422 extra_forbidden) and puts usage on its last chunk anyway.
   */
  streamOptions: boolean;
}

export function dialectOf(baseUrl: string): ChatDialect {
  let host = '';
  try {
    host = new URL(baseUrl).hostname.toLowerCase();
  } catch {
    // Not a URL: the request fails with the SDK's own message; the defaults do no harm.
  }
  return {
    tokenLimit: host === 'api.openai.com' ? 'max_completion_tokens' : 'max_tokens',
    streamOptions: host !== 'api.mistral.ai',
  };
}

const DEFAULT_DIALECT: ChatDialect = { tokenLimit: 'max_tokens', streamOptions: true };

/** The request in Chat Completions form. Prompt caching (cache_control) has no equivalent here. */
export function toChatRequest(req: ModelRequest, dialect: ChatDialect = DEFAULT_DIALECT): ChatCompletionCreateParamsStreaming {
  const messages: ChatCompletionMessageParam[] = [];
  const system = req.system.map((b) => b.text).join('\n\n');
  if (system) messages.push({ role: 'system', content: system });
  for (const m of req.messages) {
    if (m.role === 'system') messages.push({ role: 'system', content: typeof m.content === 'string' ? m.content : m.content.map((b) => b.text).join('\n\n') });
    else if (typeof m.content === 'string') messages.push({ role: m.role, content: m.content });
    else if (m.role === 'assistant') messages.push(assistantMessage(m.content));
    else messages.push(...userMessages(m.content));
  }
  const tools = toOpenAITools(req.tools);
  return {
    model: req.model,
    messages,
    // An empty list is refused by OpenAI ("[] is too short"): no tools, no field.
    ...(tools.length ? { tools } : {}),
    [dialect.tokenLimit]: req.maxTokens,
    stream: true,
    ...(dialect.streamOptions ? { stream_options: { include_usage: true } } : {}),
  };
}

function assistantMessage(blocks: Anthropic.ContentBlockParam[]): ChatCompletionAssistantMessageParam {
  let text = '';
  const calls: ChatCompletionMessageFunctionToolCall[] = [];
  for (const b of blocks) {
    if (b.type === 'text') text += b.text;
    else if (b.type === 'tool_use') calls.push({ id: b.id, type: 'function', function: { name: b.name, arguments: JSON.stringify(b.input ?? {}) } });
    // Thinking blocks and Anthropic's server-tool blocks mean nothing to another model.
  }
  // With tool calls and no text, content is null: what OpenAI itself returns for such a reply.
  return calls.length ? { role: 'assistant', content: text || null, tool_calls: calls } : { role: 'assistant', content: text };
}

/**
 * A Messages user turn: its tool results become `tool` messages (they must follow the assistant's
 * tool calls directly, in order), then one user message with the rest. A tool message carries
 * text only, so images a tool returned go into that user message, which says whose they are.
 */
function userMessages(blocks: Anthropic.ContentBlockParam[]): ChatCompletionMessageParam[] {
  const tools: ChatCompletionToolMessageParam[] = [];
  const toolImages: ChatCompletionContentPart[] = [];
  const parts: ChatCompletionContentPart[] = [];
  for (const b of blocks) {
    if (b.type === 'tool_result') {
      const content = typeof b.content === 'string' ? [{ type: 'text' as const, text: b.content }] : (b.content ?? []);
      const texts: string[] = [];
      const images: ChatCompletionContentPart[] = [];
      for (const c of content) {
        if (c.type === 'text') texts.push(c.text);
        else if (c.type === 'image') images.push(imagePart(c) ?? { type: 'text', text: '[an image this provider cannot be sent]' });
        else texts.push(`[a ${c.type} block this provider cannot be sent]`);
      }
      if (images.length) {
        texts.push(`[This result includes ${images.length === 1 ? 'an image' : `${images.length} images`}: ${images.length === 1 ? 'it follows' : 'they follow'} in the next user message.]`);
        toolImages.push({ type: 'text', text: `Image${images.length === 1 ? '' : 's'} from tool call ${b.tool_use_id}:` }, ...images);
      }
      tools.push({ role: 'tool', tool_call_id: b.tool_use_id, content: texts.join('\n') });
    } else if (b.type === 'text') {
      parts.push({ type: 'text', text: b.text });
    } else if (b.type === 'image') {
      parts.push(imagePart(b) ?? { type: 'text', text: '[an image this provider cannot be sent]' });
    } else if (b.type !== 'thinking' && b.type !== 'redacted_thinking') {
      parts.push({ type: 'text', text: `[a ${b.type} block this provider cannot be sent]` });
    }
  }
  const all = [...toolImages, ...parts];
  if (!all.length) return tools;
  // Text alone goes as a plain string: the form every compatible server accepts.
  const content = all.every((p) => p.type === 'text') ? all.map((p) => (p as { text: string }).text).join('\n\n') : all;
  return [...tools, { role: 'user', content }];
}

function imagePart(b: Anthropic.ImageBlockParam): ChatCompletionContentPart | undefined {
  const s = b.source;
  if (s.type === 'base64') return { type: 'image_url', image_url: { url: `data:${s.media_type};base64,${s.data}` } };
  if (s.type === 'url') return { type: 'image_url', image_url: { url: s.url } };
  return undefined;
}

/**
 * Chat Completions finish reasons as Messages stop reasons. `content_filter` becomes `refusal`:
 * both mean a safety system ended the reply, and the loop ends the turn for either.
 */
const STOP_REASONS: Record<string, Anthropic.StopReason> = {
  stop: 'end_turn',
  tool_calls: 'tool_use',
  function_call: 'tool_use',
  length: 'max_tokens',
  content_filter: 'refusal',
};

type Usage = NonNullable<ChatCompletionChunk['usage']> & {
  /** DeepSeek's own names for the cached part of the prompt. */
  prompt_cache_hit_tokens?: number;
};

/**
 * Chunks → Messages events: message_start, a text block opened at the first text, one tool_use
 * block per tool call `index` (interleaved indices allowed), the blocks' stops, message_delta
 * with the stop reason and usage, message_stop. A stream that ends without a finish_reason gets
 * no message_stop, which the loop treats as a broken reply. The SDK ends a stream quietly when its
 * signal aborts; here that is an abort error, as the Anthropic SDK throws, so a stop never looks
 * like a reply.
 */
export async function* toMessagesEvents(
  chunks: AsyncIterable<ChatCompletionChunk>,
  model: string,
  signal?: AbortSignal,
): AsyncGenerator<Anthropic.RawMessageStreamEvent> {
  let started = false;
  let nextIndex = 0;
  let textIndex: number | undefined;
  /** Per Chat Completions tool call index: its block (once its name is known) and what came before. */
  const calls = new Map<number, { block?: number; id: string; name: string; pending: string }>();
  let lastCall = -1;
  let finish: string | null | undefined;
  let usage: Usage | undefined;

  for await (const chunk of chunks) {
    if (!started) {
      started = true;
      yield startEvent(chunk.id, chunk.model || model);
    }
    if (chunk.usage) usage = chunk.usage as Usage;
    const choice = chunk.choices?.[0];
    if (!choice) continue;
    const delta = choice.delta ?? {};
    if (typeof delta.content === 'string' && delta.content) {
      if (textIndex === undefined) {
        textIndex = nextIndex++;
        yield { type: 'content_block_start', index: textIndex, content_block: { type: 'text', text: '', citations: null } };
      }
      yield { type: 'content_block_delta', index: textIndex, delta: { type: 'text_delta', text: delta.content } };
    }
    for (const tc of delta.tool_calls ?? []) {
      // Some servers leave out `index` when each delta is a whole call: a new id is a new call.
      const key = tc.index ?? (tc.id || lastCall < 0 ? lastCall + 1 : lastCall);
      lastCall = Math.max(lastCall, key);
      let call = calls.get(key);
      if (!call) calls.set(key, (call = { id: '', name: '', pending: '' }));
      if (tc.id && !call.id) call.id = tc.id;
      if (tc.function?.name && call.block === undefined) call.name += tc.function.name;
      const args = tc.function?.arguments ?? '';
      if (call.block === undefined) {
        call.pending += args;
        if (!call.name) continue;
        call.block = nextIndex++;
        yield toolStart(call.block, call.id || `call_${key}`, call.name);
        if (call.pending) yield toolDelta(call.block, call.pending);
        call.pending = '';
      } else if (args) {
        yield toolDelta(call.block, args);
      }
    }
    if (choice.finish_reason) finish = choice.finish_reason;
  }
  if (signal?.aborted) throw new OpenAI.APIUserAbortError();
  if (!started || !finish) return;

  const blocks = [...(textIndex !== undefined ? [textIndex] : []), ...[...calls.values()].flatMap((c) => (c.block !== undefined ? [c.block] : []))];
  for (const index of blocks.sort((a, b) => a - b)) yield { type: 'content_block_stop', index };
  const hasCalls = [...calls.values()].some((c) => c.block !== undefined);
  // Some servers answer a tool call with finish_reason "stop": the calls are what counts.
  const stopReason = hasCalls && finish === 'stop' ? 'tool_use' : (STOP_REASONS[finish] ?? 'end_turn');
  yield {
    type: 'message_delta',
    delta: { stop_reason: stopReason, stop_sequence: null, container: null } as Anthropic.RawMessageDeltaEvent['delta'],
    usage: messagesUsage(usage),
    context_management: null,
  } as Anthropic.RawMessageDeltaEvent;
  yield { type: 'message_stop' };
}

/**
 * Usage in the Messages API's meaning, which pricing and the context manager rely on: input is
 * the uncached part of the prompt, cache reads are counted apart. Chat Completions' prompt_tokens
 * includes the cached tokens, so they are taken out of it. No cache writes are reported here.
 */
function messagesUsage(u: Usage | undefined): Anthropic.MessageDeltaUsage {
  const prompt = u?.prompt_tokens;
  const cached = u?.prompt_tokens_details?.cached_tokens ?? u?.prompt_cache_hit_tokens ?? 0;
  return {
    input_tokens: prompt == null ? null : Math.max(0, prompt - cached),
    output_tokens: u?.completion_tokens ?? 0,
    cache_read_input_tokens: prompt == null ? null : cached,
    cache_creation_input_tokens: prompt == null ? null : 0,
    output_tokens_details: null,
    server_tool_use: null,
  } as Anthropic.MessageDeltaUsage;
}

function startEvent(id: string, model: string): Anthropic.RawMessageStartEvent {
  return {
    type: 'message_start',
    message: {
      id,
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
    } as unknown as Anthropic.Message,
  };
}

const toolStart = (index: number, id: string, name: string): Anthropic.RawContentBlockStartEvent =>
  ({ type: 'content_block_start', index, content_block: { type: 'tool_use', id, name, input: {} } }) as Anthropic.RawContentBlockStartEvent;

const toolDelta = (index: number, partial_json: string): Anthropic.RawContentBlockDeltaEvent => ({
  type: 'content_block_delta',
  index,
  delta: { type: 'input_json_delta', partial_json },
});
