/**
 * The form of an MCP elicitation, apart from the protocol: the server's requestedSchema read
 * into fields (the spec's restricted subset, 2025-11-25 with SEP-1330's enums and SEP-1034's
 * defaults), and an answer checked against them. Pure, so the card checks the answer before it is
 * sent and the background checks it again when it arrives (it crossed a message channel).
 */
import * as v from 'valibot';
import type { ElicitationField, ElicitationOption, ElicitationProblem, ElicitationValue } from '../contracts/questions';

/** A requestedSchema outside the subset: `property` names the offending property, when one does. */
export class UnsupportedElicitationSchema extends Error {
  override name = 'UnsupportedElicitationSchema';
  constructor(
    message: string,
    readonly property?: string,
  ) {
    super(message);
  }
}

/** Keywords that nest or combine schemas: a form of flat fields cannot show them. */
const STRUCTURAL = ['$ref', '$defs', 'definitions', 'properties', 'patternProperties', 'additionalProperties', 'allOf', 'not', 'if', 'then', 'else', 'dependentSchemas', 'prefixItems', 'contains'];
const FORMATS = ['email', 'uri', 'date', 'date-time'] as const;
/** More fields than a card in a popup can sensibly hold: a server asking this much is refused. */
const MAX_FIELDS = 50;
const MAX_OPTIONS = 200;

const count = v.pipe(v.number(), v.integer(), v.minValue(0));
const text = v.optional(v.string());
const described = { title: text, description: text };
const titled = v.object({ const: v.string(), title: v.string() });

const StringProperty = v.looseObject({ type: v.literal('string'), ...described, minLength: v.optional(count), maxLength: v.optional(count), format: text, default: v.optional(v.unknown()) });
const NumberProperty = v.looseObject({ type: v.picklist(['number', 'integer']), ...described, minimum: v.optional(v.number()), maximum: v.optional(v.number()), default: v.optional(v.unknown()) });
const BooleanProperty = v.looseObject({ type: v.literal('boolean'), ...described, default: v.optional(v.unknown()) });
/** Single select: `enum` (with the legacy `enumNames` as titles), or `oneOf` of const + title. */
const ChoiceProperty = v.looseObject({
  type: v.literal('string'),
  ...described,
  enum: v.optional(v.pipe(v.array(v.string()), v.minLength(1))),
  enumNames: v.optional(v.array(v.string())),
  oneOf: v.optional(v.pipe(v.array(titled), v.minLength(1))),
  anyOf: v.optional(v.pipe(v.array(titled), v.minLength(1))),
  default: v.optional(v.unknown()),
});
/** Multi select: an array whose items are a string enum, or `anyOf` of const + title. */
const ChoicesProperty = v.looseObject({
  type: v.literal('array'),
  ...described,
  minItems: v.optional(count),
  maxItems: v.optional(count),
  items: v.union([
    v.looseObject({ type: v.literal('string'), enum: v.pipe(v.array(v.string()), v.minLength(1)) }),
    v.looseObject({ anyOf: v.pipe(v.array(titled), v.minLength(1)) }),
    v.looseObject({ oneOf: v.pipe(v.array(titled), v.minLength(1)) }),
  ]),
  default: v.optional(v.unknown()),
});
const RequestedSchema = v.looseObject({
  type: v.literal('object'),
  properties: v.record(v.string(), v.unknown()),
  required: v.optional(v.array(v.string())),
});

/**
 * The form's fields, in the server's order. Throws UnsupportedElicitationSchema naming the first
 * property outside the subset (a nested object, an array of objects, a $ref...).
 */
export function parseElicitationSchema(schema: unknown): ElicitationField[] {
  if (isObject(schema)) {
    const nested = [...STRUCTURAL, 'anyOf', 'oneOf'].find((k) => k !== 'properties' && k !== 'additionalProperties' && k in schema);
    if (nested) throw new UnsupportedElicitationSchema(`the requested schema uses "${nested}", which elicitation forms do not support (only flat properties of primitive types)`);
  }
  const top = v.safeParse(RequestedSchema, schema);
  if (!top.success) throw new UnsupportedElicitationSchema(`the requested schema is not a flat object schema (${issueText(top.issues)})`);
  const entries = Object.entries(top.output.properties);
  if (entries.length > MAX_FIELDS) throw new UnsupportedElicitationSchema(`the requested schema has ${entries.length} properties; a form takes at most ${MAX_FIELDS}`);
  const required = new Set(top.output.required ?? []);
  const unknownRequired = [...required].find((name) => !Object.hasOwn(top.output.properties, name));
  if (unknownRequired !== undefined) throw new UnsupportedElicitationSchema(`"required" names "${unknownRequired}", which is not one of the properties`, unknownRequired);
  return entries.map(([name, property]) => fieldOf(name, property, required.has(name)));
}

function fieldOf(name: string, property: unknown, required: boolean): ElicitationField {
  const refuse = (why: string): never => {
    throw new UnsupportedElicitationSchema(`the property "${name}" ${why}, which elicitation forms do not support`, name);
  };
  if (!isObject(property)) return refuse('is not a schema object');
  const type = property['type'];
  if (type === 'object') return refuse('is a nested object (type "object")');
  const structural = STRUCTURAL.find((k) => k in property);
  if (structural) return refuse(`uses "${structural}"`);
  if (Array.isArray(type)) return refuse(`has several types (${type.map(String).join(', ')})`);
  if (type === 'array') {
    const items = property['items'];
    if (isObject(items) && (items['type'] === 'object' || 'properties' in items)) return refuse('is an array of objects');
    if (isObject(items) && items['type'] !== undefined && items['type'] !== 'string') return refuse(`is an array of ${String(items['type'])}s (only a multi-select of string options is supported)`);
  }
  if (type === 'string' && ('enum' in property || 'oneOf' in property || 'anyOf' in property)) {
    const p = parsed(ChoiceProperty, property, name);
    const options: ElicitationOption[] = p.enum ? p.enum.map((value, i) => ({ value, label: p.enumNames?.[i] ?? value })) : (p.oneOf ?? p.anyOf)!.map((o) => ({ value: o.const, label: o.title }));
    return finish({ name, ...about(p), required, type: 'choice', options: capped(options, name) }, p.default);
  }
  if ('oneOf' in property || 'anyOf' in property) return refuse('combines schemas ("oneOf"/"anyOf") outside a string enum');
  if ('enum' in property && type !== 'string') return refuse(`is an enum of type ${JSON.stringify(type ?? null)} (only string options are supported)`);
  switch (type) {
    case 'string': {
      const p = parsed(StringProperty, property, name);
      // An unknown format (say "password") is still text: the server checks what it asked for.
      const format = FORMATS.find((f) => f === p.format);
      return finish({ name, ...about(p), required, type: 'string', ...(format ? { format } : {}), ...limits(p, 'minLength', 'maxLength') }, p.default);
    }
    case 'number':
    case 'integer': {
      const p = parsed(NumberProperty, property, name);
      return finish({ name, ...about(p), required, type: p.type, ...limits(p, 'minimum', 'maximum') }, p.default);
    }
    case 'boolean': {
      const p = parsed(BooleanProperty, property, name);
      return finish({ name, ...about(p), required, type: 'boolean' }, p.default);
    }
    case 'array': {
      const p = parsed(ChoicesProperty, property, name);
      const items = p.items as { enum?: string[]; anyOf?: v.InferOutput<typeof titled>[]; oneOf?: v.InferOutput<typeof titled>[] };
      const options = items.enum ? items.enum.map((value) => ({ value, label: value })) : (items.anyOf ?? items.oneOf)!.map((o) => ({ value: o.const, label: o.title }));
      return finish({ name, ...about(p), required, type: 'choices', options: capped(options, name), ...limits(p, 'minItems', 'maxItems') }, p.default);
    }
    default:
      return refuse(type === undefined ? 'has no "type"' : `has the type ${JSON.stringify(type)}`);
  }
}

function parsed<S extends v.GenericSchema>(schema: S, property: unknown, name: string): v.InferOutput<S> {
  const r = v.safeParse(schema, property);
  if (!r.success) throw new UnsupportedElicitationSchema(`the property "${name}" is not a valid form field (${issueText(r.issues)})`, name);
  return r.output;
}

function about(p: { title?: string | undefined; description?: string | undefined }) {
  return { ...(p.title ? { title: p.title } : {}), ...(p.description ? { description: p.description } : {}) };
}

function limits<K extends string>(p: Partial<Record<K, number | undefined>>, ...keys: K[]): Partial<Record<K, number>> {
  const out: Partial<Record<K, number>> = {};
  for (const k of keys) if (typeof p[k] === 'number') out[k] = p[k];
  return out;
}

function capped(options: ElicitationOption[], name: string): ElicitationOption[] {
  if (options.length > MAX_OPTIONS) throw new UnsupportedElicitationSchema(`the property "${name}" offers ${options.length} options; a form takes at most ${MAX_OPTIONS}`, name);
  return options;
}

/** Keeps the server's default only when the field itself would accept it: a bad default is dropped, not shown. */
function finish(field: ElicitationField, fallback: unknown): ElicitationField {
  if (fallback === undefined || problemOf(field, fallback) !== undefined) return field;
  return { ...field, default: fallback } as ElicitationField;
}

/**
 * The values the form starts with and that fill what the user leaves empty (SEP-1034), from the
 * parsed fields or from a server's raw requestedSchema (which throws UnsupportedElicitationSchema
 * when outside the subset).
 */
export function elicitationDefaults(schemaOrFields: readonly ElicitationField[] | unknown): Record<string, ElicitationValue> {
  const fields: readonly ElicitationField[] = Array.isArray(schemaOrFields) ? schemaOrFields : parseElicitationSchema(schemaOrFields);
  const out: Record<string, ElicitationValue> = {};
  for (const f of fields) if (f.default !== undefined) out[f.name] = Array.isArray(f.default) ? [...f.default] : f.default;
  return out;
}

export type ElicitationCheck = { ok: true; content: Record<string, ElicitationValue> } | { ok: false; problems: Record<string, ElicitationProblem> };

/**
 * The answer as the server gets it: empty fields take their default or are left out, and every
 * value is checked against its field. An empty value is undefined, '' or [] (a number field the
 * user cleared, a multi-select with nothing ticked).
 */
export function checkElicitationAnswer(fields: readonly ElicitationField[], values: Readonly<Record<string, unknown>>): ElicitationCheck {
  const content: Record<string, ElicitationValue> = {};
  const problems: Record<string, ElicitationProblem> = {};
  const known = new Set(fields.map((f) => f.name));
  for (const name of Object.keys(values)) if (!known.has(name) && !isEmpty(values[name])) problems[name] = { code: 'type' };
  for (const f of fields) {
    const raw = Object.hasOwn(values, f.name) ? values[f.name] : undefined;
    const value = isEmpty(raw) ? f.default : raw;
    if (isEmpty(value)) {
      if (f.required) problems[f.name] = { code: 'required' };
      continue;
    }
    const problem = problemOf(f, value);
    if (problem) problems[f.name] = problem;
    // A copy: the caller's array may be a UI framework's proxy, which a message cannot carry.
    else content[f.name] = (Array.isArray(value) ? [...value] : value) as ElicitationValue;
  }
  return Object.keys(problems).length ? { ok: false, problems } : { ok: true, content };
}

const isEmpty = (value: unknown) => value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0);

function problemOf(f: ElicitationField, value: unknown): ElicitationProblem | undefined {
  switch (f.type) {
    case 'string': {
      if (typeof value !== 'string') return { code: 'type' };
      // Characters as the user counts them, not UTF-16 units.
      const length = [...value].length;
      if (f.minLength !== undefined && length < f.minLength) return { code: 'too_short', limit: f.minLength };
      if (f.maxLength !== undefined && length > f.maxLength) return { code: 'too_long', limit: f.maxLength };
      if (f.format === 'email' && !EMAIL.test(value)) return { code: 'email' };
      if (f.format === 'uri' && !isUri(value)) return { code: 'uri' };
      if (f.format === 'date' && !isDate(value)) return { code: 'date' };
      if (f.format === 'date-time' && !isDateTime(value)) return { code: 'date_time' };
      return undefined;
    }
    case 'number':
    case 'integer':
      if (typeof value !== 'number' || !Number.isFinite(value)) return { code: 'type' };
      if (f.type === 'integer' && !Number.isInteger(value)) return { code: 'integer' };
      if (f.minimum !== undefined && value < f.minimum) return { code: 'too_small', limit: f.minimum };
      if (f.maximum !== undefined && value > f.maximum) return { code: 'too_large', limit: f.maximum };
      return undefined;
    case 'boolean':
      return typeof value === 'boolean' ? undefined : { code: 'type' };
    case 'choice':
      if (typeof value !== 'string') return { code: 'type' };
      return f.options.some((o) => o.value === value) ? undefined : { code: 'option' };
    case 'choices': {
      if (!Array.isArray(value) || !value.every((x) => typeof x === 'string')) return { code: 'type' };
      if (new Set(value).size !== value.length || !value.every((x) => f.options.some((o) => o.value === x))) return { code: 'option' };
      if (f.minItems !== undefined && value.length < f.minItems) return { code: 'too_few', limit: f.minItems };
      if (f.maxItems !== undefined && value.length > f.maxItems) return { code: 'too_many', limit: f.maxItems };
      return undefined;
    }
  }
}

/** Something@somewhere.tld: what a person types, not RFC 5322's every corner. */
const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;

function isUri(value: string): boolean {
  // An absolute URI: a scheme and something after it.
  if (!/^[a-z][a-z0-9+.-]*:\S+$/i.test(value)) return false;
  try {
    new URL(value);
    return true;
  } catch {
    return false;
  }
}

function isDate(value: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return false;
  const d = new Date(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!));
  // 2026-02-30 would roll over into March.
  return d.getUTCFullYear() === +m[1]! && d.getUTCMonth() === +m[2]! - 1 && d.getUTCDate() === +m[3]!;
}

function isDateTime(value: string): boolean {
  // RFC 3339: a date, a time, and a zone.
  const m = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.exec(value);
  return !!m && isDate(m[1]!) && +m[2]! < 24 && +m[3]! < 60 && +m[4]! < 61 && !Number.isNaN(Date.parse(value));
}

function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

function issueText(issues: readonly v.BaseIssue<unknown>[]): string {
  return issues
    .slice(0, 2)
    .map((i) => {
      const path = v.getDotPath(i);
      return path ? `"${path}": ${i.message}` : i.message;
    })
    .join('; ');
}
