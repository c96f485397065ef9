/**
 * The client under test for the official MCP conformance suite (@modelcontextprotocol/conformance):
 * `conformance client --command "node <this, bundled>"` starts one scenario's test server, runs
 * this with the server's URL as the last argument and the scenario's name (and, for some, a JSON
 * context) in MCP_CONFORMANCE_SCENARIO / MCP_CONFORMANCE_CONTEXT, and judges what it saw.
 *
 * Why a Node driver and not the built extension: the suite spawns a command per scenario and
 * reads its exit; the extension has no command line, and driving it through a browser would put
 * a browser start (seconds) and a fake model in front of each of 25 scenarios, testing the
 * harness more than the protocol. What the suite judges is the protocol client, and that is the
 * SAME code the extension runs: lib/skills/mcp-servers.ts (McpServerSessions: sessions, tools,
 * errors) and lib/skills/mcp-oauth.ts (the OAuth provider and sign-in). Only what the browser
 * gives differs, and is adapted here: sign-in records live in memory instead of storage.local,
 * and the "sign-in window" follows the authorization URL with fetch (redirect: 'manual') and
 * reads the code from the Location it ends on — the suite's authorization servers approve at once,
 * as a user clicking "Allow" would. The browser's side (identity.launchWebAuthFlow, the card) is
 * covered by tests/e2e/mcp-oauth.e2e.test.ts.
 *
 * Run by scripts/mcp-conformance.mjs (npm run test:mcp), which bundles this file once.
 */
import type { ElicitationAnswer, ElicitationRequest } from '../lib/contracts/questions';
import { elicitationDefaults } from '../lib/skills/elicitation-form';
import type { McpCall } from '../lib/skills/services';
import type { ToolContext } from '../lib/tools/registry';
import { McpServerSessions } from '../lib/skills/mcp-servers';
import { MemorySignInStore } from '../lib/skills/mcp-oauth';
import { redirectFollowingWindow } from '../tests/harness/oauth-window';
import type { SkillRecord } from '../lib/skills/types';

/**
 * The user of the conformance run: a server's elicitation goes through Pagewright's own path
 * (lib/skills/mcp-elicitation.ts: the schema read into form fields, the answer checked) to this
 * stand-in for the card, which accepts what the form starts with — the schema's defaults
 * (SEP-1034), as a user who changes nothing and clicks Accept sends them. URL mode is declined:
 * there is no browser to open the page in.
 */
function userAcceptingDefaults(signal: AbortSignal): McpCall {
  const elicit = async (request: ElicitationRequest): Promise<ElicitationAnswer> =>
    request.mode === 'form' ? { action: 'accept', content: elicitationDefaults(request.fields) } : { action: 'decline' };
  // A step-up sign-in during a call is agreed to, as the sign-in card's Sign in would be.
  const askSignIn = async () => true;
  return { signal, ctx: { env: { elicit, askSignIn } } as unknown as ToolContext };
}

function skillFor(url: string, context: Record<string, unknown>): SkillRecord {
  const config: Record<string, unknown> = { url, transport: 'streamable_http' };
  if (process.env.MCP_CONFORMANCE_SCENARIO?.startsWith('auth/')) {
    config.auth_type = 'oauth2';
    if (typeof context.client_id === 'string') config.oauth_client_id = context.client_id;
    if (typeof context.client_secret === 'string') config.oauth_client_secret = context.client_secret;
  }
  return { id: 'conformance', name: 'conformance', description: 'The conformance test server', skill_type: 'mcp', config_json: JSON.stringify(config), is_active: true, created_at: 0, updated_at: 0 };
}

/** Arguments for a tool from its schema: the suite's tools take numbers or nothing. */
function argumentsFor(schema: Record<string, unknown>): Record<string, unknown> {
  const props = (schema.properties ?? {}) as Record<string, { type?: string }>;
  const args: Record<string, unknown> = {};
  let n = 2;
  for (const [name, p] of Object.entries(props)) {
    if (p.type === 'number' || p.type === 'integer') args[name] = n++;
    else if (p.type === 'string') args[name] = 'test';
    else if (p.type === 'boolean') args[name] = true;
  }
  return args;
}

async function main(): Promise<void> {
  const url = process.argv.at(-1);
  if (!url?.startsWith('http')) throw new Error('usage: mcp-conformance-client <server url>');
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
  const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT || '{}') as Record<string, unknown>;
  const sessions = new McpServerSessions({
    oauth: { store: new MemorySignInStore(), window: redirectFollowingWindow(), withoutRun: async () => true },
  });
  const skill = skillFor(url, context);
  const signal = AbortSignal.timeout(25_000);
  try {
    const tools = await sessions.listTools(skill, { signal });
    // "initialize" judges the handshake only; every other scenario calls what it offers.
    if (scenario !== 'initialize') {
      for (const tool of tools) {
        const result = await sessions.callTool(skill, tool.name, argumentsFor(tool.inputSchema), userAcceptingDefaults(signal));
        const text = typeof result === 'string' ? result : String(result.value);
        console.log(`${tool.name}: ${text.slice(0, 200)}`);
      }
    }
  } finally {
    await sessions.closeAll();
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  },
);
