/**
 * The management page's Agents section (profiles for delegate_to_agent) on a SkillStore over an
 * in-memory storage area.
 */
import { afterEach, expect, test, vi } from 'vitest';
import { page } from 'vitest/browser';
import { render } from 'vitest-browser-svelte';
import Agents from '../../entrypoints/options/Agents.svelte';
import { DELEGABLE_TOOL_NAMES } from '../../lib/tools/catalog';
import { memorySkillStore } from './skills-fakes';

const newStore = () => memorySkillStore().store;
const TOOLS = new Set<string>(DELEGABLE_TOOL_NAMES);
const row = (slug: string) => document.querySelector<HTMLElement>(`[data-agent="${slug}"]`);
const field = (label: string) => page.getByLabelText(label, { exact: true });
const button = (name: string) => page.getByRole('button', { name, exact: true });

afterEach(() => {
  vi.restoreAllMocks();
});

test('creates a local agent: slug from the name, live checks, tools as checkboxes', async () => {
  const store = newStore();
  await store.saveProfile({ name: 'Writer', slug: 'writer', system_prompt: 'You write.', model: '', tools: [], a2a_url: '' }, TOOLS);
  await render(Agents, { store });
  await vi.waitFor(() => expect(row('writer')).not.toBeNull());
  await button('New agent').click();

  const boxes = [...document.querySelectorAll<HTMLInputElement>('[data-testid="agent-form"] input[name="tools"]')].map((b) => b.value);
  expect(boxes).toEqual([...DELEGABLE_TOOL_NAMES]);
  expect(boxes).not.toContain('ask_user');
  expect(boxes).not.toContain('agent');
  await expect.element(button('Save agent')).toBeDisabled();

  await field('Name').fill('Web Researcher');
  await expect.element(field('Slug')).toHaveValue('web-researcher');
  await field('Slug').fill('writer');
  await expect.element(page.getByText('Another agent already has the slug "writer".')).toBeVisible();
  await field('Slug').fill('Bad Slug');
  await expect.element(page.getByText(/^The slug must be 1–64 lower-case letters/)).toBeVisible();
  await field('Slug').fill('researcher');
  await field('Model (optional)').fill('claude sonnet');
  await expect.element(page.getByText('The model id may hold only letters, digits and . : @ / - _')).toBeVisible();
  await field('Model (optional)').fill('claude-haiku-4-5');
  await page.getByLabelText('Provider', { exact: true }).selectOptions('openrouter');
  await field('System prompt').click();
  await field('Model (optional)').click();
  await expect.element(page.getByText('A local agent needs a system prompt (or give an A2A endpoint for a remote one).')).toBeVisible();
  await field('System prompt').fill('You research on the web and cite sources.');
  await page.getByLabelText('web_search', { exact: true }).click();
  await page.getByLabelText('web_fetch', { exact: true }).click();

  await expect.element(button('Save agent')).toBeEnabled();
  await button('Save agent').click();
  await vi.waitFor(() => expect(row('researcher')).not.toBeNull());
  expect(row('researcher')!.textContent).toContain('Here, with claude-haiku-4-5 · OpenRouter');
  const saved = (await store.profiles()).find((p) => p.slug === 'researcher');
  expect(saved).toMatchObject({ name: 'Web Researcher', system_prompt: 'You research on the web and cite sources.', model: 'claude-haiku-4-5', provider: 'openrouter', a2a_url: '' });
  expect([...saved!.tools].sort()).toEqual(['web_fetch', 'web_search']);
});

test('a remote A2A agent needs no prompt but a valid URL; edit and delete', async () => {
  const store = newStore();
  await store.saveProfile({ name: 'Writer', slug: 'writer', system_prompt: 'You write.', model: '', tools: [], a2a_url: '' }, TOOLS);
  await render(Agents, { store });
  await vi.waitFor(() => expect(row('writer')).not.toBeNull());
  expect(row('writer')!.textContent).toContain("Here, with the conversation's model");

  await button('Edit Writer').click();
  await expect.element(page.getByRole('heading', { name: 'Edit agent Writer' })).toBeVisible();
  await expect.element(field('Slug')).toHaveValue('writer');
  await field('System prompt').fill('');
  await expect.element(button('Save agent')).toBeDisabled();
  await field('A2A endpoint URL (optional)').fill('agent.example');
  await expect.element(page.getByText('The A2A endpoint must be an http:// or https:// URL.')).toBeVisible();
  await field('A2A endpoint URL (optional)').fill('http://127.0.0.1:4100/a2a');
  await button('Save agent').click();
  await vi.waitFor(() => expect(row('writer')!.textContent).toContain('Remote (A2A): http://127.0.0.1:4100/a2a'));
  expect(await store.profiles()).toHaveLength(1);

  const confirm = vi.spyOn(window, 'confirm').mockReturnValue(true);
  await button('Delete Writer').click();
  expect(confirm).toHaveBeenCalledWith('Delete the agent Writer?');
  await vi.waitFor(() => expect(row('writer')).toBeNull());
  expect(await store.profiles()).toEqual([]);
  await expect.element(page.getByText('No agents yet.')).toBeVisible();
});
