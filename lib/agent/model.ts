/**
 * The model contract, at the bottom of the agent's import graph: what the loop needs from a provider
 * and how an endpoint is named. The providers (lib/agent/providers/) implement it; types only here.
 */
import type Anthropic from '@anthropic-ai/sdk';

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
