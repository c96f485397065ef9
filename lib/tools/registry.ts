import type Anthropic from '@anthropic-ai/sdk';
import { toJsonSchema } from '@valibot/to-json-schema';
import * as v from 'valibot';
import type { CallDecision, CallTarget } from '../contracts/permissions';
import type { SubAgentType } from '../contracts/sub-agents';
import { availableTo, highestRisk, type RiskClass, type RiskScope, type ToolFacts, type ToolGate } from '../contracts/tools';
import { errorMessage, isModelFacing, ModelFacingError } from '../errors';
import { ResultWithImages, type ToolImage } from '../images';
import type { ToolProgress } from '../contracts/run-events';
import type { ToolEnv } from './env';
import type { TaskBoard } from './task-board';

export interface ToolContext {
  conversationId: string;
  /** The model's id for this call (tool_use id): sub-agents report their events under it. */
  toolUseId?: string;
  /** Aborted when the user stops the run; handlers pass it to anything slow they start. */
  signal: AbortSignal;
  tasks: TaskBoard;
  env: ToolEnv;
  /** The run's policy; absent where no user is behind the run (unit tests of tools, benchmarks). */
  gate?: ToolGate;
  /** The sub-agent making the call (its type or profile name), for the approval card. */
  subAgent?: string;
  /**
   * Tells the user how far the call has got (its card shows the latest); set by the agent loop
   * for each call, throttled there. Absent where no one watches (sub-agents, tests).
   */
  progress?: (update: ToolProgress) => void;
}

type AnySchema = v.GenericSchema<unknown, unknown>;

/** A tool: its facts (lib/tools/catalog.ts for the built-in ones), its schema and its handler. */
export interface ToolDefinition<S extends AnySchema = AnySchema> extends ToolFacts {
  description: string;
  input: S;
  /**
   * The JSON Schema the model sees, when it is not generated from `input`: a skill's own
   * input_schema (whose valibot form in `input` checks the arguments).
   */
  inputSchema?: Anthropic.Tool.InputSchema;
  /** Largest accepted input, as JSON text. Checked after validation, so an oversized field
   *  is reported by name when the schema limits it. */
  maxInputChars?: number;
  /**
   * The class of one call, from its validated input, for a tool whose calls differ (execute_script's
   * target, the sub-agent an agent call starts); at most `risk`. Without it every call has `risk`.
   */
  riskOf?(input: v.InferOutput<S>, scope: RiskScope): RiskClass | Promise<RiskClass>;
  /**
   * The sites one call reads, acts on or sends to, known before it runs (the tab's page, the URL
   * fetched, the server a skill calls): what the policy decides on and the approval card shows.
   */
  targets?(input: v.InferOutput<S>, ctx: ToolContext): CallTarget[] | Promise<CallTarget[]>;
  /**
   * For a tool with thirdPartyText: its result with the third-party parts fenced (the contract's
   * shape kept: get_tab_content fences `content`). Without it the whole result is fenced.
   */
  fenceResult?(result: unknown, fence: Fence, input: v.InferOutput<S>): unknown;
  run(input: v.InferOutput<S>, ctx: ToolContext): Promise<unknown> | unknown;
}

/**
 * An error a tool handler raises itself, with a message meant for the model (what went wrong and
 * what to do). Domain errors (lib/errors.ts's ModelFacingError) reach the model the same way.
 */
export class ToolError extends ModelFacingError<'tool'> {
  override name = 'ToolError';

  constructor(message: string, options?: { cause?: unknown }) {
    super('tool', message, options);
  }
}

export type Fence = (text: string, source?: string) => string;

/**
 * `text` fenced, within `max` characters in all when a limit is given (the contract's max_length
 * caps what the model receives, the fence included): the text is cut to make room.
 */
export function fenceWithin(fence: Fence, text: string, source: string | undefined, max: number | undefined): { text: string; cut: boolean } {
  const whole = fence(text, source);
  if (max === undefined || whole.length <= max) return { text: whole, cut: false };
  const room = Math.max(0, max - (whole.length - text.length));
  return { text: fence(text.slice(0, room), source), cut: true };
}

export const defineTool = <S extends AnySchema>(def: ToolDefinition<S>): ToolDefinition<S> => def;

export interface ToolOutcome {
  content: string;
  isError: boolean;
  /** Images the model sees after `content` (a screenshot): blocks of the tool_result, or on Chat Completions a user message after it. */
  images?: ToolImage[];
  /** How the policy decided a consequential call. */
  decision?: CallDecision;
}

const DEFAULT_MAX_INPUT_CHARS = 200_000;

/** What the loop dispatches tool calls through: the registry, or a sub-agent's cut of it. */
export interface ToolDispatcher {
  modelTools(): Anthropic.Tool[];
  /** What the tool `name` is; undefined when there is no such tool here. */
  facts(name: string): ToolFacts | undefined;
  /** The risk class of calling `name` with `rawInput`, known before the call runs; undefined when there is no such tool here. */
  riskOf(name: string, rawInput: unknown): Promise<RiskClass | undefined>;
  call(name: string, rawInput: unknown, ctx: ToolContext): Promise<ToolOutcome>;
}

export class ToolRegistry implements ToolDispatcher, RiskScope {
  private readonly tools = new Map<string, ToolDefinition>();
  private modelToolsCache: Anthropic.Tool[] | null = null;

  constructor(tools: readonly ToolDefinition<any>[]) {
    for (const t of tools) {
      if (this.tools.has(t.name)) throw new Error(`duplicate tool name ${t.name}`);
      this.tools.set(t.name, t as ToolDefinition);
    }
  }

  /** This registry's tools plus `extra` (a run's skills); throws on a duplicate name. */
  with(extra: readonly ToolDefinition<any>[]): ToolRegistry {
    return extra.length ? new ToolRegistry([...this.tools.values(), ...extra]) : this;
  }

  has(name: string): boolean {
    return this.tools.has(name);
  }

  facts(name: string): ToolFacts | undefined {
    return this.tools.get(name);
  }

  async riskOf(name: string, rawInput: unknown): Promise<RiskClass | undefined> {
    const tool = this.tools.get(name);
    if (!tool?.riskOf) return tool?.risk;
    const parsed = v.safeParse(tool.input, rawInput ?? {});
    // Invalid input is refused before the handler runs; the highest class is still the honest answer.
    return parsed.success ? tool.riskOf(parsed.output, this) : tool.risk;
  }

  subAgentRisk(type: SubAgentType, only?: readonly string[]): RiskClass {
    const cut = only?.length ? new Set(only) : undefined;
    return highestRisk([...this.tools.values()].filter((t) => availableTo(t, type) && (!cut || cut.has(t.name))).map((t) => t.risk));
  }

  names(): string[] {
    return [...this.tools.keys()];
  }

  /** The tool list the model sees: its JSON schemas are generated from the valibot schemas. */
  modelTools(): Anthropic.Tool[] {
    this.modelToolsCache ??= [...this.tools.values()].map((t) => ({
      name: t.name,
      description: t.description,
      input_schema: t.inputSchema ?? modelSchemaOf(t),
    }));
    return this.modelToolsCache;
  }

  async call(name: string, rawInput: unknown, ctx: ToolContext): Promise<ToolOutcome> {
    const tool = this.tools.get(name);
    if (!tool) {
      return fail(`Unknown tool "${name}". Available tools: ${this.names().join(', ')}.`);
    }
    const parsed = v.safeParse(tool.input, rawInput ?? {});
    if (!parsed.success) return fail(describeIssues(name, parsed.issues, tool.input));
    const size = JSON.stringify(rawInput ?? {}).length;
    const max = tool.maxInputChars ?? DEFAULT_MAX_INPUT_CHARS;
    if (size > max) {
      return fail(`Invalid arguments for ${name}: the input is ${size} characters; the limit is ${max}.`);
    }
    let decision: CallDecision | undefined;
    try {
      if (ctx.gate) {
        const verdict = await this.authorize(tool, parsed.output, ctx, ctx.gate);
        decision = verdict.decision;
        if (!verdict.allowed) return { ...fail(verdict.message ?? `${name} was not allowed.`), ...(decision ? { decision } : {}) };
      }
      let result = await tool.run(parsed.output, ctx);
      // The words are fenced and serialised; the images travel beside them as image blocks.
      const images = result instanceof ResultWithImages && result.images.length ? [...result.images] : undefined;
      if (result instanceof ResultWithImages) result = result.value;
      if (tool.thirdPartyText && ctx.gate) result = this.fenced(tool, result, ctx.gate, parsed.output);
      return { content: typeof result === 'string' ? result : JSON.stringify(result), isError: false, ...(images ? { images } : {}), ...(decision ? { decision } : {}) };
    } catch (e) {
      // A failing call of a remote tool may still have read what the server said (an error body).
      if (tool.thirdPartyText) ctx.gate?.taint();
      const withDecision = (o: ToolOutcome): ToolOutcome => (decision ? { ...o, decision } : o);
      if (ctx.signal.aborted) return withDecision(fail('Stopped by the user before this tool finished.'));
      // The one place domain errors become the model's error results.
      if (isModelFacing(e)) return withDecision(fail(e.message));
      return withDecision(fail(`${name} failed: ${errorMessage(e)}`));
    }
  }

  /** The policy's word on one call: the sites it touches, then the gate (which may ask the user). */
  private async authorize(tool: ToolDefinition, input: unknown, ctx: ToolContext, gate: ToolGate) {
    const risk = tool.riskOf ? await tool.riskOf(input, this) : tool.risk;
    const targets = tool.targets ? await tool.targets(input, ctx) : [];
    return gate.authorize(
      {
        tool: tool.name,
        risk,
        ...(tool.spawnsAgent ? { spawnsAgent: true } : {}),
        ...(tool.destructive ? { destructive: true } : {}),
        targets,
        input,
        ...(ctx.subAgent ? { subAgent: ctx.subAgent } : {}),
      },
      ctx.signal,
    );
  }

  private fenced(tool: ToolDefinition, result: unknown, gate: ToolGate, input: unknown): unknown {
    gate.taint();
    const fence = (text: string, source?: string) => gate.fence(text, source);
    if (tool.fenceResult) return tool.fenceResult(result, fence, input);
    return fence(typeof result === 'string' ? result : JSON.stringify(result));
  }
}

const fail = (content: string): ToolOutcome => ({ content, isError: true });

/** Built-in tools' schemas are generated once, not once per run's registry. */
const generated = new WeakMap<ToolDefinition, Anthropic.Tool.InputSchema>();
function modelSchemaOf(tool: ToolDefinition): Anthropic.Tool.InputSchema {
  let schema = generated.get(tool);
  if (!schema) generated.set(tool, (schema = toModelSchema(tool.input)));
  return schema;
}

function toModelSchema(schema: AnySchema): Anthropic.Tool.InputSchema {
  // Checks that JSON Schema cannot express (custom predicates) are still enforced by valibot.
  const { $schema: _ignored, ...json } = toJsonSchema(schema, { errorMode: 'ignore' }) as Record<string, unknown>;
  return { type: 'object', ...json } as Anthropic.Tool.InputSchema;
}

/** Turns valibot issues into one sentence per problem, naming the argument and what was expected. */
export function describeIssues(tool: string, issues: readonly v.BaseIssue<unknown>[], schema: AnySchema): string {
  const accepted = schema.type === 'object' || schema.type === 'strict_object'
    ? Object.keys((schema as unknown as v.ObjectSchema<v.ObjectEntries, undefined>).entries)
    : [];
  const lines = issues.slice(0, 5).map((issue) => {
    const path = issue.path?.map((p) => String(p.key)).join('.') ?? '';
    if (issue.input === undefined && path) {
      return `"${path}" is required (${expectation(issue)})`;
    }
    if (issue.type === 'strict_object' && path) {
      return `unknown argument "${path}"; accepted arguments: ${accepted.join(', ') || 'none'}`;
    }
    if (!path && (issue.type === 'object' || issue.type === 'strict_object')) {
      return `the input must be a JSON object with arguments ${accepted.join(', ') || '(none)'}`;
    }
    return `"${path}": ${issue.message}`;
  });
  return `Invalid arguments for ${tool}: ${lines.join('; ')}.`;
}

function expectation(issue: v.BaseIssue<unknown>): string {
  return issue.expected ? `expected ${issue.expected}` : issue.message;
}
