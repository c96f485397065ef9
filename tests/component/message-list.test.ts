import { describe, expect, test } from 'vitest';
import { render } from 'vitest-browser-svelte';
import type { DraftBlock, StoredMessage } from '../../lib/contracts/conversation';
import MessageList from '../../lib/ui/chat/MessageList.svelte';

const user = (text: string): StoredMessage => ({ role: 'user', content: [{ type: 'text', text }], at: 1 });
const assistant = (text: string): StoredMessage => ({ role: 'assistant', content: [{ type: 'text', text }], at: 1 });

function props(messages: StoredMessage[], draft: DraftBlock[] | null = null, running = false) {
  return { messages, draft, toolStatus: {}, running, onregenerate: () => {} };
}

const rows = (role: string) => document.querySelectorAll(`[data-role="${role}"]`).length;

describe('MessageList', () => {
  test('the streamed draft becomes its committed message without rendering its Markdown again', async () => {
    const reply = '# Report\n\n' + 'A paragraph of the long answer.\n\n'.repeat(200) + 'The end.';
    const screen = await render(MessageList, props([user('Write it')], [{ type: 'text', text: reply }], true));
    const draft = document.querySelector<HTMLElement>('[data-role="assistant-draft"]')!;
    expect(draft.getAttribute('aria-busy')).toBe('true');
    await expect.poll(() => draft.querySelector('.md')?.textContent).toContain('The end.');
    const md = draft.querySelector('.md')!;
    const firstBlock = md.querySelector('h1')!;

    await screen.rerender(props([user('Write it'), assistant(reply)], null, false));
    const committed = document.querySelector<HTMLElement>('[data-role="assistant"]')!;
    expect(document.querySelector('[data-role="assistant-draft"]')).toBeNull();
    expect(committed.hasAttribute('aria-busy')).toBe(false);
    // The same element, the same heading node: kept, not rebuilt.
    expect(committed).toBe(draft);
    expect(committed.querySelector('.md')).toBe(md);
    expect(md.querySelector('h1')).toBe(firstBlock);
    expect(committed.querySelector('button[aria-label="Copy"]')).not.toBeNull();
  });

  test('a 500-message conversation mounts its last rows at once and the older ones in later frames', async () => {
    const messages: StoredMessage[] = [];
    for (let i = 0; i < 250; i++) messages.push(user(`Question ${i}`), assistant(`Answer **${i}**, with a list:\n\n- one\n- two`));
    await render(MessageList, props(messages));
    const first = rows('user') + rows('assistant');
    expect(first).toBeGreaterThan(0);
    expect(first).toBeLessThanOrEqual(40);
    // The newest answer renders first (in the first frame at the latest), before the oldest rows are in.
    await expect.poll(() => document.querySelector('[data-role="assistant"]:last-of-type strong')?.textContent).toBe('249');
    expect(rows('user') + rows('assistant')).toBeLessThan(500);
    await expect.poll(() => rows('user') + rows('assistant'), { timeout: 10_000 }).toBe(500);
    expect(document.querySelector('[data-role="user"]')?.textContent).toContain('Question 0');
    const log = document.querySelector<HTMLElement>('[role="log"]')!;
    await expect.poll(() => log.scrollHeight - log.scrollTop - log.clientHeight).toBeLessThan(2);
  });

  test('a short conversation is all there at once', async () => {
    await render(MessageList, props([user('Hi'), assistant('Hello **there**'), user('Bye'), assistant('Bye!')]));
    expect(rows('user')).toBe(2);
    expect(rows('assistant')).toBe(2);
    expect(document.querySelector('[data-role="assistant"] strong')?.textContent).toBe('there');
  });

  test('follows new text at the bottom, and stays put once the user scrolled up', async () => {
    const messages: StoredMessage[] = [];
    for (let i = 0; i < 20; i++) messages.push(user(`Question ${i}`), assistant(`Answer ${i}\n\n${'More text. '.repeat(40)}`));
    const screen = await render(MessageList, props(messages, [{ type: 'text', text: 'Streaming' }], true));
    const log = document.querySelector<HTMLElement>('[role="log"]')!;
    log.style.height = '300px';
    const atBottom = () => log.scrollHeight - log.scrollTop - log.clientHeight < 2;
    await expect.poll(atBottom).toBe(true);
    await screen.rerender(props(messages, [{ type: 'text', text: 'Streaming\n\n' + 'new line\n\n'.repeat(50) }], true));
    await expect.poll(atBottom).toBe(true);

    log.scrollTop = 0;
    await new Promise((r) => setTimeout(r, 100));
    await screen.rerender(props(messages, [{ type: 'text', text: 'Streaming\n\n' + 'new line\n\n'.repeat(100) }], true));
    await new Promise((r) => setTimeout(r, 200));
    expect(log.scrollTop).toBe(0);
  });
});
