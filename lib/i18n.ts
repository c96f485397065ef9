import { browser } from 'wxt/browser';
import type en from '../public/_locales/en/messages.json';

export type MessageKey = keyof typeof en;

type Lookup = (key: string, substitutions?: string[]) => string;

let lookup: Lookup = (key, subs) => browser.i18n.getMessage(key as MessageKey, subs);

/** Component tests run outside an extension: they supply the English catalogue here. */
export function setMessageLookup(fn: Lookup) {
  lookup = fn;
}

/** Every UI string goes through the browser's i18n, so the UI follows the browser language. */
export function t(key: MessageKey, ...substitutions: (string | number)[]): string {
  return lookup(key, substitutions.map(String)) || key;
}

/** The language of the catalogue the messages actually come from, for <html lang>. */
export function uiLocale(): string {
  return t('lang_code');
}
