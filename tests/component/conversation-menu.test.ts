import { describe, expect, test } from 'vitest';
import { page, userEvent } from 'vitest/browser';
import { render } from 'vitest-browser-svelte';
import ConversationMenu from '../../lib/ui/chat/ConversationMenu.svelte';

function setup(canExport = true) {
  const calls: string[] = [];
  render(ConversationMenu, { canExport, onexport: (f: string) => calls.push(`export:${f}`), onimport: () => calls.push('import') });
  return calls;
}

const more = () => page.getByRole('button', { name: 'More actions' });
const item = (name: string) => page.getByRole('menuitem', { name });
const focused = () => document.activeElement?.textContent?.trim();

describe('the popup header menu', () => {
  test('opens on a click with the first item focused, and runs the item chosen', async () => {
    const calls = setup();
    await expect.element(more()).toHaveAttribute('aria-expanded', 'false');
    await more().click();
    await expect.element(more()).toHaveAttribute('aria-expanded', 'true');
    await expect.element(item('Export as Markdown')).toHaveFocus();
    await item('Export as JSON').click();
    expect(calls).toEqual(['export:json']);
    expect(page.getByRole('menu').query()).toBeNull();
    await expect.element(more()).toHaveFocus();
  });

  test('works from the keyboard: arrows wrap, Home and End jump, Enter chooses, Escape closes', async () => {
    const calls = setup();
    (more().element() as HTMLElement).focus();
    await userEvent.keyboard('{Enter}');
    expect(focused()).toBe('Export as Markdown');
    await userEvent.keyboard('{ArrowUp}');
    expect(focused()).toBe('Import…');
    await userEvent.keyboard('{ArrowDown}');
    expect(focused()).toBe('Export as Markdown');
    await userEvent.keyboard('{End}');
    expect(focused()).toBe('Import…');
    await userEvent.keyboard('{Home}{ArrowDown}');
    expect(focused()).toBe('Export as JSON');
    await userEvent.keyboard('{Escape}');
    expect(page.getByRole('menu').query()).toBeNull();
    await expect.element(more()).toHaveFocus();
    expect(calls).toEqual([]);
    await userEvent.keyboard('{Enter}');
    await userEvent.keyboard('{End}{Enter}');
    expect(calls).toEqual(['import']);
  });

  test('a new chat has nothing to export: only Import… can be chosen', async () => {
    const calls = setup(false);
    await more().click();
    await expect.element(item('Export as Markdown')).toBeDisabled();
    await expect.element(item('Export as JSON')).toBeDisabled();
    await expect.element(item('Import…')).toHaveFocus();
    await userEvent.keyboard('{ArrowDown}');
    expect(focused()).toBe('Import…');
    await userEvent.keyboard('{Enter}');
    expect(calls).toEqual(['import']);
  });

  test('a click elsewhere closes it', async () => {
    setup();
    await more().click();
    await expect.element(page.getByRole('menu')).toBeInTheDocument();
    document.body.click();
    await expect.poll(() => page.getByRole('menu').query()).toBeNull();
  });
});
