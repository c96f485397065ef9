/**
 * The built-in tools' names, without their code: the management page checks skill names and agent
 * tool sets against them and should not load every tool to do so (a unit test keeps the two in step).
 */
export const BUILTIN_TOOL_NAMES = [
  'web_fetch',
  'web_search',
  'list_tabs',
  'open_tab',
  'close_tab',
  'activate_tab',
  'get_tab_content',
  'execute_script',
  'opfs_read',
  'opfs_write',
  'opfs_list',
  'opfs_delete',
  'ask_user',
  'agent',
  'create_task',
  'update_task',
  'list_tasks',
  'propose_skill',
] as const;

/** What an agent profile may be given: everything but asking the user and starting agents. */
export const DELEGABLE_TOOL_NAMES = BUILTIN_TOOL_NAMES.filter((n) => n !== 'ask_user' && n !== 'agent');
