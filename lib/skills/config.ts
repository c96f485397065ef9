/**
 * Each skill type's config_json, checked with valibot: the management page shows the same
 * messages while the user types, and a run never meets a config it cannot use.
 */
import * as v from 'valibot';
import { inputSchemaToValibot, SchemaProblem, type JsonSchema } from './json-schema';
import type { SkillType } from './types';

export const BUILTIN_FUNCTIONS = [
  'web_search',
  'journal_write',
  'delegate_to_agent',
  'instagram_post',
  'whatsapp_send',
  'text_to_chart',
  'code_execution',
] as const;
export type BuiltinFunction = (typeof BUILTIN_FUNCTIONS)[number];

/** Types this version can run; the others are refused with a message saying so. */
export const RUNNABLE_TYPES: readonly SkillType[] = ['builtin', 'mcp', 'http', 'function', 'database'];

const httpUrl = v.pipe(
  v.string('must be a string'),
  v.trim(),
  v.nonEmpty('must not be empty'),
  v.check((s) => {
    try {
      const u = new URL(s);
      return u.protocol === 'http:' || u.protocol === 'https:';
    } catch {
      return false;
    }
  }, 'must be an http:// or https:// URL'),
);

const inputSchema = v.pipe(
  v.custom<JsonSchema>((x) => !!x && typeof x === 'object' && !Array.isArray(x), 'must be a JSON Schema object'),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    try {
      inputSchemaToValibot(dataset.value);
    } catch (e) {
      addIssue({ message: e instanceof SchemaProblem ? e.message : String(e) });
    }
  }),
);

export const BuiltinConfigSchema = v.strictObject({
  /** Which implemented function; absent: the skill's name. */
  function_name: v.optional(v.picklist(BUILTIN_FUNCTIONS, `must be one of ${BUILTIN_FUNCTIONS.join(', ')}`)),
  /** delegate_to_agent: fixes the target agent profile (its id or slug). */
  to_agent_id: v.optional(v.pipe(v.string('must be a string'), v.trim(), v.nonEmpty('must not be empty'))),
});

const oauthClientField = v.pipe(v.string('must be a string'), v.trim(), v.nonEmpty('must not be empty'), v.maxLength(1000, 'must be at most 1000 characters'), v.regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces'));

export const MCP_AUTH_TYPES = ['none', 'api_key', 'bearer', 'oauth2'] as const;
/** call: the contract's POST {url}/call with one JSON-RPC tools/call; streamable_http: a standard MCP server. */
export const MCP_TRANSPORTS = ['call', 'streamable_http'] as const;

export const McpConfigSchema = v.pipe(
  v.strictObject({
    url: httpUrl,
    auth_type: v.optional(v.picklist(MCP_AUTH_TYPES, `must be one of ${MCP_AUTH_TYPES.join(', ')}`), 'none'),
    auth_value: v.optional(v.pipe(v.string('must be a string'), v.regex(/^[\x20-\x7e]*$/, 'must be printable ASCII (it goes in an HTTP header)'))),
    input_schema: v.optional(inputSchema),
    transport: v.optional(v.picklist(MCP_TRANSPORTS, `must be one of ${MCP_TRANSPORTS.join(', ')}`), 'call'),
    /** OAuth sign-in with a client the user registered at the server (when it offers no registration). */
    oauth_client_id: v.optional(oauthClientField),
    oauth_client_secret: v.optional(oauthClientField),
  }),
  // oauth2 over streamable_http without a token is the spec's sign-in; everywhere else the
  // contract's static credential is needed.
  v.check(
    (c) => c.auth_type === 'none' || !!c.auth_value?.trim() || (c.auth_type === 'oauth2' && c.transport === 'streamable_http'),
    'auth_value is required when auth_type is not "none" (an oauth2 skill with "transport": "streamable_http" may leave it out to sign in instead)',
  ),
  v.check(
    (c) => (c.oauth_client_id === undefined && c.oauth_client_secret === undefined) || (c.auth_type === 'oauth2' && c.transport === 'streamable_http' && !c.auth_value?.trim()),
    'oauth_client_id and oauth_client_secret are for signing in: they need "auth_type": "oauth2", "transport": "streamable_http" and no auth_value',
  ),
  v.check((c) => c.oauth_client_secret === undefined || c.oauth_client_id !== undefined, 'oauth_client_secret needs an oauth_client_id'),
);

export const HTTP_METHODS = ['POST', 'GET'] as const;

export const HttpConfigSchema = v.strictObject({
  url: httpUrl,
  method: v.optional(v.picklist(HTTP_METHODS, 'must be "POST" or "GET"'), 'POST'),
  headers: v.optional(
    v.record(
      v.pipe(v.string(), v.regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'is not a valid HTTP header name')),
      v.pipe(v.string('must be a string'), v.regex(/^[\x20-\x7e\t]*$/, 'must be printable ASCII')),
      'must be an object of header names to string values',
    ),
    {},
  ),
  input_schema: v.optional(inputSchema),
});

export const FUNCTION_LANGUAGES = ['javascript', 'python'] as const;
export type FunctionLanguage = (typeof FUNCTION_LANGUAGES)[number];
/** A function skill's code is capped: it travels in every review screen and sandbox message. */
export const FUNCTION_CODE_MAX = 100_000;

export const FunctionConfigSchema = v.strictObject({
  language: v.pipe(
    v.string('must be a string'),
    v.transform((s) => s.trim().toLowerCase()),
    // "js" and "py" are how people write them; stored as the full name.
    v.transform((s) => (s === 'js' ? 'javascript' : s === 'py' ? 'python' : s)),
    v.picklist(FUNCTION_LANGUAGES, `must be "javascript" or "python"`),
  ),
  code: v.pipe(
    v.string('must be a string'),
    v.nonEmpty('must not be empty: it defines run(args)'),
    v.maxLength(FUNCTION_CODE_MAX, `must be at most ${FUNCTION_CODE_MAX} characters`),
  ),
  input_schema: v.optional(inputSchema),
});

export const DatabaseConfigSchema = v.strictObject({
  db_id: v.pipe(v.string('must be a string'), v.trim(), v.nonEmpty('must not be empty'), v.regex(/^[\w-]{1,64}$/, 'must be 1–64 letters, digits, "_" or "-"')),
});

export type BuiltinConfig = v.InferOutput<typeof BuiltinConfigSchema>;
export type FunctionConfig = v.InferOutput<typeof FunctionConfigSchema>;
export type DatabaseConfig = v.InferOutput<typeof DatabaseConfigSchema>;
export type McpConfig = v.InferOutput<typeof McpConfigSchema>;
export type HttpConfig = v.InferOutput<typeof HttpConfigSchema>;

export interface ConfigByType {
  builtin: BuiltinConfig;
  mcp: McpConfig;
  http: HttpConfig;
  function: FunctionConfig;
  database: DatabaseConfig;
}

const SCHEMAS: { [K in keyof ConfigByType]: v.GenericSchema<unknown, ConfigByType[K]> } = {
  builtin: BuiltinConfigSchema,
  mcp: McpConfigSchema,
  http: HttpConfigSchema,
  function: FunctionConfigSchema,
  database: DatabaseConfigSchema,
};

export type ConfigResult<T> = { ok: true; config: T } | { ok: false; errors: string[] };

/** Parses and checks config_json for `type`; errors are sentences naming the field. */
export function parseSkillConfig<K extends keyof ConfigByType>(type: K, configJson: string): ConfigResult<ConfigByType[K]>;
export function parseSkillConfig(type: SkillType, configJson: string): ConfigResult<unknown>;
export function parseSkillConfig(type: SkillType, configJson: string): ConfigResult<unknown> {
  if (!(type in SCHEMAS)) {
    return { ok: false, errors: [`"${type}" skills are not supported in this version (supported: ${RUNNABLE_TYPES.join(', ')}).`] };
  }
  let raw: unknown;
  const text = configJson.trim() || '{}';
  try {
    raw = JSON.parse(text);
  } catch (e) {
    return { ok: false, errors: [`config_json is not valid JSON: ${(e as Error).message}.`] };
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
    return { ok: false, errors: ['config_json must be a JSON object, like {"url": "https://…"}.'] };
  }
  const schema = SCHEMAS[type as keyof ConfigByType] as v.GenericSchema<unknown, unknown>;
  const r = v.safeParse(schema, raw);
  if (r.success) return { ok: true, config: r.output };
  return { ok: false, errors: r.issues.slice(0, 8).map((issue) => describeConfigIssue(issue, schema)) };
}

function describeConfigIssue(issue: v.BaseIssue<unknown>, schema: v.GenericSchema<unknown, unknown>): string {
  const path = issue.path?.map((p) => String(p.key)).join('.') ?? '';
  // A missing key and an unknown key are both strict_object issues; JSON cannot hold undefined.
  if (path && issue.input === undefined) return `config_json.${path} is required.`;
  if (issue.type === 'strict_object' && path) {
    const known = acceptedFields(schema);
    return `config_json has an unknown field "${path}"; accepted fields: ${known.join(', ')}.`;
  }
  return path ? `config_json.${path} ${issue.message}.` : `config_json: ${issue.message}.`;
}

function acceptedFields(schema: v.GenericSchema<unknown, unknown>): string[] {
  let s = schema as unknown as { type: string; entries?: Record<string, unknown>; pipe?: unknown[] };
  if (s.type !== 'strict_object' && Array.isArray(s.pipe)) s = s.pipe[0] as typeof s;
  return Object.keys(s.entries ?? {});
}
