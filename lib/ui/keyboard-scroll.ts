/**
 * Boxes that scroll on their own (code, tables, a tool's arguments and result, an approval's
 * address and code, the task list) take the keyboard focus, so that someone without a mouse can
 * scroll them with the arrow keys. Firefox makes such boxes focusable by itself, Chrome only from
 * version 130 (Pagewright supports 116), and axe-core counts a box that scrolls and cannot be
 * focused as a serious violation (scrollable-region-focusable: at 320 px, code and long tool
 * arguments scroll sideways, and the task list scrolls once a question card takes its room).
 *
 * Every such box gets it, whether it scrolls yet or not: knowing would mean measuring the layout
 * whenever streamed text grows a box.
 */
export function keyboardScrollable(box: Element): void {
  box.setAttribute('tabindex', '0');
}

/** The elements of sanitised Markdown that scroll on their own (Markdown.svelte's styles). */
export const MARKDOWN_SCROLL_BOXES = new Set(['PRE', 'TABLE']);
