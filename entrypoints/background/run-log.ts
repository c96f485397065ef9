/**
 * The run log's wiring: each run's model client is wrapped to record when Settings → Advanced →
 * Run log is on at the run's start (read once per run, so a run is recorded whole or not at all).
 */
import type { ModelClient, ModelEndpoint } from '../../lib/agent/model';
import { createModelClient } from '../../lib/agent/providers';
import { makeRedactor, redactUrl, settingsSecrets } from '../../lib/agent/redact';
import { recordingClient, type RunRecorder } from '../../lib/agent/run-log';
import type { Settings } from '../../lib/settings';
import type { RunLogStore } from '../../lib/storage/run-log-store';

export interface RunLogWiring {
  log: Promise<RunLogStore | undefined>;
  loadSettings(): Promise<Settings>;
  createClient?: (endpoint: ModelEndpoint) => ModelClient;
}

/** RunManagerDeps.createClient, recording the runs it serves while the setting is on. */
export function createLoggedClient({ log, loadSettings, createClient = createModelClient }: RunLogWiring) {
  return (endpoint: ModelEndpoint, run?: { conversationId: string; title: string }): ModelClient => {
    const client = createClient(endpoint);
    if (!run) return client;
    // Started now, so it has settled by the run's first request (after its skills and registry).
    const recorder = (async (): Promise<RunRecorder | undefined> => {
      const settings = await loadSettings();
      if (!settings.runLog) return undefined;
      const store = await log;
      if (!store) return undefined;
      const secrets = settingsSecrets(settings);
      // The title is the user's first words, which may be a pasted key.
      const title = makeRedactor(secrets)(run.title);
      const writer = store.startRun({ conversationId: run.conversationId, title, endpoint: redactUrl(endpoint.baseUrl) });
      return { secrets, record: (exchange) => writer.record(exchange) };
    })().catch(() => undefined);
    return recordingClient(client, recorder);
  };
}
