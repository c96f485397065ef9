/**
 * A skill's input_schema (JSON Schema, as the model sees it) turned into a valibot schema, so a
 * skill's arguments are checked like a built-in tool's before anything is sent anywhere. The
 * subset covers what tool schemas use; keywords outside it are passed to the model but not checked.
 */
import * as v from 'valibot';

export type JsonSchema = Record<string, unknown>;
type AnySchema = v.GenericSchema<unknown, unknown>;

const TYPES = ['object', 'string', 'number', 'integer', 'boolean', 'array', 'null'] as const;
const MAX_DEPTH = 12;

export class SchemaProblem extends Error {
  override name = 'SchemaProblem';
}

const isObject = (x: unknown): x is Record<string, unknown> => !!x && typeof x === 'object' && !Array.isArray(x);

/**
 * Checks that `schema` can be a tool's input_schema (an object schema, as the Messages API requires)
 * and returns its valibot form. Throws SchemaProblem naming the JSON path of what is wrong.
 */
export function inputSchemaToValibot(schema: unknown): AnySchema {
  if (!isObject(schema)) throw new SchemaProblem('input_schema must be a JSON object (a JSON Schema).');
  if (schema.type !== 'object') throw new SchemaProblem('input_schema must have "type": "object" (tool arguments are an object).');
  return convert(schema, 'input_schema', 0);
}

/**
 * A skill tool's arguments from its config's optional input_schema (any object without one): the
 * schema the model sees and its valibot form that checks the call.
 */
export function skillInput(inputSchema: JsonSchema | undefined): { input: AnySchema; inputSchema: { type: 'object' } & JsonSchema } {
  const schema = (inputSchema ?? { type: 'object', properties: {} }) as { type: 'object' } & JsonSchema;
  return { input: inputSchemaToValibot(schema), inputSchema: schema };
}

function convert(schema: unknown, at: string, depth: number): AnySchema {
  if (depth > MAX_DEPTH) throw new SchemaProblem(`${at}: nested deeper than ${MAX_DEPTH} levels.`);
  if (schema === true || (isObject(schema) && Object.keys(schema).length === 0)) return v.unknown();
  if (!isObject(schema)) throw new SchemaProblem(`${at} must be a JSON Schema object.`);
  if (schema.enum !== undefined) {
    if (!Array.isArray(schema.enum) || schema.enum.length === 0) throw new SchemaProblem(`${at}.enum must be a non-empty array.`);
    const allowed = schema.enum as unknown[];
    const shown = allowed.map((x) => JSON.stringify(x)).join(', ');
    return v.custom((x) => allowed.some((a) => sameJson(a, x)), `must be one of ${shown}`);
  }
  if (schema.const !== undefined) {
    const c = schema.const;
    return v.custom((x) => sameJson(c, x), `must be ${JSON.stringify(c)}`);
  }
  const type = schema.type;
  if (Array.isArray(type)) {
    if (!type.length) throw new SchemaProblem(`${at}.type must not be an empty array.`);
    const options = type.map((t, i) => convert({ ...schema, type: t }, `${at}.type[${i}]`, depth + 1));
    return v.union(options as [AnySchema, ...AnySchema[]], `must be of type ${type.join(' or ')}`);
  }
  if (type === undefined) return v.unknown();
  if (typeof type !== 'string' || !(TYPES as readonly string[]).includes(type)) {
    throw new SchemaProblem(`${at}.type must be one of ${TYPES.join(', ')} (got ${JSON.stringify(type)}).`);
  }
  switch (type as (typeof TYPES)[number]) {
    case 'string':
      return stringSchema(schema, at);
    case 'number':
    case 'integer':
      return numberSchema(schema, at, type === 'integer');
    case 'boolean':
      return v.boolean('must be true or false');
    case 'null':
      return v.null('must be null');
    case 'array':
      return arraySchema(schema, at, depth);
    case 'object':
      return objectSchema(schema, at, depth);
  }
}

function count(schema: Record<string, unknown>, key: string, at: string): number | undefined {
  const n = schema[key];
  if (n === undefined) return undefined;
  if (typeof n !== 'number' || !Number.isFinite(n)) throw new SchemaProblem(`${at}.${key} must be a number.`);
  return n;
}

function stringSchema(schema: Record<string, unknown>, at: string): AnySchema {
  const checks: v.PipeItem<string, string, v.BaseIssue<unknown>>[] = [];
  const min = count(schema, 'minLength', at);
  const max = count(schema, 'maxLength', at);
  if (min !== undefined) checks.push(v.minLength(min, `must be at least ${min} characters`));
  if (max !== undefined) checks.push(v.maxLength(max, `must be at most ${max} characters`));
  if (schema.pattern !== undefined) {
    if (typeof schema.pattern !== 'string') throw new SchemaProblem(`${at}.pattern must be a string.`);
    let re: RegExp;
    try {
      re = new RegExp(schema.pattern, 'u');
    } catch (e) {
      throw new SchemaProblem(`${at}.pattern is not a valid regular expression (${(e as Error).message}).`);
    }
    checks.push(v.regex(re, `must match the pattern ${schema.pattern}`));
  }
  return v.pipe(v.string('must be a string'), ...checks) as AnySchema;
}

function numberSchema(schema: Record<string, unknown>, at: string, integer: boolean): AnySchema {
  const checks: v.PipeItem<number, number, v.BaseIssue<unknown>>[] = [];
  if (integer) checks.push(v.integer('must be a whole number'));
  const min = count(schema, 'minimum', at);
  const max = count(schema, 'maximum', at);
  if (min !== undefined) checks.push(v.minValue(min, `must be at least ${min}`));
  if (max !== undefined) checks.push(v.maxValue(max, `must be at most ${max}`));
  return v.pipe(v.number(integer ? 'must be a whole number' : 'must be a number'), ...checks) as AnySchema;
}

function arraySchema(schema: Record<string, unknown>, at: string, depth: number): AnySchema {
  const item = schema.items === undefined ? v.unknown() : convert(schema.items, `${at}.items`, depth + 1);
  const checks: v.PipeItem<unknown[], unknown[], v.BaseIssue<unknown>>[] = [];
  const min = count(schema, 'minItems', at);
  const max = count(schema, 'maxItems', at);
  if (min !== undefined) checks.push(v.minLength(min, `must have at least ${min} items`));
  if (max !== undefined) checks.push(v.maxLength(max, `must have at most ${max} items`));
  return v.pipe(v.array(item, 'must be an array'), ...checks) as AnySchema;
}

function objectSchema(schema: Record<string, unknown>, at: string, depth: number): AnySchema {
  const props = schema.properties ?? {};
  if (!isObject(props)) throw new SchemaProblem(`${at}.properties must be an object.`);
  const required = schema.required ?? [];
  if (!Array.isArray(required) || required.some((r) => typeof r !== 'string')) {
    throw new SchemaProblem(`${at}.required must be an array of property names.`);
  }
  const entries: Record<string, AnySchema> = {};
  for (const [key, sub] of Object.entries(props)) {
    const inner = convert(sub, `${at}.properties.${key}`, depth + 1);
    entries[key] = required.includes(key) ? inner : (v.optional(inner) as AnySchema);
  }
  for (const key of required as string[]) {
    // A required property the schema does not describe: present, of any type.
    if (!(key in entries)) entries[key] = v.custom((x) => x !== undefined, 'is required');
  }
  if (schema.additionalProperties === false) return v.strictObject(entries, 'must be an object') as AnySchema;
  return v.looseObject(entries, 'must be an object') as AnySchema;
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
