import DOMPurify from 'dompurify';
import { Lexer, Marked, type Links, type Token, type TokensList } from 'marked';
import { keyboardScrollable, MARKDOWN_SCROLL_BOXES } from './keyboard-scroll';

const marked = new Marked({
  gfm: true,
  breaks: true,
  async: false,
  renderer: {
    // A remote image in model output would load as soon as it renders and could carry data
    // out in its URL: show it as a link the user chooses to follow instead.
    image({ href, text }) {
      return `<a href="${escapeAttr(href)}">${escapeHtml(text || href)}</a>`;
    },
    // Raw HTML in model output is shown as text, never parsed.
    html({ text }) {
      return escapeHtml(text);
    },
  },
});

const purifier = DOMPurify();
purifier.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A') {
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer nofollow');
  }
  if (node.tagName === 'INPUT') {
    node.setAttribute('type', 'checkbox');
    node.setAttribute('disabled', '');
  }
  if (MARKDOWN_SCROLL_BOXES.has(node.tagName)) keyboardScrollable(node);
});

const ALLOWED_TAGS = [
  'p', 'br', 'hr', 'strong', 'em', 'del', 'code', 'pre', 'blockquote', 'a',
  'ul', 'ol', 'li', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6',
  'table', 'thead', 'tbody', 'tr', 'th', 'td', 'input', 'span',
];

/** Model Markdown → HTML that can carry no script, style, form, frame or remote resource. */
export function renderMarkdown(src: string): string {
  return sanitize(marked.parse(src) as string);
}

/**
 * Block tokens of `src`, lexed as part of a longer document whose reference definitions so far
 * are `links` (a reference used here resolves against them; the first definition of a label wins,
 * as in a whole-document parse).
 */
export function lexMarkdown(src: string, links: Links = {}): TokensList {
  const lexer = new Lexer(marked.defaults);
  Object.assign(lexer.tokens.links, links);
  return lexer.lex(src);
}

/** Block tokens from lexMarkdown → HTML, through the same sanitiser as renderMarkdown. */
export function renderTokens(tokens: Token[]): string {
  return sanitize(marked.parser(tokens) as string);
}

// The one place model HTML is cleaned: every string the chat shows with {@html} comes through here.
function sanitize(html: string): string {
  return purifier.sanitize(html, {
    ALLOWED_TAGS,
    ALLOWED_ATTR: ['href', 'title', 'align', 'type', 'checked', 'disabled', 'start'],
    ALLOWED_URI_REGEXP: /^(?:https?:|mailto:|#)/i,
    // DOMPurify checks every attribute not known as URI-safe against the regexp above.
    ADD_URI_SAFE_ATTR: ['align', 'start'],
    // GFM task lists render checkboxes; nothing else may be an input.
    FORBID_CONTENTS: ['script', 'style', 'template'],
  });
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
const escapeAttr = escapeHtml;
