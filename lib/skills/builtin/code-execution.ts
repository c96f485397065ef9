/**
 * code_execution: JavaScript in the sandbox host (no DOM, no network, no storage, no extension
 * APIs), the same place execute_script's "sandbox" target runs, with a timeout that kills it.
 */
import * as v from 'valibot';
import type { SandboxOutcome } from '../../sandbox/types';
import { defineTool, ToolError, type ToolDefinition } from '../../tools/registry';
import { SCRIPT_OUTPUT_MAX_CHARS } from '../../tools/scripts';
import { skillFacts } from '../facts';
import type { SkillRecord } from '../types';
import { skillDescription } from './common';

const CODE_MAX_CHARS = 200_000;
export const CODE_TIMEOUT_MIN_MS = 100;
/** The ceiling unless the user allows execute_script longer (Settings → script timeout). */
export const CODE_TIMEOUT_MAX_MS = 60_000;

const input = v.strictObject({
  code: v.pipe(
    v.string('must be a string of JavaScript'),
    v.nonEmpty('must not be empty'),
    v.maxLength(CODE_MAX_CHARS, `must be at most ${CODE_MAX_CHARS} characters`),
    v.description('JavaScript, the body of an async function: `return` the result; console.log output is returned in logs'),
  ),
  timeout_ms: v.optional(
    v.pipe(
      v.number('must be a number of milliseconds'),
      v.integer('must be a whole number'),
      v.minValue(CODE_TIMEOUT_MIN_MS, `must be at least ${CODE_TIMEOUT_MIN_MS}`),
      // The settings allow scripts up to 300 s; the effective ceiling is checked in run().
      v.maxValue(300_000, 'must be at most 300000'),
      v.description(`Time limit in ms (default: the user's script timeout; at most ${CODE_TIMEOUT_MAX_MS}, or that setting when higher)`),
    ),
  ),
});

export function codeExecutionTool(skill: SkillRecord): ToolDefinition<typeof input> {
  return defineTool({
    name: skill.name,
    ...skillFacts(skill, 'code_execution'),
    description: skillDescription(
      skill,
      'Run JavaScript in an isolated sandbox.',
      'code is the body of an async function (use `return` for the result, `await` freely); it runs with no DOM, network, storage or extension APIs, ' +
        `and is stopped at its time limit. Returns {result (JSON), logs, truncated}; the result is cut at ${SCRIPT_OUTPUT_MAX_CHARS} characters of JSON.`,
    ),
    maxInputChars: CODE_MAX_CHARS + 1000,
    input,
    async run({ code, timeout_ms }, ctx) {
      const setting = ctx.env.settings.scriptTimeoutSec * 1000;
      const ceiling = Math.max(CODE_TIMEOUT_MAX_MS, setting);
      if (timeout_ms !== undefined && timeout_ms > ceiling) {
        throw new ToolError(`timeout_ms may be at most ${ceiling} (${ceiling / 1000} s); got ${timeout_ms}.`);
      }
      const timeoutMs = timeout_ms ?? Math.min(setting, ceiling);
      const out = await ctx.env.sandbox.run(code, { timeoutMs, signal: ctx.signal, maxOutputChars: SCRIPT_OUTPUT_MAX_CHARS });
      return sandboxResult(out, timeoutMs);
    },
  });
}

/**
 * A sandbox outcome as a tool result: {result, logs, truncated}, or a ToolError saying what went
 * wrong, with the logs written before it. Worded as execute_script's sandbox target words it.
 */
export function sandboxResult(out: SandboxOutcome, timeoutMs: number): { result: unknown; logs: string[]; truncated: boolean } {
  if (out.ok) return { result: out.result, logs: out.logs, truncated: out.truncated };
  const { kind, message, stack } = out.error;
  const what =
    kind === 'timeout'
      ? `The code did not finish within ${timeoutMs / 1000} s and was stopped.`
      : kind === 'syntax'
        ? message.startsWith('SyntaxError') ? message : `SyntaxError: ${message}`
        : kind === 'output_too_large'
          ? `The result is too large to return: ${message} Return a smaller value (a summary, or a slice).`
          : kind === 'host'
            ? `The sandbox could not run the code: ${message}`
            : `${message}${stack ? `\n${stack}` : ''}`;
  throw new ToolError(`${what}${out.logs.length ? `\nlogs:\n${out.logs.join('\n')}` : ''}`);
}
