/**
 * delegate_to_agent: hands a task to a saved agent profile. A local profile runs as a sub-agent
 * (its own prompt, model and tools); a remote one (a2a_url) receives the task as an A2A
 * JSON-RPC `message/send` and its Message or Task comes back as the answer.
 *
 * A2A: we send the v0.3 shapes (`kind` discriminators) that `message/send` servers accept, and
 * read both v0.3 results and v1.0 ones (no `kind`, `{task}`/`{message}` wrappers, TASK_STATE_*
 * enums), since a server may have moved on.
 */
import * as v from 'valibot';
import type { SubAgentRequest } from '../../contracts/sub-agents';
import { defineTool, ToolError, type ToolContext, type ToolDefinition } from '../../tools/registry';
import type { BuiltinConfig } from '../config';
import type { SkillServices } from '../services';
import { skillFacts } from '../facts';
import type { AgentProfile, SkillRecord } from '../types';
import { excerpt, isRecord, originOf, postForJson, skillDescription } from './common';

/** A remote agent may think for a while; a blocking message/send answers when it is done. */
export const A2A_TIMEOUT_MS = 5 * 60_000;
/** The most of a remote answer handed to the model. */
export const A2A_ANSWER_MAX_CHARS = 100_000;
const TASK_MAX_CHARS = 50_000;
const CONTEXT_MAX_CHARS = 100_000;

const text = (what: string, max: number) =>
  v.pipe(v.string('must be a string'), v.trim(), v.nonEmpty('must not be empty'), v.maxLength(max, `must be at most ${max} characters`), v.description(what));

const taskFields = {
  task: text('What the agent should do: a complete, self-contained request', TASK_MAX_CHARS),
  context: v.optional(v.pipe(v.string('must be a string'), v.trim(), v.maxLength(CONTEXT_MAX_CHARS, `must be at most ${CONTEXT_MAX_CHARS} characters`), v.description('Background the agent needs (facts, earlier results)'))),
};
const slug = v.pipe(v.string('must be a string'), v.trim(), v.nonEmpty('must not be empty'), v.maxLength(200, 'must be at most 200 characters'));

const openInput = v.strictObject({ to_agent_slug: v.pipe(slug, v.description('Slug of the agent to delegate to')), ...taskFields });
const fixedInput = v.strictObject({ to_agent_slug: v.optional(v.pipe(v.string('must be a string'), v.description('Ignored: this tool always delegates to the same agent'))), ...taskFields });

type DelegateInput = { to_agent_slug?: string; task: string; context?: string };

export async function delegateToAgentTool(skill: SkillRecord, config: BuiltinConfig, services: SkillServices): Promise<ToolDefinition<any>> {
  const fixed = config.to_agent_id;
  // The description names the agents as they are now; the call looks them up again.
  const profiles = await services.profiles().catch(() => [] as AgentProfile[]);
  let more: string;
  if (fixed) {
    const target = findProfile(profiles, fixed);
    more =
      `Delegates task (with optional context) to the agent ${target ? `"${target.name}" (${target.slug})` : `"${fixed}"`}` +
      `${target?.a2a_url ? ', a remote A2A agent' : ''} and returns its answer; to_agent_slug is not needed and is ignored.`;
  } else {
    const list = profiles
      .slice(0, 30)
      .map((p) => `${p.slug} ("${p.name}"${p.a2a_url ? ', remote' : ''})`)
      .join(', ');
    more = `Delegates task (with optional context) to the agent named by to_agent_slug and returns its answer. ${list ? `Agents: ${list}.` : 'No agents are saved yet.'}`;
  }
  const facts = skillFacts(skill, 'delegate_to_agent');
  const keyOf = (input: DelegateInput) => fixed ?? input.to_agent_slug ?? '';
  return defineTool({
    name: skill.name,
    ...facts,
    description: skillDescription(skill, 'Delegate a task to another agent.', more),
    maxInputChars: TASK_MAX_CHARS + CONTEXT_MAX_CHARS + 2000,
    input: fixed ? fixedInput : openInput,
    async riskOf(input: DelegateInput, scope) {
      const profile = findProfile(await services.profiles(), keyOf(input));
      // No such agent: the call is refused, unless one is saved by the time it runs.
      if (!profile) return facts.risk;
      return profile.a2a_url.trim() ? 'send_off_machine' : scope.subAgentRisk('general', profile.tools);
    },
    // A remote agent receives the task and its context: a send to its server. A local one runs
    // as a sub-agent whose every call meets the policy itself.
    async targets(input: DelegateInput) {
      const profile = findProfile(await services.profiles(), keyOf(input));
      const url = profile?.a2a_url.trim();
      return url ? [{ access: 'send' as const, url, preview: input.context ? `${input.task}\n\nContext:\n${input.context}` : input.task }] : [];
    },
    async run(input: DelegateInput, ctx) {
      const all = await services.profiles();
      const key = keyOf(input);
      const profile = findProfile(all, key);
      if (!profile) {
        const known = all.length ? `Known agents: ${all.map((p) => p.slug).join(', ')}.` : "No agent profiles are saved: the user can create them on Pagewright's management page.";
        throw new ToolError(
          fixed
            ? `This tool is set to delegate to the agent "${fixed}", which no longer exists. ${known} The skill's to_agent_id needs updating.`
            : `Unknown agent "${key}". ${known}`,
        );
      }
      const prompt = input.context ? `${input.task}\n\nContext:\n${input.context}` : input.task;
      return profile.a2a_url.trim() ? askRemoteAgent(profile, prompt, ctx) : runLocalAgent(profile, prompt, ctx);
    },
  });
}

/** By id, then by slug (exactly, then ignoring case). */
export function findProfile(profiles: readonly AgentProfile[], key: string): AgentProfile | undefined {
  const k = key.trim();
  return profiles.find((p) => p.id === k) ?? profiles.find((p) => p.slug === k) ?? profiles.find((p) => p.slug.toLowerCase() === k.toLowerCase());
}

async function runLocalAgent(profile: AgentProfile, prompt: string, ctx: ToolContext) {
  const request: SubAgentRequest = {
    prompt,
    description: `${profile.name}`.slice(0, 100),
    type: 'general',
    profile: {
      name: profile.name,
      system: profile.system_prompt,
      ...(profile.model.trim() ? { model: profile.model.trim() } : {}),
      ...(profile.provider ? { provider: profile.provider } : {}),
      ...(profile.tools.length ? { tools: profile.tools } : {}),
    },
  };
  // Sub-agents report their events under the call's id; a call without one still needs a key.
  const id = ctx.toolUseId ?? `delegate-${crypto.randomUUID()}`;
  const result = await ctx.env.subAgent(request, id, ctx.signal);
  return { agent: profile.slug, ...result };
}

// ---------- A2A ----------

/** The JSON-RPC request a remote agent receives (exported for tests and the e2e harness). */
export function a2aMessageSend(prompt: string, ids: { request: string; message: string } = { request: crypto.randomUUID(), message: crypto.randomUUID() }) {
  return {
    jsonrpc: '2.0' as const,
    id: ids.request,
    method: 'message/send',
    params: { message: { role: 'user', parts: [{ kind: 'text', text: prompt }], messageId: ids.message, kind: 'message' } },
  };
}

const FAILED_STATES = new Set(['failed', 'rejected', 'canceled']);

async function askRemoteAgent(profile: AgentProfile, prompt: string, ctx: ToolContext) {
  const url = profile.a2a_url.trim();
  const who = `the remote agent "${profile.name}" (${originOf(url)})`;
  const request = a2aMessageSend(prompt);
  const answer = await postForJson(
    ctx.env.fetch,
    url,
    { body: JSON.stringify(request), headers: { 'Content-Type': 'application/json', Accept: 'application/json' } },
    { who, timeoutMs: A2A_TIMEOUT_MS, signal: ctx.signal },
  );
  const body = answer.json;
  if (isRecord(body) && isRecord(body.error)) throw rpcError(who, body.error);
  if (!answer.ok) {
    const hint = answer.status === 404 || answer.status === 405 ? ' Check the A2A URL on the agent profile: it must be the JSON-RPC endpoint (the "url" of the agent card).' : answer.status >= 500 ? ' The agent failed: try again later.' : '';
    throw new ToolError(`${capitalise(who)} answered HTTP ${answer.status}: ${excerpt(answer.text)}.${hint}`);
  }
  if (body === undefined) {
    throw new ToolError(`${capitalise(who)} answered with something that is not JSON: ${excerpt(answer.text)}. Is the profile's A2A URL the agent's JSON-RPC endpoint?`);
  }
  if (!isRecord(body) || !('result' in body)) {
    throw new ToolError(`${capitalise(who)} answered JSON that is not a JSON-RPC 2.0 response (no "result" or "error"): ${excerpt(answer.text)}.`);
  }
  let result = body.result;
  if (isRecord(result) && isRecord(result.task)) result = result.task;
  else if (isRecord(result) && isRecord(result.message)) result = result.message;
  if (!isRecord(result)) throw new ToolError(`${capitalise(who)} returned a result that is neither an A2A Message nor a Task: ${excerpt(JSON.stringify(result ?? null))}.`);

  const isTask = result.kind === 'task' || (result.kind === undefined && isRecord(result.status));
  const isMessage = result.kind === 'message' || (result.kind === undefined && Array.isArray(result.parts));
  if (isMessage && !isTask) {
    return { agent: profile.slug, remote: true, ...capped(partsText(result.parts)) };
  }
  if (!isTask) throw new ToolError(`${capitalise(who)} returned a result that is neither an A2A Message nor a Task: ${excerpt(JSON.stringify(result))}.`);

  const status = isRecord(result.status) ? result.status : {};
  const state = normaliseState(status.state);
  const statusText = isRecord(status.message) ? partsText(status.message.parts) : '';
  const artifacts = Array.isArray(result.artifacts) ? result.artifacts.filter(isRecord) : [];
  const artifactText = artifacts
    .map((a) => {
      const t = partsText(a.parts);
      return artifacts.length > 1 && typeof a.name === 'string' && a.name && t ? `## ${a.name}\n\n${t}` : t;
    })
    .filter(Boolean)
    .join('\n\n');
  const taskId = typeof result.id === 'string' ? result.id : undefined;

  if (FAILED_STATES.has(state)) {
    const verb = state === 'rejected' ? 'rejected the task' : state === 'canceled' ? 'canceled the task' : 'failed at the task';
    throw new ToolError(`${capitalise(who)} ${verb} (task state "${state}")${statusText ? `: ${statusText}` : '.'}${artifactText ? `\nWhat it produced:\n${artifactText}` : ''}`);
  }
  const base = { agent: profile.slug, remote: true, state, ...(taskId ? { task_id: taskId } : {}) };
  if (state === 'completed') {
    const text = artifactText || statusText || lastAgentMessage(result.history);
    return { ...base, ...capped(text), ...(text ? {} : { note: 'The agent completed the task but returned no text.' }) };
  }
  const note =
    state === 'input-required'
      ? 'The agent needs more input before it can finish (task state "input-required"); its question is in answer. This tool cannot continue the task: ask the user, then delegate again with the missing details.'
      : state === 'auth-required'
        ? 'The agent needs authentication before it can finish (task state "auth-required"); the user has to arrange it with that agent.'
        : `The agent answered before finishing (task state "${state}"); answer holds what it had so far.`;
  return { ...base, ...capped([statusText, artifactText].filter(Boolean).join('\n\n')), note };
}

function rpcError(who: string, error: Record<string, unknown>): ToolError {
  const code = typeof error.code === 'number' ? error.code : undefined;
  const message = typeof error.message === 'string' ? error.message : 'no message';
  const data = error.data === undefined ? '' : ` (${excerpt(typeof error.data === 'string' ? error.data : JSON.stringify(error.data), 300)})`;
  const hint =
    code === -32601
      ? ' The endpoint does not offer message/send: check that the profile\'s A2A URL is the agent\'s JSON-RPC endpoint.'
      : code === -32700 || code === -32600 || code === -32602
        ? ' The agent did not accept the request as A2A message/send; it may speak another protocol version.'
        : '';
  return new ToolError(`${capitalise(who)} answered with JSON-RPC error${code !== undefined ? ` ${code}` : ''}: ${message}${data}.${hint}`);
}

/** "TASK_STATE_INPUT_REQUIRED" (v1.0), "input_required", "input-required" → "input-required". */
function normaliseState(state: unknown): string {
  if (typeof state !== 'string' || !state) return 'unknown';
  const s = state.replace(/^TASK_STATE_/i, '').toLowerCase().replace(/_/g, '-');
  return s === 'cancelled' ? 'canceled' : s;
}

/** The text of A2A parts: text parts as they are, data parts as JSON, files by name and address. */
export function partsText(parts: unknown): string {
  if (!Array.isArray(parts)) return '';
  return parts
    .filter(isRecord)
    .map((p) => {
      if (typeof p.text === 'string' && (p.kind === undefined || p.kind === 'text')) return p.text;
      if ('data' in p && (p.kind === undefined || p.kind === 'data')) return JSON.stringify(p.data, null, 2);
      const file = isRecord(p.file) ? p.file : p;
      const name = typeof file.name === 'string' ? file.name : typeof file.filename === 'string' ? file.filename : 'file';
      const where = typeof file.uri === 'string' ? file.uri : typeof file.url === 'string' ? file.url : '';
      return p.kind === 'file' || isRecord(p.file) || 'url' in p || 'raw' in p ? `[file: ${name}${where ? ` ${where}` : ''}]` : '';
    })
    .filter(Boolean)
    .join('\n');
}

function lastAgentMessage(history: unknown): string {
  if (!Array.isArray(history)) return '';
  const agent = history.filter(isRecord).filter((m) => m.role === 'agent' || m.role === 'ROLE_AGENT');
  return agent.length ? partsText(agent[agent.length - 1]!.parts) : '';
}

function capped(text: string): { answer: string; truncated?: true } {
  return text.length > A2A_ANSWER_MAX_CHARS ? { answer: text.slice(0, A2A_ANSWER_MAX_CHARS), truncated: true } : { answer: text };
}

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
