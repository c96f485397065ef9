/**
 * The one place a model client is made for an endpoint: by its API kind. Everything above the
 * client (loop, tools, run manager, store) speaks the Messages format either way.
 */
import type { ModelClient, ModelEndpoint } from '../model';
import { createAnthropicClient } from './anthropic-messages';
import { createOpenAIChatClient } from './openai-chat';

export { createAnthropicClient } from './anthropic-messages';
export { createOpenAIChatClient } from './openai-chat';

export function createModelClient(endpoint: ModelEndpoint): ModelClient {
  switch (endpoint.kind ?? 'anthropic') {
    case 'anthropic':
      return createAnthropicClient(endpoint);
    case 'openai':
      return createOpenAIChatClient(endpoint);
  }
}
