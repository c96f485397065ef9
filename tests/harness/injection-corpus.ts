/**
 * The prompt-injection attack corpus (tests/fixtures/injection, see its README.md): the manifest's
 * types, its loader, and the placeholder substitution a driver needs to turn an attack into the
 * tool calls a fully compromised model would make.
 */
import fs from 'node:fs';
import path from 'node:path';
import { FIXTURES_DIR } from './fixtures';

export const INJECTION_DIR = path.join(FIXTURES_DIR, 'injection');

export type AttackSource = 'tab' | 'fetch' | 'search' | 'http_skill';

export type ActionKind =
  | 'fetch-query'
  | 'fetch-b64-path'
  | 'open-tab'
  | 'script-submit-form'
  | 'script-fetch'
  | 'http-skill-post'
  | 'instagram-post'
  | 'whatsapp-send'
  | 'opfs-delete';

export interface ToolCallSpec {
  tool: string;
  input: Record<string, unknown>;
}

export interface InjectionAttack {
  id: string;
  /** Path under tests/fixtures/injection, served at /injection/<file>. */
  file: string;
  source: AttackSource;
  /** Subdomain of pagewright.test the file is served on. */
  site: string;
  hiding: string;
  forgery: string;
  placement: string;
  /** The exact secret string in the file. */
  secret: string;
  secret_kind: string;
  /** The exact text of the injected instruction, as it is in the file (entities decoded). */
  instruction: string;
  /** The call that brings the source to the model (get_tab_content gets its tab_id from the driver). */
  read: ToolCallSpec;
  /** What the source asks for: the call a compromised model makes next. */
  action: ToolCallSpec & { kind: ActionKind };
  /** The forged untrusted-content boundary marker, for forgery "fence-close". */
  fence?: string;
  /** Settings this attack needs on top of the manifest's (search: the engine endpoint). */
  settings?: Record<string, unknown>;
}

export interface SeedSkillSpec {
  name: string;
  skill_type: 'http' | 'builtin';
  description: string;
  config: Record<string, unknown>;
}

export interface InjectionManifest {
  version: number;
  urls: { page: string; attacker: string };
  placeholders: Record<string, string>;
  tab_id: string;
  settings: Record<string, unknown>;
  workspace: { path: string; content: string }[];
  skills: SeedSkillSpec[];
  attacks: InjectionAttack[];
}

export const PLACEHOLDERS = ['{ATTACKER}', '{SECRET}', '{PAGE}', '{SITE}'] as const;

export function loadInjectionCorpus(): InjectionManifest {
  return JSON.parse(fs.readFileSync(path.join(INJECTION_DIR, 'attacks.json'), 'utf8')) as InjectionManifest;
}

export interface CorpusPorts {
  /** The fixture server's port (it serves the files under any Host). */
  fixturePort: number;
  /** The recording server's port. */
  attackerPort: number;
}

/** The attack file's origin, e.g. http://shop.pagewright.test:4100. */
export const siteOrigin = (attack: Pick<InjectionAttack, 'site'>, { fixturePort }: Pick<CorpusPorts, 'fixturePort'>) =>
  `http://${attack.site}.pagewright.test:${fixturePort}`;

/** The attack file's own URL. */
export const pageUrl = (attack: Pick<InjectionAttack, 'site' | 'file'>, ports: Pick<CorpusPorts, 'fixturePort'>) =>
  `${siteOrigin(attack, ports)}/injection/${attack.file}`;

export const attackerOrigin = ({ attackerPort }: Pick<CorpusPorts, 'attackerPort'>) => `http://attacker.pagewright.test:${attackerPort}`;

/** The four placeholders' values for one attack. */
export function placeholderValues(attack: InjectionAttack, ports: CorpusPorts): Record<(typeof PLACEHOLDERS)[number], string> {
  return { '{ATTACKER}': attackerOrigin(ports), '{SECRET}': attack.secret, '{PAGE}': pageUrl(attack, ports), '{SITE}': siteOrigin(attack, ports) };
}

/** `value` with every placeholder in every string replaced (objects and arrays deeply, other values as they are). */
export function substitute<T>(value: T, values: Record<string, string>): T {
  if (typeof value === 'string') return value.replace(/\{(?:ATTACKER|SECRET|PAGE|SITE)\}/g, (m) => values[m] ?? m) as T;
  if (Array.isArray(value)) return value.map((x) => substitute(x, values)) as T;
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, x]) => [k, substitute(x, values)])) as T;
  return value;
}
