/** JSON API responses: BOM-tolerant parsing and error bodies turned into actionable SearchErrors. */
import { SearchError, type SearchErrorCode } from './errors';
import { excerpt, stripBom } from './text';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** The parsed object, or null when the body is not a JSON object. Saved API responses start with a BOM. */
export function parseJsonObject(body: string): JsonObject | null {
  try {
    const value = JSON.parse(stripBom(body).trim()) as Json;
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : null;
  } catch {
    return null;
  }
}

export function asObject(value: Json | undefined): JsonObject | null {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : null;
}

export function asArray(value: Json | undefined): Json[] {
  return Array.isArray(value) ? value : [];
}

export function asString(value: Json | undefined): string {
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '';
}

/** What an API error body says: its own code (e.g. "InvalidAuthorization", 401, "RESOURCE_EXHAUSTED") and message. */
export interface ApiErrorDetail {
  code: string;
  message: string;
}

/**
 * Reads the error shapes of the two APIs:
 *   Bing (API Management):  {"error": {"code": "401", "message": "Access denied due to invalid subscription key…"}}
 *   Bing v7:                {"_type": "ErrorResponse", "errors": [{"code": "InvalidRequest", "subCode": …, "message": …}]}
 *   Google:                 {"error": {"code": 400, "message": "API key not valid…", "status": "INVALID_ARGUMENT",
 *                            "errors": [{"reason": "badRequest"}], "details": [{"reason": "API_KEY_INVALID"}]}}
 */
export function readApiError(json: JsonObject | null): ApiErrorDetail | null {
  if (!json) return null;
  const error = asObject(json.error);
  if (error) {
    const reasons = [
      ...asArray(error.errors).map((e) => asString(asObject(e)?.reason)),
      ...asArray(error.details).map((d) => asString(asObject(d)?.reason)),
    ].filter(Boolean);
    const code = [asString(error.status), asString(error.code), ...reasons].filter(Boolean).join(' ');
    return { code, message: asString(error.message) };
  }
  const list = asArray(json.errors);
  if (list.length > 0 || json._type === 'ErrorResponse') {
    const first = asObject(list[0]);
    const code = [asString(first?.code), asString(first?.subCode)].filter(Boolean).join(' ');
    const parameter = asString(first?.parameter);
    const message = asString(first?.message) + (parameter ? ` (parameter: ${parameter})` : '');
    return { code, message };
  }
  return null;
}

const RATE_LIMITED = /quota|rate ?limit|too many requests|RESOURCE_EXHAUSTED|RateLimitExceeded|dailyLimitExceeded|userRateLimitExceeded/i;
const AUTH = /API_KEY_INVALID|key ?not ?valid|keyInvalid|invalid (?:subscription )?key|subscription key|access denied|InvalidAuthorization|InsufficientAuthorization|PERMISSION_DENIED|UNAUTHENTICATED|forbidden/i;

/**
 * One error for a failed API call. `settings` names what the user fills in ("the Bing API key"),
 * so an auth failure says what to fix.
 */
export function apiError(engine: string, label: string, status: number, detail: ApiErrorDetail | null, body: string, settings: string): SearchError {
  const said = detail && (detail.message || detail.code)
    ? `${detail.code ? `${detail.code}: ` : ''}${detail.message}`.trim()
    : excerpt(body);
  const statusText = status >= 200 && status < 300 ? '' : `HTTP ${status}, `;
  const what = `(${statusText}"${said}")`;
  const text = `${detail?.code ?? ''} ${detail?.message ?? ''}`;
  let code: SearchErrorCode;
  let message: string;
  if (status === 429 || RATE_LIMITED.test(text)) {
    code = 'rate_limited';
    message = `${label} refused the search: its request rate or quota is used up ${what}. Wait before searching again, or ask the user to choose another search engine in the settings.`;
  } else if (status === 401 || status === 403 || AUTH.test(text)) {
    code = 'auth';
    message = `${label} rejected the credentials ${what}. Ask the user to check ${settings} in the extension's settings, or to choose another search engine.`;
  } else if (status >= 500) {
    code = 'http';
    message = `${label} had a server error ${what}. Try again in a moment, or use another search engine.`;
  } else {
    code = 'http';
    message = `${label} refused the request ${what}. Check the query; if it persists, ask the user to check ${settings} in the settings.`;
  }
  return new SearchError(engine, code, message, status >= 200 && status < 300 ? undefined : status);
}
