import { ModelFacingError } from '../errors';

export type ExtractErrorCode = 'invalid_selector' | 'no_match' | 'empty';

/** A failure the model can act on: the code says what to change in the next call. */
export class ExtractError extends ModelFacingError<ExtractErrorCode> {
  override name = 'ExtractError';
}
