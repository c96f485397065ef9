/**
 * Which model endpoints get their Origin header fixed (lib/browser/local-origin.ts does it).
 *
 * A local model server that checks Origin refuses the extension's: Ollama allows only its own
 * host, localhost, 127.0.0.1 and 0.0.0.0 (any port) and a few app schemes unless OLLAMA_ORIGINS
 * says more, and answers anything else with a bare 403. Every such server accepts a request whose
 * Origin is its own, so the extension's own requests to a configured local endpoint are sent with
 * that origin instead of `chrome-extension://…` / `moz-extension://…`.
 *
 * Only loopback servers (any preset: a local proxy configured as "Other" counts) and, for presets
 * marked local, servers on the private network (Ollama on another machine at home). Never a
 * public host: there the Origin is the server's business, and it is not ours to claim another.
 * Pure, so the background, the Test button's wording and the tests agree on it.
 */
import type { Settings } from '../../settings';
import { configuredEndpoints } from './endpoints';
import { hostKindOf } from './hosts';
import { PROVIDER_PRESETS } from './presets';

/** The origin to send to `baseUrl`'s server (its own), or undefined when it gets no fix. */
export function originFixFor(baseUrl: string, { local = false }: { local?: boolean } = {}): string | undefined {
  const kind = hostKindOf(baseUrl);
  return kind === 'loopback' || (local && kind === 'private') ? new URL(baseUrl).origin : undefined;
}

/** The origins (scheme://host[:port]) of every configured endpoint that gets the fix, sorted, each once. */
export function localOriginTargets(settings: Settings): string[] {
  const origins = configuredEndpoints(settings).flatMap((e) => {
    const origin = originFixFor(e.baseUrl, { local: PROVIDER_PRESETS[e.provider].local });
    return origin ? [origin] : [];
  });
  return [...new Set(origins)].sort();
}
