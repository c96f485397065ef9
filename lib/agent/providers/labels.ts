/** A provider's name as the UI shows it: brand names as they are, the two "Other" presets translated. */
import { t } from '../../i18n';
import { PROVIDER_PRESETS } from './presets';
import type { ProviderId } from './provider-ids';

export function providerLabel(id: ProviderId): string {
  const name = PROVIDER_PRESETS[id].name;
  return name.startsWith('provider_') ? t(name as Parameters<typeof t>[0]) : name;
}
