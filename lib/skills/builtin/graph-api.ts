/**
 * Meta's Graph API, as instagram_post and whatsapp_send call it: one POST, and its error
 * object ({error: {message, type, code, error_subcode, fbtrace_id}}) told to the model with
 * what the user or the model can do about it.
 */
import { ModelFacingError } from '../../errors';
import { DEFAULT_GRAPH_API_BASE } from '../../settings';
import { ToolError } from '../../tools/registry';
import { excerpt, isRecord, originOf, postForJson } from './common';

export const GRAPH_TIMEOUT_MS = 30_000;

/** Where the user fixes a credential problem. */
export const SOCIAL_SETTINGS = "Pagewright's options page → Settings → Social media";

/** A Graph API error answer, kept structured so a caller can react to its code. */
export class GraphApiError extends ModelFacingError<'graph_api'> {
  override name = 'GraphApiError';

  constructor(
    message: string,
    /** The Graph API's own error code and subcode. */
    readonly graphCode?: number,
    readonly subcode?: number,
  ) {
    super('graph_api', message);
  }
}

/** `{base}/{id}/{edge}`, base being the user's override or the official Graph API. */
export function graphUrl(base: string, id: string, edge: string): string {
  const root = (base.trim() || DEFAULT_GRAPH_API_BASE).replace(/\/+$/, '');
  return `${root}/${encodeURIComponent(id)}/${edge}`;
}

export interface GraphPost {
  /** "Instagram", "WhatsApp": how the model reads who answered. */
  service: string;
  url: string;
  body: URLSearchParams | string;
  headers?: Record<string, string>;
  signal: AbortSignal;
}

/** POSTs to the Graph API and returns the JSON object it answered, or throws a ToolError. */
export async function graphPost(fetchFn: typeof fetch, req: GraphPost): Promise<Record<string, unknown>> {
  const answer = await postForJson(
    fetchFn,
    req.url,
    { body: req.body, headers: { Accept: 'application/json', ...req.headers } },
    { who: `the ${req.service} Graph API (${originOf(req.url)})`, timeoutMs: GRAPH_TIMEOUT_MS, signal: req.signal, maxBytes: 1024 * 1024 },
  );
  if (isRecord(answer.json) && isRecord(answer.json.error)) throw graphError(req.service, answer.json.error, answer.status);
  if (!answer.ok) throw new ToolError(`The ${req.service} Graph API answered HTTP ${answer.status}: ${excerpt(answer.text)}.${statusHint(answer.status)}`);
  if (!isRecord(answer.json)) {
    throw new ToolError(`The ${req.service} Graph API answered with something that is not a JSON object: ${excerpt(answer.text)}. Check the API base URL in ${SOCIAL_SETTINGS}.`);
  }
  return answer.json;
}

/** A Graph error object in words: its message and codes, and a hint for the common ones. */
export function graphError(service: string, error: Record<string, unknown>, status: number): GraphApiError {
  const str = (k: string) => (typeof error[k] === 'string' && error[k] ? (error[k] as string) : undefined);
  const num = (k: string) => (typeof error[k] === 'number' ? (error[k] as number) : typeof error[k] === 'string' && /^\d+$/.test(error[k] as string) ? Number(error[k]) : undefined);
  const code = num('code');
  const subcode = num('error_subcode');
  const details = [
    str('type') && `type ${str('type')}`,
    code !== undefined && `code ${code}`,
    subcode !== undefined && `subcode ${subcode}`,
    str('fbtrace_id') && `fbtrace_id ${str('fbtrace_id')}`,
  ].filter(Boolean);
  const userMessage = [str('error_user_title'), str('error_user_msg')].filter(Boolean).join(': ');
  const dataDetails = isRecord(error.error_data) && typeof error.error_data.details === 'string' ? error.error_data.details : undefined;
  const message =
    `The ${service} Graph API refused the request (HTTP ${status}): ${str('message') ?? 'no message'}` +
    (details.length ? ` (${details.join(', ')})` : '') +
    '.' +
    (userMessage ? ` ${userMessage}.` : '') +
    (dataDetails ? ` Details: ${dataDetails}.` : '') +
    codeHint(code, subcode);
  return new GraphApiError(message, code, subcode);
}

function codeHint(code: number | undefined, subcode: number | undefined): string {
  if (code === 190 || code === 102 || subcode === 463 || subcode === 467) {
    return ` The access token is invalid or has expired: the user needs to put a new one in ${SOCIAL_SETTINGS}.`;
  }
  if (code === 10 || (code !== undefined && code >= 200 && code < 300)) {
    return ` The access token lacks a permission this call needs (instagram_content_publish, or whatsapp_business_messaging): the user needs a token with it, set in ${SOCIAL_SETTINGS}.`;
  }
  if (code === 4 || code === 17 || code === 32 || code === 613 || code === 80007 || code === 130429 || code === 131056) {
    return ' The account is rate-limited: wait before trying again.';
  }
  if (code === 131047) {
    return ' More than 24 hours have passed since the recipient last wrote: WhatsApp only allows free-form text inside that window (outside it, a template message is needed).';
  }
  if (code === 131030) return ' The recipient is not on the test number\'s allowed list: add it in the WhatsApp Business settings, or use a production number.';
  if (code === 131026) return ' The message could not be delivered: the number may not be on WhatsApp.';
  if (code === 133010) return ' The sending phone number is not registered with the WhatsApp Cloud API.';
  if (code === 9004 || subcode === 2207052) return ' Instagram could not fetch the image: image_url must be a public URL of a JPEG image.';
  if (code === 803 || (code === 100 && subcode === 33)) return ` The user or phone number id is wrong: check it in ${SOCIAL_SETTINGS}.`;
  return '';
}

function statusHint(status: number): string {
  if (status === 401 || status === 403) return ` The credentials were refused: check them in ${SOCIAL_SETTINGS}.`;
  if (status === 404) return ` Nothing answers at that address: check the API base URL and the id in ${SOCIAL_SETTINGS}.`;
  if (status === 429) return ' The account is rate-limited: wait before trying again.';
  if (status >= 500) return ' The service failed: try again later.';
  return '';
}
