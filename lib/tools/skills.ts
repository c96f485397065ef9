/** The skills family: propose_skill, the model's way to ask the user for a new function skill. */
import * as v from 'valibot';
import { FUNCTION_CODE_MAX, FUNCTION_LANGUAGES } from '../skills/config';
import { builtinFacts } from './catalog';
import { defineTool, ToolError } from './registry';

export const proposeSkill = defineTool({
  ...builtinFacts('propose_skill'),
  description:
    'Propose a reusable tool the user asked for: code defining run(args) that returns a string, run isolated. ' +
    'Returns {status: "waiting_for_review"}: the user must approve it. One-off work: execute_script "sandbox"',
  input: v.strictObject({
    name: v.pipe(v.string('must be a string'), v.trim(), v.nonEmpty('must not be empty'), v.description('Letters, digits, _ or -')),
    description: v.pipe(v.string('must be a string'), v.trim(), v.nonEmpty('must not be empty'), v.maxLength(4000, 'must be at most 4000 characters'), v.description('For the model that will call it')),
    language: v.picklist(FUNCTION_LANGUAGES, 'must be "javascript" or "python"'),
    code: v.pipe(v.string('must be a string'), v.nonEmpty('must not be empty'), v.maxLength(FUNCTION_CODE_MAX, `must be at most ${FUNCTION_CODE_MAX} characters`)),
    input_schema: v.optional(v.pipe(v.record(v.string(), v.unknown(), 'must be a JSON Schema object'), v.description('JSON Schema of args'))),
  }),
  maxInputChars: 120_000,
  async run(input, ctx) {
    const r = await ctx.env.skillProposals.propose(input);
    if (!r.ok) {
      const problems = Object.entries(r.errors).flatMap(([field, list]) => list.map((m) => `${field}: ${m}`));
      throw new ToolError(`The skill was not proposed: ${problems.join(' ')}`);
    }
    ctx.env.notify({ kind: 'skill_review', name: r.name });
    return {
      status: 'waiting_for_review',
      name: r.name,
      change: r.change,
      note: `The user must review and approve "${r.name}" on the management page (Skills) before it can be called; it is not a tool in this conversation until then. Tell the user.`,
    };
  },
});

export const skillTools = [proposeSkill];
