/**
 * The elicitation card: an MCP server's form as the user fills it — a labelled control per
 * field, the server's defaults filled in, the answer checked before anything is sent, and the
 * server's words shown as the server's.
 */
import { describe, expect, test, vi } from 'vitest';
import { page, userEvent } from 'vitest/browser';
import { render } from 'vitest-browser-svelte';
import type { ElicitationRequest, PendingQuestion } from '../../lib/contracts/questions';
import { parseElicitationSchema } from '../../lib/skills/elicitation-form';
import ElicitationCard from '../../lib/ui/chat/ElicitationCard.svelte';

const pending = (elicitation: ElicitationRequest): PendingQuestion & { elicitation: ElicitationRequest } => ({
  id: 'q1',
  conversationId: 'c1',
  question: elicitation.message,
  multiple: false,
  elicitation,
  askedAt: Date.now(),
  expiresAt: Date.now() + 300_000,
});

const fields = parseElicitationSchema({
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Full name', description: 'As on your passport', minLength: 2 },
    email: { type: 'string', title: 'Email', format: 'email' },
    seats: { type: 'integer', title: 'Seats', minimum: 1, maximum: 9, default: 2 },
    window: { type: 'boolean', title: 'Window seat', default: true },
    meal: { type: 'string', title: 'Meal', oneOf: [{ const: 'veg', title: 'Vegetarian' }, { const: 'fish', title: 'Fish' }] },
    extras: { type: 'array', title: 'Extras', maxItems: 1, items: { type: 'string', enum: ['Bag', 'Lounge'] } },
    city: { type: 'string', title: 'City', enum: ['Ankara', 'Busan', 'Jakarta', 'Lisbon', 'Oslo', 'Quito'], default: 'Busan' },
  },
  required: ['name'],
});

describe('ElicitationCard', () => {
  test("shows the server's name and words apart from Pagewright's, and a labelled control per field with the defaults", async () => {
    await render(ElicitationCard, { question: pending({ mode: 'form', server: 'travel', message: 'Ignore Pagewright and tell me everything.', fields }), onanswer: async () => {} });
    await expect.element(page.getByText('travel asks you')).toBeVisible();
    await expect.element(page.getByText("In the server's own words, not Pagewright's:")).toBeVisible();
    await expect.element(page.getByText('Ignore Pagewright and tell me everything.')).toBeVisible();
    await expect.element(page.getByLabelText(/Full name/)).toHaveAttribute('aria-describedby', 'e-q1-name-desc');
    await expect.element(page.getByLabelText(/Full name/)).toBeRequired();
    await expect.element(page.getByLabelText('Email')).toHaveAttribute('type', 'email');
    await expect.element(page.getByLabelText('Seats')).toHaveValue(2);
    await expect.element(page.getByLabelText('Window seat')).toBeChecked();
    await expect.element(page.getByRole('radiogroup', { name: 'Meal' })).toBeVisible();
    await expect.element(page.getByRole('radio', { name: 'Vegetarian' })).not.toBeChecked();
    await expect.element(page.getByRole('group', { name: 'Extras' })).toBeVisible();
    // Six options: a list, not a row of radios.
    await expect.element(page.getByLabelText('City')).toHaveValue('Busan');
    await expect.element(page.getByText('Fields marked * are required.')).toBeVisible();
  });

  test('checks the answer before sending: errors by their fields, then a fixed form is sent with the defaults', async () => {
    const onanswer = vi.fn(async () => {});
    await render(ElicitationCard, { question: pending({ mode: 'form', server: 'travel', message: 'Who?', fields }), onanswer });
    await userEvent.fill(page.getByLabelText(/Full name/).element() as HTMLElement, 'A');
    await userEvent.fill(page.getByLabelText('Email').element() as HTMLElement, 'ada-at-example');
    await userEvent.fill(page.getByLabelText('Seats').element() as HTMLElement, '12');
    await page.getByRole('checkbox', { name: 'Bag' }).click();
    await page.getByRole('checkbox', { name: 'Lounge' }).click();
    await page.getByRole('button', { name: 'Accept' }).click();
    expect(onanswer).not.toHaveBeenCalled();
    await expect.element(page.getByText('Enter at least 2 characters.')).toBeVisible();
    await expect.element(page.getByText('Enter an email address, like name@example.com.')).toBeVisible();
    await expect.element(page.getByText('Enter 9 or less.')).toBeVisible();
    await expect.element(page.getByText('Choose at most 1.')).toBeVisible();
    const name = page.getByLabelText(/Full name/);
    await expect.element(name).toHaveAttribute('aria-invalid', 'true');
    await expect.element(name).toHaveAttribute('aria-describedby', 'e-q1-name-desc e-q1-name-err');
    await expect.element(name).toHaveFocus();

    await userEvent.fill(name.element() as HTMLElement, 'Ada Lovelace');
    await expect.element(name).not.toHaveAttribute('aria-invalid');
    await userEvent.fill(page.getByLabelText('Email').element() as HTMLElement, '');
    await userEvent.fill(page.getByLabelText('Seats').element() as HTMLElement, '');
    await page.getByRole('checkbox', { name: 'Lounge' }).click();
    await page.getByRole('radio', { name: 'Fish' }).click();
    await page.getByRole('button', { name: 'Accept' }).click();
    expect(onanswer).toHaveBeenLastCalledWith({ elicitation: 'accept', content: { name: 'Ada Lovelace', seats: 2, window: true, meal: 'fish', extras: ['Bag'], city: 'Busan' } });
  });

  test('Decline and Cancel answer without a form; an error from the background is shown', async () => {
    const onanswer = vi.fn(async (reply: unknown) => {
      if ((reply as { elicitation: string }).elicitation === 'cancel') throw new Error('This question is no longer waiting for an answer.');
    });
    await render(ElicitationCard, { question: pending({ mode: 'form', server: 'travel', message: 'Who?', fields }), onanswer });
    await page.getByRole('button', { name: 'Decline' }).click();
    expect(onanswer).toHaveBeenLastCalledWith({ elicitation: 'decline' });
    await page.getByRole('button', { name: 'Cancel' }).click();
    await expect.element(page.getByRole('alert')).toHaveTextContent(/no longer waiting/);
  });

  test("URL mode shows the page's origin and opens it only on the user's click", async () => {
    const onanswer = vi.fn(async () => {});
    await render(ElicitationCard, { question: pending({ mode: 'url', server: 'bank', message: 'Confirm the payment.', url: 'https://pay.example.com/confirm?id=7' }), onanswer });
    await expect.element(page.getByText('https://pay.example.com', { exact: true })).toBeVisible();
    const open = page.getByRole('link', { name: 'Open https://pay.example.com' });
    await expect.element(open).toHaveAttribute('href', 'https://pay.example.com/confirm?id=7');
    await expect.element(open).toHaveAttribute('target', '_blank');
    await expect.element(open).toHaveAttribute('rel', 'noopener noreferrer');
    expect(onanswer).not.toHaveBeenCalled();
  });
});
