import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Every UI string is in en, tr, id and ko (public/_locales). TypeScript checks that each key the
 * code passes to t() is in the English catalogue (MessageKey); this checks the rest: that the
 * other catalogues say the same things, and that the manifest's and pages' __MSG_…__ names exist.
 * A key missing from one catalogue would not fail anywhere else: the browser falls back to English.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const LOCALES = ['en', 'tr', 'id', 'ko'] as const;

interface Entry {
  message: string;
  description?: string;
  placeholders?: Record<string, { content: string; example?: string }>;
}

const catalogue = (lang: string): Record<string, Entry> =>
  JSON.parse(fs.readFileSync(path.join(ROOT, 'public/_locales', lang, 'messages.json'), 'utf8'));
const catalogues = Object.fromEntries(LOCALES.map((l) => [l, catalogue(l)])) as Record<(typeof LOCALES)[number], Record<string, Entry>>;
const en = catalogues.en;

/** The named placeholders a message uses ($NAME$, case-insensitive as the browser reads them). */
const namedIn = (message: string) => [...new Set([...message.matchAll(/\$([a-z0-9_@]+)\$/gi)].map((m) => m[1]!.toLowerCase()))].sort();
/** The substitutions a message's placeholders take ($1…$9). */
const substitutions = (e: Entry) => Object.values(e.placeholders ?? {}).map((p) => p.content).sort();

describe('the UI strings (public/_locales)', () => {
  it('are the same keys in every language', () => {
    for (const lang of LOCALES) {
      const keys = Object.keys(catalogues[lang]);
      expect(Object.keys(en).filter((k) => !keys.includes(k)), `missing from ${lang}`).toEqual([]);
      expect(keys.filter((k) => !(k in en)), `only in ${lang}`).toEqual([]);
    }
  });

  it('are never empty, and take the same placeholders in every language', () => {
    const problems: string[] = [];
    for (const lang of LOCALES) {
      for (const [key, entry] of Object.entries(catalogues[lang])) {
        if (!entry.message?.trim()) problems.push(`${lang}.${key}: empty`);
        const used = namedIn(entry.message);
        const declared = Object.keys(entry.placeholders ?? {}).map((n) => n.toLowerCase()).sort();
        // A used name nobody declared is shown to the user as "$NAME$".
        const undeclared = used.filter((n) => !declared.includes(n));
        if (undeclared.length) problems.push(`${lang}.${key}: undeclared ${undeclared.join(', ')}`);
        const english = en[key];
        if (english && JSON.stringify(substitutions(entry)) !== JSON.stringify(substitutions(english))) {
          problems.push(`${lang}.${key}: takes ${substitutions(entry).join(' ')}, English takes ${substitutions(english).join(' ')}`);
        }
        if (english && JSON.stringify(used) !== JSON.stringify(namedIn(english.message))) {
          problems.push(`${lang}.${key}: shows ${used.join(' ')}, English shows ${namedIn(english.message).join(' ')}`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('have names the browser accepts', () => {
    // chrome.i18n: ASCII letters, digits, "_" and "@"; "@@" names are the browser's own.
    for (const key of Object.keys(en)) expect(key, key).toMatch(/^(?!@@)[A-Za-z0-9_@]+$/);
  });

  it('include every __MSG_…__ name the manifest and the extension pages use', () => {
    const sources = ['wxt.config.ts', ...fs.readdirSync(path.join(ROOT, 'entrypoints'), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.html'))
      .map((f) => path.join('entrypoints', f))];
    const used = new Set(sources.flatMap((f) => [...fs.readFileSync(path.join(ROOT, f), 'utf8').matchAll(/__MSG_(\w+?)__/g)].map((m) => m[1]!)));
    // The side panel's title, the command descriptions: the build fails on none of these.
    expect([...used]).toEqual(expect.arrayContaining(['extName', 'extDescription', 'command_open_chat', 'command_toggle_panel']));
    for (const lang of LOCALES) expect([...used].filter((k) => !(k in catalogues[lang])), lang).toEqual([]);
  });

  it('keep the store listing within the stores\' limits (name 75, description 132 characters)', () => {
    for (const lang of LOCALES) {
      expect(catalogues[lang].extName!.message.length, lang).toBeLessThanOrEqual(75);
      expect(catalogues[lang].extDescription!.message.length, lang).toBeLessThanOrEqual(132);
    }
  });
});
