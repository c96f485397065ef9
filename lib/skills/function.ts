/**
 * function skills (the contract's "function"): code stored in the record that defines
 * `run(args)` and returns a string, in JavaScript or Python. It runs in the sandbox host
 * (lib/sandbox: no network, no storage, no extension APIs, no page DOM) with the contract's
 * 5-second limit, which there really stops it. Only approved code gets here (tools.ts skips a
 * record whose code waits for review).
 */
import { FUNCTION_TIMEOUT_MS } from '../sandbox/functions';
import type { SandboxOutcome } from '../sandbox/types';
import { ToolError, type ToolDefinition } from '../tools/registry';
import type { FunctionConfig } from './config';
import { skillFacts } from './facts';
import { skillInput } from './json-schema';
import type { SkillToolFactory } from './services';
import type { SkillRecord } from './types';

/** The returned string, cut beyond this (the model's context is the limit that matters). */
export const FUNCTION_MAX_RESULT_CHARS = 100_000;
const LANGUAGE_NAMES = { javascript: 'JavaScript', python: 'Python' } as const;

export const functionSkillTools: SkillToolFactory<FunctionConfig> = (skill, config) => [functionSkillTool(skill, config)];

function functionSkillTool(skill: SkillRecord, config: FunctionConfig): ToolDefinition<any> {
  return {
    name: skill.name,
    ...skillFacts(skill, 'function'),
    description: skill.description,
    ...skillInput(config.input_schema ?? { type: 'object' }),
    async run(args: Record<string, unknown>, ctx) {
      const sandbox = ctx.env.sandbox;
      if (!sandbox.runFunction) throw new ToolError('Function skills cannot run here: this sandbox has no function runner.');
      const outcome = await sandbox.runFunction({
        language: config.language,
        code: config.code,
        args: args ?? {},
        timeoutMs: FUNCTION_TIMEOUT_MS,
        maxOutputChars: FUNCTION_MAX_RESULT_CHARS,
        signal: ctx.signal,
      });
      return functionSkillResult(outcome, skill.name, config.language);
    },
  };
}

/**
 * The outcome as the model gets it: the returned string itself, or {result, logs, truncated}
 * when the code printed something or the string was cut. A failure is a ToolError that says
 * what went wrong in the code's own terms (line numbers of the code, the last frames of a
 * traceback) and that the code is the user's to fix.
 */
export function functionSkillResult(
  out: SandboxOutcome,
  skillName: string,
  language: FunctionConfig['language'],
): string | { result: string; logs: string[]; truncated: boolean } {
  if (out.ok) {
    const result = typeof out.result === 'string' ? out.result : JSON.stringify(out.result);
    return out.logs.length || out.truncated ? { result, logs: out.logs, truncated: out.truncated } : result;
  }
  const { kind, message, stack } = out.error;
  const lang = LANGUAGE_NAMES[language];
  const detail = stack && stack.includes(message.split('\n')[0]!.replace(/ \(line \d+.*\)$/, '')) ? stack : [message, stack].filter(Boolean).join('\n');
  const what =
    kind === 'timeout'
      ? `The function skill "${skillName}" did not finish within ${FUNCTION_TIMEOUT_MS / 1000} s (the limit for function skills) and was stopped.`
      : kind === 'syntax'
        ? `The ${lang} code of the function skill "${skillName}" does not compile: ${message}${stack && stack !== message ? `\n${stack}` : ''}`
        : kind === 'aborted'
          ? `The function skill "${skillName}" was stopped.`
          : kind === 'host' || kind === 'output_too_large'
            ? `The function skill "${skillName}" could not run: ${message}`
            : `The function skill "${skillName}" failed: ${detail}`;
  const fix = kind === 'syntax' || kind === 'runtime' || kind === 'timeout' ? '\nIts code is the user\'s: tell them; changes to it are reviewed on the management page (Skills).' : '';
  throw new ToolError(`${what}${out.logs.length ? `\noutput:\n${out.logs.join('\n')}` : ''}${fix}`);
}
