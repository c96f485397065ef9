import { ToolRegistry, type ToolDefinition } from './registry';
import { taskTools } from './tasks';

/** Every built-in tool, in the order the model sees them. Later families register here. */
export const builtinTools: readonly ToolDefinition<any>[] = [...taskTools];

export const createBuiltinRegistry = () => new ToolRegistry(builtinTools);
