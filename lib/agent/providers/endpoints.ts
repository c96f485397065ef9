/**
 * Which endpoint a use of a model talks to: the main model, the summary model, or an agent
 * profile, each naming a provider preset (or none: the main one). Pure, so the run manager, the
 * background's Origin rules and the tests agree on it.
 */
import type { ProviderConnection, Settings } from '../../settings';
import type { ModelEndpoint } from '../model';
import { PROVIDER_PRESETS } from './presets';
import type { ProviderId } from './provider-ids';

export interface ResolvedEndpoint extends ModelEndpoint {
  provider: ProviderId;
}

export type EndpointResult = { ok: true; endpoint: ResolvedEndpoint } | { ok: false; message: string };

/** The connection `provider` uses: the main one's fields, or its saved connection. */
export function connectionOf(settings: Settings, provider: ProviderId): ProviderConnection | undefined {
  if (provider === settings.provider) return { baseUrl: settings.baseUrl, apiKey: settings.apiKey, authHeader: settings.authHeader };
  return settings.providerConfigs[provider];
}

/**
 * The endpoint for `provider` ('' or absent: the main provider). A provider the user never set
 * up, or one that needs a key it lacks, is a configuration error with a sentence to show.
 */
export function endpointFor(settings: Settings, provider?: ProviderId | ''): EndpointResult {
  const id = provider || settings.provider;
  const preset = PROVIDER_PRESETS[id];
  const conn = connectionOf(settings, id);
  if (!conn) return { ok: false, message: `The provider ${presetName(id)} is not set up: choose it in Settings, enter its details and save, then pick your main provider again.` };
  if (preset.needsKey && !conn.apiKey) {
    return { ok: false, message: id === settings.provider ? 'No API key is set.' : `No API key is set for ${presetName(id)}.` };
  }
  return { ok: true, endpoint: { provider: id, kind: preset.kind, baseUrl: conn.baseUrl, apiKey: conn.apiKey, authHeader: conn.authHeader } };
}

/** Every base URL the settings may send model requests to (the main one first). */
export function configuredEndpoints(settings: Settings): ResolvedEndpoint[] {
  const ids = [settings.provider, ...(Object.keys(settings.providerConfigs) as ProviderId[]).filter((p) => p !== settings.provider)];
  return ids.flatMap((id) => {
    const r = endpointFor(settings, id);
    return r.ok ? [r.endpoint] : [];
  });
}

const presetName = (id: ProviderId) => PROVIDER_PRESETS[id].name;
