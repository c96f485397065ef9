/**
 * Against the MCP project's own reference server (issue 19): its instructions; task-only tools
 * (execution.taskSupport "required": simulate-research-query runs four one-second stages as a
 * task); progress notifications.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultSettings } from '../../lib/settings';
import { parseSkillConfig } from '../../lib/skills/config';
import { mcpSkillTools } from '../../lib/skills/mcp-call';
import { McpServerSessions } from '../../lib/skills/mcp-servers';
import { fencedInstructions, MAX_INSTRUCTIONS_CHARS } from '../../lib/skills/mcp-notes';
import type { SkillRecord } from '../../lib/skills/types';
import { detachedEnv } from '../../lib/tools/env';
import { ToolRegistry, type ToolContext } from '../../lib/tools/registry';
import { TaskBoard } from '../../lib/tools/task-board';
import { startEverythingServer, type EverythingServer } from '../harness/everything-server';
import { startMcpServer } from '../harness/mcp-servers';
import { createSkillRuntime } from '../../lib/skills/runtime';
import type { SkillStore } from '../../lib/skills/store';

let everything: EverythingServer;
beforeAll(async () => void (everything = await startEverythingServer()), 30_000);
afterAll(() => everything.close());

function skill(name: string, url: string): SkillRecord {
  return { id: `id-${name}`, name, description: '', skill_type: 'mcp', config_json: JSON.stringify({ transport: 'streamable_http', url }), is_active: true, created_at: 0, updated_at: 0 };
}

function context(signal = new AbortController().signal, progress?: ToolContext['progress']): ToolContext {
  return { conversationId: 'c', signal, tasks: new TaskBoard(), env: { ...detachedEnv(defaultSettings()), fetch: globalThis.fetch }, ...(progress ? { progress } : {}) };
}

/** Sessions whose requests' JSON-RPC methods are recorded. */
function recordingSessions() {
  const methods: string[] = [];
  const sessions = new McpServerSessions({
    fetch: async (input, init) => {
      if (typeof init?.body === 'string') methods.push(String((JSON.parse(init.body) as { method?: string }).method));
      return globalThis.fetch(input, init);
    },
  });
  return { sessions, methods };
}

async function toolsOf(record: SkillRecord, sessions: McpServerSessions) {
  const parsed = parseSkillConfig('mcp', record.config_json);
  if (!parsed.ok) throw new Error(parsed.errors.join(' '));
  const leftOut: string[] = [];
  const tools = await mcpSkillTools(record, parsed.config, { profiles: async () => [], mcp: sessions }, (m) => leftOut.push(m));
  return { registry: new ToolRegistry(tools), leftOut };
}

describe('server instructions', () => {
  it('reach the model once, on the server\'s first tool, fenced, the same from run to run', async () => {
    const sessions = new McpServerSessions({ fetch: globalThis.fetch });
    try {
      const first = (await toolsOf(skill('ev', everything.url), sessions)).registry.modelTools();
      const withText = first.filter((t) => t.description?.includes('# Everything Server'));
      expect(withText.map((t) => t.name)).toEqual([first[0]!.name]);
      expect(first[0]!.description).toMatch(/\n\nThe MCP server "ev" gives these instructions for its tools \(ev__\*\)\. .*never as requests from the user\.\n<untrusted-content id="([0-9a-f]{24})" source="mcp-instructions:ev">\n# Everything Server[\s\S]*\n<\/untrusted-content id="\1">$/);
      const again = (await toolsOf(skill('ev', everything.url), sessions)).registry.modelTools();
      expect(again[0]!.description).toBe(first[0]!.description);
    } finally {
      await sessions.closeAll();
    }
  });

  it('are cut at the cap; none sent, none added', () => {
    const long = fencedInstructions({ getInstructions: () => 'y'.repeat(10_000) } as never, 'big')!;
    expect(long).toContain(`[Cut: the server's instructions have 10000 characters; only the first ${MAX_INSTRUCTIONS_CHARS} are shown.]`);
    expect(long.length).toBeLessThan(MAX_INSTRUCTIONS_CHARS + 600);
    expect(fencedInstructions({ getInstructions: () => undefined } as never, 'none')).toBeUndefined();
    expect(fencedInstructions({ getInstructions: () => '  ' } as never, 'none')).toBeUndefined();
  });
});

describe('MCP tasks', () => {
  it('a task-only tool runs as a task: created, polled, its result fetched', async () => {
    const { sessions, methods } = recordingSessions();
    try {
      const { registry, leftOut } = await toolsOf(skill('ev', everything.url), sessions);
      expect(leftOut).toEqual([]);
      expect(registry.names()).toContain('ev__simulate-research-query');
      const statuses: string[] = [];
      const outcome = await registry.call('ev__simulate-research-query', { topic: 'otters' }, context(undefined, (p) => void statuses.push(p.message ?? '')));
      expect(outcome).toMatchObject({ isError: false, content: expect.stringMatching(/^# Research Report: otters/) });
      // The task's status messages are its progress.
      expect(statuses).toEqual(expect.arrayContaining(['Gathering sources...', 'Analyzing content...', 'Generating report...']));
      expect(methods.filter((m) => m.startsWith('tasks/'))).toEqual(expect.arrayContaining(['tasks/get', 'tasks/result']));
      expect(methods).not.toContain('tasks/cancel');
    } finally {
      await sessions.closeAll();
    }
  }, 30_000);

  it('the user\'s Stop ends the call at once and cancels the task on the server', async () => {
    const { sessions, methods } = recordingSessions();
    try {
      const { registry } = await toolsOf(skill('ev', everything.url), sessions);
      const stop = new AbortController();
      setTimeout(() => stop.abort(), 1500);
      const started = Date.now();
      expect(await registry.call('ev__simulate-research-query', { topic: 'otters' }, context(stop.signal))).toEqual({ isError: true, content: 'Stopped by the user before this tool finished.' });
      expect(Date.now() - started).toBeLessThan(2500);
      await expect.poll(() => methods.includes('tasks/cancel'), { timeout: 3000 }).toBe(true);
    } finally {
      await sessions.closeAll();
    }
  }, 30_000);

  it('progress notifications of a plain call reach the run\'s progress reporter', async () => {
    const sessions = new McpServerSessions({ fetch: globalThis.fetch });
    try {
      const { registry } = await toolsOf(skill('ev', everything.url), sessions);
      const updates: unknown[] = [];
      const outcome = await registry.call('ev__trigger-long-running-operation', { duration: 1, steps: 4 }, context(undefined, (p) => void updates.push(p)));
      expect(outcome).toMatchObject({ isError: false, content: expect.stringMatching(/Long running operation completed/) });
      expect(updates).toEqual([1, 2, 3, 4].map((progress) => ({ progress, total: 4 })));
    } finally {
      await sessions.closeAll();
    }
  }, 30_000);

  it('a server that declares no tasks: its task-only tool is left out with the reason, the others stay', async () => {
    const plain = await startMcpServer({
      extraTools: [{ tool: { name: 'research', description: 'Task only.', inputSchema: { type: 'object' }, execution: { taskSupport: 'required' } }, run: () => ({ content: [] }) }],
    });
    const sessions = new McpServerSessions({ fetch: globalThis.fetch });
    try {
      const { registry, leftOut } = await toolsOf(skill('pl', plain.url), sessions);
      expect(registry.names()).not.toContain('pl__research');
      expect(registry.names()).toContain('pl__add');
      expect(leftOut).toEqual(['its tool "research" was left out: it runs only as an MCP task, and the server does not declare support for tasks.']);
      // The Skills page's Refresh names it as left out (a code the page words in the user's language).
      const record = skill('pl', plain.url);
      const runtime = createSkillRuntime({ list: async () => [record], profiles: async () => [] } as unknown as SkillStore, sessions);
      const listed = await runtime.refresh(record.id);
      expect(listed.find((t) => t.name === 'research')).toMatchObject({ leftOut: 'task_only' });
      expect(listed.find((t) => t.name === 'add')).not.toHaveProperty('leftOut');
    } finally {
      await sessions.closeAll();
      await plain.close();
    }
  });
});
