import { describe, expect, it } from 'vitest';
import { checkElicitationAnswer, elicitationDefaults, parseElicitationSchema, UnsupportedElicitationSchema } from '../../lib/skills/mcp-elicitation';

/** The form server-everything's trigger-elicitation-request sends (every kind the spec has). */
const EVERYTHING_FORM = {
  type: 'object',
  properties: {
    name: { title: 'String', type: 'string', description: 'Your full, legal name' },
    check: { title: 'Boolean', type: 'boolean' },
    firstLine: { type: 'string', default: 'It was a dark and stormy night.' },
    email: { type: 'string', format: 'email' },
    homepage: { type: 'string', format: 'uri' },
    birthdate: { type: 'string', format: 'date' },
    integer: { type: 'integer', minimum: 1, maximum: 100, default: 42 },
    number: { type: 'number', minimum: 0, maximum: 1000, default: 3.14 },
    untitled: { type: 'string', enum: ['Monica', 'Rachel'], default: 'Monica' },
    untitledMulti: { type: 'array', minItems: 1, maxItems: 3, items: { type: 'string', enum: ['Guitar', 'Piano', 'Violin', 'Drums'] }, default: ['Guitar'] },
    titled: { type: 'string', oneOf: [{ const: 'hero-1', title: 'Superman' }, { const: 'hero-2', title: 'Green Lantern' }], default: 'hero-1' },
    titledMulti: { type: 'array', items: { anyOf: [{ const: 'fish-1', title: 'Tuna' }, { const: 'fish-2', title: 'Salmon' }] }, default: ['fish-1'] },
    legacy: { type: 'string', enum: ['pet-1', 'pet-2'], enumNames: ['Cats', 'Dogs'], default: 'pet-1' },
    when: { type: 'string', format: 'date-time' },
  },
  required: ['name'],
};

describe('parseElicitationSchema', () => {
  it('reads every field kind of the spec, in order, with titles, limits, options and defaults', () => {
    const fields = parseElicitationSchema(EVERYTHING_FORM);
    expect(fields.map((f) => [f.name, f.type, f.required])).toEqual([
      ['name', 'string', true],
      ['check', 'boolean', false],
      ['firstLine', 'string', false],
      ['email', 'string', false],
      ['homepage', 'string', false],
      ['birthdate', 'string', false],
      ['integer', 'integer', false],
      ['number', 'number', false],
      ['untitled', 'choice', false],
      ['untitledMulti', 'choices', false],
      ['titled', 'choice', false],
      ['titledMulti', 'choices', false],
      ['legacy', 'choice', false],
      ['when', 'string', false],
    ]);
    expect(fields[0]).toEqual({ name: 'name', title: 'String', description: 'Your full, legal name', required: true, type: 'string' });
    expect(fields[3]).toMatchObject({ format: 'email' });
    expect(fields[6]).toEqual({ name: 'integer', required: false, type: 'integer', minimum: 1, maximum: 100, default: 42 });
    expect(fields[9]).toMatchObject({ minItems: 1, maxItems: 3, options: [{ value: 'Guitar', label: 'Guitar' }, expect.anything(), expect.anything(), expect.anything()], default: ['Guitar'] });
    expect(fields[10]).toMatchObject({ options: [{ value: 'hero-1', label: 'Superman' }, { value: 'hero-2', label: 'Green Lantern' }] });
    expect(fields[11]).toMatchObject({ options: [{ value: 'fish-1', label: 'Tuna' }, { value: 'fish-2', label: 'Salmon' }] });
    expect(fields[12]).toMatchObject({ options: [{ value: 'pet-1', label: 'Cats' }, { value: 'pet-2', label: 'Dogs' }] });
    expect(fields[13]).toMatchObject({ format: 'date-time' });
  });

  it('keeps harmless extras (an unknown format is text) and drops a default the field would refuse', () => {
    const fields = parseElicitationSchema({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: {
        secret: { type: 'string', format: 'password', 'x-hint': 1 },
        size: { type: 'integer', maximum: 5, default: 9 },
        pick: { type: 'string', enum: ['a', 'b'], default: 'c' },
        flag: { type: 'boolean', default: 'yes' },
      },
    });
    expect(fields[0]).toEqual({ name: 'secret', required: false, type: 'string' });
    expect(fields.map((f) => f.default)).toEqual([undefined, undefined, undefined, undefined]);
    expect(parseElicitationSchema({ type: 'object', properties: {} })).toEqual([]);
  });

  const refused: [string, unknown, RegExp, string | undefined][] = [
    ['a nested object', { type: 'object', properties: { address: { type: 'object', properties: { city: { type: 'string' } } } } }, /"address" is a nested object/, 'address'],
    ['an array of objects', { type: 'object', properties: { people: { type: 'array', items: { type: 'object', properties: {} } } } }, /"people" is an array of objects/, 'people'],
    ['an array of numbers', { type: 'object', properties: { n: { type: 'array', items: { type: 'number' } } } }, /"n" is an array of numbers/, 'n'],
    ['a free array of strings', { type: 'array' as const, properties: {} }, /not a flat object schema/, undefined],
    ['an array of strings without options', { type: 'object', properties: { tags: { type: 'array', items: { type: 'string' } } } }, /"tags" is not a valid form field/, 'tags'],
    ['a $ref', { type: 'object', properties: { who: { $ref: '#/$defs/person' } } }, /"who" uses "\$ref"/, 'who'],
    ['$defs at the top', { type: 'object', $defs: { a: {} }, properties: {} }, /uses "\$defs"/, undefined],
    ['allOf', { type: 'object', properties: { x: { allOf: [{ type: 'string' }] } } }, /"x" uses "allOf"/, 'x'],
    ['oneOf of types', { type: 'object', properties: { x: { oneOf: [{ type: 'string' }, { type: 'number' }] } } }, /"x" combines schemas/, 'x'],
    ['a union type', { type: 'object', properties: { x: { type: ['string', 'null'] } } }, /"x" has several types/, 'x'],
    ['no type', { type: 'object', properties: { x: { description: 'anything' } } }, /"x" has no "type"/, 'x'],
    ['type null', { type: 'object', properties: { x: { type: 'null' } } }, /"x" has the type "null"/, 'x'],
    ['a number enum', { type: 'object', properties: { x: { type: 'number', enum: [1, 2] } } }, /"x" is an enum of type "number"/, 'x'],
    ['a bad minLength', { type: 'object', properties: { x: { type: 'string', minLength: -1 } } }, /"x" is not a valid form field \("minLength"/, 'x'],
    ['an empty enum', { type: 'object', properties: { x: { type: 'string', enum: [] } } }, /"x" is not a valid form field/, 'x'],
    ['a property that is not a schema', { type: 'object', properties: { x: true } }, /"x" is not a schema object/, 'x'],
    ['required naming nothing', { type: 'object', properties: {}, required: ['ghost'] }, /"required" names "ghost"/, 'ghost'],
    ['no properties', { type: 'object' }, /not a flat object schema/, undefined],
    ['not an object', 'form', /not a flat object schema/, undefined],
  ];
  it.each(refused)('refuses %s, naming the property', (_what, schema, message, property) => {
    let error: unknown;
    try {
      parseElicitationSchema(schema);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UnsupportedElicitationSchema);
    expect((error as Error).message).toMatch(message);
    expect((error as UnsupportedElicitationSchema).property).toBe(property);
  });

  it('refuses a form too large for a card', () => {
    const properties = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`f${i}`, { type: 'string' }]));
    expect(() => parseElicitationSchema({ type: 'object', properties })).toThrow(/51 properties; a form takes at most 50/);
    const many = Array.from({ length: 201 }, (_, i) => `o${i}`);
    expect(() => parseElicitationSchema({ type: 'object', properties: { x: { type: 'string', enum: many } } })).toThrow(/201 options/);
  });
});

describe('elicitationDefaults', () => {
  it('gives every default the schema sets (the conformance scenario elicitation-sep1034-client-defaults)', () => {
    const fields = parseElicitationSchema({
      type: 'object',
      properties: {
        name: { type: 'string', default: 'John Doe' },
        age: { type: 'integer', default: 30 },
        score: { type: 'number', default: 95.5 },
        status: { type: 'string', enum: ['active', 'inactive', 'pending'], default: 'active' },
        verified: { type: 'boolean', default: true },
        note: { type: 'string' },
      },
      required: [],
    });
    expect(elicitationDefaults(fields)).toEqual({ name: 'John Doe', age: 30, score: 95.5, status: 'active', verified: true });
    // The raw requestedSchema works too (the conformance driver has no parsed fields).
    expect(elicitationDefaults({ type: 'object', properties: { n: { type: 'integer', default: 30 } } })).toEqual({ n: 30 });
    expect(() => elicitationDefaults({ type: 'object', properties: { o: { type: 'object' } } })).toThrow(UnsupportedElicitationSchema);
  });
});

describe('checkElicitationAnswer', () => {
  const fields = parseElicitationSchema(EVERYTHING_FORM);

  it('fills what the user left empty with the defaults and leaves out the rest', () => {
    const r = checkElicitationAnswer(fields, { name: 'Ada Lovelace', integer: undefined, number: '', untitledMulti: [], email: '' });
    expect(r).toEqual({
      ok: true,
      content: { name: 'Ada Lovelace', firstLine: 'It was a dark and stormy night.', integer: 42, number: 3.14, untitled: 'Monica', untitledMulti: ['Guitar'], titled: 'hero-1', titledMulti: ['fish-1'], legacy: 'pet-1' },
    });
  });

  it('takes well-formed values of every kind', () => {
    const r = checkElicitationAnswer(fields, {
      name: 'Ada',
      check: false,
      email: 'ada@example.org',
      homepage: 'https://ada.example/',
      birthdate: '1815-12-10',
      integer: 7,
      number: 0,
      untitledMulti: ['Piano', 'Drums'],
      titled: 'hero-2',
      when: '2026-12-05T10:30:00+01:00',
    });
    expect(r.ok && r.content).toMatchObject({ check: false, integer: 7, number: 0, untitledMulti: ['Piano', 'Drums'], titled: 'hero-2', when: '2026-12-05T10:30:00+01:00' });
  });

  it('names each field that does not fit, and why', () => {
    const r = checkElicitationAnswer(fields, {
      email: 'not-an-email',
      homepage: 'ada.example',
      birthdate: '2026-02-30',
      integer: 2.5,
      number: 1001,
      untitled: 'Joey',
      untitledMulti: ['Guitar', 'Piano', 'Violin', 'Drums'],
      check: 'yes',
      when: '2026-12-05 10:30',
      stranger: 'x',
    });
    expect(r).toEqual({
      ok: false,
      problems: {
        name: { code: 'required' },
        email: { code: 'email' },
        homepage: { code: 'uri' },
        birthdate: { code: 'date' },
        integer: { code: 'integer' },
        number: { code: 'too_large', limit: 1000 },
        untitled: { code: 'option' },
        untitledMulti: { code: 'too_many', limit: 3 },
        check: { code: 'type' },
        when: { code: 'date_time' },
        stranger: { code: 'type' },
      },
    });
    const short = parseElicitationSchema({ type: 'object', properties: { s: { type: 'string', minLength: 3, maxLength: 4 }, n: { type: 'number', minimum: 1 }, m: { type: 'array', minItems: 2, items: { type: 'string', enum: ['a', 'b'] } } } });
    expect(checkElicitationAnswer(short, { s: 'ab', n: 0, m: ['a'] })).toEqual({ ok: false, problems: { s: { code: 'too_short', limit: 3 }, n: { code: 'too_small', limit: 1 }, m: { code: 'too_few', limit: 2 } } });
    expect(checkElicitationAnswer(short, { s: 'abcde', n: Number.NaN, m: ['a', 'a'] })).toEqual({ ok: false, problems: { s: { code: 'too_long', limit: 4 }, n: { code: 'type' }, m: { code: 'option' } } });
    // Characters, not UTF-16 units: three emoji are three.
    expect(checkElicitationAnswer(short, { s: '😀😀😀' }).ok).toBe(true);
  });
});
