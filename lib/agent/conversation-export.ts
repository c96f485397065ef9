/**
 * A conversation as a file: Markdown for people to read, JSON (a versioned envelope) to keep
 * and import again. Pure: the background reads the store and hands the text to the UI.
 */
import * as v from 'valibot';
import type Anthropic from '@anthropic-ai/sdk';
import { MAX_SELECTION_CHARS, type Conversation, type ContextView, type ConversationTotals, type RunError, type RunState, type RunStatus, type StoredMessage, type TokenUsage } from '../contracts/conversation';
import {
  CONVERSATION_FILE_FORMAT,
  CONVERSATION_FILE_VERSION,
  MAX_IMPORT_BYTES,
  MAX_IMPORT_CONVERSATIONS,
  type ExportFile,
} from '../contracts/conversation-file';
import type { CallDecision, PolicyRule } from '../contracts/permissions';
import { IMAGE_MEDIA_TYPES, resultImages, resultWords } from '../images';

// ---------------------------------------------------------------------------------------------
// JSON

interface Envelope {
  format: typeof CONVERSATION_FILE_FORMAT;
  version: typeof CONVERSATION_FILE_VERSION;
  exportedAt: string;
}

export function toJson(conversation: Conversation, now = new Date()): string {
  return JSON.stringify({ ...envelope(now), conversation }, null, 2);
}

/** "Export all": one file with every conversation. */
export function toJsonAll(conversations: readonly Conversation[], now = new Date()): string {
  return JSON.stringify({ ...envelope(now), conversations }, null, 2);
}

const envelope = (now: Date): Envelope => ({ format: CONVERSATION_FILE_FORMAT, version: CONVERSATION_FILE_VERSION, exportedAt: now.toISOString() });

const nonEmpty = v.pipe(v.string(), v.minLength(1, 'must not be empty'));
const count = v.pipe(v.number(), v.integer('expected a whole number'), v.minValue(0, 'expected a number of 0 or more'));
const amount = v.pipe(v.number(), v.finite('expected a number'), v.minValue(0, 'expected a number of 0 or more'));
const time = amount;

const TextBlock = v.object({ type: v.literal('text'), text: v.string() });
const ToolUseBlock = v.object({
  type: v.literal('tool_use'),
  id: nonEmpty,
  name: nonEmpty,
  // Any JSON value the model sent; only its absence is wrong.
  input: v.custom<unknown>((x) => x !== undefined, 'missing'),
});
/** A tool's image (a screenshot), base64 as the Messages API takes it; files from before images have none. */
const ImageBlock = v.object({
  type: v.literal('image'),
  source: v.object({
    type: v.literal('base64'),
    media_type: v.picklist(IMAGE_MEDIA_TYPES, `expected one of ${IMAGE_MEDIA_TYPES.join(', ')}`),
    data: v.pipe(v.string(), v.regex(/^[A-Za-z0-9+/]+={0,2}$/, 'expected base64 data')),
  }),
});
const ResultPart = v.variant('type', [TextBlock, ImageBlock], 'expected text or image');
const ToolResultBlock = v.object({
  type: v.literal('tool_result'),
  tool_use_id: nonEmpty,
  content: v.optional(v.union([v.string(), v.array(ResultPart)], 'expected text or a list of text and image blocks')),
  is_error: v.optional(v.boolean()),
});
const Block = v.variant('type', [TextBlock, ToolUseBlock, ToolResultBlock], 'expected text, tool_use or tool_result');

const POLICY_RULES = [
  'tool_allow', 'tool_block', 'site_allow', 'site_block', 'mode_act', 'active_tab', 'user_named',
  'approved_destination', 'approved_in_conversation', 'local_files', 'default',
] as const satisfies readonly PolicyRule[];
const Decision = v.object({
  outcome: v.picklist(['allowed', 'denied', 'blocked']),
  by: v.picklist(['rule', 'user', 'timeout', 'stopped']),
  rule: v.optional(v.picklist(POLICY_RULES)),
  choice: v.optional(v.picklist(['once', 'always', 'deny'])),
  site: v.optional(v.string()),
  reason: v.optional(v.picklist(['site', 'tool_rule', 'exfiltration', 'irreversible', 'destructive'])),
});

const ActiveTab = v.object({
  id: v.pipe(v.number(), v.integer('expected a whole number')),
  url: v.string(),
  title: v.string(),
  selection: v.optional(v.pipe(v.string(), v.maxLength(MAX_SELECTION_CHARS, `longer than ${MAX_SELECTION_CHARS} characters`))),
  fence: v.optional(v.pipe(v.string(), v.regex(/^[0-9a-f]{24}$/, 'expected the 24 hex digits of a fence marker'))),
});

const Message = v.object({
  role: v.picklist(['user', 'assistant']),
  content: v.pipe(v.array(Block), v.minLength(1, 'a message has at least one block')),
  at: time,
  incomplete: v.optional(v.literal(true)),
  decisions: v.optional(v.record(v.string(), Decision)),
  activeTab: v.optional(ActiveTab),
});

const Usage = v.object({ input: count, output: count, cacheRead: count, cacheWrite: count });
const RUN_STATUSES = ['idle', 'running', 'retrying', 'awaiting_continue', 'interrupted', 'stopped', 'error', 'done'] as const satisfies readonly RunStatus[];
const ErrorSchema = v.object({
  kind: v.picklist(['auth', 'bad_request', 'not_found', 'network', 'stream', 'config', 'loop', 'other']),
  message: v.string(),
  status: v.optional(count),
});
const Run = v.object({
  status: v.picklist(RUN_STATUSES),
  round: count,
  roundCap: count,
  usage: Usage,
  cost: v.optional(amount),
  unpricedTokens: v.optional(count),
  pause: v.optional(v.picklist(['round_cap', 'token_budget', 'cost_budget'])),
  error: v.optional(ErrorSchema),
  retry: v.optional(v.object({ at: time, attempt: count, maxAttempts: count, reason: v.string() })),
  startedAt: v.optional(time),
  endedAt: v.optional(time),
});
const Context = v.object({
  elidedBefore: count,
  compaction: v.optional(v.object({ through: count, note: v.string(), at: time })),
});
const Totals = v.object({ usage: Usage, cost: amount, unpricedTokens: count });

const ConversationSchema = v.object({
  id: nonEmpty,
  title: v.pipe(v.string(), v.maxLength(200, 'longer than 200 characters')),
  createdAt: time,
  updatedAt: time,
  messages: v.array(Message),
  run: Run,
  context: v.optional(Context),
  totals: v.optional(Totals),
});

// The schemas name every field of the contracts: a field added there without a schema here
// would be dropped on import without a word, so it fails the type check instead.
type SameKeys<A, B> = [Exclude<keyof A, keyof B>, Exclude<keyof B, keyof A>] extends [never, never] ? true : never;
type Out<S extends v.GenericSchema> = v.InferOutput<S>;
const keysMatch: [
  SameKeys<Out<typeof ConversationSchema>, Conversation>,
  SameKeys<Out<typeof Message>, StoredMessage>,
  SameKeys<Out<typeof ActiveTab>, NonNullable<StoredMessage['activeTab']>>,
  SameKeys<Out<typeof Decision>, CallDecision>,
  SameKeys<Out<typeof Run>, RunState>,
  SameKeys<Out<typeof ErrorSchema>, RunError>,
  SameKeys<Out<typeof Usage>, TokenUsage>,
  SameKeys<Out<typeof Context>, ContextView>,
  SameKeys<Out<typeof Totals>, ConversationTotals>,
  [PolicyRule] extends [(typeof POLICY_RULES)[number]] ? true : never,
  [RunStatus] extends [(typeof RUN_STATUSES)[number]] ? true : never,
] = [true, true, true, true, true, true, true, true, true, true, true];
void keysMatch;

export type ImportParse = { ok: true; conversations: Conversation[] } | { ok: false; error: string };

/**
 * Reads an exported file: one conversation or many. A bad file is refused whole, with the first
 * problem named by its path ("conversation.messages[3].content[0].type: expected text, tool_use
 * or tool_result"). Runs come in finished: nothing imported is running.
 */
export function parseImport(text: string): ImportParse {
  // Characters never outnumber UTF-8 bytes, so a text this long is surely too big to take.
  if (text.length > MAX_IMPORT_BYTES) return { ok: false, error: tooBig(text.length) };
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    return { ok: false, error: `The file is not JSON (${e instanceof Error ? e.message : String(e)}).` };
  }
  if (!data || typeof data !== 'object' || Array.isArray(data)) return { ok: false, error: 'The file is not a Pagewright conversation export: expected a JSON object.' };
  const file = data as Record<string, unknown>;
  if (file.format !== CONVERSATION_FILE_FORMAT) {
    return { ok: false, error: `format: expected "${CONVERSATION_FILE_FORMAT}", got ${shown(file.format)}. This file is not a Pagewright conversation export.` };
  }
  if (file.version !== CONVERSATION_FILE_VERSION) {
    const newer = typeof file.version === 'number' && file.version > CONVERSATION_FILE_VERSION;
    return {
      ok: false,
      error: newer
        ? `version: this file is version ${file.version}, and this Pagewright reads version ${CONVERSATION_FILE_VERSION}. Update Pagewright to import it.`
        : `version: expected ${CONVERSATION_FILE_VERSION}, got ${shown(file.version)}.`,
    };
  }
  const many = 'conversations' in file;
  if (many === 'conversation' in file) {
    return { ok: false, error: many ? 'The file has both "conversation" and "conversations": expected one of them.' : 'conversation: missing (a file holds "conversation" or "conversations").' };
  }
  const list = many ? file.conversations : [file.conversation];
  if (!Array.isArray(list)) return { ok: false, error: `conversations: expected a list, got ${kind(list)}.` };
  if (!list.length) return { ok: false, error: 'conversations: the list is empty.' };
  if (list.length > MAX_IMPORT_CONVERSATIONS) return { ok: false, error: `conversations: ${list.length} conversations; at most ${MAX_IMPORT_CONVERSATIONS} import at once.` };
  const out: Conversation[] = [];
  for (const [i, raw] of list.entries()) {
    const root = many ? `conversations[${i}]` : 'conversation';
    const parsed = v.safeParse(ConversationSchema, raw);
    if (!parsed.success) return { ok: false, error: describeIssue(root, parsed.issues[0]) };
    const conversation = parsed.output as Conversation;
    const problem = consistency(conversation);
    if (problem) return { ok: false, error: `${root}.${problem}` };
    out.push({ ...conversation, run: finished(conversation.run, conversation.messages.length > 0) });
  }
  return { ok: true, conversations: out };
}

export const tooBig = (bytes: number) =>
  `The file is ${megabytes(bytes)}; conversations import from files of at most ${megabytes(MAX_IMPORT_BYTES)}.`;

const megabytes = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(1).replace(/\.0$/, '')} MB`;

/** What the API would refuse or the chat could not show, which the schema cannot see. */
function consistency(c: Conversation): string | undefined {
  if (c.messages[0] && c.messages[0].role !== 'user') return 'messages[0].role: a conversation starts with a user message.';
  const calls = new Set<string>();
  const open = new Set<string>();
  for (const [i, m] of c.messages.entries()) {
    for (const [j, b] of m.content.entries()) {
      const at = `messages[${i}].content[${j}]`;
      if (b.type === 'tool_use') {
        if (m.role !== 'assistant') return `${at}.type: a tool_use block belongs in an assistant message.`;
        if (calls.has(b.id)) return `${at}.id: the tool_use id "${b.id}" is used twice.`;
        calls.add(b.id);
        open.add(b.id);
      } else if (b.type === 'tool_result') {
        if (m.role !== 'user') return `${at}.type: a tool_result block belongs in a user message.`;
        if (!open.has(b.tool_use_id)) {
          return calls.has(b.tool_use_id)
            ? `${at}.tool_use_id: the call "${b.tool_use_id}" already has a result.`
            : `${at}.tool_use_id: no tool_use with the id "${b.tool_use_id}" comes before it.`;
        }
        open.delete(b.tool_use_id);
      }
    }
  }
  const n = c.messages.length;
  if (c.context && c.context.elidedBefore > n) return `context.elidedBefore: ${c.context.elidedBefore} is past the last of ${n} messages.`;
  if (c.context?.compaction && c.context.compaction.through > n) return `context.compaction.through: ${c.context.compaction.through} is past the last of ${n} messages.`;
  return undefined;
}

/** An imported run is over: it never comes in running, retrying or waiting on the user. */
function finished(run: RunState, hasMessages: boolean): RunState {
  const { retry: _r, error: _e, pause: _p, ...rest } = run;
  return { ...rest, status: hasMessages ? 'done' : 'idle' };
}

function describeIssue(root: string, issue: v.BaseIssue<unknown>): string {
  let path = root;
  for (const item of issue.path ?? []) {
    const key = (item as { key: unknown }).key;
    path += typeof key === 'number' ? `[${key}]` : `.${String(key)}`;
  }
  if (issue.received === 'undefined') return `${path}: missing.`;
  // Valibot's own wording ("Invalid type: Expected …") is replaced; the schemas' words are kept.
  const what = issue.message.startsWith('Invalid ') ? `expected ${alternatives(issue.expected)}` : issue.message;
  return `${path}: ${what}, got ${issue.received}.`;
}

/** `("a" | "b" | "c")` → `a, b or c`. */
function alternatives(expected: string | null): string {
  const parts = (expected ?? 'something else').replace(/^\((.*)\)$/, '$1').split(' | ').map((p) => p.replace(/^"(.*)"$/, '$1'));
  return parts.length > 1 ? `${parts.slice(0, -1).join(', ')} or ${parts.at(-1)}` : parts[0]!;
}

const kind = (x: unknown) => (x === null ? 'null' : Array.isArray(x) ? 'a list' : typeof x);
const shown = (x: unknown) => (x === undefined ? 'nothing' : typeof x === 'string' ? JSON.stringify(x.slice(0, 60)) : kind(x) === 'object' ? 'an object' : String(x));

// ---------------------------------------------------------------------------------------------
// Markdown

/** The words of the Markdown file, in the user's language (English by default). */
export interface MarkdownWords {
  you: string;
  assistant: string;
  /** `$1` is the date. */
  created: string;
  /** `$1` is the number of messages. */
  messages: string;
  /** `$1` is the tab's title as a link. */
  tab: string;
  error: string;
  noResult: string;
  /** After a preview that leaves some out: `$1` is how many characters the whole result has. */
  more: string;
  /** An image a tool returned (a screenshot): `$1` is its size in pixels, e.g. 1280×800. Absent: English. */
  image?: string;
}

export const ENGLISH_WORDS: MarkdownWords = {
  you: 'You',
  assistant: 'Assistant',
  created: 'Created $1',
  messages: '$1 messages',
  tab: 'Tab: $1',
  error: 'error',
  noResult: 'no result',
  more: '$1 characters in all',
  image: 'image $1',
};

const PREVIEW_LINES = 3;
const PREVIEW_CHARS = 200;
const INPUT_CHARS = 120;

/**
 * The conversation as people read it: the user's and the assistant's words as they wrote them,
 * each tool call folded to one line with the first lines of its result.
 */
export function toMarkdown(conversation: Conversation, words: MarkdownWords = ENGLISH_WORDS): string {
  const results = new Map<string, Anthropic.ToolResultBlockParam>();
  for (const m of conversation.messages) for (const b of m.content) if (b.type === 'tool_result') results.set(b.tool_use_id, b);
  const visible = conversation.messages.filter((m) => m.content.some((b) => b.type !== 'tool_result'));

  const out = [`# ${oneLine(conversation.title) || 'Pagewright'}`, ''];
  out.push(`${fill(words.created, stamp(conversation.createdAt))} · ${fill(words.messages, String(visible.length))}`, '');
  let previous: StoredMessage['role'] | undefined;
  for (const m of visible) {
    // Consecutive assistant messages are one reply split by tool rounds: one heading, as in the chat.
    if (m.role !== previous) out.push('---', '', `### ${m.role === 'user' ? words.you : words.assistant} · ${stamp(m.at)}`, '');
    previous = m.role;
    for (const b of m.content) {
      if (b.type === 'text') out.push(b.text, '');
      else if (b.type === 'tool_use') out.push(toolLine(b, results.get(b.id), words), '');
    }
    if (m.activeTab) out.push(`*${fill(words.tab, `[${escapeLinkText(m.activeTab.title || m.activeTab.url)}](<${m.activeTab.url}>)`)}*`, '');
  }
  return out.join('\n').replace(/\n{3,}/g, '\n\n').trimEnd() + '\n';
}

function toolLine(call: Anthropic.ToolUseBlockParam, result: Anthropic.ToolResultBlockParam | undefined, words: MarkdownWords): string {
  const input = clip(JSON.stringify(call.input) ?? '', INPUT_CHARS);
  const head = `- **${call.name}** ${code(input)} →`;
  if (!result) return `${head} *${words.noResult}*`;
  const text = resultWords(result);
  const lines = readableLines(text);
  const joined = lines.slice(0, PREVIEW_LINES).join(' ⏎ ');
  const preview = clip(joined, PREVIEW_CHARS);
  const more = lines.length > PREVIEW_LINES || preview !== joined ? ` (${fill(words.more, text.length.toLocaleString('en-US'))})` : '';
  // The JSON file keeps the images; the Markdown names them, as a reader cannot see base64.
  const images = resultImages(result).map((i) => ` *[${fill(words.image ?? ENGLISH_WORDS.image!, i.size ? `${i.size.width}×${i.size.height}` : i.mediaType)}]*`).join('');
  return `${head} ${result.is_error ? `${words.error}: ` : ''}${code(preview)}${more}${images}`;
}

const FENCE_LINE = /^<\/?untrusted-content\b[^>]*>$/;

/**
 * A result as lines a person reads: most tools answer with a JSON object, shown as `key: value`
 * lines; the untrusted-content fence around third-party text says nothing to a reader.
 */
function readableLines(text: string): string[] {
  const lines = (s: string) => s.split(/\r?\n/).map((l) => l.trim()).filter((l) => l && !FENCE_LINE.test(l));
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return lines(text);
  }
  if (typeof value === 'string') return lines(value);
  if (!value || typeof value !== 'object' || Array.isArray(value)) return lines(text);
  return Object.entries(value).map(([k, v]) => `${k}: ${typeof v === 'string' ? lines(v).join(' ') : JSON.stringify(v)}`);
}

/** A code span that holds any text: the fence is one backtick longer than any run inside. */
function code(text: string): string {
  if (!text) return '` `';
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${text}${pad}${fence}`;
}

const clip = (s: string, max: number) => (s.length > max ? `${s.slice(0, max - 1)}…` : s);
const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();
const fill = (template: string, value: string) => template.replace('$1', value);
const escapeLinkText = (s: string) => oneLine(s).replace(/([\\[\]])/g, '\\$1');
/** UTC, so the same conversation exports the same file wherever it is read. */
const stamp = (ms: number) => `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

// ---------------------------------------------------------------------------------------------
// Files

export function exportFile(conversation: Conversation, format: 'markdown' | 'json', words?: MarkdownWords, now = new Date()): ExportFile {
  const base = `pagewright-${slug(conversation.title)}-${now.toISOString().slice(0, 10)}`;
  return format === 'markdown'
    ? { name: `${base}.md`, type: 'text/markdown', text: toMarkdown(conversation, words) }
    : { name: `${base}.json`, type: 'application/json', text: toJson(conversation, now) };
}

/**
 * One file of "export all": the conversations from `from` on, as many as fit in a file import
 * takes again (`limit`). `next` is where the following file starts; absent after the last. A
 * conversation larger than the limit on its own still gets a file (it cannot import, but is kept).
 */
export async function exportAllPart(
  ids: readonly string[],
  load: (id: string) => Promise<Conversation | undefined>,
  { from, part, limit = MAX_IMPORT_BYTES, now = new Date() }: { from: number; part: number; limit?: number; now?: Date },
): Promise<{ file: ExportFile; next?: number }> {
  const taken: Conversation[] = [];
  let size = utf8Length(toJsonAll([], now));
  let i = from;
  for (; i < ids.length; i++) {
    const c = await load(ids[i]!);
    if (!c) continue;
    // Its length as it sits in the list: two levels deeper, each line indented four more spaces.
    const own = JSON.stringify(c, null, 2);
    let lines = 1;
    for (let k = own.indexOf('\n'); k >= 0; k = own.indexOf('\n', k + 1)) lines++;
    const added = utf8Length(own) + 4 * lines + 2;
    if (taken.length && size + added > limit) break;
    taken.push(c);
    size += added;
  }
  const next = i < ids.length ? i : undefined;
  const suffix = part > 1 || next !== undefined ? `-part${part}` : '';
  const file = { name: `pagewright-conversations-${now.toISOString().slice(0, 10)}${suffix}.json`, type: 'application/json', text: toJsonAll(taken, now) };
  return next === undefined ? { file } : { file, next };
}

/** Bytes of `s` in UTF-8 (the size the import checks), without encoding it. */
export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/** A file-name piece from the title, in any script; "conversation" when nothing is left. */
function slug(title: string): string {
  const s = title.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '-').replace(/^-+|-+$/g, '').slice(0, 40).replace(/-+$/, '');
  return s || 'conversation';
}
