/** A provider's name as the UI shows it: brand names as they are, the two "Other" presets translated. */
import { t } from '../../i18n';
import { PROVIDER_PRESETS } from './presets';
import type { ProviderId } from './provider-ids';

export function providerLabel(id: ProviderId): string {
  const preset = PROVIDER_PRESETS[id];
  return preset.nameKey ? t(preset.nameKey) : preset.name;
}
