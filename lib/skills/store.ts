/**
 * Skills and agent profiles, kept in extension storage (local: config_json may hold API keys, which
 * storage.sync would copy to the browser vendor). Every write is checked the way the form checks it.
 */
import * as v from 'valibot';
import { checkProfile, checkSkill, hasErrors, SkillImportSchema, type ProfileErrors, type SkillErrors } from './record';
import { needsReview, type AgentProfile, type AgentProfileDraft, type SkillDraft, type SkillRecord, type SkillType } from './types';

export const SKILLS_KEY = 'skills';
export const PROFILES_KEY = 'agentProfiles';

/** The storage area the store sits on (browser.storage.local, or a Map in unit tests). */
export interface KeyValueArea {
  get(key: string): Promise<Record<string, unknown>>;
  set(items: Record<string, unknown>): Promise<void>;
}

export type SaveResult<T, E> = { ok: true; value: T } | { ok: false; errors: E };

export interface ImportReport {
  added: string[];
  /** One line per skipped entry: its position, name and why. */
  skipped: string[];
}

const newId = () => crypto.randomUUID();

export class SkillStore {
  constructor(
    private readonly area: KeyValueArea,
    /** Built-in tool names, which no skill may take. */
    private readonly builtin: ReadonlySet<string>,
    private readonly now: () => number = Date.now,
  ) {}

  async list(): Promise<SkillRecord[]> {
    const got = (await this.area.get(SKILLS_KEY))[SKILLS_KEY];
    return Array.isArray(got) ? (got as SkillRecord[]) : [];
  }

  async active(): Promise<SkillRecord[]> {
    return (await this.list()).filter((s) => s.is_active);
  }

  check(draft: SkillDraft, id?: string, all: readonly SkillRecord[] = []): SkillErrors {
    return checkSkill(draft, { builtin: this.builtin, others: all.filter((s) => s.id !== id) });
  }

  /**
   * Creates (no id) or replaces a skill; refused with the form's errors when invalid. A function
   * skill whose code is new or changed is saved inactive, waiting for review (approve()).
   */
  async save(draft: SkillDraft, id?: string, by: 'user' | 'model' = 'user'): Promise<SaveResult<SkillRecord, SkillErrors>> {
    const all = await this.list();
    const errors = this.check(draft, id, all);
    if (hasErrors(errors)) return { ok: false, errors };
    const at = this.now();
    const previous = id ? all.find((s) => s.id === id) : undefined;
    if (id && !previous) return { ok: false, errors: { name: ['This skill no longer exists.'] } };
    const record: SkillRecord = {
      id: previous?.id ?? newId(),
      name: draft.name,
      description: draft.description,
      skill_type: draft.skill_type,
      config_json: draft.config_json,
      is_active: draft.is_active,
      created_at: previous?.created_at ?? at,
      updated_at: at,
    };
    if (draft.skill_type === 'function') {
      if (previous?.skill_type === 'function' && previous.approved_config_json !== undefined) record.approved_config_json = previous.approved_config_json;
      if (needsReview(record)) {
        record.is_active = false;
        record.proposed_by = previous && needsReview(previous) && previous.config_json === record.config_json ? (previous.proposed_by ?? by) : by;
      }
    }
    await this.write(previous ? all.map((s) => (s.id === id ? record : s)) : [...all, record]);
    return { ok: true, value: record };
  }

  /** Refused (with the reason) for a function skill whose code waits for review. */
  async setActive(id: string, active: boolean): Promise<void> {
    const all = await this.list();
    const skill = all.find((s) => s.id === id);
    if (!skill) throw new Error('This skill no longer exists.');
    if (active && needsReview(skill)) throw new Error(`The code of "${skill.name}" has not been approved yet: review it first.`);
    await this.write(all.map((s) => (s.id === id ? { ...s, is_active: active, updated_at: this.now() } : s)));
  }

  /**
   * The user approves a function skill's code as it is now (`configJson`, what the review screen
   * showed: a change made meanwhile is not approved by accident). It becomes active.
   */
  async approve(id: string, configJson: string): Promise<SkillRecord> {
    const all = await this.list();
    const skill = all.find((s) => s.id === id);
    if (!skill) throw new Error('This skill no longer exists.');
    if (skill.config_json !== configJson) throw new Error(`"${skill.name}" changed while it was being reviewed: review it again.`);
    const { proposed_by: _by, ...rest } = skill;
    const approved: SkillRecord = { ...rest, approved_config_json: skill.config_json, is_active: true, updated_at: this.now() };
    await this.write(all.map((s) => (s.id === id ? approved : s)));
    return approved;
  }

  /**
   * The user turns a proposed change down: an approved skill goes back to its approved code (and
   * stays inactive until switched on); a skill never approved is deleted.
   */
  async reject(id: string): Promise<void> {
    const all = await this.list();
    const skill = all.find((s) => s.id === id);
    if (!skill || !needsReview(skill)) return;
    if (skill.approved_config_json === undefined) return this.remove(id);
    const { proposed_by: _by, ...rest } = skill;
    await this.write(all.map((s) => (s.id === id ? { ...rest, config_json: skill.approved_config_json!, updated_at: this.now() } : s)));
  }

  async remove(id: string): Promise<void> {
    await this.write((await this.list()).filter((s) => s.id !== id));
  }

  /**
   * Adds the skills of an export (an array, or `{skills: [...]}`); each is checked against the
   * built-ins, the existing skills and the ones added before it. Invalid entries are skipped with
   * the reason; valid ones are added even when others fail.
   */
  async import(json: string): Promise<ImportReport> {
    let parsed: unknown;
    try {
      parsed = JSON.parse(json);
    } catch (e) {
      return { added: [], skipped: [`The file is not valid JSON: ${(e as Error).message}.`] };
    }
    const items = Array.isArray(parsed) ? parsed : (parsed as { skills?: unknown })?.skills;
    if (!Array.isArray(items)) return { added: [], skipped: ['Expected a JSON array of skills, or an object with a "skills" array.'] };
    const all = await this.list();
    const report: ImportReport = { added: [], skipped: [] };
    items.forEach((item, i) => {
      const shape = v.safeParse(SkillImportSchema, item);
      const label = `#${i + 1}${item && typeof (item as { name?: unknown }).name === 'string' ? ` "${(item as { name: string }).name}"` : ''}`;
      if (!shape.success) {
        const issue = shape.issues[0];
        const path = issue.path?.map((p) => String(p.key)).join('.') ?? '';
        report.skipped.push(`${label}: ${path ? `${path} ${issue.message}` : 'not a skill object'}.`);
        return;
      }
      const s = shape.output;
      const draft: SkillDraft = {
        name: s.name,
        description: s.description,
        skill_type: s.skill_type as SkillType,
        config_json: typeof s.config_json === 'string' ? s.config_json : JSON.stringify(s.config_json, null, 2),
        is_active: s.is_active,
      };
      const errors = this.check(draft, undefined, all);
      if (hasErrors(errors)) {
        report.skipped.push(`${label}: ${Object.values(errors).flat().join(' ')}`);
        return;
      }
      const at = this.now();
      // Imported code is code the user has not read here: it waits for review like any other.
      const review = draft.skill_type === 'function' ? { is_active: false, proposed_by: 'user' as const } : {};
      all.push({ ...draft, ...review, id: newId(), created_at: at, updated_at: at });
      report.added.push(draft.name);
    });
    if (report.added.length) await this.write(all);
    return report;
  }

  /** The skills as an export file; without `secrets`, auth values and header values are blanked. */
  async export(options: { secrets: boolean }): Promise<string> {
    const skills = (await this.list()).map(({ name, description, skill_type, config_json, is_active }) => ({
      name,
      description,
      skill_type,
      config_json: options.secrets ? config_json : redactConfig(config_json),
      is_active,
    }));
    return JSON.stringify({ skills }, null, 2);
  }

  private async write(skills: SkillRecord[]) {
    await this.area.set({ [SKILLS_KEY]: skills });
  }

  // Agent profiles (delegate_to_agent).

  async profiles(): Promise<AgentProfile[]> {
    const got = (await this.area.get(PROFILES_KEY))[PROFILES_KEY];
    return Array.isArray(got) ? (got as AgentProfile[]) : [];
  }

  async saveProfile(draft: AgentProfileDraft, tools: ReadonlySet<string>, id?: string): Promise<SaveResult<AgentProfile, ProfileErrors>> {
    const all = await this.profiles();
    const errors = checkProfile(draft, all.filter((p) => p.id !== id), tools);
    if (hasErrors(errors)) return { ok: false, errors };
    const previous = id ? all.find((p) => p.id === id) : undefined;
    if (id && !previous) return { ok: false, errors: { name: 'This agent no longer exists.' } };
    const at = this.now();
    const profile: AgentProfile = { ...draft, id: previous?.id ?? newId(), created_at: previous?.created_at ?? at, updated_at: at };
    await this.area.set({ [PROFILES_KEY]: previous ? all.map((p) => (p.id === id ? profile : p)) : [...all, profile] });
    return { ok: true, value: profile };
  }

  async removeProfile(id: string): Promise<void> {
    await this.area.set({ [PROFILES_KEY]: (await this.profiles()).filter((p) => p.id !== id) });
  }
}

const SECRET_HEADER = /^(authorization|x-api-key|api-key|cookie|proxy-authorization)$|token|secret|key/i;

/** config_json with its secrets blanked; text that is not a JSON object is kept as it is. */
export function redactConfig(configJson: string): string {
  let config: unknown;
  try {
    config = JSON.parse(configJson);
  } catch {
    return configJson;
  }
  if (!config || typeof config !== 'object' || Array.isArray(config)) return configJson;
  const c = { ...(config as Record<string, unknown>) };
  if (typeof c.auth_value === 'string' && c.auth_value) c.auth_value = '';
  if (c.headers && typeof c.headers === 'object') {
    c.headers = Object.fromEntries(Object.entries(c.headers as Record<string, unknown>).map(([k, val]) => [k, SECRET_HEADER.test(k) ? '' : val]));
  }
  return JSON.stringify(c, null, 2);
}
