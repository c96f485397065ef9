export type ExtractErrorCode = 'invalid_selector' | 'no_match' | 'empty';

/** A failure the model can act on: the code says what to change in the next call. */
export class ExtractError extends Error {
  readonly code: ExtractErrorCode;

  constructor(code: ExtractErrorCode, message: string) {
    super(message);
    this.name = 'ExtractError';
    this.code = code;
  }
}
