import * as v from 'valibot';

export const DEFAULT_BASE_URL = 'https://api.anthropic.com';
export const DEFAULT_MODEL = 'claude-sonnet-5-5';
export const SETTINGS_VERSION = 4;
/** The Graph API the social-media skills call when no base URL is set (tests point it at a local server). */
export const DEFAULT_GRAPH_API_BASE = 'https://graph.facebook.com/v21.0';

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
const secret = v.pipe(v.string(), v.trim(), v.regex(/^[\x21-\x7e]*$/, 'settings_error_secret_invalid'));
/** Graph API object ids (an Instagram user, a WhatsApp phone number) are digits. */
const numericId = v.pipe(v.string(), v.trim(), v.regex(/^\d*$/, 'settings_error_numeric_id'));

/** Error messages are i18n keys, so the options page can show them in the user's language. */
export const SettingsSchema = v.object({
  version: v.literal(SETTINGS_VERSION),
  apiKey: v.pipe(v.string(), v.trim(), v.nonEmpty('settings_error_key_empty')),
  baseUrl: httpUrl,
  model: v.pipe(
    v.string(),
    v.trim(),
    v.nonEmpty('settings_error_model_empty'),
    v.regex(/^[\w.:@/-]+$/, 'settings_error_model_invalid'),
  ),
  maxTokens: wholeNumber(128_000, 'settings_error_max_tokens'),
  roundCap: wholeNumber(1000, 'settings_error_round_cap'),
  /** A cheaper model for summaries (get_tab_content / web_fetch with a prompt); empty: the main model. */
  summaryModel: v.pipe(v.string(), v.trim(), v.regex(/^[\w.:@/-]*$/, 'settings_error_model_invalid')),
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
});

export type Settings = v.InferOutput<typeof SettingsSchema>;
export type SettingsField = Exclude<keyof Settings, 'version'>;

export const defaultSettings = (): Settings => ({
  version: SETTINGS_VERSION,
  apiKey: '',
  baseUrl: DEFAULT_BASE_URL,
  model: DEFAULT_MODEL,
  maxTokens: 8192,
  roundCap: 50,
  summaryModel: '',
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
});

/**
 * Upgrades whatever an older version stored (v1 → v2 added summaryModel and scriptTimeoutSec;
 * v2 → v3 the search engine, its keys and endpoints, allowPrivateNetwork and askUserTimeoutSec —
 * all take their defaults; v3 → v4 the social-media credentials). Unknown or broken values fall back to defaults
 * field by field, so an update never loses the user's key.
 */
export function migrateSettings(stored: unknown): Settings {
  const base = defaultSettings();
  if (!stored || typeof stored !== 'object') return base;
  const s = stored as Record<string, unknown>;
  const merged: Record<string, unknown> = { ...base };
  for (const key of Object.keys(base) as (keyof Settings)[]) {
    if (key === 'version') continue;
    const fieldSchema = SettingsSchema.entries[key];
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
  const r = v.safeParse(SettingsSchema, input, { abortPipeEarly: true });
  if (r.success) return { ok: true, settings: r.output };
  const errors: SettingsErrors = {};
  for (const issue of r.issues) {
    const key = issue.path?.[0]?.key as SettingsField | undefined;
    if (key && !errors[key]) errors[key] = issue.message;
  }
  return { ok: false, errors };
}

export const SETTINGS_STORAGE_KEY = 'settings';
