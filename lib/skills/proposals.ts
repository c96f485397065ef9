/**
 * The model's side of the change-request flow: it may propose a function skill (new code, or a
 * change to one), which is saved inactive and runs only after the user approves it on the
 * management page. The code never runs before that, whoever wrote it.
 */
import type { FunctionLanguage } from './config';
import type { SkillErrors } from './record';
import type { SkillStore } from './store';

export interface SkillProposal {
  name: string;
  description: string;
  language: FunctionLanguage;
  code: string;
  input_schema?: Record<string, unknown>;
}

export type ProposalResult = { ok: true; name: string; change: boolean } | { ok: false; errors: SkillErrors };

export interface SkillProposals {
  propose(proposal: SkillProposal): Promise<ProposalResult>;
}

export function storeProposals(store: SkillStore): SkillProposals {
  return {
    async propose(p) {
      const existing = (await store.list()).find((s) => s.name === p.name);
      if (existing && existing.skill_type !== 'function') {
        return { ok: false, errors: { name: [`A ${existing.skill_type} skill is already called "${p.name}"; propose the function under another name.`] } };
      }
      const config = { language: p.language, code: p.code, ...(p.input_schema ? { input_schema: p.input_schema } : {}) };
      const saved = await store.save(
        { name: p.name, description: p.description, skill_type: 'function', config_json: JSON.stringify(config, null, 2), is_active: false },
        existing?.id,
        'model',
      );
      return saved.ok ? { ok: true, name: saved.value.name, change: !!existing } : saved;
    },
  };
}
