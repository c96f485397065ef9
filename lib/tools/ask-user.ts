/** The user-interaction family: ask_user. */
import * as v from 'valibot';
import { builtinFacts } from './catalog';
import { defineTool } from './registry';

const option = v.pipe(v.string('each option must be a string'), v.trim(), v.nonEmpty('options must not be empty strings'), v.maxLength(200, 'each option must be at most 200 characters'));

export const askUser = defineTool({
  ...builtinFacts('ask_user'),
  description:
    'Ask the user and wait, only for choices or facts that are theirs. Returns {answer} (several options: joined by ", ") ' +
    'or {answer: null, reason: "timeout" or "declined"}',
  input: v.pipe(
    v.strictObject({
      question: v.pipe(v.string('must be a string'), v.trim(), v.nonEmpty('must not be empty'), v.maxLength(2000, 'must be at most 2000 characters')),
      options: v.optional(
        v.pipe(
          v.array(option, 'must be a list of strings'),
          v.minLength(2, 'must list at least 2 choices (for a yes/no question give ["Yes", "No"])'),
          v.maxLength(20, 'must list at most 20 choices'),
          v.check((list) => new Set(list).size === list.length, 'must not repeat a choice'),
        ),
      ),
      multiple: v.optional(v.pipe(v.boolean('must be true or false'), v.description('Default false')), false),
    }),
    v.forward(
      v.check((i) => !i.multiple || !!i.options, 'multiple: true needs options to choose from'),
      ['multiple'],
    ),
  ),
  async run(input, ctx) {
    return ctx.env.ask({ question: input.question, ...(input.options ? { options: input.options } : {}), multiple: input.multiple }, ctx.signal);
  },
});

export const userTools = [askUser];
