/**
 * Active skills → the tools a run adds to the built-in ones. A skill whose config no longer checks
 * out, or whose MCP server cannot list its tools, is left out with the reason instead of failing
 * the run: the other tools still work.
 */
import type { ToolDefinition } from '../tools/registry';
import { builtinSkillTools } from './builtin';
import { parseSkillConfig, RUNNABLE_TYPES } from './config';
import { functionSkillTools } from './function';
import { databaseSkillTools } from './database';
import { httpSkillTools } from './http';
import { mcpSkillTools } from './mcp-call';
import type { SkillServices, SkillToolFactory } from './services';
import { needsReview, type SkillRecord } from './types';
import { errorMessage } from '../errors';

export interface SkillProblem {
  skill: string;
  message: string;
}

export interface SkillTools {
  tools: ToolDefinition<any>[];
  problems: SkillProblem[];
}

/**
 * What the policy needs of a remote skill's tools besides their facts: the server the arguments
 * go to (a target, so the approval card names it and the exfiltration guard can check it). The server is the one the user configured, but what the model puts in the
 * arguments is the model's choice — after reading a page, the page's.
 */
function withDestination(def: ToolDefinition<any>, type: string, config: unknown): ToolDefinition<any> {
  if (type !== 'http' && type !== 'mcp') return def;
  const { url, method } = config as { url: string; method?: string };
  return {
    ...def,
    targets: def.targets ?? ((input: unknown) => [{ access: 'send', url: method === 'GET' ? withQuery(url, input) : url, preview: JSON.stringify(input ?? {}, null, 2) }]),
  };
}

/** An http GET skill's URL as the request will carry it: the arguments in the query. */
function withQuery(url: string, input: unknown): string {
  try {
    const u = new URL(url);
    for (const [k, v] of Object.entries((input ?? {}) as Record<string, unknown>)) u.searchParams.set(k, typeof v === 'string' ? v : JSON.stringify(v));
    return u.href;
  } catch {
    return url;
  }
}

const FACTORIES: Record<string, SkillToolFactory<any>> = {
  builtin: builtinSkillTools,
  mcp: mcpSkillTools,
  http: httpSkillTools,
  function: functionSkillTools,
  database: databaseSkillTools,
};

/** The tools of the active skills in `records`; `taken` holds the built-in tools' names. */
export async function buildSkillTools(records: readonly SkillRecord[], services: SkillServices, taken: ReadonlySet<string>): Promise<SkillTools> {
  const names = new Set(taken);
  const problems: SkillProblem[] = [];
  const active = records.filter((r) => r.is_active);
  const built = await Promise.all(
    active.map(async (skill): Promise<ToolDefinition<any>[]> => {
      const factory = FACTORIES[skill.skill_type];
      if (!factory || !RUNNABLE_TYPES.includes(skill.skill_type)) {
        problems.push({ skill: skill.name, message: `"${skill.skill_type}" skills cannot run in this version.` });
        return [];
      }
      // is_active is off while code waits for review; checked again here, where tools are made.
      if (needsReview(skill)) {
        problems.push({ skill: skill.name, message: 'its code waits for review on the management page (Skills).' });
        return [];
      }
      const config = parseSkillConfig(skill.skill_type, skill.config_json);
      if (!config.ok) {
        problems.push({ skill: skill.name, message: config.errors.join(' ') });
        return [];
      }
      try {
        const leftOut = (message: string) => problems.push({ skill: skill.name, message });
        return (await factory(skill, config.config, services, leftOut)).map((def) => withDestination(def, skill.skill_type, config.config));
      } catch (e) {
        problems.push({ skill: skill.name, message: errorMessage(e) });
        return [];
      }
    }),
  );
  const tools: ToolDefinition<any>[] = [];
  // In the records' order, so the first of two skills claiming a name keeps it.
  built.forEach((defs, i) => {
    for (const def of defs) {
      if (names.has(def.name)) {
        problems.push({ skill: active[i]!.name, message: `its tool "${def.name}" has the name of another tool and was left out.` });
        continue;
      }
      names.add(def.name);
      tools.push(def);
    }
  });
  return { tools, problems };
}
