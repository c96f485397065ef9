import { describe, expect, it } from 'vitest';
import { contextWindowFor, DEFAULT_CONTEXT_WINDOW } from '../../lib/agent/context-window';

describe('contextWindowFor across providers', () => {
  it('knows the OpenAI-format families by their longest prefix', () => {
    expect(contextWindowFor('gpt-4o-mini')).toBe(128_000);
    expect(contextWindowFor('gpt-4.1-nano')).toBe(1_047_576);
    expect(contextWindowFor('gpt-5-mini')).toBe(400_000);
    expect(contextWindowFor('deepseek-chat')).toBe(128_000);
  });

  it('falls back to the default for a model it does not know, and takes the setting first', () => {
    expect(contextWindowFor('qwen3:8b')).toBe(DEFAULT_CONTEXT_WINDOW);
    expect(contextWindowFor('gpt-5', 32_000)).toBe(32_000);
  });
});
