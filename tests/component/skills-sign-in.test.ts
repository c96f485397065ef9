/**
 * MCP sign-in in the UI: the Skills page's Sign in / Sign out (through a fake of the
 * background's messages) and the chat's "Sign in to <server>" card.
 */
import { expect, test } from 'vitest';
import { page } from 'vitest/browser';
import { render } from 'vitest-browser-svelte';
import Skills from '../../entrypoints/options/Skills.svelte';
import SignInCard from '../../lib/ui/chat/SignInCard.svelte';
import type { UserReply } from '../../lib/contracts/questions';
import { memorySkillStore } from './skills-fakes';

test('Skills page: an oauth2 skill signs in and out; a failed sign-in says why; a static-token skill has no button', async () => {
  const { store } = memorySkillStore();
  const mcp = (auth: Record<string, unknown>) => JSON.stringify({ url: 'https://mcp.example/mcp', transport: 'streamable_http', auth_type: 'oauth2', ...auth });
  await store.save({ name: 'docs', description: 'Docs.', skill_type: 'mcp', config_json: mcp({}), is_active: true });
  await store.save({ name: 'fixed', description: 'Fixed token.', skill_type: 'mcp', config_json: mcp({ auth_value: 'tok' }), is_active: true });
  const [docs] = await store.list();
  let signedIn = false;
  let fail = true;
  const calls: string[] = [];
  const signInApi = {
    status: async (id: string) => (id === docs!.id ? (signedIn ? 'signed_in' : 'signed_out') : 'none') as 'none' | 'signed_in' | 'signed_out',
    signIn: async (id: string) => {
      calls.push(`in ${id}`);
      if (fail) return { ok: false as const, error: 'the sign-in window was closed' };
      signedIn = true;
      return { ok: true as const };
    },
    signOut: async (id: string) => {
      calls.push(`out ${id}`);
      signedIn = false;
      return { ok: true as const, revoked: true };
    },
  };
  await render(Skills, { store, refreshTools: async () => ({ ok: false as const, error: 'unused' }), signInApi });
  const row = page.getByRole('row').filter({ hasText: 'Docs.' });
  await expect.element(row.getByText('Not signed in.')).toBeVisible();
  expect(document.querySelector('tr[data-skill="fixed"] [data-testid="skill-sign-in"]')).toBeNull();

  await row.getByRole('button', { name: 'Sign in to docs' }).click();
  await expect.element(row.getByText('Not signed in. Sign-in failed: the sign-in window was closed')).toBeVisible();
  fail = false;
  await row.getByRole('button', { name: 'Sign in to docs' }).click();
  await expect.element(row.getByText('Signed in.')).toBeVisible();
  await row.getByRole('button', { name: 'Sign out of docs' }).click();
  await expect.element(row.getByText('Not signed in. Signed out: the tokens are forgotten and the server revoked them.')).toBeVisible();
  expect(calls).toEqual([`in ${docs!.id}`, `in ${docs!.id}`, `out ${docs!.id}`]);
});

test('the chat card names the server and its origin; its buttons answer true or false', async () => {
  const replies: UserReply[] = [];
  const question = { id: 'q1', conversationId: 'c1', question: 'Sign in to docs', multiple: false, askedAt: Date.now(), expiresAt: Date.now() + 60_000, signIn: { skillId: 's1', name: 'docs', origin: 'https://mcp.example' } };
  await render(SignInCard, { question, onanswer: async (r: UserReply) => void replies.push(r) });
  await expect.element(page.getByText('Sign in to docs', { exact: true })).toBeVisible();
  await expect.element(page.getByText(/The MCP server at https:\/\/mcp\.example asks you to sign in/)).toBeVisible();
  await page.getByRole('button', { name: 'Not now' }).click();
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  expect(replies).toEqual([{ signIn: false }, { signIn: true }]);
});
