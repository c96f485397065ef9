/** The skills family: propose_skill, the model's way to ask the user for a new function skill. */
import * as v from 'valibot';
import { FUNCTION_CODE_MAX, FUNCTION_LANGUAGES } from '../skills/config';
import { builtinFacts } from './catalog';
import { defineTool, ToolError } from './registry';

export const proposeSkill = defineTool({
  ...builtinFacts('propose_skill'),
  description:
    'Propose a function skill: code defining run(args) that returns a string (JavaScript: function run(args) {...}; Python: def run(args): ...), ' +
    'which runs isolated (no network, no storage, no page) with a 5 s limit. The user reviews the code on the management page and only ' +
    'after approving it does it become a tool (from the next message on). Proposing an existing function skill\'s name proposes a change, ' +
    'which also waits for review. Use it for a reusable computation the user asked for, not for one-off work (use execute_script with target "sandbox" for that).',
  input: v.strictObject({
    name: v.pipe(v.string('must be a string'), v.trim(), v.nonEmpty('must not be empty'), v.description('Tool name: letters, digits, "_" or "-", at most 64')),
    description: v.pipe(v.string('must be a string'), v.trim(), v.nonEmpty('must not be empty'), v.maxLength(4000, 'must be at most 4000 characters'), v.description('What the tool does, for the model that will call it')),
    language: v.pipe(v.picklist(FUNCTION_LANGUAGES, 'must be "javascript" or "python"'), v.description('"javascript" or "python"')),
    code: v.pipe(v.string('must be a string'), v.nonEmpty('must not be empty'), v.maxLength(FUNCTION_CODE_MAX, `must be at most ${FUNCTION_CODE_MAX} characters`), v.description('The code; it must define run(args) returning a string')),
    input_schema: v.optional(v.pipe(v.record(v.string(), v.unknown(), 'must be a JSON Schema object'), v.description('JSON Schema of run\'s args (type "object")'))),
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
