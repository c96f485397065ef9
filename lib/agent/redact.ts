/**
 * Takes secrets out of what the run log keeps: the values of fields and headers whose names look
 * like a key, token, secret or password; secret-looking query parameters and passwords in URLs;
 * bearer credentials and Anthropic keys in free text; and, wherever they appear, the exact keys
 * the user stored in Settings (a model may echo a key it was shown). Numbers and booleans are
 * kept: `max_tokens` and `input_tokens` name no secret.
 */
import type { Settings } from '../settings';

export const REDACTED = '[redacted]';

/**
 * A field or header name that holds a secret. Bare `key` is not one: the model's press-key tool
 * sends `{ key: "Enter" }`, and hiding it would hide what the model did.
 */
const SECRET_NAME = /api[-_]?key|secret|passw(?:or)?d|authori[sz]ation|(?:^|[-_])auth(?:[-_]|$)|token|cookie|credential|session[-_]?id|private[-_]?key|subscription[-_]?key/i;
/** In a URL's query, `key` (Google's), `sig` and `signature` are credentials too. */
const SECRET_QUERY = /^(?:key|sig|signature|code)$/i;
const URL_IN_TEXT = /\bhttps?:\/\/[^\s"'<>`]+/gi;
const BEARER = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/g;
const ANTHROPIC_KEY = /\bsk-ant-[A-Za-z0-9_-]{8,}/g;
/** Shorter stored values are not searched for in text: "abc" would redact every word that holds it. */
const MIN_SECRET_CHARS = 6;

export const isSecretName = (name: string) => SECRET_NAME.test(name);

/** The secrets the user stored in Settings (the model key, search and social-media keys and tokens). */
export function settingsSecrets(settings: Settings): string[] {
  const secretsOf = (o: object) =>
    Object.entries(o).flatMap(([name, value]) => (isSecretName(name) && typeof value === 'string' && value.trim() ? [value.trim()] : []));
  // The other providers' saved keys too: a summary model or an agent profile may use them.
  return [...secretsOf(settings), ...Object.values(settings.providerConfigs ?? {}).flatMap((c) => (c ? secretsOf(c) : []))];
}

export type Redactor = <T>(value: T) => T;

/** A redactor that also removes every occurrence of `secrets` (longest first, so one never leaves part of another). */
export function makeRedactor(secrets: readonly string[] = []): Redactor {
  const known = usableSecrets(secrets);
  const text = (s: string): string => {
    let out = s;
    for (const secret of known) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    if (out.includes('://')) out = out.replace(URL_IN_TEXT, (url) => {
      // Punctuation that ends the sentence is not part of the address.
      const end = /[.,;:!?)\]}]+$/.exec(url)?.[0] ?? '';
      return redactUrl(url.slice(0, url.length - end.length)) + end;
    });
    return out.replace(BEARER, `$1 ${REDACTED}`).replace(ANTHROPIC_KEY, REDACTED);
  };
  const walk = (value: unknown, secret: boolean): unknown => {
    if (typeof value === 'string') return secret ? REDACTED : text(value);
    if (Array.isArray(value)) return value.map((v) => walk(v, secret));
    if (value && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      // A secret name hides the strings right under it, not a whole subtree: a tool's schema may
      // describe an `api_key` parameter ({ type: "string" }), and that description is no secret.
      for (const [k, v] of Object.entries(value)) out[k] = walk(v, isSecretName(k));
      return out;
    }
    return value;
  };
  return <T>(value: T) => walk(value, false) as T;
}

/** A URL with its secret-looking query values and any password replaced (unparseable text is left alone). */
export function redactUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return raw;
  }
  let changed = false;
  if (url.password) {
    url.password = REDACTED;
    changed = true;
  }
  for (const name of [...new Set(url.searchParams.keys())]) {
    if (isSecretName(name) || SECRET_QUERY.test(name)) {
      url.searchParams.set(name, REDACTED);
      changed = true;
    }
  }
  // Only a URL that held a secret is rewritten: URL's serialisation would otherwise change the text.
  return changed ? url.toString().replaceAll(encodeURIComponent(REDACTED), REDACTED) : raw;
}

/** Response headers as a plain record (a Headers object or a record), ready to redact. */
export function headerRecord(headers: unknown): Record<string, string> | undefined {
  if (!headers || typeof headers !== 'object') return undefined;
  const entries =
    typeof (headers as Headers).forEach === 'function' && typeof (headers as Headers).get === 'function'
      ? (() => {
          const list: [string, string][] = [];
          (headers as Headers).forEach((v, k) => list.push([k, v]));
          return list;
        })()
      : Object.entries(headers as Record<string, unknown>).map(([k, v]) => [k, String(v)] as [string, string]);
  return Object.fromEntries(entries);
}

const DELTA_FIELDS: Record<string, string> = { text_delta: 'text', input_json_delta: 'partial_json', thinking_delta: 'thinking' };

/**
 * Stream events with `secrets` taken out of the text their content deltas add up to: a key the
 * model echoes arrives in pieces ("…test-ke" + "y-123…"), which no single event shows whole. The
 * placeholder goes where the secret starts; the pieces' concatenation is the redacted text.
 */
export function redactDeltas<T>(events: readonly T[], secrets: readonly string[]): T[] {
  const known = usableSecrets(secrets);
  const out = events.slice();
  if (!known.length) return out;
  const groups = new Map<string, { at: number; field: string }[]>();
  events.forEach((raw, at) => {
    const ev = raw as { type?: string; index?: number; delta?: Record<string, unknown> } | null;
    const field = ev?.type === 'content_block_delta' ? DELTA_FIELDS[String(ev.delta?.type)] : undefined;
    if (!field || typeof ev!.delta![field] !== 'string') return;
    const key = `${ev!.index}:${field}`;
    groups.set(key, [...(groups.get(key) ?? []), { at, field }]);
  });
  for (const parts of groups.values()) {
    const pieces = parts.map(({ at, field }) => ((events[at] as { delta: Record<string, string> }).delta[field] ?? ''));
    const joined = pieces.join('');
    const ranges = secretRanges(joined, known);
    if (!ranges.length) continue;
    let offset = 0;
    parts.forEach(({ at, field }, k) => {
      const start = offset;
      const end = (offset += pieces[k]!.length);
      let text = '';
      for (let c = start; c < end; ) {
        const inside = ranges.find(([a, b]) => c >= a && c < b);
        if (inside) {
          if (c === inside[0]) text += REDACTED;
          c = Math.min(inside[1], end);
        } else {
          const next = Math.min(end, ...ranges.filter(([a]) => a > c).map(([a]) => a));
          text += joined.slice(c, next);
          c = next;
        }
      }
      const ev = events[at] as { delta: Record<string, unknown> };
      out[at] = { ...ev, delta: { ...ev.delta, [field]: text } } as T;
    });
  }
  return out;
}

function usableSecrets(secrets: readonly string[]): string[] {
  return [...new Set(secrets.filter((s) => s.length >= MIN_SECRET_CHARS))].sort((a, b) => b.length - a.length);
}

/** Where the secrets occur in `text`, as merged [start, end) ranges. */
function secretRanges(text: string, secrets: readonly string[]): [number, number][] {
  const found: [number, number][] = [];
  for (const s of secrets) for (let i = text.indexOf(s); i >= 0; i = text.indexOf(s, i + s.length)) found.push([i, i + s.length]);
  found.sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const r of found) {
    const last = merged.at(-1);
    if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
    else merged.push([...r]);
  }
  return merged;
}
