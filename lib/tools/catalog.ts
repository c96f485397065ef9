/**
 * The built-in tools' facts (lib/contracts/tools.ts), in the order the model sees the tools. Each
 * definition takes its name and facts from here (builtinFacts), and the sub-agents' tool sets,
 * the skill-name check and the agent-profile form derive from them. The facts sit apart from the
 * definitions so that the management page can read them without the handlers: importing the
 * definitions would double its bundle (the web, search and extraction code behind them).
 */
import { availableTo, type ToolFacts, type ToolKindFacts } from '../contracts/tools';

/** The main agent's only: asking the user belongs to the conversation the user is in. */
const MAIN = [] as const;
const GENERAL = ['general'] as const;
/** Reading the web and the open tabs is the researcher's work (it changes nothing). */
const RESEARCH = ['researcher', 'general'] as const;
/** Opening, switching, closing and scripting tabs is the page operator's. */
const OPERATE = ['page_operator', 'general'] as const;
const READ_TABS = ['researcher', 'page_operator', 'general'] as const;

const FACTS = {
  web_fetch: { risk: 'send_off_machine', subAgents: RESEARCH, thirdPartyText: true },
  web_search: { risk: 'send_off_machine', subAgents: RESEARCH, thirdPartyText: true },
  list_tabs: { risk: 'read_local', subAgents: READ_TABS },
  // Loads a page in the user's browser, with their cookies: the site sees a request as the user's
  // and its scripts run (the address itself leaves the machine too, which act_on_site covers).
  open_tab: { risk: 'act_on_site', subAgents: OPERATE },
  // Closing a tab can lose what the user typed into its page; activating a discarded tab
  // reloads it from the site. Both change the user's browsing, not just the agent's view of it.
  close_tab: { risk: 'act_on_site', subAgents: OPERATE },
  activate_tab: { risk: 'act_on_site', subAgents: OPERATE },
  get_tab_content: { risk: 'read_site', subAgents: READ_TABS, thirdPartyText: true },
  // Seeing a page is reading it, and what it shows is the site's (text in an image can instruct too).
  // Beyond the contract's 17 tools (issue 18).
  screenshot: { risk: 'read_site', subAgents: READ_TABS, thirdPartyText: true },
  // Page code acts in the site as the user; sandbox code (riskOf) computes with no way out.
  execute_script: { risk: 'act_on_site', subAgents: OPERATE },
  // Clicks and keys in the site as the user (issue 18, beyond the contract); what it reports back
  // (text that appeared, a dialog's message) is the site's words.
  page_action: { risk: 'act_on_site', subAgents: OPERATE, thirdPartyText: true },
  opfs_write: { risk: 'write_local', subAgents: GENERAL },
  opfs_read: { risk: 'read_local', subAgents: GENERAL },
  opfs_list: { risk: 'read_local', subAgents: GENERAL },
  // The workspace has no bin: a deleted file is gone.
  opfs_delete: { risk: 'write_local', subAgents: GENERAL, destructive: true },
  // Puts a question to the user and reads the answer: nothing leaves, nothing changes.
  ask_user: { risk: 'read_local', subAgents: MAIN },
  // As risky as the tools its sub-agent may call (riskOf): a general one may be given any of
  // the run's skills, a public post among them.
  // Its answer is built from whatever its sub-agent read.
  agent: { risk: 'irreversible_external', subAgents: MAIN, spawnsAgent: true, thirdPartyText: true },
  // The task list is the conversation's own, in memory.
  create_task: { risk: 'read_local', subAgents: GENERAL },
  update_task: { risk: 'read_local', subAgents: GENERAL },
  list_tasks: { risk: 'read_local', subAgents: GENERAL },
  // Saves a proposal for the user's review; its code runs only once the user approves it.
  propose_skill: { risk: 'write_local', subAgents: GENERAL },
} as const satisfies Record<string, ToolKindFacts>;

export type BuiltinToolName = keyof typeof FACTS;

/** The facts of the built-in tool `name`, for its definition to spread. */
export const builtinFacts = (name: BuiltinToolName): ToolFacts => ({ name, ...FACTS[name] });

export const BUILTIN_TOOL_NAMES = Object.keys(FACTS) as BuiltinToolName[];

export const BUILTIN_TOOL_FACTS: readonly ToolFacts[] = BUILTIN_TOOL_NAMES.map(builtinFacts);

/** What an agent profile may be given: the built-in tools of a general sub-agent, which it runs as. */
export const DELEGABLE_TOOL_NAMES = BUILTIN_TOOL_FACTS.filter((f) => availableTo(f, 'general')).map((f) => f.name);
