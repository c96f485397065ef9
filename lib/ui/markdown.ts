import DOMPurify from 'dompurify';
import { Marked } from 'marked';

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
});

const ALLOWED_TAGS = [
  'p', 'br', 'hr', 'strong', 'em', 'del', 'code', 'pre', 'blockquote', 'a',
  'ul', 'ol', 'li', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6',
  'table', 'thead', 'tbody', 'tr', 'th', 'td', 'input', 'span',
];

/** Model Markdown → HTML that can carry no script, style, form, frame or remote resource. */
export function renderMarkdown(src: string): string {
  const html = marked.parse(src) as string;
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
