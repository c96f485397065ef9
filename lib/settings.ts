import * as v from 'valibot';
import { AUTH_HEADERS, PROVIDER_IDS, type ProviderId } from './agent/providers/provider-ids';
import { PROVIDER_PRESETS } from './agent/providers/presets';

export const DEFAULT_BASE_URL = 'https://api.anthropic.com';
export const DEFAULT_MODEL = 'claude-sonnet-5-5';
export const SETTINGS_VERSION = 7;
/** The Graph API the social-media skills call when no base URL is set (tests point it at a local server). */
export const DEFAULT_GRAPH_API_BASE = 'https://graph.facebook.com/v21.0';

export const TOOLBAR_OPENS = ['popup', 'panel'] as const;
export type ToolbarOpens = (typeof TOOLBAR_OPENS)[number];

export const SEARCH_ENGINE_IDS = ['duckduckgo', 'bing', 'baidu', 'google'] as const;
export type SearchEngineId = (typeof SEARCH_ENGINE_IDS)[number];

function isHttpUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return u.protocol === 'https:' || u.protocol === 'http:';
  } catch {
    return false;
  }
}

const httpUrl = v.pipe(v.string(), v.trim(), v.nonEmpty('settings_error_url_empty'), v.check(isHttpUrl, 'settings_error_url_invalid'));
/** An optional endpoint override: empty means the engine's own. */
const endpoint = v.pipe(v.string(), v.trim(), v.check((s) => !s || isHttpUrl(s), 'settings_error_url_invalid'));
/** A whole number from 1 to `max`; every way to miss that gets the field's one message. */
const wholeNumber = (max: number, message: string) =>
  v.pipe(v.number(message), v.integer(message), v.minValue(1, message), v.maxValue(max, message));
/** A whole number from `min` to `max`, or 0 for "off" / "automatic". */
const zeroOr = (min: number, max: number, message: string) =>
  v.pipe(v.number(message), v.integer(message), v.check((n) => n === 0 || (n >= min && n <= max), message));
/**
 * The smallest context window accepted: the system prompt and the built-in tools take about
 * 2,850 tokens of it (tests/unit/system-prompt.test.ts keeps them under a third of this), and a
 * window must also hold a reply and a turn or two.
 */
export const MIN_CONTEXT_WINDOW = 16_000;
/** Dollars per million tokens: a finite number, never negative. */
const price = v.pipe(v.number('settings_error_price'), v.finite('settings_error_price'), v.minValue(0, 'settings_error_price'), v.maxValue(10_000, 'settings_error_price'));
export const PriceRowSchema = v.object({
  /** A model id, or a prefix ending in `*` (e.g. `claude-sonnet-4*`). */
  model: v.pipe(v.string(), v.trim(), v.nonEmpty('settings_error_price_model'), v.regex(/^[\w.:@/-]+\*?$/, 'settings_error_price_model')),
  input: price,
  output: price,
  cacheWrite: price,
  cacheRead: price,
});
export type PriceRow = v.InferOutput<typeof PriceRowSchema>;
const secret = v.pipe(v.string(), v.trim(), v.regex(/^[\x21-\x7e]*$/, 'settings_error_secret_invalid'));
const modelName = v.pipe(v.string(), v.trim(), v.regex(/^[\w.:@/-]*$/, 'settings_error_model_invalid'));
const providerId = v.picklist(PROVIDER_IDS, 'settings_error_provider');
const authHeader = v.picklist(AUTH_HEADERS, 'settings_error_auth_header');
/** A provider's saved connection: what the form restores when the user switches back to it. */
export const ProviderConnectionSchema = v.object({
  baseUrl: httpUrl,
  apiKey: secret,
  authHeader,
  /** The model last used there, given back when the user switches back; absent: the preset's suggestion. */
  model: v.optional(modelName),
});
export type ProviderConnection = v.InferOutput<typeof ProviderConnectionSchema>;
/** Graph API object ids (an Instagram user, a WhatsApp phone number) are digits. */
const numericId = v.pipe(v.string(), v.trim(), v.regex(/^\d*$/, 'settings_error_numeric_id'));

/** Error messages are i18n keys, so the options page can show them in the user's language. */
/** The fields, each with its own schema (migration checks them one by one). */
export const SettingsObject = v.object({
  version: v.literal(SETTINGS_VERSION),
  /** The main model's provider preset: its API kind, and the defaults the form fills in. */
  provider: providerId,
  /** The main provider's key; a local server's preset needs none (checked below). */
  apiKey: v.pipe(v.string(), v.trim(), v.regex(/^[\x21-\x7e]*$/, 'settings_error_secret_invalid')),
  baseUrl: httpUrl,
  /** How the key is sent: the preset's style, which only the "Other" presets let the user change. */
  authHeader,
  /**
   * The other providers' connections, by preset: kept when the user switches the main one away
   * (like the search engines' keys), and what a summary model or an agent profile on another
   * provider connects with.
   */
  providerConfigs: v.pipe(
    v.record(providerId, ProviderConnectionSchema, 'settings_error_provider_configs'),
    v.transform((r) => r as Partial<Record<ProviderId, ProviderConnection>>),
  ),
  model: v.pipe(
    v.string(),
    v.trim(),
    v.nonEmpty('settings_error_model_empty'),
    v.regex(/^[\w.:@/-]+$/, 'settings_error_model_invalid'),
  ),
  maxTokens: wholeNumber(128_000, 'settings_error_max_tokens'),
  roundCap: wholeNumber(1000, 'settings_error_round_cap'),
  /** A cheaper model for summaries (get_tab_content / web_fetch with a prompt); empty: the main model. */
  summaryModel: modelName,
  /** The summary model's provider; empty: the main one. */
  summaryProvider: v.union([v.literal(''), providerId], 'settings_error_provider'),
  /** How long execute_script code may run. */
  scriptTimeoutSec: wholeNumber(300, 'settings_error_script_timeout'),
  /** How long ask_user waits for an answer (the contract's 5 minutes by default). */
  askUserTimeoutSec: wholeNumber(3600, 'settings_error_ask_timeout'),
  /** web_search's engine; the others keep their keys for when the user switches back. */
  searchEngine: v.picklist(SEARCH_ENGINE_IDS, 'settings_error_search_engine'),
  /** Bing Web Search API v7 key; without one, Bing's result page is read instead. */
  bingApiKey: secret,
  googleApiKey: secret,
  /** Google Programmable Search Engine id (the `cx` parameter). */
  googleCx: v.pipe(v.string(), v.trim(), v.regex(/^[\w:.-]*$/, 'settings_error_secret_invalid')),
  duckduckgoEndpoint: endpoint,
  bingEndpoint: endpoint,
  baiduEndpoint: endpoint,
  googleEndpoint: endpoint,
  /**
   * web_fetch may reach loopback, private and link-local addresses (a router's admin page, a dev
   * server). Off by default: a page the model read could otherwise steer it into the user's network.
   */
  allowPrivateNetwork: v.boolean('settings_error_boolean'),
  /** Settings → Social media: the instagram_post skill (Instagram content publishing). */
  instagramUserId: numericId,
  instagramAccessToken: secret,
  instagramApiBase: endpoint,
  /** The whatsapp_send skill (WhatsApp Cloud API). */
  whatsappPhoneNumberId: numericId,
  whatsappAccessToken: secret,
  whatsappApiBase: endpoint,
  /**
   * The model's context window in tokens; 0: known per model (lib/agent/context-window.ts),
   * else 200,000. Never below what the system prompt and tools take.
   */
  contextWindow: zeroOr(MIN_CONTEXT_WINDOW, 10_000_000, 'settings_error_context_window'),
  /** Percent of the window past which old tool results are elided, then old turns compacted. */
  contextThreshold: v.pipe(v.number('settings_error_context_threshold'), v.integer('settings_error_context_threshold'), v.minValue(20, 'settings_error_context_threshold'), v.maxValue(95, 'settings_error_context_threshold')),
  /** Per-run cap on tokens (input, output and cache together); 0: off. Reaching it asks "Continue?". */
  tokenBudget: zeroOr(1_000, 1_000_000_000, 'settings_error_token_budget'),
  /** Per-run cap on cost in US dollars; 0: off. Needs a price for the model. */
  costBudget: v.pipe(v.number('settings_error_cost_budget'), v.finite('settings_error_cost_budget'), v.minValue(0, 'settings_error_cost_budget'), v.maxValue(100_000, 'settings_error_cost_budget')),
  /** The same tool with the same arguments this many times in a row stops the run; 0: off. */
  loopGuardRepeats: zeroOr(2, 50, 'settings_error_loop_guard'),
  /** Seconds without a stream event after which a reply counts as broken. */
  streamIdleSec: wholeNumber(600, 'settings_error_stream_idle'),
  /** The price table; empty: the built-in one (lib/agent/pricing.ts). */
  prices: v.pipe(v.array(PriceRowSchema, 'settings_error_prices'), v.maxLength(200, 'settings_error_prices')),
  /** Settings → Advanced: keep the exact requests and responses of the last runs (keys redacted). */
  runLog: v.boolean('settings_error_boolean'),
  /** What the toolbar button opens: the popup, or the chat in the side panel / sidebar beside the page. */
  toolbarOpens: v.picklist(TOOLBAR_OPENS, 'settings_error_toolbar_opens'),
  /**
   * Settings → Advanced (Chrome): page_action sends input through the DevTools protocol
   * (chrome.debugger: a required permission, since Chrome refuses "debugger" among optional ones — see wxt.config.ts) for sites that
   * ignore synthetic events. Off: synthetic events, as in Firefox.
   */
  trustedInput: v.boolean('settings_error_boolean'),
});

/** The whole settings: a key is needed exactly when the main provider's preset needs one. */
export const SettingsSchema = v.pipe(
  SettingsObject,
  v.forward(
    // A partial check, so the key's error shows even while another field is still invalid.
    v.partialCheck([['provider'], ['apiKey']], (s) => !PROVIDER_PRESETS[s.provider].needsKey || s.apiKey !== '', 'settings_error_key_empty'),
    ['apiKey'],
  ),
);

export type Settings = v.InferOutput<typeof SettingsSchema>;
export type SettingsField = Exclude<keyof Settings, 'version'>;
export type { ProviderId };

export const defaultSettings = (): Settings => ({
  version: SETTINGS_VERSION,
  provider: 'anthropic',
  apiKey: '',
  baseUrl: DEFAULT_BASE_URL,
  authHeader: 'x-api-key',
  providerConfigs: {},
  model: DEFAULT_MODEL,
  maxTokens: 8192,
  roundCap: 50,
  summaryModel: '',
  summaryProvider: '',
  scriptTimeoutSec: 30,
  askUserTimeoutSec: 300,
  searchEngine: 'duckduckgo',
  bingApiKey: '',
  googleApiKey: '',
  googleCx: '',
  duckduckgoEndpoint: '',
  bingEndpoint: '',
  baiduEndpoint: '',
  googleEndpoint: '',
  allowPrivateNetwork: false,
  instagramUserId: '',
  instagramAccessToken: '',
  instagramApiBase: '',
  whatsappPhoneNumberId: '',
  whatsappAccessToken: '',
  whatsappApiBase: '',
  contextWindow: 0,
  contextThreshold: 75,
  tokenBudget: 5_000_000,
  costBudget: 0,
  loopGuardRepeats: 3,
  streamIdleSec: 60,
  prices: [],
  runLog: false,
  toolbarOpens: 'popup',
  trustedInput: false,
});

/**
 * Upgrades whatever an older version stored (v1 → v2 added summaryModel and scriptTimeoutSec;
 * v2 → v3 the search engine, its keys and endpoints, allowPrivateNetwork and askUserTimeoutSec —
 * all take their defaults; v3 → v4 the social-media credentials; v4 → v5 the context window,
 * budgets, loop guard, stream timeout, price table and run log; v5 → v6 the provider — an
 * older install talked to an Anthropic Messages endpoint with x-api-key, which is the default;
 * v6 → v7 what the toolbar button opens, the popup as before). Unknown or broken values fall back to defaults
 * field by field, so an update never loses the user's key.
 */
export function migrateSettings(stored: unknown): Settings {
  const base = defaultSettings();
  if (!stored || typeof stored !== 'object') return base;
  const s = stored as Record<string, unknown>;
  const merged: Record<string, unknown> = { ...base };
  for (const key of Object.keys(base) as (keyof Settings)[]) {
    if (key === 'version') continue;
    const fieldSchema = SettingsObject.entries[key];
    if (key === 'apiKey') {
      if (typeof s.apiKey === 'string') merged.apiKey = s.apiKey;
      continue;
    }
    const r = v.safeParse(fieldSchema, s[key]);
    if (r.success) merged[key] = r.output;
  }
  return merged as Settings;
}

export type SettingsErrors = Partial<Record<SettingsField, string>>;

/** Validates a form's values; on failure returns one i18n message key per invalid field. */
export function validateSettings(
  input: unknown,
): { ok: true; settings: Settings } | { ok: false; errors: SettingsErrors } {
  // Not abortPipeEarly: the key check after the object must run while another field is invalid.
  const r = v.safeParse(SettingsSchema, input);
  if (r.success) return { ok: true, settings: r.output };
  const errors: SettingsErrors = {};
  for (const issue of r.issues) {
    const key = issue.path?.[0]?.key as SettingsField | undefined;
    if (key && !errors[key]) errors[key] = issue.message;
  }
  return { ok: false, errors };
}

export const SETTINGS_STORAGE_KEY = 'settings';
