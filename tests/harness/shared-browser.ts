import { afterAll, beforeAll, beforeEach } from 'vitest';
import { launch, type BrowserName, type ExtensionBrowser } from './browsers';

/**
 * The browser a describe's tests share, registered as vitest hooks inside the describe.
 *
 * A retried test gets a browser of its own: the failed attempt's browser is closed and a new one
 * launched on a fresh profile before the retry's other beforeEach hooks run. A retry is for a
 * slow machine's bad moment; on the same profile it would meet the first attempt's leftovers
 * (300 imported conversations become 600, a card still waits, a tab is still open) and fail
 * for a reason of the test's own making.
 *
 * What a describe's earlier tests leave for later ones (a database imported through the page,
 * a skill saved) is asked for with `once(key, setup)`: done once per launched browser, so a test
 * run alone, in another order or on a retry's fresh profile makes it again; a test that makes
 * it as part of what it checks says so with `made(key)`.
 */
export interface SharedBrowser {
  readonly ext: ExtensionBrowser;
  /** Browsers launched so far for this describe: 1 before the first test, one more per retry. */
  readonly launches: number;
  once<T>(key: string, setup: () => Promise<T>): Promise<T>;
  made<T>(key: string, value?: T): void;
}

export interface SharedBrowserOptions {
  /** How to start the browser (default: `launch(name)`). */
  start?: () => Promise<ExtensionBrowser>;
  /** Runs after each launch, the first and every retry's (settings, a first popup). */
  onLaunch?: (ext: ExtensionBrowser) => Promise<void>;
}

export function sharedBrowser(name: BrowserName, { start = () => launch(name), onLaunch }: SharedBrowserOptions = {}): SharedBrowser {
  let ext: ExtensionBrowser | undefined;
  let launches = 0;
  let made = new Map<string, Promise<unknown>>();

  async function open() {
    made = new Map();
    ext = await start();
    launches++;
    await onLaunch?.(ext);
  }

  beforeAll(open);
  afterAll(async () => {
    await ext?.close();
  });
  beforeEach(async ({ task }) => {
    if (!task.result?.retryCount) return;
    console.log(`e2e: "${task.name}" is retried on a fresh ${name} profile`);
    await ext?.close().catch(() => {});
    ext = undefined;
    await open();
  });

  return {
    get ext() {
      if (!ext) throw new Error(`The ${name} browser is not running: its launch failed (see the hook's error).`);
      return ext;
    },
    get launches() {
      return launches;
    },
    once<T>(key: string, setup: () => Promise<T>): Promise<T> {
      let p = made.get(key) as Promise<T> | undefined;
      if (!p) {
        const mine = setup();
        const map = made;
        map.set(key, mine);
        // A setup that failed is tried again by the next test that asks.
        mine.catch(() => map.get(key) === mine && map.delete(key));
        p = mine;
      }
      return p;
    },
    made<T>(key: string, value?: T) {
      made.set(key, Promise.resolve(value));
    },
  };
}
