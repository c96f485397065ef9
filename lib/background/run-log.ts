/**
 * The run log's wiring: each run's model client is wrapped to record when Settings → Advanced →
 * Run log is on at the run's start (read once per run, so a run is recorded whole or not at all).
 */
import type { ModelClient, ModelEndpoint } from '../agent/model';
import { createModelClient } from '../agent/providers';
import { makeRedactor, redactUrl, settingsSecrets } from '../agent/redact';
import { recordingClient, type RunRecorder } from '../agent/run-log';
import type { Settings } from '../settings';
import type { RunLogStore } from '../storage/run-log-store';

export interface RunLogWiring {
  log: Promise<RunLogStore | undefined>;
  loadSettings(): Promise<Settings>;
  createClient?: (endpoint: ModelEndpoint) => ModelClient;
}

/** RunManagerDeps.createClient, recording the runs it serves while the setting is on. */
export function createLoggedClient({ log, loadSettings, createClient = createModelClient }: RunLogWiring) {
  /**
   * One log entry per run, whichever providers it uses: the run manager hands every client of a
   * run the same `run` object (the main model's first, so the entry names its endpoint).
   */
  const recorders = new WeakMap<object, Promise<RunRecorder | undefined>>();
  return (endpoint: ModelEndpoint, run?: { conversationId: string; title: string }): ModelClient => {
    const client = createClient(endpoint);
    if (!run) return client;
    let recorder = recorders.get(run);
    if (!recorder) recorders.set(run, (recorder = startRecorder(endpoint, run)));
    return recordingClient(client, recorder);
  };

  function startRecorder(endpoint: ModelEndpoint, run: { conversationId: string; title: string }): Promise<RunRecorder | undefined> {
    // Started now, so it has settled by the run's first request (after its skills and registry).
    return (async (): Promise<RunRecorder | undefined> => {
      const settings = await loadSettings();
      if (!settings.runLog) return undefined;
      const store = await log;
      if (!store) return undefined;
      const secrets = settingsSecrets(settings);
      // The title is the user's first words, which may be a pasted key.
      const title = makeRedactor(secrets)(run.title);
      const writer = store.startRun({ conversationId: run.conversationId, title, endpoint: redactUrl(endpoint.baseUrl) });
      let next = 0;
      return { secrets, record: (exchange) => writer.record(exchange), nextIndex: () => next++ };
    })().catch(() => undefined);
  }
}
