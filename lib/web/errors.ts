export type WebFetchErrorCode = 'invalid_url' | 'scheme' | 'credentials' | 'private_address' | 'blocked_port';

/** A URL web_fetch refuses. The message is meant for the model: it says why and what to do. */
export class WebFetchError extends Error {
  readonly code: WebFetchErrorCode;

  constructor(code: WebFetchErrorCode, message: string) {
    super(message);
    this.name = 'WebFetchError';
    this.code = code;
  }
}
