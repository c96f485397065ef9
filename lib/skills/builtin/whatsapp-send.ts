/** whatsapp_send: a text message through the WhatsApp Cloud API (Graph API /{phone-number-id}/messages). */
import * as v from 'valibot';
import { defineTool, ToolError, type ToolDefinition } from '../../tools/registry';
import { skillFacts } from '../facts';
import type { SkillRecord } from '../types';
import { skillDescription } from './common';
import { graphPost, graphUrl, SOCIAL_SETTINGS } from './graph-api';

/** The Cloud API's limit for a text message body. */
export const WHATSAPP_TEXT_MAX_CHARS = 4096;

/**
 * A number in international format, as the Cloud API takes it: country code and number, digits
 * only. Spaces, dashes, dots, brackets and a leading "+" are what people write, so they go.
 */
const phone = v.pipe(
  v.string('must be a phone number as a string'),
  v.transform((s) => s.replace(/[\s\-().\u00a0]/g, '').replace(/^\+/, '')),
  v.nonEmpty('must not be empty'),
  v.regex(/^\d+$/, 'must be a phone number in international format, digits only with the country code first, e.g. "4915112345678"'),
  v.check((s) => !s.startsWith('0'), 'must start with the country code, not 0 or 00 (e.g. "4915112345678" for +49 151 12345678)'),
  v.minLength(7, 'is too short for an international number (country code and number)'),
  v.maxLength(15, 'is too long: international numbers have at most 15 digits'),
);

const input = v.strictObject({
  to: v.pipe(phone, v.description('Recipient phone number in international format with the country code, digits only (e.g. "4915112345678")')),
  text: v.pipe(
    v.string('must be a string'),
    v.trim(),
    v.nonEmpty('must not be empty'),
    v.maxLength(WHATSAPP_TEXT_MAX_CHARS, `must be at most ${WHATSAPP_TEXT_MAX_CHARS} characters (WhatsApp's limit)`),
    v.description('Message text'),
  ),
});

export function whatsappSendTool(skill: SkillRecord): ToolDefinition<typeof input> {
  return defineTool({
    name: skill.name,
    ...skillFacts(skill, 'whatsapp_send'),
    description: skillDescription(
      skill,
      "Send a WhatsApp text message from the user's WhatsApp Business number.",
      'Takes to (international format, digits only, e.g. "4915112345678") and text; returns the message id. Send only what the user asked to send.',
    ),
    input,
    async run({ to, text }, ctx) {
      const { whatsappPhoneNumberId: phoneId, whatsappAccessToken: token, whatsappApiBase: base } = ctx.env.settings;
      if (!phoneId.trim() || !token.trim()) {
        const missing = [!phoneId.trim() && 'the WhatsApp phone number ID', !token.trim() && 'the access token'].filter(Boolean).join(' and ');
        throw new ToolError(`WhatsApp is not set up: ${missing} ${missing.includes(' and ') ? 'are' : 'is'} missing. The user can set them in ${SOCIAL_SETTINGS}.`);
      }
      const answer = await graphPost(ctx.env.fetch, {
        service: 'WhatsApp',
        url: graphUrl(base, phoneId.trim(), 'messages'),
        headers: { Authorization: `Bearer ${token.trim()}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ messaging_product: 'whatsapp', recipient_type: 'individual', to, type: 'text', text: { body: text } }),
        signal: ctx.signal,
      });
      const messages = Array.isArray(answer.messages) ? (answer.messages as { id?: unknown; message_status?: unknown }[]) : [];
      const id = messages[0]?.id;
      if (typeof id !== 'string' || !id) {
        throw new ToolError(`WhatsApp accepted the request but returned no message id, so it is unknown whether the message was sent: ${JSON.stringify(answer).slice(0, 300)}.`);
      }
      const contact = Array.isArray(answer.contacts) ? (answer.contacts[0] as { wa_id?: unknown } | undefined) : undefined;
      return {
        message_id: id,
        to,
        ...(typeof contact?.wa_id === 'string' ? { wa_id: contact.wa_id } : {}),
        ...(typeof messages[0]?.message_status === 'string' ? { status: messages[0].message_status } : {}),
      };
    },
  });
}
