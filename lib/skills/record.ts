/**
 * Checking a skill or agent profile as a whole: the name against the model's rules and every other
 * tool, the description, and config_json against its type. The management page and imports use it.
 */
import * as v from 'valibot';
import { BUILTIN_FUNCTIONS, parseSkillConfig } from './config';
import { toolNameProblem } from './names';
import { isProviderId } from '../agent/providers/provider-ids';
import { SKILL_TYPES, type AgentProfileDraft, type SkillDraft, type SkillRecord } from './types';

export const DESCRIPTION_MAX = 4000;

export type SkillField = 'name' | 'description' | 'skill_type' | 'config_json';
export type SkillErrors = Partial<Record<SkillField, string[]>>;

export interface NameContext {
  /** Built-in tools' names. */
  builtin: ReadonlySet<string>;
  /** Other skills (not the one being edited). */
  others: readonly Pick<SkillRecord, 'name'>[];
}

/** Every problem with `draft`, by field; an empty object when it can be saved. */
export function checkSkill(draft: SkillDraft, names: NameContext): SkillErrors {
  const errors: SkillErrors = {};
  const add = (field: SkillField, message: string) => (errors[field] ??= []).push(message);
  const nameProblem = toolNameProblem(draft.name, { builtin: names.builtin, skills: new Set(names.others.map((o) => o.name)) });
  if (nameProblem) add('name', nameProblem);
  if (!draft.description.trim()) add('description', 'The description is empty: the model decides when to call a tool from it.');
  else if (draft.description.length > DESCRIPTION_MAX) add('description', `The description is ${draft.description.length} characters; the limit is ${DESCRIPTION_MAX}.`);
  if (!(SKILL_TYPES as readonly string[]).includes(draft.skill_type)) {
    add('skill_type', `The type must be one of ${SKILL_TYPES.join(', ')}.`);
    return errors;
  }
  const config = parseSkillConfig(draft.skill_type, draft.config_json);
  if (!config.ok) for (const e of config.errors) add('config_json', e);
  else if (draft.skill_type === 'builtin') {
    const fn = (config.config as { function_name?: string }).function_name;
    if (!fn && !(BUILTIN_FUNCTIONS as readonly string[]).includes(draft.name)) {
      add('config_json', `config_json.function_name is missing and the name "${draft.name}" is not a built-in function; set function_name to one of ${BUILTIN_FUNCTIONS.join(', ')}.`);
    }
  }
  return errors;
}

export const hasErrors = (errors: object) => Object.keys(errors).length > 0;

/** The shape an imported skill must have (export writes the same). */
export const SkillImportSchema = v.object({
  name: v.string('must be a string'),
  description: v.string('must be a string'),
  skill_type: v.string('must be a string'),
  /** An object is accepted too, and stored as its JSON text. */
  config_json: v.union([v.string(), v.record(v.string(), v.unknown())], 'must be JSON text or an object'),
  is_active: v.optional(v.boolean('must be true or false'), false),
});

export const SLUG_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;
export type ProfileField = 'name' | 'slug' | 'system_prompt' | 'model' | 'provider' | 'tools' | 'a2a_url';
export type ProfileErrors = Partial<Record<ProfileField, string>>;

/** Problems with an agent profile; `others` are the other profiles, `tools` the names it may list. */
export function checkProfile(draft: AgentProfileDraft, others: readonly { slug: string }[], tools: ReadonlySet<string>): ProfileErrors {
  const errors: ProfileErrors = {};
  if (!draft.name.trim()) errors.name = 'The name is empty.';
  if (!SLUG_PATTERN.test(draft.slug)) errors.slug = 'The slug must be 1–64 lower-case letters, digits, "-" or "_", starting with a letter or digit.';
  else if (others.some((o) => o.slug === draft.slug)) errors.slug = `Another agent already has the slug "${draft.slug}".`;
  if (draft.model && !/^[\w.:@/-]+$/.test(draft.model)) errors.model = 'The model id may hold only letters, digits and . : @ / - _';
  if (draft.provider && !isProviderId(draft.provider)) errors.provider = `Unknown provider "${draft.provider}".`;
  else if (draft.provider && !draft.model.trim()) errors.model = 'Name the model to use on that provider.';
  const unknown = draft.tools.filter((t) => !tools.has(t));
  if (unknown.length) errors.tools = `Unknown tools: ${unknown.join(', ')}.`;
  if (draft.a2a_url) {
    let ok = false;
    try {
      ok = ['http:', 'https:'].includes(new URL(draft.a2a_url).protocol);
    } catch {}
    if (!ok) errors.a2a_url = 'The A2A endpoint must be an http:// or https:// URL.';
  } else if (!draft.system_prompt.trim()) {
    errors.system_prompt = 'A local agent needs a system prompt (or give an A2A endpoint for a remote one).';
  }
  return errors;
}
