/**
 * The one error idiom, at the bottom of the import graph (it imports nothing).
 *
 * Every domain error the model may read (a refused URL, a missing file, a bad selector, a
 * failed search…) extends ModelFacingError: a code the program can branch on and a message
 * written for the model — what went wrong and what to do next. The tool registry turns any of
 * them into an error tool_result in one place; anything else is reported as a failure of the tool.
 */
export class ModelFacingError<Code extends string = string> extends Error {
  override name = 'ModelFacingError';

  constructor(
    readonly code: Code,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export const isModelFacing = (e: unknown): e is ModelFacingError => e instanceof ModelFacingError;

/** The message of anything thrown (an Error, a string, a rejected value of any kind). */
export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
