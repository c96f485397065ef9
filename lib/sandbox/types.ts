/** Where untrusted JavaScript runs: no page DOM, no extension APIs, no storage, no network. */

export interface SandboxRunOptions {
  /** Wall-clock limit for the code (loading the engine aside); runaway code is killed. */
  timeoutMs: number;
  /** Aborting stops the code at once (outcome kind 'aborted'). */
  signal?: AbortSignal;
  /** Budget for the returned value as JSON text (default 100_000); beyond it `truncated: true`. */
  maxOutputChars?: number;
}

export type SandboxErrorKind = 'syntax' | 'runtime' | 'timeout' | 'aborted' | 'output_too_large' | 'host';

export type SandboxOutcome =
  | { ok: true; result: unknown /* JSON-safe value */; logs: string[]; truncated: boolean; durationMs: number }
  | {
      ok: false;
      error: { kind: SandboxErrorKind; message: string; stack?: string };
      logs: string[];
      durationMs: number;
    };

export type FunctionLanguage = 'javascript' | 'python';

/** One call of a function skill: `code` defines `run(args)`, which must return a string. */
export interface FunctionCall extends SandboxRunOptions {
  language: FunctionLanguage;
  code: string;
  /** JSON data: it reaches run() as a parsed value, never as code text. */
  args: Record<string, unknown>;
}

export interface SandboxHost {
  /** `code` is the body of an async function: `return` gives the result, `await` works. */
  run(code: string, options: SandboxRunOptions): Promise<SandboxOutcome>;
  /**
   * Calls `run(args)` as defined by a function skill's code, in the same isolation as run():
   * the result is the string it returned; console.log / print output comes back in `logs`.
   * Optional only so that test doubles of run() alone stay valid; every browser host has it.
   */
  runFunction?(call: FunctionCall): Promise<SandboxOutcome>;
}
