/**
 * npm run bench:screenshot -- [--calls N] [--browser chromium|firefox]: the screenshot tool timed in
 * the built extension (scripts/screenshot-bench.ts says what is measured). Needs `npm run build`.
 */
import type { BrowserName } from '../tests/harness/browsers';
import { benchScreenshot } from './screenshot-bench';

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const only = arg('--browser') as BrowserName | undefined;
await benchScreenshot({ calls: Number(arg('--calls') ?? 15), browsers: only ? [only] : ['chromium', 'firefox'] });
