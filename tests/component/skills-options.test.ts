/**
 * The rest of issue 6 on the management page: Settings → Social media fields with their validation
 * messages, and the workspace browser opening the file a `#workspace?path=…` link names.
 */
import { afterEach, expect, test } from 'vitest';
import { page } from 'vitest/browser';
import { render } from 'vitest-browser-svelte';
import SocialSettings from '../../entrypoints/options/SocialSettings.svelte';
import WorkspaceBrowser from '../../entrypoints/options/WorkspaceBrowser.svelte';
import { t, type MessageKey } from '../../lib/i18n';
import { defaultSettings, validateSettings, type SettingsField } from '../../lib/settings';
import { openWorkspace, WORKSPACE_DIR } from '../../lib/workspace';

test('social media fields: labels, a password input for tokens, and the settings messages', async () => {
  const form = defaultSettings();
  form.instagramUserId = '17841 abc';
  form.whatsappAccessToken = 'has space';
  form.whatsappApiBase = 'ftp://graph.local';
  const r = validateSettings(form);
  const errors = r.ok ? {} : r.errors;
  const err = (f: SettingsField) => (errors[f] ? t(errors[f] as MessageKey) : '');
  await render(SocialSettings, { form, err, blur: () => {} });

  await expect.element(page.getByRole('group', { name: 'Social media' })).toBeVisible();
  await expect.element(page.getByLabelText('Instagram user id')).toHaveValue('17841 abc');
  await expect.element(page.getByLabelText('Instagram user id')).toHaveAccessibleDescription('Digits only (the id as Meta shows it).');
  await expect.element(page.getByLabelText('WhatsApp phone number id')).toHaveAttribute('aria-invalid', 'false');
  const tokens = document.querySelectorAll<HTMLInputElement>('#instagramAccessToken, #whatsappAccessToken');
  expect([...tokens].map((i) => i.type)).toEqual(['password', 'password']);
  expect(document.querySelector('#whatsappAccessToken-error')?.textContent).toBe('Only letters, digits and punctuation, without spaces.');
  expect(document.querySelector('#whatsappApiBase-error')?.textContent).toBe(t('settings_error_url_invalid'));
  expect(document.querySelector('#instagramApiBase-hint')?.textContent).toBe('Empty: https://graph.facebook.com/v21.0. Set it only to use a proxy or a test server.');
});

let folder = '';
afterEach(async () => {
  if (!folder) return;
  const root = await (await navigator.storage.getDirectory()).getDirectoryHandle(WORKSPACE_DIR, { create: true });
  await root.removeEntry(folder, { recursive: true }).catch(() => undefined);
  folder = '';
});

test('the workspace browser opens the file it is given (a journal linked from the chat)', async () => {
  folder = `test-${crypto.randomUUID()}`;
  const path = `${folder}/journals/conv-1.md`;
  await (await openWorkspace()).write(path, '# Journal\n\n- 10:00 Met the team\n');
  await render(WorkspaceBrowser, { openPath: path });
  await expect.element(page.getByRole('region', { name: `/${path}` })).toBeVisible();
  expect(document.querySelector('[data-viewer]')?.textContent).toBe('# Journal\n\n- 10:00 Met the team\n');
  // The list shows the file's folder.
  expect(document.querySelector('[data-entry="conv-1.md"]')).not.toBeNull();
});
