import { agentTools } from './agent';
import { userTools } from './ask-user';
import { opfsTools } from './opfs';
import { pageActionTools } from './page-actions';
import { pageTools } from './pages';
import { ToolRegistry, type ToolDefinition } from './registry';
import { scriptTools } from './scripts';
import { screenshotTools } from './screenshot';
import { skillTools } from './skills';
import { tabTools } from './tabs';
import { taskTools } from './tasks';
import { webTools } from './web';

/** Every built-in tool, in the order the model sees them (the catalog's). Later families register here. */
export const builtinTools: readonly ToolDefinition<any>[] = [...webTools, ...tabTools, ...pageTools, ...screenshotTools, ...scriptTools, ...pageActionTools, ...opfsTools, ...userTools, ...agentTools, ...taskTools, ...skillTools];

export const createBuiltinRegistry = () => new ToolRegistry(builtinTools);
