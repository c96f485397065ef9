/**
 * Tool definitions between the Messages API's form (name, description, input_schema) and Chat
 * Completions' (`{ type: 'function', function: { name, description, parameters } }`). The JSON
 * Schema itself is kept as the registry generated it: no strict mode, whose rules (every property
 * required, no optional fields, additionalProperties false everywhere) the schemas do not follow
 * and many compatible servers do not implement.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { ChatCompletionFunctionTool } from 'openai/resources/chat/completions';

type JsonSchema = Record<string, unknown>;

/** The loop passes the same array every round of a run: convert it once. */
const converted = new WeakMap<readonly Anthropic.ToolUnion[], ChatCompletionFunctionTool[]>();

export function toOpenAITools(tools: readonly Anthropic.ToolUnion[]): ChatCompletionFunctionTool[] {
  let out = converted.get(tools);
  if (!out) {
    // Anthropic's server tools (web search, code execution…) have no schema and run on
    // Anthropic's side: there is nothing to offer another provider for them.
    out = tools.filter(isCustomTool).map((t) => ({
      type: 'function' as const,
      function: {
        name: t.name,
        ...(t.description !== undefined ? { description: t.description } : {}),
        parameters: objectSchema(t.input_schema as JsonSchema),
      },
    }));
    converted.set(tools, out);
  }
  return out;
}

/** The inverse, for a tool list read back (and the round-trip test). */
export function fromOpenAITools(tools: readonly ChatCompletionFunctionTool[]): Anthropic.Tool[] {
  return tools.map(({ function: f }) => ({
    name: f.name,
    ...(f.description !== undefined ? { description: f.description } : {}),
    input_schema: (f.parameters ?? { type: 'object', properties: {} }) as Anthropic.Tool.InputSchema,
  }));
}

function isCustomTool(t: Anthropic.ToolUnion): t is Anthropic.Tool {
  return 'input_schema' in t && !!t.input_schema;
}

/**
 * Function parameters must be an object schema; OpenAI refuses one without `properties`. The
 * registry's schemas already are (the Messages API asks the same), so this adds only what is
 * missing and otherwise returns the schema itself.
 */
function objectSchema(schema: JsonSchema | undefined): JsonSchema {
  if (!schema || typeof schema !== 'object') return { type: 'object', properties: {} };
  const hasProperties = !!schema.properties && typeof schema.properties === 'object';
  if (schema.type === 'object' && hasProperties) return schema;
  if (schema.type === 'object' || (schema.type === undefined && hasProperties)) return { ...schema, type: 'object', properties: schema.properties ?? {} };
  // Not an object schema at all (a hand-written skill's): a call's input is an object anyway.
  return { type: 'object', properties: {} };
}
