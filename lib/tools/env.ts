import type { Notice } from '../contracts/notices';
import type { QuestionInput } from '../contracts/questions';
import type { SubAgentRequest, SubAgentResult } from '../contracts/sub-agents';
import type { ElicitationAnswer, ElicitationRequest, QuestionAnswer, SignInServer } from '../contracts/questions';
import type { DomHost } from '../browser/dom-host';
import type { DatabaseHost } from '../database/host';
import type { PagesAdapter } from '../browser/pages';
import type { ScreenshotAdapter } from '../browser/screenshot';
import type { TabsAdapter } from '../browser/tabs';
import type { SandboxHost } from '../sandbox/types';
import type { Workspace } from '../workspace';
import type { Settings } from '../settings';
import type { SkillProposals } from '../skills/proposals';
import { detachedAddresses, type ResolvedAddresses } from '../web/answer-address';

/** What the browser gives tools: the adapters chosen at start-up, and the network. */
export type BrowserEnv = Pick<ToolEnv, 'tabs' | 'pages' | 'screenshots' | 'sandbox' | 'dom' | 'database' | 'fetch' | 'addresses' | 'workspace' | 'skillProposals'>;

/** What tools reach the browser and the model through; built per run by the run manager. */
export interface ToolEnv {
  tabs: TabsAdapter;
  pages: PagesAdapter;
  /** Captures of a tab for the screenshot tool. */
  screenshots: ScreenshotAdapter;
  sandbox: SandboxHost;
  /** DOM work the background cannot do itself (fetched HTML → Markdown). */
  dom: DomHost;
  /** Where database skills' queries run (a Worker the background cannot hold itself in Chrome). */
  database: DatabaseHost;
  /** The network, for web_fetch and web_search (tests give a fake). */
  fetch: typeof fetch;
  /** Where web_fetch's answers came from, as the browser reports it (detached: nothing to watch). */
  addresses: ResolvedAddresses;
  /** The private OPFS workspace of the opfs_* tools. */
  workspace(): Promise<Workspace>;
  /** Function skills the model proposes, saved for the user's review. */
  skillProposals: SkillProposals;
  settings: Settings;
  /** Distils `text` with the model for `prompt`, in parts when it exceeds the model's context. */
  summarize(text: string, prompt: string, signal: AbortSignal): Promise<string>;
  notify(notice: Notice): void;
  /** Puts a question to the user and waits (bounded by the askUserTimeoutSec setting). */
  ask(question: QuestionInput, signal: AbortSignal): Promise<QuestionAnswer>;
  /** Puts an MCP server's request for input to the user (a form card) and waits, like ask. */
  elicit(request: ElicitationRequest, signal: AbortSignal): Promise<ElicitationAnswer>;
  /** Runs a sub-agent for the agent call `toolUseId`; stops when `signal` does. */
  subAgent(request: SubAgentRequest, toolUseId: string, signal: AbortSignal): Promise<SubAgentResult>;
  /**
   * An MCP server wants the user signed in (OAuth): the chat's "Sign in to <server>" card.
   * Resolves true when the user chose to sign in (the window opens next), false otherwise.
   */
  askSignIn(server: SignInServer, signal: AbortSignal): Promise<boolean>;
}

/** For runs that have no browser behind them (unit tests, benchmarks): every use says so. */
export function detachedEnv(settings: Settings): ToolEnv {
  const missing = (what: string) => () => {
    throw new Error(`${what} is not available here.`);
  };
  const trap = <T extends object>(what: string) =>
    new Proxy({} as T, { get: (_t, key) => (key === 'then' ? undefined : missing(`${what}.${String(key)}`)) });
  return {
    tabs: trap<TabsAdapter>('tabs'),
    pages: trap<PagesAdapter>('pages'),
    screenshots: trap<ScreenshotAdapter>('screenshots'),
    sandbox: trap<SandboxHost>('sandbox'),
    dom: trap<DomHost>('dom'),
    database: trap<DatabaseHost>('database'),
    fetch: missing('fetch') as typeof fetch,
    addresses: detachedAddresses,
    workspace: missing('workspace') as ToolEnv['workspace'],
    skillProposals: trap<SkillProposals>('skillProposals'),
    settings,
    summarize: missing('summarize') as ToolEnv['summarize'],
    notify: () => {},
    ask: missing('ask_user') as ToolEnv['ask'],
    elicit: missing('elicitation') as ToolEnv['elicit'],
    subAgent: missing('agent') as ToolEnv['subAgent'],
    askSignIn: missing('sign-in') as ToolEnv['askSignIn'],
  };
}
