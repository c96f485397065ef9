/**
 * The model providers Settings offers, as data: where each one's API lives, which wire protocol it
 * speaks there, how the key travels and where its model list is. Pure data and tiny helpers, so the
 * options page and the background import the same facts.
 *
 * Every preset was checked against its provider's public documentation on PRESETS_CHECKED; `docs`
 * is the page read. Base URLs are in the form each SDK expects: the Anthropic SDK appends
 * `/v1/messages` to its base URL, the openai SDK appends `/chat/completions`.
 *
 * Where the documentation differed from issue 15's list, the documentation won:
 * - Moonshot, Zhipu (Z.ai) and OpenRouter document their Anthropic endpoints with
 *   ANTHROPIC_AUTH_TOKEN, which the SDK sends as `Authorization: Bearer` (OpenRouter says
 *   ANTHROPIC_API_KEY must stay empty), so they are `bearer`, not `x-api-key`.
 * - MiniMax documents ANTHROPIC_API_KEY and its model list with `X-Api-Key`: `x-api-key`.
 * - Zhipu documents no model list for its Anthropic endpoint: the model is typed.
 * - Vercel AI Gateway (https://ai-gateway.vercel.sh, Anthropic Messages, x-api-key or Bearer) is
 *   not a preset: "Other — Anthropic-compatible" reaches it (docs/guide/providers.md).
 */
import type { ApiKind, AuthHeader } from '../model';
import { isProviderId, PROVIDER_IDS, type ProviderId } from './provider-ids';

/** Re-exported so the options page can name them without importing the model client's module. */
export type { ApiKind, AuthHeader };

export const PRESETS_CHECKED = '2026-12-02';

// The ids live apart so the settings schema can name them without this table.
export { isProviderId, PROVIDER_IDS, type ProviderId };

/**
 * Where a provider lists its models. `path` is resolved against the base URL (as a directory), so
 * `../models` from `https://api.deepseek.com/anthropic` is `https://api.deepseek.com/models` and a
 * user who edits the host (a China region, a proxy) keeps a working list.
 * `style` says how to ask: `anthropic` sends the endpoint's own auth header and anthropic-version;
 * `openai` and `ollama` send `Authorization: Bearer` when there is a key. Any of the shapes
 * (`data[].id`, Ollama's `models[].name`) is read either way.
 */
export interface ModelListSource {
  path: string;
  style: 'anthropic' | 'openai' | 'ollama';
}

export interface ProviderPreset {
  /** A brand name, shown as is (never translated); the two Other presets name an i18n key instead. */
  name: string;
  /** Set for the Other presets: the message key of their display name. */
  nameKey?: 'provider_other_anthropic' | 'provider_other_openai';
  kind: ApiKind;
  baseUrl: string;
  /** False: the key field is optional (local servers, which only check one when told to). */
  needsKey: boolean;
  authHeader: AuthHeader;
  /** Runs on the user's machine (or network): no key, and the server may check the Origin. */
  local: boolean;
  /** A model that works out of the box, where the provider has an obvious one. */
  defaultModel?: string;
  /** Absent: the provider documents no list for this endpoint; the model is typed. */
  models?: ModelListSource;
  /** The documentation page the preset was checked against. */
  docs: string;
}

const ANTHROPIC_MODELS: ModelListSource = { path: 'v1/models', style: 'anthropic' };
const OPENAI_MODELS: ModelListSource = { path: 'models', style: 'openai' };

export const PROVIDER_PRESETS: Record<ProviderId, ProviderPreset> = {
  anthropic: {
    name: 'Anthropic',
    kind: 'anthropic',
    baseUrl: 'https://api.anthropic.com',
    needsKey: true,
    authHeader: 'x-api-key',
    local: false,
    defaultModel: 'claude-sonnet-5-5',
    models: ANTHROPIC_MODELS,
    docs: 'https://platform.claude.com/docs/en/api/models-list',
  },
  // Ollama >= 0.14 serves the Messages API (tools, streaming) at its root; the key is "required but
  // ignored" locally. Its native /api/tags lists the pulled models. ollama.com (cloud) takes Bearer.
  ollama: {
    name: 'Ollama',
    kind: 'anthropic',
    baseUrl: 'http://localhost:11434',
    needsKey: false,
    authHeader: 'bearer',
    local: true,
    models: { path: 'api/tags', style: 'ollama' },
    docs: 'https://docs.ollama.com/api/anthropic-compatibility',
  },
  // llama-server (default port 8080) serves /v1/messages since January 2026; tools need a model
  // whose chat template supports them. --api-key makes it check a Bearer key.
  llamacpp: {
    name: 'llama.cpp server',
    kind: 'anthropic',
    baseUrl: 'http://localhost:8080',
    needsKey: false,
    authHeader: 'bearer',
    local: true,
    models: { path: 'v1/models', style: 'openai' },
    docs: 'https://huggingface.co/blog/ggml-org/anthropic-messages-api-in-llamacpp',
  },
  // The Anthropic format at /anthropic with x-api-key ("fully supported"); the model list is the
  // OpenAI-format GET /models on the API root.
  deepseek: {
    name: 'DeepSeek',
    kind: 'anthropic',
    baseUrl: 'https://api.deepseek.com/anthropic',
    needsKey: true,
    authHeader: 'x-api-key',
    local: false,
    defaultModel: 'deepseek-v4-pro',
    models: { path: '../models', style: 'openai' },
    docs: 'https://api-docs.deepseek.com/guides/anthropic_api',
  },
  // Kimi's Claude Code guide: ANTHROPIC_BASE_URL=https://api.moonshot.ai/anthropic with
  // ANTHROPIC_AUTH_TOKEN (Bearer); the OpenAI API at /v1 lists the models. China: api.moonshot.cn.
  moonshot: {
    name: 'Moonshot (Kimi)',
    kind: 'anthropic',
    baseUrl: 'https://api.moonshot.ai/anthropic',
    needsKey: true,
    authHeader: 'bearer',
    local: false,
    defaultModel: 'kimi-k2.5',
    models: { path: '../v1/models', style: 'openai' },
    docs: 'https://platform.moonshot.ai/docs/guide/agent-support',
  },
  // Z.ai's Claude Code setup: https://api.z.ai/api/anthropic with ANTHROPIC_AUTH_TOKEN (Bearer).
  zhipu: {
    name: 'Zhipu (Z.ai)',
    kind: 'anthropic',
    baseUrl: 'https://api.z.ai/api/anthropic',
    needsKey: true,
    authHeader: 'bearer',
    local: false,
    defaultModel: 'glm-5.3',
    docs: 'https://docs.z.ai/devpack/tool/claude',
  },
  // International https://api.minimax.io/anthropic (China: api.minimaxi.com); text and tool calls,
  // streaming; its own Anthropic-format model list.
  minimax: {
    name: 'MiniMax',
    kind: 'anthropic',
    baseUrl: 'https://api.minimax.io/anthropic',
    needsKey: true,
    authHeader: 'x-api-key',
    local: false,
    defaultModel: 'MiniMax-M3',
    models: ANTHROPIC_MODELS,
    docs: 'https://platform.minimax.io/docs/api-reference/text-anthropic-api',
  },
  openai: {
    name: 'OpenAI',
    kind: 'openai',
    baseUrl: 'https://api.openai.com/v1',
    needsKey: true,
    authHeader: 'bearer',
    local: false,
    models: OPENAI_MODELS,
    docs: 'https://platform.openai.com/docs/api-reference/models/list',
  },
  // OpenRouter's Claude Code guide: ANTHROPIC_BASE_URL=https://openrouter.ai/api, the key as
  // ANTHROPIC_AUTH_TOKEN (Bearer). Its model list is the OpenAI-format one under /api/v1.
  openrouter: {
    name: 'OpenRouter',
    kind: 'anthropic',
    baseUrl: 'https://openrouter.ai/api',
    needsKey: true,
    authHeader: 'bearer',
    local: false,
    models: { path: 'v1/models', style: 'openai' },
    docs: 'https://openrouter.ai/docs/guides/guides/claude-code-integration',
  },
  groq: {
    name: 'Groq',
    kind: 'openai',
    baseUrl: 'https://api.groq.com/openai/v1',
    needsKey: true,
    authHeader: 'bearer',
    local: false,
    models: OPENAI_MODELS,
    docs: 'https://console.groq.com/docs/openai',
  },
  mistral: {
    name: 'Mistral',
    kind: 'openai',
    baseUrl: 'https://api.mistral.ai/v1',
    needsKey: true,
    authHeader: 'bearer',
    local: false,
    defaultModel: 'mistral-large-latest',
    models: OPENAI_MODELS,
    docs: 'https://docs.mistral.ai/api/',
  },
  // Gemini's OpenAI compatibility layer; its /models lists ids as "models/…", which the chat
  // endpoint also accepts.
  gemini: {
    name: 'Google Gemini',
    kind: 'openai',
    baseUrl: 'https://generativelanguage.googleapis.com/v1beta/openai',
    needsKey: true,
    authHeader: 'bearer',
    local: false,
    defaultModel: 'gemini-3.5-flash',
    models: OPENAI_MODELS,
    docs: 'https://ai.google.dev/gemini-api/docs/openai',
  },
  // LM Studio's Anthropic-compatible POST /v1/messages at its root (port 1234); with "Require
  // Authentication" on it accepts x-api-key or Bearer.
  lmstudio: {
    name: 'LM Studio',
    kind: 'anthropic',
    baseUrl: 'http://localhost:1234',
    needsKey: false,
    authHeader: 'bearer',
    local: true,
    models: { path: 'v1/models', style: 'openai' },
    docs: 'https://lmstudio.ai/docs/developer/anthropic-compat',
  },
  // vLLM implements the Messages API (tools need --enable-auto-tool-choice and a
  // --tool-call-parser); `vllm serve` listens on 8000, --api-key makes it check a Bearer key.
  vllm: {
    name: 'vLLM',
    kind: 'anthropic',
    baseUrl: 'http://localhost:8000',
    needsKey: false,
    authHeader: 'bearer',
    local: true,
    models: { path: 'v1/models', style: 'openai' },
    docs: 'https://docs.vllm.ai/en/stable/serving/integrations/claude_code/',
  },
  'other-anthropic': {
    name: 'Other — Anthropic-compatible',
    nameKey: 'provider_other_anthropic',
    kind: 'anthropic',
    baseUrl: '',
    needsKey: false,
    authHeader: 'x-api-key',
    local: false,
    models: ANTHROPIC_MODELS,
    docs: 'https://docs.anthropic.com/en/api/messages',
  },
  'other-openai': {
    name: 'Other — OpenAI-compatible',
    nameKey: 'provider_other_openai',
    kind: 'openai',
    baseUrl: '',
    needsKey: false,
    authHeader: 'bearer',
    local: false,
    models: OPENAI_MODELS,
    docs: 'https://platform.openai.com/docs/api-reference/chat',
  },
};


/** Only the two Other presets let the user pick how the key travels; the rest follow their docs. */
export const choosesAuthHeader = (id: ProviderId): boolean => id === 'other-anthropic' || id === 'other-openai';

/** Ollama answers a refused Origin with an empty 403; its default port tells it apart from other servers. */
export const looksLikeOllama = (provider: ProviderId, baseUrl: string): boolean => {
  if (provider === 'ollama') return true;
  try {
    return new URL(baseUrl).port === '11434';
  } catch {
    return false;
  }
};

/** The model list's URL for a base URL (resolved as a directory, so relative paths climb from it). */
export function modelListUrl(baseUrl: string, source: ModelListSource): string {
  const base = baseUrl.trim().replace(/\/*$/, '/');
  return new URL(source.path, base).toString();
}

/**
 * What the settings form sends for a model list or a test: its values as typed, saved or not (the
 * user tests before saving). The background validates it (lib/agent/providers/probe.ts).
 */
export interface ProviderForm {
  provider: ProviderId;
  baseUrl: string;
  apiKey: string;
  authHeader: AuthHeader;
  model: string;
}

export type ProbeProblem =
  | { kind: 'bad_key'; status: number; message: string }
  | { kind: 'unknown_model'; status: number; message: string }
  | { kind: 'no_tools'; status: number; message: string }
  | { kind: 'unreachable'; message: string }
  /** A local server refused the extension's Origin (Ollama: an empty 403 unless OLLAMA_ORIGINS allows it). */
  | { kind: 'origin_refused'; status: number }
  | { kind: 'other'; status?: number; message: string };

export type ModelListResult = { ok: true; models: string[] } | { ok: false; problem: ProbeProblem };
export type TestResult =
  /** `model`: the name the API reported (it may differ from the one asked for, e.g. an alias). */
  | { ok: true; model?: string; calledTool: boolean }
  | { ok: false; problem: ProbeProblem };
