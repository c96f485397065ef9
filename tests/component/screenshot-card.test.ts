/**
 * A tool result that carries an image (a screenshot) in the chat: the card shows a thumbnail, its
 * size and its price in tokens, and the result's words without the base64.
 */
import { describe, expect, test } from 'vitest';
import { page } from 'vitest/browser';
import { render } from 'vitest-browser-svelte';
import type { StoredMessage } from '../../lib/contracts/conversation';
import MessageList from '../../lib/ui/chat/MessageList.svelte';

/** A 3×2 PNG, all red: small enough to write here, a real image for the browser to decode. */
const RED_PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAMAAAACCAYAAACddGYaAAAAE0lEQVR4AWP8z8DwnwEKmBiQAAAvHwIC0tM+CQAAAABJRU5ErkJggg==';

const messages: StoredMessage[] = [
  { role: 'user', at: 1, content: [{ type: 'text', text: 'What does the tab show?' }] },
  { role: 'assistant', at: 2, content: [{ type: 'tool_use', id: 'toolu_1', name: 'screenshot', input: { tab_id: 7 } }] },
  {
    role: 'user',
    at: 3,
    content: [
      {
        type: 'tool_result',
        tool_use_id: 'toolu_1',
        content: [
          { type: 'text', text: '{"tab_id":7,"width":3,"height":2}' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: RED_PNG } },
        ],
      },
    ],
  },
  { role: 'assistant', at: 4, content: [{ type: 'text', text: 'A red square.' }] },
];

describe('a screenshot in the chat', () => {
  test('shows a thumbnail with its size and tokens, and the words without the base64', async () => {
    const screen = await render(MessageList, { messages, draft: null, toolStatus: {}, running: false, onregenerate: () => {} });
    const img = page.getByRole('img', { name: 'Image the tool returned (3×2)' });
    await expect.element(img).toBeVisible();
    await expect.poll(() => (img.element() as HTMLImageElement).naturalWidth).toBe(3);
    const figure = screen.container.querySelector('[data-result-image]')!;
    expect(figure.getAttribute('data-tokens')).toBe('1');
    expect(figure.textContent).toContain('3×2 · about 1 tokens');
    const result = screen.container.querySelector('details[data-tool="screenshot"] .result')!;
    expect(result.textContent).toBe('{"tab_id":7,"width":3,"height":2}');
    expect(screen.container.innerHTML.split(RED_PNG).length).toBe(2);
  });
});
