/**
 * The change-request flow on the management page: function skills wait in a review section that
 * shows their code (a change as a diff against the approved code) until approved or rejected.
 */
import { expect, test } from 'vitest';
import { page } from 'vitest/browser';
import { render } from 'vitest-browser-svelte';
import Skills from '../../entrypoints/options/Skills.svelte';
import { memorySkillStore } from './skills-fakes';

const config = (code: string) => JSON.stringify({ language: 'python', code });

test('a model-proposed change shows as a diff; approving enables it, and the switch stays off before', async () => {
  const { store } = memorySkillStore();
  const first = await store.save({ name: 'shout', description: 'Shouts.', skill_type: 'function', config_json: config('def run(args):\n    return "a"'), is_active: true });
  if (!first.ok) throw new Error('save');
  await store.approve(first.value.id, first.value.config_json);
  await store.save({ name: 'shout', description: 'Shouts.', skill_type: 'function', config_json: config('def run(args):\n    return "A!"'), is_active: true }, first.value.id, 'model');
  await render(Skills, { store, refreshTools: async () => ({ ok: false as const, error: 'unused' }) });

  const review = page.getByRole('article', { name: 'Review of shout' });
  await expect.element(review).toBeVisible();
  await expect.element(review.getByText('Proposed by the agent')).toBeVisible();
  await expect.element(review.getByText('Change')).toBeVisible();
  const lines = [...document.querySelectorAll('[data-testid="review-diff"] [data-diff]')].map((l) => `${l.getAttribute('data-diff')}:${l.textContent?.slice(2).trimEnd()}`);
  expect(lines).toEqual(['same:def run(args):', 'removed:    return "a"', 'added:    return "A!"']);
  expect(document.querySelector<HTMLInputElement>('tr[data-skill="shout"] [role="switch"]')!.disabled).toBe(true);
  await expect.element(page.getByTestId('skill-needs-review')).toBeVisible();

  await review.getByRole('button', { name: 'Approve and enable' }).click();
  await expect.element(page.getByTestId('skill-reviews')).not.toBeInTheDocument();
  expect((await store.list())[0]).toMatchObject({ is_active: true, approved_config_json: config('def run(args):\n    return "A!"') });
});

test('a new skill shows its whole code; rejecting it deletes it', async () => {
  const { store } = memorySkillStore();
  await store.save({ name: 'add', description: 'Adds.', skill_type: 'function', config_json: config('def run(args):\n    return str(args["a"] + args["b"])'), is_active: true }, undefined, 'model');
  await render(Skills, { store, refreshTools: async () => ({ ok: false as const, error: 'unused' }) });
  const review = page.getByRole('article', { name: 'Review of add' });
  await expect.element(review.getByText('New')).toBeVisible();
  expect(document.querySelector('[data-testid="review-code"]')?.textContent).toBe('def run(args):\n    return str(args["a"] + args["b"])');
  await review.getByRole('button', { name: 'Reject' }).click();
  await expect.element(page.getByTestId('skill-reviews')).not.toBeInTheDocument();
  expect(await store.list()).toEqual([]);
});
