/**
 * Context windows per model: pure, so Settings can show the automatic value beside the field.
 */
export const DEFAULT_CONTEXT_WINDOW = 200_000;

/**
 * Context windows known per model family (the longest prefix wins). Anthropic's current models
 * take 200,000 tokens unless a beta header asks for more, which Pagewright never sends.
 */
const KNOWN_WINDOWS: [prefix: string, tokens: number][] = [['claude-', 200_000]];

/** The window to manage against: the user's setting when set (non-zero), else the model's, else 200,000. */
export function contextWindowFor(model: string, setting = 0): number {
  if (setting > 0) return setting;
  let best: [string, number] | undefined;
  for (const entry of KNOWN_WINDOWS) if (model.startsWith(entry[0]) && (!best || entry[0].length > best[0].length)) best = entry;
  return best?.[1] ?? DEFAULT_CONTEXT_WINDOW;
}
