/**
 * The provider fields of the settings form and what switching provider does to them: the current
 * connection is kept under the provider it belongs to, and the new one's comes back (or its preset).
 */
import { choosesAuthHeader, PROVIDER_PRESETS, type ProviderForm, type ProviderId } from '../../lib/agent/providers/presets';
import type { Settings } from '../../lib/settings';

/** The settings fields this group edits. */
export type ProviderValues = Pick<Settings, 'provider' | 'baseUrl' | 'apiKey' | 'authHeader' | 'model' | 'providerConfigs'>;

/**
 * Saves the current connection into providerConfigs[old] and restores providerConfigs[next] or the
 * preset's defaults. The model comes back with its provider (a model name rarely means anything
 * to another one), else the preset's suggestion.
 */
export function switchProvider(values: ProviderValues, next: ProviderId): void {
  const prev = values.provider;
  if (prev === next) return;
  const { [next]: saved, ...others } = values.providerConfigs ?? {};
  const preset = PROVIDER_PRESETS[next];
  // The active provider's connection lives in the top-level fields only, never twice. One that
  // was never given an address (an Other preset just looked at) is not worth keeping.
  const model = values.model.trim();
  values.providerConfigs = values.baseUrl.trim()
    ? { ...others, [prev]: { baseUrl: values.baseUrl, apiKey: values.apiKey, authHeader: values.authHeader, ...(model ? { model } : {}) } }
    : others;
  values.provider = next;
  values.baseUrl = saved?.baseUrl ?? preset.baseUrl;
  values.apiKey = saved?.apiKey ?? '';
  // Only the Other presets let the user choose; the rest always send the key as their docs say.
  values.authHeader = choosesAuthHeader(next) ? (saved?.authHeader ?? preset.authHeader) : preset.authHeader;
  values.model = saved?.model ?? preset.defaultModel ?? '';
}

/** The form's values as the background's listModels / testProvider take them. */
export const formOf = (v: ProviderValues): ProviderForm => ({
  provider: v.provider,
  baseUrl: v.baseUrl.trim(),
  apiKey: v.apiKey.trim(),
  authHeader: v.authHeader,
  model: v.model.trim(),
});
