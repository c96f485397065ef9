/**
 * The Anthropic Messages provider: Pagewright's internal format is this API's own, so requests
 * and stream events pass through unchanged. Only the key's header depends on the endpoint.
 */
import Anthropic, { type ClientOptions } from '@anthropic-ai/sdk';
import type { AuthHeader, ModelClient, ModelEndpoint } from '../model';

/** One client per run: long timeout, no SDK retries (the loop retries, so the UI can count down). */
export function createAnthropicClient(endpoint: ModelEndpoint): ModelClient {
  const client = new Anthropic({
    ...anthropicAuth(endpoint.apiKey, endpoint.authHeader ?? 'x-api-key'),
    baseURL: endpoint.baseUrl.replace(/\/+$/, ''),
    // The key belongs to the user and is only sent to the endpoint they configured.
    dangerouslyAllowBrowser: true,
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

/**
 * The SDK's options for a header style. This SDK sends `apiKey` as `Authorization: Bearer`, so
 * `x-api-key` (what Anthropic and e.g. DeepSeek document) is set as a header by hand with
 * Authorization omitted. Every style passes a credential option: with none the SDK would fall
 * back to its default credential chain (environment, profile files) and might send a key the
 * user never gave this endpoint. A `null` Authorization header is the SDK's documented way to
 * send no auth at all. An empty key sends none either: a local server needs none, and
 * "Bearer " with nothing after it is no key.
 */
function anthropicAuth(apiKey: string, style: AuthHeader): Pick<ClientOptions, 'apiKey' | 'authToken' | 'defaultHeaders'> {
  if (style === 'bearer' && apiKey) return { authToken: apiKey };
  if (style === 'x-api-key' && apiKey) return { apiKey, defaultHeaders: { 'X-Api-Key': apiKey, Authorization: null } };
  return { apiKey: 'none', defaultHeaders: { Authorization: null } };
}
