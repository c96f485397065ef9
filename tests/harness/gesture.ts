import type { Page } from 'puppeteer-core';

let clicks = 0;

/**
 * Runs `fn(...args)` in `page` inside a real click, and returns what it returned (awaited). Opening
 * (or closing) a side panel, a sidebar or a popup needs a user gesture, and Firefox needs the
 * call made in the click's handler itself, before anything is awaited: so `fn` is called
 * synchronously by the handler. `fn` runs in the page, with nothing of the test's scope.
 *
 * The handler is installed through the driver as source text (CDP / WebDriver BiDi evaluate is not
 * subject to the extension pages' CSP, which forbids building functions from strings).
 */
export async function inUserGesture<A extends unknown[], T>(page: Page, fn: (...args: A) => T, ...args: A): Promise<Awaited<T>> {
  const id = `pagewright-test-gesture-${++clicks}`;
  await page.evaluate(`(() => {
    const button = document.createElement('button');
    button.id = ${JSON.stringify(id)};
    button.textContent = 'test gesture';
    button.style.cssText = 'position: fixed; left: 0; top: 0; width: 24px; height: 24px; z-index: 2147483647';
    button.onclick = () => {
      let result;
      try { result = Promise.resolve((${fn.toString()})(...${JSON.stringify(args)})); } catch (e) { result = Promise.reject(e); }
      globalThis[${JSON.stringify(id)}] = result;
    };
    document.body.append(button);
  })()`);
  try {
    await page.click(`#${id}`);
    return (await page.evaluate((key) => (globalThis as unknown as Record<string, Promise<unknown>>)[key], id)) as Awaited<T>;
  } finally {
    await page.evaluate((key) => document.getElementById(key)?.remove(), id).catch(() => {});
  }
}
