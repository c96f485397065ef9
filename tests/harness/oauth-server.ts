/**
 * An MCP server behind OAuth 2.1, for sign-in tests (unit and e2e), on 127.0.0.1 with an
 * ephemeral port. Built from the MCP SDK's own server-side auth pieces — mcpAuthRouter
 * (authorization-server and protected-resource metadata, dynamic client registration, the
 * authorize endpoint with its redirect-URI and PKCE checks, token, revocation) and
 * requireBearerAuth (the 401 with WWW-Authenticate: resource_metadata) — around a small
 * in-memory OAuthServerProvider that approves every authorization at once (as a user clicking
 * "Allow" would) and issues refresh tokens, which the SDK's demo provider does not.
 *
 * Knobs for the bad cases: registration that fails, malformed authorization-server metadata,
 * short-lived access tokens (to see a refresh), and revokeAll() (the server forgets every token:
 * the next call needs a new sign-in).
 */
import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { mcpAuthRouter } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import type { AuthorizationParams, OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { InvalidGrantError, InvalidTokenError, ServerError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { OAuthClientInformationFull, OAuthTokenRevocationRequest, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

/**
 * express, as the SDK's auth router needs it (it is the SDK's own dependency and ships no types):
 * only what this file uses, typed here.
 */
type Handler = (req: { body?: unknown }, res: HttpResponse, next: (error?: unknown) => void) => void;
interface HttpResponse {
  status(code: number): HttpResponse;
  set(name: string, value: string): HttpResponse;
  json(body: unknown): void;
  end(): void;
  redirect(url: string): void;
  on(event: 'close', listener: () => void): void;
}
interface ExpressApp {
  use(handler: unknown): void;
  get(path: string, ...handlers: Handler[]): void;
  post(path: string, ...handlers: unknown[]): void;
  delete(path: string, ...handlers: Handler[]): void;
  listen(port: number, host: string, ready: () => void): http.Server;
}
const express = createRequire(import.meta.url)('express') as { (): ExpressApp; json(): unknown };

export interface OAuthServerOptions {
  /** Seconds an access token lives (default 3600). */
  accessTtlSec?: number;
  /** The registration endpoint answers 500. */
  failRegistration?: boolean;
  /** The authorization-server metadata is not what RFC 8414 describes. */
  malformedMetadata?: boolean;
  /** A client registered in advance (its redirect URIs as given): a pre-registration / mismatch case. */
  preRegistered?: { client_id: string; redirect_uris: string[] };
}

export interface OAuthTestServer {
  /** The MCP endpoint (…/mcp). */
  url: string;
  origin: string;
  /** What happened, for assertions. */
  log: {
    registrations: OAuthClientInformationFull[];
    authorizations: AuthorizationParams[];
    grants: string[];
    revocations: OAuthTokenRevocationRequest[];
    /** The bearer tokens that reached the MCP endpoint, accepted or not. */
    mcpTokens: string[];
    toolCalls: number;
  };
  /** Forgets every token (as a server revoking them would). */
  revokeAll(): void;
  close(): Promise<void>;
}

interface Issued {
  clientId: string;
  scopes: string[];
  expiresAt: number;
  resource?: URL;
}

class TestProvider implements OAuthServerProvider {
  readonly clients = new Map<string, OAuthClientInformationFull>();
  readonly codes = new Map<string, { client: OAuthClientInformationFull; params: AuthorizationParams }>();
  readonly access = new Map<string, Issued>();
  readonly refresh = new Map<string, Issued>();

  constructor(
    private readonly options: OAuthServerOptions,
    private readonly log: OAuthTestServer['log'],
  ) {}

  get clientsStore(): OAuthRegisteredClientsStore {
    return {
      getClient: async (id) => this.clients.get(id),
      registerClient: async (client) => {
        if (this.options.failRegistration) throw new ServerError('registration is down');
        const full = client as OAuthClientInformationFull;
        this.clients.set(full.client_id, full);
        this.log.registrations.push(full);
        return full;
      },
    };
  }

  async authorize(client: OAuthClientInformationFull, params: AuthorizationParams, res: HttpResponse): Promise<void> {
    this.log.authorizations.push(params);
    const code = randomUUID();
    this.codes.set(code, { client, params });
    const target = new URL(params.redirectUri);
    target.searchParams.set('code', code);
    if (params.state !== undefined) target.searchParams.set('state', params.state);
    res.redirect(target.href);
  }

  async challengeForAuthorizationCode(_client: OAuthClientInformationFull, code: string): Promise<string> {
    const found = this.codes.get(code);
    if (!found) throw new InvalidGrantError('unknown authorization code');
    return found.params.codeChallenge;
  }

  async exchangeAuthorizationCode(client: OAuthClientInformationFull, code: string): Promise<OAuthTokens> {
    const found = this.codes.get(code);
    if (!found || found.client.client_id !== client.client_id) throw new InvalidGrantError('unknown authorization code');
    this.codes.delete(code);
    this.log.grants.push('authorization_code');
    return this.issue({ clientId: client.client_id, scopes: found.params.scopes ?? [], expiresAt: 0, ...(found.params.resource ? { resource: found.params.resource } : {}) });
  }

  async exchangeRefreshToken(client: OAuthClientInformationFull, refreshToken: string): Promise<OAuthTokens> {
    const found = this.refresh.get(refreshToken);
    if (!found || found.clientId !== client.client_id) throw new InvalidGrantError('unknown refresh token');
    this.refresh.delete(refreshToken);
    this.log.grants.push('refresh_token');
    return this.issue(found);
  }

  private issue(grant: Issued): OAuthTokens {
    const ttl = this.options.accessTtlSec ?? 3600;
    const access = randomUUID();
    const refresh = randomUUID();
    this.access.set(access, { ...grant, expiresAt: Date.now() + ttl * 1000 });
    this.refresh.set(refresh, grant);
    return { access_token: access, token_type: 'Bearer', expires_in: ttl, refresh_token: refresh, scope: grant.scopes.join(' ') };
  }

  async verifyAccessToken(token: string): Promise<AuthInfo> {
    this.log.mcpTokens.push(token);
    const found = this.access.get(token);
    if (!found || found.expiresAt < Date.now()) throw new InvalidTokenError('unknown or expired token');
    return { token, clientId: found.clientId, scopes: found.scopes, expiresAt: Math.floor(found.expiresAt / 1000), ...(found.resource ? { resource: found.resource } : {}) };
  }

  async revokeToken(_client: OAuthClientInformationFull, request: OAuthTokenRevocationRequest): Promise<void> {
    this.log.revocations.push(request);
    this.access.delete(request.token);
    this.refresh.delete(request.token);
  }
}

export async function startOAuthServer(options: OAuthServerOptions = {}): Promise<OAuthTestServer> {
  const log: OAuthTestServer['log'] = { registrations: [], authorizations: [], grants: [], revocations: [], mcpTokens: [], toolCalls: 0 };
  const provider = new TestProvider(options, log);
  if (options.preRegistered) {
    provider.clients.set(options.preRegistered.client_id, {
      ...options.preRegistered,
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
    } as OAuthClientInformationFull);
  }
  const app = express();
  const server: http.Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const mcpUrl = new URL(`${origin}/mcp`);

  if (options.malformedMetadata) {
    // A metadata document without the endpoints RFC 8414 requires.
    app.get('/.well-known/oauth-authorization-server', (_req, res) => void res.json({ issuer: origin, authorization_endpoint: 42 }));
  }
  app.use(
    mcpAuthRouter({
      provider,
      issuerUrl: new URL(origin),
      resourceServerUrl: mcpUrl,
      scopesSupported: ['mcp:tools'],
      resourceName: 'Pagewright OAuth test server',
      // Each sign-in in a test is a handful of requests; the SDK's default limits are for the internet.
      authorizationOptions: { rateLimit: false },
      tokenOptions: { rateLimit: false },
      clientRegistrationOptions: { rateLimit: false },
      revocationOptions: { rateLimit: false },
    }),
  );
  const bearer = requireBearerAuth({ verifier: provider, resourceMetadataUrl: `${origin}/.well-known/oauth-protected-resource/mcp` });
  app.post('/mcp', express.json(), bearer, async (req: http.IncomingMessage & { body?: unknown; auth?: AuthInfo }, res: http.ServerResponse) => {
    const mcp = new Server({ name: 'pagewright-oauth-test', version: '1.0.0' }, { capabilities: { tools: {} } });
    mcp.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [{ name: 'whoami', description: 'Says who the signed-in client is.', inputSchema: { type: 'object' } }] }));
    mcp.setRequestHandler(CallToolRequestSchema, (_request, extra) => {
      log.toolCalls++;
      return { content: [{ type: 'text', text: `signed in as ${extra.authInfo?.clientId ?? 'nobody'} with scopes [${extra.authInfo?.scopes.join(' ') ?? ''}]` }] };
    });
    // Stateless: every request stands alone, so a token change needs no new session.
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void mcp.close();
    });
    await mcp.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  // Stateless servers have no stream to offer and no session to end.
  app.get('/mcp', (_req, res) => void res.status(405).set('Allow', 'POST').end());
  app.delete('/mcp', (_req, res) => void res.status(405).set('Allow', 'POST').end());

  return {
    url: mcpUrl.href,
    origin,
    log,
    revokeAll() {
      provider.access.clear();
      provider.refresh.clear();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
