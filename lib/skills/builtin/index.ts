/**
 * The builtin skill type: a skill record names one of our own functions (config.function_name,
 * else the skill's name) and becomes one tool by the skill's name and description.
 */
import type { ToolDefinition } from '../../tools/registry';
import { BUILTIN_FUNCTIONS, type BuiltinConfig, type BuiltinFunction } from '../config';
import type { SkillServices, SkillToolFactory } from '../services';
import type { SkillRecord } from '../types';
import { codeExecutionTool } from './code-execution';
import { delegateToAgentTool } from './delegate';
import { instagramPostTool } from './instagram-post';
import { journalWriteTool } from './journal';
import { textToChartTool } from './text-to-chart';
import { webSearchTool } from './web-search';
import { whatsappSendTool } from './whatsapp-send';

export { journalPath } from './journal';

type Builder = (skill: SkillRecord, config: BuiltinConfig, services: SkillServices) => ToolDefinition<any> | Promise<ToolDefinition<any>>;

const BUILDERS: Record<BuiltinFunction, Builder> = {
  web_search: webSearchTool,
  journal_write: journalWriteTool,
  delegate_to_agent: delegateToAgentTool,
  instagram_post: instagramPostTool,
  whatsapp_send: whatsappSendTool,
  text_to_chart: textToChartTool,
  code_execution: codeExecutionTool,
};

/** The function a builtin skill runs, or undefined when neither its config nor its name names one. */
export function builtinFunctionOf(skill: SkillRecord, config: BuiltinConfig): BuiltinFunction | undefined {
  const name = config.function_name ?? skill.name;
  return (BUILTIN_FUNCTIONS as readonly string[]).includes(name) ? (name as BuiltinFunction) : undefined;
}

export const builtinSkillTools: SkillToolFactory<BuiltinConfig> = async (skill, config, services) => {
  const fn = builtinFunctionOf(skill, config);
  if (!fn) {
    throw new Error(
      `The builtin skill "${skill.name}" names no builtin function: set config_json.function_name to one of ${BUILTIN_FUNCTIONS.join(', ')} (or name the skill after one).`,
    );
  }
  return [await BUILDERS[fn](skill, config, services)];
};
