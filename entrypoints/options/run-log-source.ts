/**
 * Where the Run log section reads: the log the background writes (opened from this page, the same
 * extension origin) and the one setting that turns recording on. Tests hand in their own.
 */
import { browser } from 'wxt/browser';
import type { RunLogFile, RunLogRun } from '../../lib/contracts/run-log';
import { migrateSettings, SETTINGS_STORAGE_KEY } from '../../lib/settings';
import { RunLogStore } from '../../lib/storage/run-log-store';
import { uiLocale } from '../../lib/i18n';

/** What the section does with the log. */
export type RunLogView = Pick<RunLogStore, 'runs' | 'exchanges' | 'clear' | 'close'>;

export interface RunLogSource {
  open(): Promise<RunLogView>;
  /** Whether Settings → Advanced → Run log is on. */
  enabled(): Promise<boolean>;
  /** Calls `listener` when the settings change; returns the unsubscribe. */
  watchSettings(listener: () => void): () => void;
}

export function browserRunLogSource(): RunLogSource {
  return {
    open: () => RunLogStore.open(),
    enabled: async () => migrateSettings((await browser.storage.local.get(SETTINGS_STORAGE_KEY))[SETTINGS_STORAGE_KEY]).runLog,
    watchSettings(listener) {
      const onChanged = (changes: Record<string, unknown>, area: string) => {
        if (area === 'local' && SETTINGS_STORAGE_KEY in changes) listener();
      };
      browser.storage.onChanged.addListener(onChanged);
      return () => browser.storage.onChanged.removeListener(onChanged);
    },
  };
}

/**
 * The downloaded file for `runs`, one run at a time: a long log read back in full can be far
 * larger than what is stored (each request whole again), so it is never one object in memory.
 */
export async function runLogBlob(log: RunLogView, runs: readonly RunLogRun[], exportedAt = new Date()): Promise<Blob> {
  const head: Omit<RunLogFile, 'runs'> = { format: 'pagewright-run-log', version: 1, exportedAt: exportedAt.toISOString() };
  const parts: string[] = [`${JSON.stringify(head, null, 2).slice(0, -2)},\n  "runs": [\n`];
  for (const [i, run] of runs.entries()) {
    const exchanges = (await log.exchanges(run.id)).items;
    parts.push(`${i ? ',\n' : ''}${indent(JSON.stringify({ ...run, exchanges }, null, 2), '    ')}`);
  }
  parts.push('\n  ]\n}\n');
  return new Blob(parts, { type: 'application/json' });
}

const indent = (text: string, by: string) => by + text.replaceAll('\n', `\n${by}`);

/** A size as the user reads it (kB or MB, in their locale's digits). */
export function sizeLabel(chars: number, locale = uiLocale()): string {
  const mb = chars / (1024 * 1024);
  if (mb >= 0.1) return new Intl.NumberFormat(locale, { style: 'unit', unit: 'megabyte', maximumFractionDigits: 1 }).format(mb);
  return new Intl.NumberFormat(locale, { style: 'unit', unit: 'kilobyte', maximumFractionDigits: 0 }).format(Math.max(1, Math.round(chars / 1024)));
}

export const fileDate = (at = new Date()) => at.toISOString().slice(0, 10);
