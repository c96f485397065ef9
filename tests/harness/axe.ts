import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'puppeteer-core';

const AXE_SOURCE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * axe-core's violations on a page of the built extension, as "rule (impact): where" lines (empty:
 * none). axe goes in through the driver (CDP / WebDriver BiDi evaluate), which the pages' CSP
 * does not govern, so the extension ships nothing for it.
 */
export async function axeViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in globalThis))) await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: typeof import('axe-core') }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  });
}
