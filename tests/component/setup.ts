import { setMessageLookup } from '../../lib/i18n';
import messages from '../../public/_locales/en/messages.json';

interface CatalogueEntry {
  message: string;
  placeholders?: Record<string, { content: string }>;
}

const catalogue: Record<string, CatalogueEntry> = messages;

/**
 * chrome.i18n.getMessage for the English catalogue: `$NAME$` (case-insensitive) is replaced by
 * placeholders.name.content, then `$1`…`$9` by the substitutions and `$$` by `$`.
 * Unknown keys give '' as in Chrome (t() then falls back to the key).
 */
export function lookupMessage(key: string, substitutions: string[] = []): string {
  const entry = catalogue[key];
  if (!entry) return '';
  const placeholders = Object.fromEntries(
    Object.entries(entry.placeholders ?? {}).map(([name, p]) => [name.toLowerCase(), p.content]),
  );
  const expanded = entry.message.replace(/\$([a-z0-9_@]+)\$/gi, (whole, name: string) => placeholders[name.toLowerCase()] ?? whole);
  // One pass, so a substitution that itself contains "$1" is inserted literally.
  return expanded.replace(/\$(\$|[1-9])/g, (_, c: string) => (c === '$' ? '$' : (substitutions[Number(c) - 1] ?? '')));
}

setMessageLookup(lookupMessage);
