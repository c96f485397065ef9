import os from 'node:os';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { playwright } from '@vitest/browser-playwright';
import { defineConfig } from 'vitest/config';
import { WxtVitest } from 'wxt/testing';
import { RetryReporter } from './tests/harness/retry-reporter.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * e2e files at once: each is a browser's process tree beside the fakes and servers it starts, and
 * about one core's worth of work while it runs. One file per two cores: a 2-core machine (CI's)
 * runs them one at a time, as the suite's timed steps were measured; a 4-core one two at a time.
 * PAGEWRIGHT_E2E_WORKERS sets it.
 */
const E2E_WORKERS = Number(process.env.PAGEWRIGHT_E2E_WORKERS) || Math.max(1, Math.floor(os.availableParallelism() / 2));

export default defineConfig({
  test: {
    // Reporters are set for the whole run; RetryReporter reports on the e2e project's tests only.
    reporters: ['default', new RetryReporter('e2e')],
    projects: [
      {
        plugins: [WxtVitest()],
        test: {
          name: 'unit',
          environment: 'node',
          include: ['tests/unit/**/*.test.ts'],
          benchmark: { include: ['tests/bench/**/*.bench.ts'] },
          // A hang still fails; a 200 MB data URL or a 10 MB MCP image that takes 1 s idle takes
          // 6 s beside a build and browsers on 2 cores, and 5 s (vitest's default) failed it.
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
      {
        // WxtVitest breaks browser projects; components get their i18n from the test setup.
        plugins: [svelte()],
        resolve: { conditions: ['browser'] },
        test: {
          name: 'component',
          include: ['tests/component/**/*.test.ts'],
          setupFiles: ['tests/component/setup.ts'],
          testTimeout: 30_000,
          // expect.element retries for a second by default: too short for a form that re-renders
          // on each keystroke while the unit project takes the other core.
          expect: { poll: { timeout: 5_000 } },
          browser: {
            enabled: true,
            headless: true,
            provider: playwright({
              launchOptions: {
                executablePath: CHROMIUM,
                args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
              },
            }),
            instances: [{ browser: 'chromium' }],
          },
        },
      },
      {
        test: {
          name: 'e2e',
          environment: 'node',
          include: ['tests/e2e/**/*.e2e.test.ts'],
          testTimeout: 90_000,
          hookTimeout: 90_000,
          fileParallelism: E2E_WORKERS > 1,
          maxWorkers: E2E_WORKERS,
          // A browser is a whole process tree: retrying a flaky launch is cheaper than a red CI.
          // Never silently: RetryReporter names every retried test, and fails CI on one.
          retry: 1,
        },
      },
    ],
  },
});
