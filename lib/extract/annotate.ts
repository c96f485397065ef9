/**
 * The annotation format, defined once. Why this shape:
 *
 * - `{selector}` right after what it names, as in Pandoc/kramdown attribute blocks
 *   (`## Pricing {#pricing}`), which models already read as "this element's id/selector".
 *   CSS selectors contain braces only inside quoted strings, and page text has its literal
 *   braces escaped (`\{`), so an unescaped `{…}` is always an annotation: ANNOTATION_RE.
 * - Controls are one bracketed line each: `[kind "label" = "value" states… {selector}]`.
 *   Markdown escapes `[` in page text, so an unescaped `[` that does not open a link or an image
 *   opens a control. Strings are JSON-quoted; states are bare words (checked, selected,
 *   expanded, collapsed, disabled, required…); a select lists its options (capped).
 * - Links stay plain Markdown `[text](url)` without a selector (LINK_NOTE): links are most of a
 *   page's annotations (a selector per link cost ~+25% tokens on the Readability pages), and
 *   following a link is defined by its URL, which is how the model finds it.
 *
 * Examples:
 *   ## Pricing {#pricing}
 *   [form "Sign in" {#login}]
 *   [input email "Work email" = "a@b.c" required {#email}]
 *   [input password "Password" = "••••" {input[name="pw"]}]
 *   [checkbox "Remember me" checked {input[name="remember"]}]
 *   [select "Plan" = "Pro" options: "Free", "Pro", "Team" {#plan}]
 *   [button "Sign in" {button[type="submit"]}]
 *   [Docs](/docs)
 */
import type { ControlInfo } from './interactive';

/** How to read the output, for the tool description (with SELECTOR_NOTE and LINK_NOTE). */
export const ANNOTATION_NOTE =
  'Markdown annotated for acting on the page: a {selector} follows headings and region lines such as [form "Sign in" {#login}]; ' +
  'controls read [kind "label" = "current value" states {selector}], e.g. [checkbox "Remember me" checked {#remember}] ' +
  '(passwords show as ••••); after "[page controls]" come the controls outside the main content, in short beside an article ' +
  '(a form with several fields is one line: read its selector for them; "[+N more {body}]" counts what reading the body shows).';

/** One annotation: an unescaped `{…}` (quoted strings inside may hold braces). */
export const ANNOTATION_RE = /(?<!\\) ?\{(?:"(?:[^"\\\n]|\\.)*"|[^{}"\n])+\}/g;

export function annotation(selector: string | null): string {
  return selector ? `{${selector}}` : '';
}

/** A JSON string with braces escaped, so that it never reads as an annotation. */
export function quote(s: string): string {
  return JSON.stringify(s).replace(/[{}]/g, '\\$&');
}

export function formatControl(info: ControlInfo, selector: string | null): string {
  const parts: string[] = [info.name];
  if (info.label) parts.push(quote(info.label));
  if (info.value !== undefined) parts.push(`= ${quote(info.value)}`);
  parts.push(...info.states);
  if (info.options?.labels.length) {
    parts.push(`options: ${info.options.labels.map(quote).join(', ')}${info.options.more ? `, +${info.options.more} more` : ''}`);
  } else if (info.options?.more) {
    parts.push(`${info.options.more} options`); // listed in short (page controls): reading it with its selector lists them
  }
  if (selector) parts.push(annotation(selector));
  return `[${parts.join(' ')}]`;
}

/** A section / landmark / frame marker line: `[nav "Main" {nav}]`. */
export function formatRegion(kind: string, label: string, selector: string | null): string {
  return `[${[kind, label ? quote(label) : '', annotation(selector)].filter(Boolean).join(' ')}]`;
}

/**
 * The text a reader sees: annotations removed (outside fenced code, whose braces are the code's).
 * Used by the bench to compare extracted text with a reference.
 */
export function stripAnnotations(markdown: string): string {
  let inFence = '';
  return markdown
    .split('\n')
    .map((line) => {
      const fence = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
      if (fence && (!inFence || fence.startsWith(inFence))) {
        inFence = inFence ? '' : fence;
        return line;
      }
      return inFence ? line : line.replace(ANNOTATION_RE, '');
    })
    .join('\n');
}
