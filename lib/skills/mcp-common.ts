/** What both mcp transports share. */
import type { McpConfig } from './config';

/** The contract's auth: api_key → X-API-Key; bearer and oauth2 → Authorization: Bearer. */
export function mcpAuthHeaders(config: Pick<McpConfig, 'auth_type' | 'auth_value'>): Record<string, string> {
  const value = config.auth_value?.trim() ?? '';
  switch (config.auth_type) {
    case 'api_key':
      return { 'X-API-Key': value };
    case 'bearer':
      return { Authorization: `Bearer ${value}` };
    case 'oauth2':
      // Without a token, oauth2 is the MCP sign-in: the SDK's transport sends the signed-in token.
      return value ? { Authorization: `Bearer ${value}` } : {};
    default:
      return {};
  }
}

/** Closes a text cut at `max` characters, so the model knows there was more. */
export const truncationNote = (total: number, max: number) =>
  `\n\n[Truncated: the reply has ${total} characters; only the first ${max} are shown.]`;
