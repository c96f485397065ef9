/** web_search as a skill: the built-in search, with the engine the user chose in the settings. */
import * as v from 'valibot';
import { defineTool, type ToolDefinition } from '../../tools/registry';
import { runSearch } from '../../search-engines/run';
import { skillFacts } from '../facts';
import type { SkillRecord } from '../types';
import { skillDescription } from './common';

const input = v.strictObject({
  query: v.pipe(v.string('must be a string of search words'), v.trim(), v.nonEmpty('must not be empty'), v.maxLength(2000, 'must be at most 2000 characters'), v.description('Search keywords')),
  num_results: v.optional(
    v.pipe(v.number('must be a number'), v.integer('must be a whole number'), v.minValue(1, 'must be at least 1'), v.description('How many results (default 5; above 10 gives 10)')),
  ),
});

export function webSearchTool(skill: SkillRecord): ToolDefinition<typeof input> {
  return defineTool({
    name: skill.name,
    ...skillFacts(skill, 'web_search'),
    description: skillDescription(skill, 'Search the web with the search engine chosen in the settings.', 'Returns [{title, url, snippet}], at most num_results (default 5, at most 10).'),
    input,
    async run({ query, num_results }, ctx) {
      return runSearch(ctx.env.settings, query, num_results, ctx.env.fetch, ctx.signal);
    },
  });
}
