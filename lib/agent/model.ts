import Anthropic from '@anthropic-ai/sdk';

export interface ModelRequest {
  model: string;
  maxTokens: number;
  system: Anthropic.TextBlockParam[];
  tools: Anthropic.ToolUnion[];
  messages: Anthropic.MessageParam[];
}

/** The one thing the loop needs from a model provider: a stream of Messages API events. */
export interface ModelClient {
  stream(request: ModelRequest, signal: AbortSignal): Promise<AsyncIterable<Anthropic.RawMessageStreamEvent>>;
  /**
   * The request's exact input tokens, where the endpoint offers a count (the Messages API's
   * count_tokens); undefined when it does not. Other failures throw.
   */
  countTokens?(request: ModelRequest, signal: AbortSignal): Promise<number | undefined>;
}

/** Which wire protocol an endpoint speaks; everything above the client is the same for both. */
export type ApiKind = 'anthropic' | 'openai';
/**
 * How the key travels: `x-api-key` (Anthropic's own convention), `Authorization: Bearer` (OpenAI's,
 * and most Anthropic-compatible gateways'), or not at all (a local server without a key).
 */
export type AuthHeader = 'x-api-key' | 'bearer' | 'none';

export interface ModelEndpoint {
  apiKey: string;
  baseUrl: string;
  /** Absent: 'anthropic', the only kind before providers (issue 15). */
  kind?: ApiKind;
  /** Absent: the kind's own convention (x-api-key for anthropic, bearer for openai). */
  authHeader?: AuthHeader;
}

export function createAnthropicClient({ apiKey, baseUrl }: ModelEndpoint): ModelClient {
  const client = new Anthropic({
    apiKey,
    baseURL: baseUrl.replace(/\/+$/, ''),
    // The key belongs to the user and is only sent to the endpoint they configured.
    dangerouslyAllowBrowser: true,
    // Retries are ours, so the UI can show the countdown.
    maxRetries: 0,
    timeout: 10 * 60 * 1000,
  });
  return {
    async stream(req, signal) {
      return client.messages.create(
        {
          model: req.model,
          max_tokens: req.maxTokens,
          system: req.system,
          tools: req.tools,
          messages: req.messages,
          stream: true,
        },
        { signal },
      );
    },
    async countTokens(req, signal) {
      try {
        const r = await client.messages.countTokens({ model: req.model, system: req.system, tools: req.tools, messages: req.messages }, { signal });
        return r.input_tokens;
      } catch (e) {
        // Compatible endpoints often lack the route: not offered, rather than an error.
        if (e instanceof Anthropic.APIError && (e.status === 404 || e.status === 405 || e.status === 501)) return undefined;
        throw e;
      }
    },
  };
}
