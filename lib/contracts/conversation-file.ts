/**
 * A contract: a conversation as a file — what export writes, import reads, and the limits both
 * the page choosing a file and the background parsing it check. lib/agent/conversation-export.ts
 * implements the format.
 */
import type { ConversationSummary } from './conversation';

export const CONVERSATION_FILE_FORMAT = 'pagewright-conversation';
export const CONVERSATION_FILE_VERSION = 1;

/**
 * The largest file import reads. Checked on the file's size before it is read, and on the text
 * in the background. Chrome carries a message of at most 64 MiB of JSON, and a file's text grows
 * as it is quoted into one (every `"` and newline escaped): 25 MiB stays under it.
 */
export const MAX_IMPORT_BYTES = 25 * 1024 * 1024;
/** At most this many conversations in one file. */
export const MAX_IMPORT_CONVERSATIONS = 10_000;

export type ExportFormat = 'markdown' | 'json';

/** A file for the UI to download. */
export interface ExportFile {
  name: string;
  type: string;
  text: string;
}

/** A conversation in the management page's list; `snippet` shows where a search found it. */
export interface ConversationMatch extends ConversationSummary {
  snippet?: string;
}

export type ImportResult = { ok: true; imported: ConversationSummary[] } | { ok: false; error: string };
