import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { launchChromium } from '../harness/browsers';

const catalogue = (lang: string) =>
  JSON.parse(fs.readFileSync(new URL(`../../public/_locales/${lang}/messages.json`, import.meta.url), 'utf8')) as Record<string, { message: string }>;

// Firefox takes the UI language from installed language packs, which Debian's firefox-esr
// lacks; Chromium switches with its --lang / LANGUAGE setting.
describe.each(['tr', 'id', 'ko'])('the UI follows the browser language (%s, Chromium)', (lang) => {
  it('shows the popup and the settings page in that language', async () => {
    const ext = await launchChromium({ lang });
    try {
      const m = catalogue(lang);
      const popup = await ext.open('popup.html');
      await popup.waitForSelector(`textarea[aria-label="${m.chat_input_label!.message}"]`);
      expect(await popup.$eval('button[type="submit"]', (b) => b.textContent?.trim())).toBe(m.chat_send!.message);
      expect(await popup.$eval('html', (h) => h.lang)).toMatch(new RegExp(`^${lang}`));
      const options = await ext.open('options.html', { width: 900, height: 700 });
      await options.waitForSelector('#apiKey');
      expect(await options.$eval('label[for="apiKey"]', (l) => l.textContent)).toBe(m.settings_api_key!.message);
      expect(await options.$eval('button[type="submit"]', (b) => b.textContent)).toBe(m.settings_save!.message);
    } finally {
      await ext.close();
    }
  });
});
