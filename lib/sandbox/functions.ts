/**
 * Function skills on the host side: a call is checked once here, then handed as a realm request
 * (code + arguments as JSON text) to the realm host of its language.
 */
import { failure, normalizeFunctionCall, type RealmRunRequest } from './report';
import type { FunctionCall, FunctionLanguage, SandboxOutcome } from './types';

/** Runs an already checked request in one realm (a QuickJS or Pyodide Worker pool). */
export interface RealmHost {
  runRequest(request: RealmRunRequest, signal?: AbortSignal): Promise<SandboxOutcome>;
}

/** The contract's limit for a function skill: "must finish within 5 seconds". */
export const FUNCTION_TIMEOUT_MS = 5_000;

export function functionRunner(realms: Record<FunctionLanguage, RealmHost>): (call: FunctionCall) => Promise<SandboxOutcome> {
  return async (call) => {
    const checked = normalizeFunctionCall(call);
    if (!checked.ok) return failure('host', checked.message, [], 0);
    if (call.signal?.aborted) return failure('aborted', 'The run was stopped before the code started.', [], 0);
    return realms[checked.language].runRequest(checked.request, call.signal);
  };
}
