/**
 * The provider fields of the settings form and what switching provider does to them: the current
 * connection is kept under the provider it belongs to, and the new one's comes back (or its preset).
 */
import { choosesAuthHeader, PROVIDER_PRESETS, type AuthHeader, type ProviderForm, type ProviderId } from '../../lib/agent/providers/presets';

/** One provider's saved connection (lib/settings.ts keeps one per provider the user has set up). */
export interface ProviderConnection {
  baseUrl: string;
  apiKey: string;
  authHeader: AuthHeader;
}

/** The settings fields this group edits (the names lib/settings.ts uses). */
export interface ProviderValues extends ProviderConnection {
  provider: ProviderId;
  model: string;
  providerConfigs: Partial<Record<ProviderId, ProviderConnection>>;
}

/**
 * Saves the current connection into providerConfigs[old] and restores providerConfigs[next] or the
 * preset's defaults. The model starts over at the preset's suggestion: a model name rarely means
 * anything to another provider.
 */
export function switchProvider(values: ProviderValues, next: ProviderId): void {
  const prev = values.provider;
  if (prev === next) return;
  const { [next]: saved, ...others } = values.providerConfigs ?? {};
  const preset = PROVIDER_PRESETS[next];
  // The active provider's connection lives in the top-level fields only, never twice.
  values.providerConfigs = { ...others, [prev]: { baseUrl: values.baseUrl, apiKey: values.apiKey, authHeader: values.authHeader } };
  values.provider = next;
  values.baseUrl = saved?.baseUrl ?? preset.baseUrl;
  values.apiKey = saved?.apiKey ?? '';
  // Only the Other presets let the user choose; the rest always send the key as their docs say.
  values.authHeader = choosesAuthHeader(next) ? (saved?.authHeader ?? preset.authHeader) : preset.authHeader;
  values.model = preset.defaultModel ?? '';
}

/** The form's values as the background's listModels / testProvider take them. */
export const formOf = (v: ProviderValues): ProviderForm => ({
  provider: v.provider,
  baseUrl: v.baseUrl.trim(),
  apiKey: v.apiKey.trim(),
  authHeader: v.authHeader,
  model: v.model.trim(),
});
