/**
 * OAuth 2.1 sign-in for standard MCP servers (MCP authorization spec, 2025-11-25): the SDK's
 * `auth()` does discovery (the 401's WWW-Authenticate → protected-resource metadata →
 * authorization-server metadata), dynamic client registration, PKCE S256, the scope selection
 * strategy and the `resource` parameter; this module is what `auth()` asks of a client — where
 * tokens, the registered client and discovery live, when a token is refreshed, and the sign-in
 * window's round trip (state check, the code out of the redirect).
 *
 * Nothing here touches the browser: storage and the sign-in window are adapters
 * (lib/browser/web-auth.ts in the extension, in-memory ones in the conformance driver).
 */
import { auth, type OAuthClientProvider, type OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { OAuthError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { errorMessage } from '../errors';
import { ToolError } from '../tools/registry';
import type { McpConfig } from './config';

/** How long a sign-in window opened from a run's card is waited for (typing a password, a second factor). */
export const SIGN_IN_WINDOW_MS = 10 * 60_000;

/** A token this close to its expiry is refreshed before use, so a call does not meet a 401 mid-run. */
export const REFRESH_MARGIN_MS = 60_000;

/** What is kept per skill (storage.local in the extension): never in the skill record, never exported. */
export interface SignInRecord {
  /** The server and configured client the record belongs to: another url or client id forgets it. */
  binding: string;
  client?: OAuthClientInformationMixed;
  tokens?: OAuthTokens;
  /** When the access token stops working (ms since the epoch), from expires_in when it was saved. */
  expiresAt?: number;
  discovery?: OAuthDiscoveryState;
}

export interface SignInStore {
  load(skillId: string): Promise<SignInRecord | undefined>;
  save(skillId: string, record: SignInRecord): Promise<void>;
  remove(skillId: string): Promise<void>;
}

/**
 * The browser's sign-in window: opens `authorizationUrl` and resolves with the address the
 * authorization server finally redirected to (which starts with the redirect URL). Rejects with
 * SignInDeclined when the user closes it.
 */
export interface SignInWindow {
  redirectUrl(): string;
  open(authorizationUrl: URL, signal: AbortSignal): Promise<string>;
}

/** The user closed the sign-in window or said no to the card. */
export class SignInDeclined extends Error {
  override name = 'SignInDeclined';
}

/** The authorization server answered the sign-in with an error, or with a reply that cannot be used. */
export class SignInFailed extends Error {
  override name = 'SignInFailed';
}

/** Memory only (the conformance driver, tests). */
export class MemorySignInStore implements SignInStore {
  readonly records = new Map<string, SignInRecord>();
  async load(skillId: string) {
    return this.records.get(skillId);
  }
  async save(skillId: string, record: SignInRecord) {
    this.records.set(skillId, structuredClone(record));
  }
  async remove(skillId: string) {
    this.records.delete(skillId);
  }
}

export type TokenState = 'none' | 'fresh' | 'refresh' | 'expired';

/**
 * What a call does with the stored token: use it, refresh it first (expired or about to, and a
 * refresh token is there), or sign in again (expired, nothing to refresh with).
 */
export function tokenState(record: SignInRecord | undefined, now: number, margin = REFRESH_MARGIN_MS): TokenState {
  const tokens = record?.tokens;
  if (!tokens?.access_token) return 'none';
  if (record?.expiresAt === undefined || now < record.expiresAt - margin) return 'fresh';
  return tokens.refresh_token ? 'refresh' : 'expired';
}

/** The server and client a record is bound to. */
export const signInBinding = (config: Pick<McpConfig, 'url' | 'oauth_client_id'>) => JSON.stringify([config.url, config.oauth_client_id ?? '']);

/** Whether this skill signs in with OAuth (an oauth2 skill with a static token keeps the contract's bearer). */
export const usesSignIn = (config: Pick<McpConfig, 'transport' | 'auth_type' | 'auth_value'>) =>
  config.transport === 'streamable_http' && config.auth_type === 'oauth2' && !config.auth_value?.trim();

const randomString = () => {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
};

/**
 * One skill's OAuthClientProvider. The record is read once and written through; the PKCE
 * verifier, the state and the authorization URL waiting for the user live in memory only (a
 * sign-in is one round trip of one background).
 */
export class McpOAuthProvider implements OAuthClientProvider {
  private record: SignInRecord | undefined;
  private loaded: Promise<void> | undefined;
  /**
   * PKCE verifiers by the state of the authorization they belong to: a request that meets a 401
   * while another's sign-in is open starts an authorization of its own, which must not replace
   * the open one's verifier.
   */
  private readonly verifiers = new Map<string, string>();
  /** The state auth() asked for last (saveCodeVerifier follows it). */
  private lastState: string | undefined;
  /** The state of the authorization whose code is being exchanged now. */
  private exchanging: string | undefined;
  /** The authorization URL auth() wanted the user sent to; taken by the sign-in. */
  pendingAuthorization: URL | undefined;

  constructor(
    readonly skillId: string,
    private readonly config: McpConfig,
    private readonly store: SignInStore,
    private readonly window: SignInWindow,
    private readonly now: () => number = Date.now,
  ) {}

  /** Reads the stored record (once); one bound to another url or client id is forgotten. */
  load(): Promise<void> {
    this.loaded ??= this.store.load(this.skillId).then((r) => {
      this.record = r && r.binding === signInBinding(this.config) ? r : undefined;
    });
    return this.loaded;
  }

  private async update(change: Partial<SignInRecord>): Promise<void> {
    await this.load();
    this.record = { ...(this.record ?? { binding: signInBinding(this.config) }), ...change };
    await this.store.save(this.skillId, this.record);
  }

  get redirectUrl(): string {
    return this.window.redirectUrl();
  }

  get clientMetadata(): OAuthClientMetadata {
    const secret = this.config.oauth_client_secret;
    return {
      client_name: 'Pagewright',
      client_uri: 'https://github.com/pagewright',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      // A browser extension cannot keep a secret: it registers as a public client (PKCE only).
      token_endpoint_auth_method: secret ? 'client_secret_post' : 'none',
    };
  }

  state(): string {
    this.lastState = randomString();
    return this.lastState;
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    // A client id the user entered is used as it is: the server offers no registration then.
    if (this.config.oauth_client_id) {
      return { client_id: this.config.oauth_client_id, ...(this.config.oauth_client_secret ? { client_secret: this.config.oauth_client_secret } : {}) };
    }
    await this.load();
    return this.record?.client;
  }

  async saveClientInformation(client: OAuthClientInformationMixed): Promise<void> {
    if (this.config.oauth_client_id) return;
    await this.update({ client });
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    await this.load();
    return this.record?.tokens;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    const expiresIn = Number(tokens.expires_in);
    await this.update({ tokens, expiresAt: Number.isFinite(expiresIn) && expiresIn > 0 ? this.now() + expiresIn * 1000 : undefined });
  }

  redirectToAuthorization(authorizationUrl: URL): void {
    // Not opened here: a window may only open when the user asks (the card's or the page's button).
    this.pendingAuthorization = authorizationUrl;
  }

  saveCodeVerifier(codeVerifier: string): void {
    if (this.lastState === undefined) return;
    this.verifiers.set(this.lastState, codeVerifier);
    // Authorizations nobody finished (the card declined, timed out) are not kept without end.
    if (this.verifiers.size > 20) this.verifiers.delete(this.verifiers.keys().next().value!);
  }

  codeVerifier(): string {
    const verifier = this.exchanging === undefined ? undefined : this.verifiers.get(this.exchanging);
    if (!verifier) throw new SignInFailed('The sign-in has no PKCE verifier (it was started by another background). Sign in again.');
    return verifier;
  }

  async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    await this.load();
    return this.record?.discovery;
  }

  async saveDiscoveryState(discovery: OAuthDiscoveryState): Promise<void> {
    await this.update({ discovery });
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    await this.load();
    if (scope === 'verifier') {
      this.verifiers.clear();
      return;
    }
    const record = { ...(this.record ?? { binding: signInBinding(this.config) }) };
    if (scope === 'all' || scope === 'tokens') {
      delete record.tokens;
      delete record.expiresAt;
    }
    if (scope === 'all' || scope === 'client') delete record.client;
    if (scope === 'all' || scope === 'discovery') delete record.discovery;
    this.record = record;
    await this.store.save(this.skillId, record);
  }

  async tokenState(): Promise<TokenState> {
    await this.load();
    return tokenState(this.record, this.now());
  }

  /** Runs the code exchange of the authorization with this state (its PKCE verifier). */
  async exchangingFor<T>(state: string | null, exchange: () => Promise<T>): Promise<T> {
    this.exchanging = state ?? undefined;
    try {
      return await exchange();
    } finally {
      if (state !== null) this.verifiers.delete(state);
      this.exchanging = undefined;
    }
  }

  /** Whether tokens are stored (the Skills page's "Signed in"). */
  async signedIn(): Promise<boolean> {
    return (await this.tokenState()) !== 'none';
  }

  /**
   * The code out of the address the sign-in window ended on: the state must be the one sent
   * (else it is another sign-in's answer, or forged), and an error the server sent back is named.
   */
  codeFrom(finalUrl: string, expectedState: string | null): string {
    let url: URL;
    try {
      url = new URL(finalUrl);
    } catch {
      throw new SignInFailed(`The sign-in ended on an address that is not a URL (${finalUrl.slice(0, 100)}).`);
    }
    const error = url.searchParams.get('error');
    if (error) {
      const description = url.searchParams.get('error_description');
      if (error === 'access_denied') throw new SignInDeclined(`The sign-in was refused${description ? `: ${description.slice(0, 200)}` : ''}.`);
      throw new SignInFailed(`The authorization server refused the sign-in: ${error}${description ? ` (${description.slice(0, 200)})` : ''}.`);
    }
    // The answer must carry the state of the authorization this window was opened for.
    if (url.searchParams.get('state') !== expectedState) {
      throw new SignInFailed('The sign-in answer does not belong to this sign-in (its state differs). Sign in again.');
    }
    const code = url.searchParams.get('code');
    if (!code) throw new SignInFailed('The authorization server redirected back without an authorization code.');
    return code;
  }
}

/**
 * The whole interactive sign-in for a provider whose auth() asked for the user: the window, the
 * code, the token exchange (auth() again, with the code). Resolves once tokens are stored.
 */
export async function completeSignIn(provider: McpOAuthProvider, serverUrl: string, window: SignInWindow, fetchFn: typeof fetch, signal: AbortSignal): Promise<void> {
  const authorizationUrl = provider.pendingAuthorization;
  if (!authorizationUrl) throw new SignInFailed('No sign-in is waiting for this server.');
  provider.pendingAuthorization = undefined;
  const state = authorizationUrl.searchParams.get('state');
  const finalUrl = await window.open(authorizationUrl, signal);
  const code = provider.codeFrom(finalUrl, state);
  const result = await provider.exchangingFor(state, () => auth(provider, { serverUrl, authorizationCode: code, fetchFn }));
  if (result !== 'AUTHORIZED') throw new SignInFailed('The authorization server did not issue a token for the code.');
}

/**
 * Starts a sign-in without a server's 401 (the Skills page's "Sign in"): discovery and
 * registration run now; afterwards the provider holds the authorization URL. Resolves false
 * when the stored token was refreshed instead and no window is needed.
 */
export async function beginSignIn(provider: McpOAuthProvider, serverUrl: string, fetchFn: typeof fetch): Promise<boolean> {
  const result = await auth(provider, { serverUrl, fetchFn });
  return result === 'REDIRECT';
}

/** Refreshes a token about to expire; true when a sign-in is needed instead. */
export async function refreshIfDue(provider: McpOAuthProvider, serverUrl: string, fetchFn: typeof fetch): Promise<boolean> {
  const state = await provider.tokenState();
  if (state === 'fresh' || state === 'none') return false;
  // Expired with nothing to refresh it: auth() then goes straight to a new authorization.
  if (state === 'expired') await provider.invalidateCredentials('tokens');
  // With a refresh token, auth() refreshes; a refused refresh becomes a new authorization.
  return (await auth(provider, { serverUrl, fetchFn })) === 'REDIRECT';
}

/**
 * Sign out: the tokens are forgotten here and, where the authorization server has a revocation
 * endpoint (RFC 7009), revoked there — the refresh token first, as it outlives the access token.
 * A revocation that fails is reported but the local sign-out stands.
 */
export async function revokeAndForget(provider: McpOAuthProvider, fetchFn: typeof fetch): Promise<{ revoked: boolean; problem?: string }> {
  await provider.load();
  const tokens = await provider.tokens();
  const discovery = await provider.discoveryState();
  const client = await provider.clientInformation();
  await provider.invalidateCredentials('tokens');
  // OAuth metadata (RFC 8414) names it; the SDK's OpenID type for the same document does not.
  const metadata = discovery?.authorizationServerMetadata as { revocation_endpoint?: unknown } | undefined;
  const endpoint = typeof metadata?.revocation_endpoint === 'string' ? metadata.revocation_endpoint : undefined;
  if (!tokens || !endpoint || !client) return { revoked: false };
  const problems: string[] = [];
  for (const [token, hint] of [
    [tokens.refresh_token, 'refresh_token'],
    [tokens.access_token, 'access_token'],
  ] as const) {
    if (!token) continue;
    const body = new URLSearchParams({ token, token_type_hint: hint, client_id: client.client_id });
    if (client.client_secret) body.set('client_secret', client.client_secret);
    try {
      const r = await fetchFn(endpoint, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body, signal: AbortSignal.timeout(10_000) });
      if (!r.ok) problems.push(`HTTP ${r.status}`);
    } catch (e) {
      problems.push(e instanceof Error ? e.message : String(e));
    }
  }
  return problems.length ? { revoked: false, problem: `revocation failed (${problems.join(', ')})` } : { revoked: true };
}

/** A request met a server that wants the user signed in; `provider` holds the authorization URL. */
export class SignInNeeded extends Error {
  override name = 'SignInNeeded';
  constructor(readonly provider: McpOAuthProvider) {
    super('The server needs the user to sign in.');
  }
}

/** Asks the user whether to open the sign-in window now (the chat's card); false: declined. */
export type SignInConsent = (server: { skillId: string; name: string; origin: string }, signal: AbortSignal) => Promise<boolean>;

export interface McpSignInsOptions {
  store: SignInStore;
  window: SignInWindow;
  /** The network for the authorization server (metadata, registration, token, revocation). */
  fetch: typeof fetch;
  /**
   * Where there is no run to put the card in (the conformance driver): open the window without
   * asking. Absent, such a request fails with a message pointing at the Skills page's "Sign in".
   */
  withoutRun?: SignInConsent;
  now?: () => number;
}

/** The sign-ins of all skills: one provider per skill and config, kept as long as the config. */
export class McpSignIns {
  private readonly providers = new Map<string, McpOAuthProvider>();
  private readonly signingIn = new Map<McpOAuthProvider, Promise<void>>();

  constructor(private readonly options: McpSignInsOptions) {}

  /** The skill's provider, or undefined when it does not sign in (no auth, or a static token). */
  provider(skillId: string, config: McpConfig): McpOAuthProvider | undefined {
    if (!usesSignIn(config)) return undefined;
    const key = JSON.stringify([skillId, signInBinding(config), config.oauth_client_secret ?? '']);
    let p = this.providers.get(key);
    if (!p) {
      this.drop(skillId);
      p = new McpOAuthProvider(skillId, config, this.options.store, this.options.window, this.options.now);
      this.providers.set(key, p);
    }
    return p;
  }

  /** Before a request: a token about to expire is refreshed; one that cannot be means signing in. */
  async prepare(provider: McpOAuthProvider, serverUrl: string): Promise<void> {
    if (await refreshIfDue(provider, serverUrl, this.options.fetch)) throw new SignInNeeded(provider);
  }

  /**
   * The interactive sign-in after SignInNeeded: the user's consent (the run's card, or
   * `withoutRun`), the window, the token. Throws SignInDeclined or SignInFailed.
   */
  signIn(provider: McpOAuthProvider, server: { name: string; url: string }, consent: SignInConsent | undefined, signal: AbortSignal): Promise<void> {
    // Calls running side by side that all meet the 401 share one card and one window: a second
    // authorization would replace the first one's PKCE verifier and state.
    const running = this.signingIn.get(provider);
    if (running) return running;
    const started = this.signInOnce(provider, server, consent, signal).finally(() => this.signingIn.delete(provider));
    this.signingIn.set(provider, started);
    return started;
  }

  private async signInOnce(provider: McpOAuthProvider, server: { name: string; url: string }, consent: SignInConsent | undefined, signal: AbortSignal): Promise<void> {
    const ask = consent ?? this.options.withoutRun;
    const origin = new URL(server.url).origin;
    // Nobody to ask (the Skills page's Refresh, a run's tool listing): the page's Sign in is the way.
    if (!ask) throw new SignInNeeded(provider);
    if (!(await ask({ skillId: provider.skillId, name: server.name, origin }, signal))) throw new SignInDeclined('the user chose not to sign in now');
    // A window left open is not waited for forever: the run goes on with a tool error.
    const bounded = AbortSignal.any([signal, AbortSignal.timeout(SIGN_IN_WINDOW_MS)]);
    try {
      await completeSignIn(provider, server.url, this.options.window, this.options.fetch, bounded);
    } catch (e) {
      if (bounded.aborted && !signal.aborted) throw new SignInDeclined('the sign-in window was left open too long');
      throw e;
    }
  }

  /** The Skills page's "Sign in": the window opens at once (the user clicked). */
  async signInNow(skillId: string, config: McpConfig, signal: AbortSignal): Promise<void> {
    const provider = this.provider(skillId, config);
    if (!provider) throw new SignInFailed('This skill does not sign in: it needs "auth_type": "oauth2", "transport": "streamable_http" and no auth_value.');
    if (!(await beginSignIn(provider, config.url, this.options.fetch))) return;
    await completeSignIn(provider, config.url, this.options.window, this.options.fetch, signal);
  }

  /** The Skills page's "Sign out". */
  async signOut(skillId: string, config: McpConfig): Promise<{ revoked: boolean; problem?: string }> {
    const provider = this.provider(skillId, config);
    if (!provider) return { revoked: false };
    const result = await revokeAndForget(provider, this.options.fetch);
    await this.options.store.remove(skillId);
    this.drop(skillId);
    return result;
  }

  private drop(skillId: string): void {
    for (const k of [...this.providers.keys()]) if (JSON.parse(k)[0] === skillId) this.providers.delete(k);
  }

  /** Whether the skill holds tokens (for the Skills page). */
  async signedIn(skillId: string, config: McpConfig): Promise<boolean> {
    return (await this.provider(skillId, config)?.signedIn()) ?? false;
  }
}

/** A sign-in that did not happen, as the model hears it: what to tell the user, not to retry blindly. */
export function signInFailure(e: unknown, what: string, noRun: boolean, user: AbortSignal): ToolError {
  if (e instanceof ToolError) return e;
  const What = what.charAt(0).toUpperCase() + what.slice(1);
  if (user.aborted) return new ToolError(`The sign-in to ${what} was stopped by the user.`);
  if (e instanceof SignInNeeded) {
    return noRun
      ? new ToolError(`${What} needs the user to sign in. Tell the user to open the skill on the Skills page and click "Sign in", then try again.`)
      : new ToolError(`${What} still asks for a sign-in after the user signed in (the account may lack a permission the server needs). Tell the user.`);
  }
  if (e instanceof SignInDeclined) {
    return new ToolError(`The user did not sign in to ${what} (${e.message.replace(/\.$/, '')}), so its tools cannot be used now. Do not call them again in this run; tell the user they need a sign-in.`);
  }
  if (e instanceof OAuthError) return new ToolError(`Signing in to ${what} failed at its authorization server: ${e.errorCode}${e.message ? ` (${e.message.slice(0, 300)})` : ''}. Tell the user.`);
  return new ToolError(`Signing in to ${what} failed: ${errorMessage(e).slice(0, 400)} Tell the user.`);
}
