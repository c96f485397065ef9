/**
 * The provider presets' ids, apart from the presets themselves so the settings schema (at the
 * bottom of the import graph) can name them without importing the preset table.
 */
export const PROVIDER_IDS = [
  'anthropic',
  'ollama',
  'llamacpp',
  'deepseek',
  'moonshot',
  'zhipu',
  'minimax',
  'openai',
  'openrouter',
  'groq',
  'mistral',
  'gemini',
  'lmstudio',
  'vllm',
  'other-anthropic',
  'other-openai',
] as const;
export type ProviderId = (typeof PROVIDER_IDS)[number];

export const AUTH_HEADERS = ['x-api-key', 'bearer', 'none'] as const;

export const isProviderId = (s: unknown): s is ProviderId => typeof s === 'string' && (PROVIDER_IDS as readonly string[]).includes(s);
