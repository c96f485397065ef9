/**
 * Placeholder preset table (the checked one replaces it): what settings and the run manager need
 * from a preset — its API kind, default base URL, whether it needs a key, its auth header style.
 */
import type { ApiKind, AuthHeader } from '../model';
import { PROVIDER_IDS, type ProviderId } from './provider-ids';

export { PROVIDER_IDS, type ProviderId };

export interface ProviderPreset {
  name: string;
  kind: ApiKind;
  baseUrl: string;
  needsKey: boolean;
  authHeader: AuthHeader;
  local: boolean;
}

const cloud = (name: string, kind: ApiKind, baseUrl: string, authHeader: AuthHeader): ProviderPreset => ({ name, kind, baseUrl, needsKey: true, authHeader, local: false });
const local = (name: string, kind: ApiKind, baseUrl: string): ProviderPreset => ({ name, kind, baseUrl, needsKey: false, authHeader: 'none', local: true });

export const PROVIDER_PRESETS: Record<ProviderId, ProviderPreset> = {
  anthropic: cloud('Anthropic', 'anthropic', 'https://api.anthropic.com', 'x-api-key'),
  ollama: local('Ollama', 'anthropic', 'http://localhost:11434'),
  llamacpp: local('llama.cpp server', 'anthropic', 'http://localhost:8080'),
  deepseek: cloud('DeepSeek', 'anthropic', 'https://api.deepseek.com/anthropic', 'x-api-key'),
  moonshot: cloud('Moonshot (Kimi)', 'anthropic', 'https://api.moonshot.ai/anthropic', 'bearer'),
  zhipu: cloud('Zhipu (Z.ai)', 'anthropic', 'https://api.z.ai/api/anthropic', 'bearer'),
  minimax: cloud('MiniMax', 'anthropic', 'https://api.minimax.io/anthropic', 'bearer'),
  openai: cloud('OpenAI', 'openai', 'https://api.openai.com/v1', 'bearer'),
  openrouter: cloud('OpenRouter', 'anthropic', 'https://openrouter.ai/api', 'bearer'),
  groq: cloud('Groq', 'openai', 'https://api.groq.com/openai/v1', 'bearer'),
  mistral: cloud('Mistral', 'openai', 'https://api.mistral.ai/v1', 'bearer'),
  gemini: cloud('Gemini', 'openai', 'https://generativelanguage.googleapis.com/v1beta/openai', 'bearer'),
  lmstudio: local('LM Studio', 'anthropic', 'http://localhost:1234'),
  vllm: local('vLLM', 'anthropic', 'http://localhost:8000'),
  'other-anthropic': { name: 'provider_other_anthropic', kind: 'anthropic', baseUrl: '', needsKey: false, authHeader: 'x-api-key', local: false },
  'other-openai': { name: 'provider_other_openai', kind: 'openai', baseUrl: '', needsKey: false, authHeader: 'bearer', local: false },
};
