/**
 * Context windows per model: pure, so Settings can show the automatic value beside the field.
 */
export const DEFAULT_CONTEXT_WINDOW = 200_000;

/**
 * Context windows known per model family (the longest prefix wins), as the providers' model pages
 * gave them on 2026-12-02. Anthropic's current models take 200,000 tokens unless a beta header
 * asks for more, which Pagewright never sends. Where a family's later members take more (GPT-5.4
 * and later take about a million), the family's smallest is listed: a window guessed too small
 * only compacts earlier, one guessed too large costs a refused request first.
 */
const KNOWN_WINDOWS: [prefix: string, tokens: number][] = [
  ['claude-', 200_000],
  ['gpt-4o', 128_000],
  ['gpt-4.1', 1_047_576],
  ['gpt-5', 400_000],
  ['deepseek-', 128_000],
];

/** The window to manage against: the user's setting when set (non-zero), else the model's, else 200,000. */
export function contextWindowFor(model: string, setting = 0): number {
  if (setting > 0) return setting;
  let best: [string, number] | undefined;
  for (const entry of KNOWN_WINDOWS) if (model.startsWith(entry[0]) && (!best || entry[0].length > best[0].length)) best = entry;
  return best?.[1] ?? DEFAULT_CONTEXT_WINDOW;
}
