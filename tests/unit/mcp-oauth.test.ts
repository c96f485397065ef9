import { afterEach, describe, expect, it } from 'vitest';
import { parseSkillConfig } from '../../lib/skills/config';
import { McpServerSessions } from '../../lib/skills/mcp-servers';
import { MemorySignInStore, tokenState, type SignInRecord } from '../../lib/skills/mcp-oauth';
import type { SkillRecord } from '../../lib/skills/types';
import type { ToolContext } from '../../lib/tools/registry';
import { ToolError } from '../../lib/tools/registry';
import { startOAuthServer, type OAuthServerOptions, type OAuthTestServer } from '../harness/oauth-server';
import { redirectFollowingWindow } from '../harness/oauth-window';
import { startMcpServer } from '../harness/mcp-servers';

const skill = (config: Record<string, unknown>): SkillRecord => ({
  id: 'sk1',
  name: 'docs',
  description: 'Team docs',
  skill_type: 'mcp',
  config_json: JSON.stringify({ transport: 'streamable_http', auth_type: 'oauth2', ...config }),
  is_active: true,
  created_at: 0,
  updated_at: 0,
});

/** A ToolContext whose only use here is the sign-in card's answer. */
const ctxAnswering = (answer: boolean, asked: string[] = []) =>
  ({
    env: {
      askSignIn: async (server: { name: string; origin: string }) => {
        asked.push(`${server.name} ${server.origin}`);
        return answer;
      },
    },
  }) as unknown as ToolContext;

const servers: OAuthTestServer[] = [];
const sessionsList: McpServerSessions[] = [];
afterEach(async () => {
  await Promise.all(sessionsList.splice(0).map((s) => s.closeAll()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** withoutRun null: no way to sign in outside a run (the extension); `now`: the provider's clock. */
async function setup(options: OAuthServerOptions = {}, withoutRun: boolean | null = true, now?: () => number) {
  const server = await startOAuthServer(options);
  servers.push(server);
  const store = new MemorySignInStore();
  const sessions = new McpServerSessions({
    timeoutMs: 5000,
    oauth: { store, window: redirectFollowingWindow(), ...(withoutRun === null ? {} : { withoutRun: async () => withoutRun }), ...(now ? { now } : {}) },
  });
  sessionsList.push(sessions);
  return { server, store, sessions };
}

describe('tokenState', () => {
  const rec = (tokens: SignInRecord['tokens'], expiresAt?: number): SignInRecord => ({ binding: 'b', ...(tokens ? { tokens } : {}), ...(expiresAt === undefined ? {} : { expiresAt }) });
  it('uses, refreshes or gives up on the stored token by its expiry', () => {
    const now = 1_000_000;
    expect(tokenState(undefined, now)).toBe('none');
    expect(tokenState(rec(undefined), now)).toBe('none');
    expect(tokenState(rec({ access_token: 'a', token_type: 'Bearer' }), now)).toBe('fresh'); // no expiry given
    expect(tokenState(rec({ access_token: 'a', token_type: 'Bearer', refresh_token: 'r' }, now + 120_000), now)).toBe('fresh');
    // Within the margin: refreshed before use, not after a 401.
    expect(tokenState(rec({ access_token: 'a', token_type: 'Bearer', refresh_token: 'r' }, now + 30_000), now)).toBe('refresh');
    expect(tokenState(rec({ access_token: 'a', token_type: 'Bearer', refresh_token: 'r' }, now - 1), now)).toBe('refresh');
    expect(tokenState(rec({ access_token: 'a', token_type: 'Bearer' }, now - 1), now)).toBe('expired');
  });
});

describe('mcp oauth config', () => {
  const parse = (c: Record<string, unknown>) => parseSkillConfig('mcp', JSON.stringify({ url: 'https://mcp.example/mcp', ...c }));
  it('oauth2 over streamable_http without a token means sign-in; elsewhere a token is still required', () => {
    expect(parse({ transport: 'streamable_http', auth_type: 'oauth2' }).ok).toBe(true);
    expect(parse({ transport: 'streamable_http', auth_type: 'oauth2', auth_value: 'static' }).ok).toBe(true);
    expect(parse({ transport: 'streamable_http', auth_type: 'oauth2', oauth_client_id: 'my-app' }).ok).toBe(true);
    expect(parse({ transport: 'streamable_http', auth_type: 'oauth2', oauth_client_id: 'my-app', oauth_client_secret: 's3' }).ok).toBe(true);
    const call = parse({ transport: 'call', auth_type: 'oauth2' });
    expect(call.ok ? [] : call.errors.join(' ')).toMatch(/auth_value is required/);
    const misplaced = parse({ transport: 'streamable_http', auth_type: 'bearer', auth_value: 't', oauth_client_id: 'x' });
    expect(misplaced.ok ? '' : misplaced.errors.join(' ')).toMatch(/oauth_client_id and oauth_client_secret are for signing in/);
    const secretOnly = parse({ transport: 'streamable_http', auth_type: 'oauth2', oauth_client_secret: 's' });
    expect(secretOnly.ok ? '' : secretOnly.errors.join(' ')).toMatch(/needs an oauth_client_id/);
    const spaced = parse({ transport: 'streamable_http', auth_type: 'oauth2', oauth_client_id: 'has space' });
    expect(spaced.ok ? '' : spaced.errors.join(' ')).toMatch(/oauth_client_id must be printable ASCII/);
  });
});

describe('McpServerSessions with OAuth sign-in', () => {
  it('discovers, registers, signs in with PKCE and the resource, calls with the token, refreshes before expiry and signs out', async () => {
    let clock = Date.now();
    const { server, store, sessions } = await setup({}, true, () => clock);
    const s = skill({ url: server.url });
    const tools = await sessions.listTools(s);
    expect(tools.map((t) => t.name)).toEqual(['whoami']);
    expect(server.log.registrations).toHaveLength(1);
    expect(server.log.registrations[0]!.redirect_uris).toEqual(['http://127.0.0.1:1/callback']);
    expect(server.log.registrations[0]!.token_endpoint_auth_method).toBe('none');
    const [authz] = server.log.authorizations;
    expect(authz!.codeChallenge).toMatch(/^[\w-]{43}$/);
    expect(authz!.resource?.href).toBe(server.url);
    expect(authz!.scopes).toEqual(['mcp:tools']);
    expect(server.log.grants).toEqual(['authorization_code']);
    const record = store.records.get('sk1')!;
    expect(record.tokens?.access_token).toBeTruthy();
    expect(record.tokens?.refresh_token).toBeTruthy();
    expect(s.config_json).not.toContain(record.tokens!.access_token);

    expect(await sessions.callTool(s, 'whoami', {}, { signal: AbortSignal.timeout(5000) })).toMatch(/^signed in as [\w-]+ with scopes \[mcp:tools\]/);
    expect(server.log.grants).toEqual(['authorization_code']);
    // Less than the margin left of the hour: refreshed before the call, not after a 401.
    clock += 3550_000;
    expect(await sessions.callTool(s, 'whoami', {}, { signal: AbortSignal.timeout(5000) })).toMatch(/^signed in as/);
    expect(server.log.grants).toEqual(['authorization_code', 'refresh_token']);
    expect(store.records.get('sk1')!.tokens!.access_token).not.toBe(record.tokens!.access_token);

    const parsed = parseSkillConfig('mcp', s.config_json);
    if (!parsed.ok) throw new Error(parsed.errors.join(' '));
    const out = await sessions.signIns!.signOut('sk1', parsed.config);
    expect(out).toEqual({ revoked: true });
    expect(server.log.revocations.map((r) => r.token_type_hint)).toEqual(['refresh_token', 'access_token']);
    expect(store.records.has('sk1')).toBe(false);
  });

  it('a revoked sign-in asks the run (the card): declined is a tool error, accepted signs in again and the call succeeds', async () => {
    const { server, sessions } = await setup({}, null);
    const s = skill({ url: server.url });
    // No run to ask and no way to ask without one: the Skills page's Sign in is named.
    await expect(sessions.listTools(s)).rejects.toThrow(/needs the user to sign in\. Tell the user to open the skill on the Skills page and click "Sign in"/);
    // A run listing the tools brings its card: the user signs in there.
    const asked: string[] = [];
    const askSignIn = async (srv: { name: string; origin: string }) => (asked.push(`${srv.name} ${srv.origin}`), true);
    expect((await sessions.listTools(s, { askSignIn })).map((t) => t.name)).toEqual(['whoami']);
    expect(asked).toEqual([`docs ${server.origin}`]);
    expect(await sessions.callTool(s, 'whoami', {}, { signal: AbortSignal.timeout(5000), ctx: ctxAnswering(true, asked) })).toMatch(/^signed in as/);
    expect(asked).toHaveLength(1);

    server.revokeAll();
    const declined = sessions.callTool(s, 'whoami', {}, { signal: AbortSignal.timeout(5000), ctx: ctxAnswering(false, asked) });
    await expect(declined).rejects.toThrow(ToolError);
    await expect(declined).rejects.toThrow(/The user did not sign in to the MCP server "docs".*Do not call them again in this run/);
    expect(await sessions.callTool(s, 'whoami', {}, { signal: AbortSignal.timeout(5000), ctx: ctxAnswering(true, asked) })).toMatch(/^signed in as/);
    expect(asked).toHaveLength(3);
    expect(server.log.registrations).toHaveLength(1);

    // Two calls side by side that both meet the revoked token share one card and one sign-in.
    server.revokeAll();
    const both = await Promise.all([0, 1].map(() => sessions.callTool(s, 'whoami', {}, { signal: AbortSignal.timeout(5000), ctx: ctxAnswering(true, asked) })));
    expect(both.every((t) => typeof t === 'string' && t.startsWith('signed in as'))).toBe(true);
    expect(asked).toHaveLength(4);
  });

  it('an oauth2 skill with an auth_value keeps the static bearer token, even where sign-in is available', async () => {
    const locked = await startMcpServer({ token: 'static-token' });
    try {
      const { store, sessions } = await setup();
      const s = skill({ url: locked.url, auth_value: 'static-token' });
      expect((await sessions.listTools(s)).length).toBeGreaterThan(0);
      expect(locked.requests.every((r) => r.headers.authorization === 'Bearer static-token')).toBe(true);
      expect(store.records.size).toBe(0);
    } finally {
      await locked.close();
    }
  });

  it('bad authorization servers give clear errors, never a hang', async () => {
    const failing = await setup({ failRegistration: true });
    await expect(failing.sessions.listTools(skill({ url: failing.server.url }))).rejects.toThrow(/Signing in to the MCP server "docs" .* failed at its authorization server: server_error \(registration is down\)/);

    const malformed = await setup({ malformedMetadata: true });
    await expect(malformed.sessions.listTools(skill({ url: malformed.server.url }))).rejects.toThrow(/The MCP server "docs" .* or its authorization server sent a reply that does not fit the protocol: authorization_endpoint: Invalid input: expected string, received number; token_endpoint/);

    // A client id the user entered whose registration lists another redirect URI: the server refuses.
    const mismatch = await setup({ preRegistered: { client_id: 'entered-id', redirect_uris: ['https://elsewhere.example/cb'] } });
    const error = await mismatch.sessions.listTools(skill({ url: mismatch.server.url, oauth_client_id: 'entered-id' })).catch((e: Error) => e);
    expect(error).toBeInstanceOf(ToolError);
    expect((error as Error).message).toMatch(/Signing in to the MCP server "docs" .* failed: the authorization page answered HTTP 400 .*redirect_uri/i);
    expect(mismatch.server.log.registrations).toHaveLength(0);
  });
});
