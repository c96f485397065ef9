/** The model's rule for tool names (Anthropic Messages API: ^[a-zA-Z0-9_-]{1,64}$). */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;
export const TOOL_NAME_MAX = 64;

/** Why `name` cannot be a skill's tool name, or undefined when it can. */
export function toolNameProblem(name: string, taken: { builtin: ReadonlySet<string>; skills: ReadonlySet<string> }): string | undefined {
  if (!name) return 'The name is empty.';
  if (name.length > TOOL_NAME_MAX) return `The name is ${name.length} characters; the limit is ${TOOL_NAME_MAX}.`;
  if (!TOOL_NAME_PATTERN.test(name)) {
    return 'The name may hold only letters a–z and A–Z, digits, "_" and "-" (no spaces), as the model requires of tool names.';
  }
  if (taken.builtin.has(name)) return `"${name}" is the name of a built-in tool; choose another.`;
  if (taken.skills.has(name)) return `Another skill is already called "${name}".`;
  return undefined;
}

/**
 * The tool name of an MCP server's tool exposed through the skill `skill`: prefixed so two
 * servers' tools cannot collide, and cut to the model's limit (a hash keeps cut names distinct).
 */
export function prefixedToolName(skill: string, tool: string): string {
  const clean = tool.replace(/[^a-zA-Z0-9_-]/g, '_');
  const full = `${skill}__${clean}`;
  if (full.length <= TOOL_NAME_MAX) return full;
  const hash = shortHash(full);
  return `${full.slice(0, TOOL_NAME_MAX - hash.length - 1)}_${hash}`;
}

function shortHash(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(36);
}
