import type Anthropic from '@anthropic-ai/sdk';
import { isToolResultMessage, type ContentBlock, type StoredMessage } from '../contracts/conversation';
import { fenceText, newMarker } from '../policy/fence';
import type { ToolImage } from '../images';

const TAB_TITLE_CHARS = 300;
const TAB_URL_CHARS = 2_000;

const attr = (s: string, max: number) =>
  s.replace(/\s+/g, ' ').trim().slice(0, max).replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The tab the user was looking at, as the model reads it before their words: "this page" then
 * needs no list_tabs round. The title is the page's own text, so it is escaped and capped; the
 * selection is page text too, and goes inside a fence like any third-party content.
 */
export function currentTabBlock(tab: NonNullable<StoredMessage['activeTab']>): Anthropic.TextBlockParam {
  let text = `<current-tab tab_id="${tab.id}" title="${attr(tab.title, TAB_TITLE_CHARS)}" url="${attr(tab.url, TAB_URL_CHARS)}"/>`;
  if (tab.selection) text += `\nThe user selected this text in it:\n${fenceText(tab.fence ?? newMarker(), tab.selection, 'selection')}`;
  return { type: 'text', text };
}

/** The conversation as the Messages API wants it; optionally marks the latest turn for caching. */
export function toApiMessages(
  messages: readonly StoredMessage[],
  { cacheLatestTurn = false } = {},
): Anthropic.MessageParam[] {
  const out: Anthropic.MessageParam[] = [];
  for (const m of messages) {
    const prev = out[out.length - 1];
    const content: ContentBlock[] = m.activeTab ? [currentTabBlock(m.activeTab), ...m.content] : m.content.slice();
    // Two user turns in a row (a message sent after an error) are one turn to the API.
    if (prev && prev.role === m.role) {
      prev.content = [...(prev.content as ContentBlock[]), ...content];
    } else {
      out.push({ role: m.role, content });
    }
  }
  if (cacheLatestTurn) {
    const last = out[out.length - 1];
    const blocks = last?.content as ContentBlock[] | undefined;
    if (blocks?.length) blocks[blocks.length - 1] = { ...blocks[blocks.length - 1]!, cache_control: { type: 'ephemeral' } };
  }
  return out;
}

/**
 * A run cut short (worker killed, browser closed) can leave tool calls without results, which
 * the API refuses. They get an error result instead of being re-run: a tool may have acted.
 */
export function repairDanglingToolUse(messages: StoredMessage[], reason: string): StoredMessage | undefined {
  const last = messages[messages.length - 1];
  if (!last || last.role !== 'assistant') return undefined;
  const calls = last.content.filter((b): b is Anthropic.ToolUseBlockParam => b.type === 'tool_use');
  if (!calls.length) return undefined;
  return {
    role: 'user',
    at: Date.now(),
    content: calls.map((c) => ({ type: 'tool_result', tool_use_id: c.id, content: reason, is_error: true })),
  };
}

/** Index just after the user's latest own message: what "regenerate" keeps. */
export function regenerateCut(messages: readonly StoredMessage[]): number | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === 'user' && !isToolResultMessage(m)) return i + 1;
  }
  return undefined;
}

/** Does the conversation end where the model owes a reply (or a reply that broke off)? */
export function awaitsModel(messages: readonly StoredMessage[]): boolean {
  const last = messages[messages.length - 1];
  return !!last && (last.role === 'user' || !!last.incomplete);
}

export function titleFrom(text: string): string {
  const line = text.trim().split('\n')[0]!.replace(/\s+/g, ' ');
  return line.length > 60 ? `${line.slice(0, 57)}…` : line;
}

/** An image as a Messages API image block (base64 source): the form both providers convert from. */
export function toImageBlock(image: ToolImage): Anthropic.ImageBlockParam {
  return { type: 'image', source: { type: 'base64', media_type: image.mediaType, data: image.data } };
}

