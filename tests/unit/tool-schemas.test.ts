import type Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { fromOpenAITools, toOpenAITools } from '../../lib/agent/providers/tool-schemas';
import { createBuiltinRegistry } from '../../lib/tools';

/** A skill's hand-written input_schema: nested objects, enums, arrays of objects, optional fields. */
const skillSchema: Anthropic.Tool.InputSchema = {
  type: 'object',
  properties: {
    query: { type: 'string', minLength: 1, maxLength: 500, description: 'What to look for.' },
    mode: { type: 'string', enum: ['fast', 'thorough'] },
    filters: {
      type: 'object',
      properties: {
        since: { type: 'string', format: 'date' },
        tags: { type: 'array', items: { type: 'string', enum: ['news', 'docs', 'code'] }, maxItems: 5 },
        range: { type: 'object', properties: { min: { type: 'number' }, max: { type: 'number' } }, required: ['min'], additionalProperties: false },
      },
      additionalProperties: false,
    },
    rows: { type: 'array', items: { type: 'object', properties: { key: { type: 'string' }, value: { type: ['string', 'number', 'null'] } }, required: ['key'] } },
  },
  required: ['query'],
  additionalProperties: false,
};

describe('tool schemas between the Messages and Chat Completions formats', () => {
  const builtin = createBuiltinRegistry().modelTools();

  it('converts every built-in tool into a function tool with its schema unchanged, and back identically', () => {
    expect(builtin.length).toBeGreaterThanOrEqual(18);
    const openai = toOpenAITools(builtin);
    expect(openai).toHaveLength(builtin.length);
    openai.forEach((t, i) => {
      const src = builtin[i]!;
      expect(t.type).toBe('function');
      expect(t.function.name).toBe(src.name);
      expect(t.function.description).toBe(src.description);
      expect(t.function.parameters).toEqual(src.input_schema);
      expect(t.function.parameters).toMatchObject({ type: 'object', properties: expect.any(Object) });
      expect(t.function).not.toHaveProperty('strict');
    });
    // What goes on the wire survives JSON, and reads back as the registry wrote it.
    expect(fromOpenAITools(JSON.parse(JSON.stringify(openai)))).toEqual(builtin);
  });

  it("round-trips a skill's nested schema (objects, enums, arrays) identically", () => {
    const tools: Anthropic.Tool[] = [{ name: 'search_notes', description: 'Searches the notes.', input_schema: skillSchema }];
    const [fn] = toOpenAITools(tools);
    expect(fn).toEqual({ type: 'function', function: { name: 'search_notes', description: 'Searches the notes.', parameters: skillSchema } });
    expect(fromOpenAITools(JSON.parse(JSON.stringify([fn])))).toEqual(tools);
  });

  it('converts once per tool list: the same array gives the same result object', () => {
    const tools = builtin.slice();
    const first = toOpenAITools(tools);
    expect(toOpenAITools(tools)).toBe(first);
    expect(toOpenAITools(tools.slice())).not.toBe(first);
    expect(toOpenAITools(tools.slice())).toEqual(first);
  });

  it("drops cache_control and Anthropic's server tools, and makes every parameters an object schema", () => {
    const tools = [
      { name: 'a', description: 'A.', input_schema: { type: 'object', properties: { x: { type: 'string' } } }, cache_control: { type: 'ephemeral' } },
      { name: 'b', input_schema: { type: 'object' } },
      { name: 'c', input_schema: { properties: { y: { type: 'number' } } } },
      { name: 'd', input_schema: { type: 'string' } },
      { type: 'web_search_20250305', name: 'web_search' },
    ] as unknown as Anthropic.ToolUnion[];
    expect(toOpenAITools(tools)).toEqual([
      { type: 'function', function: { name: 'a', description: 'A.', parameters: { type: 'object', properties: { x: { type: 'string' } } } } },
      { type: 'function', function: { name: 'b', parameters: { type: 'object', properties: {} } } },
      { type: 'function', function: { name: 'c', parameters: { type: 'object', properties: { y: { type: 'number' } } } } },
      { type: 'function', function: { name: 'd', parameters: { type: 'object', properties: {} } } },
    ]);
  });
});
