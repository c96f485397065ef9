import { expect, test } from 'vitest';
import { t } from '../../lib/i18n';

// The setup's stand-in for chrome.i18n.getMessage must behave like Chrome's, or every
// assertion on UI text in this suite tests the stand-in instead of the components.
test('named placeholders map to positional substitutions', () => {
  expect(t('banner_retrying', '529 Overloaded', 3, 1, 5)).toBe(
    'The model service is busy (529 Overloaded). Retrying in 3 s (attempt 1 of 5).',
  );
  expect(t('usage_rounds', 2, 50)).toBe('Round 2 of 50');
});

test('substitutions are inserted literally, missing ones are empty', () => {
  expect(t('chat_open', 'costs $1 and $$')).toBe('Open conversation: costs $1 and $$');
  expect(t('tool_call')).toBe('Tool call: ');
});

test('messages without placeholders, and unknown keys fall back to the key', () => {
  expect(t('chat_send')).toBe('Send');
  expect(t('no_such_key' as Parameters<typeof t>[0])).toBe('no_such_key');
});
