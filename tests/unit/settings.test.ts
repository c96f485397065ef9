import { describe, expect, it } from 'vitest';
import {
  DEFAULT_BASE_URL,
  DEFAULT_MODEL,
  defaultSettings,
  migrateSettings,
  SETTINGS_VERSION,
  validateSettings,
  type Settings,
} from '../../lib/settings';

/** The v3 and v4 fields (search, network, ask_user, social media), at their defaults (spelled out: a changed default must show up here). */
const SEARCH_DEFAULTS = {
  instagramUserId: '',
  instagramAccessToken: '',
  instagramApiBase: '',
  whatsappPhoneNumberId: '',
  whatsappAccessToken: '',
  whatsappApiBase: '',
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
  contextWindow: 0,
  contextThreshold: 75,
  tokenBudget: 5_000_000,
  costBudget: 0,
  loopGuardRepeats: 3,
  streamIdleSec: 60,
  prices: [] as Settings['prices'],
  runLog: false,
  provider: 'anthropic',
  authHeader: 'x-api-key',
  providerConfigs: {},
  summaryProvider: '',
  toolbarOpens: 'popup',
  trustedInput: false,
} as const;

const valid = (): Settings => ({
  version: SETTINGS_VERSION,
  apiKey: 'sk-ant-test',
  baseUrl: 'https://api.anthropic.com',
  model: 'claude-sonnet-4-5',
  maxTokens: 8192,
  roundCap: 50,
  summaryModel: '',
  scriptTimeoutSec: 30,
  ...SEARCH_DEFAULTS,
});

const errorsFor = (patch: Record<string, unknown>) => {
  const r = validateSettings({ ...valid(), ...patch });
  if (r.ok) throw new Error(`expected ${JSON.stringify(patch)} to be refused`);
  return r.errors;
};

describe('validateSettings', () => {
  it.each<[string, Record<string, unknown>, Record<string, string>]>([
    ['empty key', { apiKey: '' }, { apiKey: 'settings_error_key_empty' }],
    ['script timeout 0', { scriptTimeoutSec: 0 }, { scriptTimeoutSec: 'settings_error_script_timeout' }],
    ['script timeout 301', { scriptTimeoutSec: 301 }, { scriptTimeoutSec: 'settings_error_script_timeout' }],
    ['summary model with spaces', { summaryModel: 'a b' }, { summaryModel: 'settings_error_model_invalid' }],
    ['blank key', { apiKey: '   ' }, { apiKey: 'settings_error_key_empty' }],
    ['empty URL', { baseUrl: '  ' }, { baseUrl: 'settings_error_url_empty' }],
    ['not a URL', { baseUrl: 'not a url' }, { baseUrl: 'settings_error_url_invalid' }],
    ['host without scheme', { baseUrl: 'api.anthropic.com' }, { baseUrl: 'settings_error_url_invalid' }],
    ['ftp URL', { baseUrl: 'ftp://example.com' }, { baseUrl: 'settings_error_url_invalid' }],
    ['javascript: URL', { baseUrl: 'javascript:alert(1)' }, { baseUrl: 'settings_error_url_invalid' }],
    ['empty model', { model: '' }, { model: 'settings_error_model_empty' }],
    ['invalid model', { model: 'claude sonnet!' }, { model: 'settings_error_model_invalid' }],
    ['maxTokens 0', { maxTokens: 0 }, { maxTokens: 'settings_error_max_tokens' }],
    ['maxTokens 1.5', { maxTokens: 1.5 }, { maxTokens: 'settings_error_max_tokens' }],
    ['maxTokens 200000', { maxTokens: 200_000 }, { maxTokens: 'settings_error_max_tokens' }],
    ['maxTokens as text', { maxTokens: '100' }, { maxTokens: 'settings_error_max_tokens' }],
    ['toolbar opens a window', { toolbarOpens: 'window' }, { toolbarOpens: 'settings_error_toolbar_opens' }],
    ['toolbar opens nothing', { toolbarOpens: null }, { toolbarOpens: 'settings_error_toolbar_opens' }],
    ['maxTokens NaN', { maxTokens: Number.NaN }, { maxTokens: 'settings_error_max_tokens' }],
    ['roundCap 0', { roundCap: 0 }, { roundCap: 'settings_error_round_cap' }],
    ['roundCap 2.5', { roundCap: 2.5 }, { roundCap: 'settings_error_round_cap' }],
    ['roundCap 1001', { roundCap: 1001 }, { roundCap: 'settings_error_round_cap' }],
    ['unknown search engine', { searchEngine: 'yahoo' }, { searchEngine: 'settings_error_search_engine' }],
    ['unknown provider', { provider: 'skynet' }, { provider: 'settings_error_provider' }],
    ['a cloud preset without a key', { provider: 'openai', apiKey: '' }, { apiKey: 'settings_error_key_empty' }],
    ['an empty key while another field is invalid too', { apiKey: '', maxTokens: 0 }, { apiKey: 'settings_error_key_empty', maxTokens: 'settings_error_max_tokens' }],
    ['a key with a space inside', { apiKey: 'sk ant' }, { apiKey: 'settings_error_secret_invalid' }],
    ['unknown auth header style', { authHeader: 'cookie' }, { authHeader: 'settings_error_auth_header' }],
    ['unknown summary provider', { summaryProvider: 'skynet' }, { summaryProvider: 'settings_error_provider' }],
    ['a saved connection with a bad URL', { providerConfigs: { openai: { baseUrl: 'nope', apiKey: 'k', authHeader: 'bearer' } } }, { providerConfigs: 'settings_error_url_invalid' }],
    ['a saved connection for an unknown provider', { providerConfigs: { skynet: { baseUrl: 'https://x.test', apiKey: '', authHeader: 'bearer' } } }, { providerConfigs: 'settings_error_provider' }],
    ['Bing key with a space inside', { bingApiKey: 'ab cd' }, { bingApiKey: 'settings_error_secret_invalid' }],
    ['Google key with a newline inside', { googleApiKey: 'ab\ncd' }, { googleApiKey: 'settings_error_secret_invalid' }],
    ['Google cx with a slash', { googleCx: 'a/b' }, { googleCx: 'settings_error_secret_invalid' }],
    ['endpoint that is not a URL', { duckduckgoEndpoint: 'html.duckduckgo.com' }, { duckduckgoEndpoint: 'settings_error_url_invalid' }],
    ['file: endpoint', { baiduEndpoint: 'file:///tmp/x.html' }, { baiduEndpoint: 'settings_error_url_invalid' }],
    ['ask_user timeout 0', { askUserTimeoutSec: 0 }, { askUserTimeoutSec: 'settings_error_ask_timeout' }],
    ['an Instagram user id with letters', { instagramUserId: '17841x' }, { instagramUserId: 'settings_error_numeric_id' }],
    ['a WhatsApp token with a space', { whatsappAccessToken: 'EAAG abc' }, { whatsappAccessToken: 'settings_error_secret_invalid' }],
    ['a context window below what the prompt and tools take', { contextWindow: 4_000 }, { contextWindow: 'settings_error_context_window' }],
    ['a negative context window', { contextWindow: -1 }, { contextWindow: 'settings_error_context_window' }],
    ['a context threshold of 100%', { contextThreshold: 100 }, { contextThreshold: 'settings_error_context_threshold' }],
    ['a token budget of 10', { tokenBudget: 10 }, { tokenBudget: 'settings_error_token_budget' }],
    ['a negative cost budget', { costBudget: -5 }, { costBudget: 'settings_error_cost_budget' }],
    ['a loop guard of 1', { loopGuardRepeats: 1 }, { loopGuardRepeats: 'settings_error_loop_guard' }],
    ['a stream timeout of 0 s', { streamIdleSec: 0 }, { streamIdleSec: 'settings_error_stream_idle' }],
    ['a negative price', { prices: [{ model: 'claude-x', input: -1, output: 1, cacheWrite: 1, cacheRead: 1 }] }, { prices: 'settings_error_price' }],
    ['a price that is text', { prices: [{ model: 'claude-x', input: '3', output: 1, cacheWrite: 1, cacheRead: 1 }] }, { prices: 'settings_error_price' }],
    ['a price row without a model', { prices: [{ model: ' ', input: 1, output: 1, cacheWrite: 1, cacheRead: 1 }] }, { prices: 'settings_error_price_model' }],
    ['a WhatsApp base that is not a URL', { whatsappApiBase: 'graph' }, { whatsappApiBase: 'settings_error_url_invalid' }],
    ['ask_user timeout over an hour', { askUserTimeoutSec: 3601 }, { askUserTimeoutSec: 'settings_error_ask_timeout' }],
    ['private-network switch as text', { allowPrivateNetwork: 'yes' }, { allowPrivateNetwork: 'settings_error_boolean' }],
  ])('%s → the field\'s i18n key, and only that field', (_name, patch, expected) => {
    expect(errorsFor(patch)).toEqual(expected);
  });

  it('reports every invalid field at once, one key each', () => {
    expect(errorsFor({ apiKey: '', baseUrl: 'ftp://x', model: '', maxTokens: 0, roundCap: 0 })).toEqual({
      apiKey: 'settings_error_key_empty',
      baseUrl: 'settings_error_url_invalid',
      model: 'settings_error_model_empty',
      maxTokens: 'settings_error_max_tokens',
      roundCap: 'settings_error_round_cap',
    });
  });

  it('accepts valid input and returns trimmed values', () => {
    const r = validateSettings({
      version: SETTINGS_VERSION,
      apiKey: '  sk-ant-abc \n',
      baseUrl: ' http://localhost:8080/proxy ',
      model: '\tclaude-opus-4@2025-01-01 ',
      maxTokens: 1,
      roundCap: 1000,
      summaryModel: ' claude-haiku-5-5 ',
      scriptTimeoutSec: 300,
      ...SEARCH_DEFAULTS,
      searchEngine: 'google',
      googleApiKey: ' AIza-key ',
      googleCx: ' 0123:abc ',
      googleEndpoint: ' http://127.0.0.1:9/customsearch/v1 ',
    });
    expect(r).toEqual({
      ok: true,
      settings: {
        version: SETTINGS_VERSION,
        apiKey: 'sk-ant-abc',
        baseUrl: 'http://localhost:8080/proxy',
        model: 'claude-opus-4@2025-01-01',
        maxTokens: 1,
        roundCap: 1000,
        summaryModel: 'claude-haiku-5-5',
        scriptTimeoutSec: 300,
        ...SEARCH_DEFAULTS,
        searchEngine: 'google',
        googleApiKey: 'AIza-key',
        googleCx: '0123:abc',
        googleEndpoint: 'http://127.0.0.1:9/customsearch/v1',
      },
    });
  });

  it('accepts the boundaries and the defaults once a key is set', () => {
    expect(validateSettings({ ...valid(), maxTokens: 128_000, roundCap: 1 }).ok).toBe(true);
    expect(validateSettings({ ...defaultSettings(), apiKey: 'k' }).ok).toBe(true);
    expect(validateSettings(defaultSettings())).toEqual({ ok: false, errors: { apiKey: 'settings_error_key_empty' } });
  });

  it('needs no key for a local server or an "Other" endpoint', () => {
    for (const provider of ['ollama', 'llamacpp', 'lmstudio', 'vllm', 'other-anthropic', 'other-openai']) {
      expect(validateSettings({ ...valid(), provider, apiKey: '', authHeader: 'none' }).ok, provider).toBe(true);
    }
  });
});

describe('migrateSettings', () => {
  it.each([undefined, null, 'settings', 42, []])('gives the defaults for %j', (stored) => {
    expect(migrateSettings(stored)).toEqual(defaultSettings());
  });

  it('keeps the key and the valid fields of a partial object', () => {
    expect(migrateSettings({ apiKey: 'sk-ant-old', model: 'claude-3-opus' })).toEqual({
      ...defaultSettings(),
      apiKey: 'sk-ant-old',
      model: 'claude-3-opus',
    });
  });

  it('falls back field by field for broken values of an older version, never losing the key', () => {
    const migrated = migrateSettings({
      version: 0,
      apiKey: 'sk-ant-keep-me',
      baseUrl: 'ftp://old.example',
      model: '',
      maxTokens: 1.5,
      roundCap: 5000,
      theme: 'dark',
    });
    expect(migrated).toEqual({
      version: SETTINGS_VERSION,
      apiKey: 'sk-ant-keep-me',
      baseUrl: DEFAULT_BASE_URL,
      model: DEFAULT_MODEL,
      maxTokens: 8192,
      roundCap: 50,
      summaryModel: '',
      scriptTimeoutSec: 30,
      ...SEARCH_DEFAULTS,
    });
    expect(migrated).not.toHaveProperty('theme');
  });

  it('keeps valid values from an older version, normalised', () => {
    expect(
      migrateSettings({ version: 0, apiKey: '', baseUrl: ' http://127.0.0.1:9000 ', model: 'm-1', maxTokens: 64, roundCap: 7 }),
    ).toEqual({ version: SETTINGS_VERSION, apiKey: '', baseUrl: 'http://127.0.0.1:9000', model: 'm-1', maxTokens: 64, roundCap: 7, summaryModel: '', scriptTimeoutSec: 30, ...SEARCH_DEFAULTS });
  });

  it('upgrades what version 2 stored: everything kept, the search settings at their defaults', () => {
    const v2 = { version: 2, apiKey: 'sk-ant-v2', baseUrl: 'https://proxy.example/v1', model: 'claude-x', maxTokens: 4096, roundCap: 20, summaryModel: 'claude-y', scriptTimeoutSec: 12 };
    expect(migrateSettings(v2)).toEqual({ ...v2, version: SETTINGS_VERSION, ...SEARCH_DEFAULTS });
  });

  it('keeps version 3 search settings, dropping only the broken ones', () => {
    const stored = { ...valid(), searchEngine: 'baidu', bingApiKey: 'k1', googleCx: 'bad cx', allowPrivateNetwork: true, bingEndpoint: 'nope' };
    expect(migrateSettings(stored)).toEqual({ ...valid(), searchEngine: 'baidu', bingApiKey: 'k1', allowPrivateNetwork: true });
  });

  it('upgrades what version 5 stored to the Anthropic provider it talked to, with its key, URL and x-api-key', () => {
    const { provider: _p, authHeader: _a, providerConfigs: _c, summaryProvider: _s, ...v5 } = { ...valid(), version: 5, baseUrl: 'https://proxy.example' };
    expect(migrateSettings(v5)).toEqual({ ...valid(), baseUrl: 'https://proxy.example' });
  });

  it('upgrades what version 6 stored: the toolbar button opens the popup, as it did; a broken choice falls back to it', () => {
    const { toolbarOpens: _t, ...v6 } = { ...valid(), version: 6 };
    expect(migrateSettings(v6)).toEqual(valid());
    expect(migrateSettings({ ...valid(), toolbarOpens: 'panel' }).toolbarOpens).toBe('panel');
    expect(migrateSettings({ ...valid(), toolbarOpens: 'sidebar' }).toolbarOpens).toBe('popup');
  });

  it('keeps the saved connections that are valid and drops a broken one', () => {
    const ok = { baseUrl: 'http://localhost:11434', apiKey: '', authHeader: 'none' };
    expect(migrateSettings({ ...valid(), provider: 'openai', providerConfigs: { ollama: ok } })).toMatchObject({ provider: 'openai', providerConfigs: { ollama: ok } });
    expect(migrateSettings({ ...valid(), providerConfigs: { ollama: ok, openai: { baseUrl: 'x' } } }).providerConfigs).toEqual({});
  });

  it('ignores a key that is not a string', () => {
    expect(migrateSettings({ apiKey: 12345, model: 'claude-x' })).toEqual({ ...defaultSettings(), model: 'claude-x' });
  });
});
