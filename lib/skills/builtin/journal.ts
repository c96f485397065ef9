/**
 * journal_write: the conversation's journal, one Markdown file in the workspace that grows by
 * timestamped entries. The UI links to it through journalPath.
 */
import * as v from 'valibot';
import { defineTool, ToolError, type ToolDefinition } from '../../tools/registry';
import { isWorkspaceError, type Workspace } from '../../workspace';
import { skillFacts } from '../facts';
import type { SkillRecord } from '../types';
import { skillDescription } from './common';

export const JOURNAL_DIR = 'journals';
export const JOURNAL_ENTRY_MAX_CHARS = 100_000;
/** Past this the file is no longer a journal anyone reads; the model is told to start summarising. */
export const JOURNAL_MAX_BYTES = 5 * 1024 * 1024;

/** Entry headings are what entries are counted by. */
const ENTRY_HEADING = /^## \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z(?: — .*)?$/gm;

/**
 * The workspace path of a conversation's journal ("/journals/<id>.md", the workspace's display
 * form). Characters a path may not hold are replaced, so any id gives a valid, stable path.
 */
export function journalPath(conversationId: string): string {
  const safe = conversationId.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 200) || 'conversation';
  return `/${JOURNAL_DIR}/${safe}.md`;
}

/** Entries in a journal's text. */
export const countJournalEntries = (markdown: string): number => markdown.match(ENTRY_HEADING)?.length ?? 0;

/** The Markdown of one entry, appended after what the file holds. */
export function journalEntry(at: Date, entry: string, title?: string): string {
  const heading = `## ${at.toISOString()}${title ? ` — ${title.replace(/\s+/g, ' ')}` : ''}`;
  return `\n${heading}\n\n${entry.replace(/\s+$/, '')}\n`;
}

/**
 * Calls of one reply run in parallel, and an append is a read and a write: without a queue per
 * file, two entries written at once would keep only one of them.
 */
const queues = new Map<string, Promise<unknown>>();
function serialised<T>(key: string, job: () => Promise<T>): Promise<T> {
  const previous = queues.get(key) ?? Promise.resolve();
  const next = previous.catch(() => {}).then(job);
  queues.set(key, next);
  void next.finally(() => {
    if (queues.get(key) === next) queues.delete(key);
  }).catch(() => {});
  return next;
}

export interface JournalWriteResult {
  path: string;
  /** Entries in the journal, this one included. */
  entries: number;
  /** The journal's size in bytes. */
  bytes: number;
}

/** Appends an entry to the journal of `conversationId`, creating the file with a heading first. */
export function appendJournalEntry(workspace: Workspace, conversationId: string, entry: string, title: string | undefined, now: Date = new Date()): Promise<JournalWriteResult> {
  const path = journalPath(conversationId);
  return serialised(path, async () => {
    let current = '';
    try {
      current = new TextDecoder().decode((await workspace.readBytes(path)).bytes);
    } catch (e) {
      if (!(isWorkspaceError(e) && e.code === 'not_found')) throw e;
      current = `# Journal\n\nConversation ${conversationId}, started ${now.toISOString()}.\n`;
    }
    const next = current + journalEntry(now, entry, title);
    const size = new TextEncoder().encode(next).length;
    if (size > JOURNAL_MAX_BYTES) {
      throw new ToolError(`The journal ${path} would grow past ${JOURNAL_MAX_BYTES / 1024 / 1024} MB. Write shorter entries, or summarise the journal into a new file with the workspace tools.`);
    }
    const written = await workspace.write(path, next, { decodeDataUrl: false });
    return { path: written.path, entries: countJournalEntries(next), bytes: written.size };
  });
}

const input = v.strictObject({
  entry: v.pipe(
    v.string('must be a string of Markdown'),
    v.trim(),
    v.nonEmpty('must not be empty'),
    v.maxLength(JOURNAL_ENTRY_MAX_CHARS, `must be at most ${JOURNAL_ENTRY_MAX_CHARS} characters`),
    v.description('The entry, in Markdown'),
  ),
  title: v.optional(v.pipe(v.string('must be a string'), v.trim(), v.maxLength(200, 'must be at most 200 characters'), v.description('A short title for the entry'))),
});

export function journalWriteTool(skill: SkillRecord): ToolDefinition<typeof input> {
  return defineTool({
    name: skill.name,
    ...skillFacts(skill, 'journal_write'),
    description: skillDescription(
      skill,
      "Write an entry in this conversation's journal.",
      'Appends entry (Markdown; optional title) under a timestamp heading to the journal file of this conversation in the workspace; returns {path, entries, bytes, workspace_file}.',
    ),
    maxInputChars: JOURNAL_ENTRY_MAX_CHARS + 2000,
    input,
    async run({ entry, title }, ctx) {
      try {
        const written = await appendJournalEntry(await ctx.env.workspace(), ctx.conversationId, entry, title || undefined);
        // workspace_file: the popup links the card to the journal on the management page.
        return { ...written, workspace_file: written.path };
      } catch (e) {
        if (isWorkspaceError(e)) throw new ToolError(`Could not write the journal: ${e.message}`);
        throw e;
      }
    },
  });
}
