import { describe, expect, it } from 'vitest';
import { configuredEndpoints, endpointFor } from '../../lib/agent/providers/endpoints';
import { defaultSettings, type Settings } from '../../lib/settings';

const settings = (patch: Partial<Settings> = {}): Settings => ({ ...defaultSettings(), apiKey: 'sk-main', ...patch });

describe('endpointFor', () => {
  it('gives the main provider its own fields and the preset API kind', () => {
    expect(endpointFor(settings())).toEqual({
      ok: true,
      endpoint: { provider: 'anthropic', kind: 'anthropic', baseUrl: 'https://api.anthropic.com', apiKey: 'sk-main', authHeader: 'x-api-key' },
    });
    const openai = settings({ provider: 'openai', baseUrl: 'https://api.openai.com/v1', authHeader: 'bearer' });
    expect(endpointFor(openai)).toMatchObject({ ok: true, endpoint: { provider: 'openai', kind: 'openai', authHeader: 'bearer' } });
    // Naming the main provider is the same as naming none.
    expect(endpointFor(openai, 'openai')).toEqual(endpointFor(openai, ''));
  });

  it('uses the saved connection of another provider', () => {
    const s = settings({ providerConfigs: { ollama: { baseUrl: 'http://localhost:11434', apiKey: '', authHeader: 'none' } } });
    expect(endpointFor(s, 'ollama')).toEqual({
      ok: true,
      endpoint: { provider: 'ollama', kind: 'anthropic', baseUrl: 'http://localhost:11434', apiKey: '', authHeader: 'none' },
    });
  });

  it('says what to do for a provider never set up, or one without its key', () => {
    const none = endpointFor(settings(), 'groq');
    expect(none).toMatchObject({ ok: false });
    expect(!none.ok && none.message).toMatch(/Groq is not set up: choose it in Settings/);
    const keyless = endpointFor(settings({ providerConfigs: { openai: { baseUrl: 'https://api.openai.com/v1', apiKey: '', authHeader: 'bearer' } } }), 'openai');
    expect(!keyless.ok && keyless.message).toBe('No API key is set for OpenAI.');
    expect(endpointFor(settings({ apiKey: '' }))).toEqual({ ok: false, message: 'No API key is set.' });
  });

  it('lets a local server and the Other presets go without a key', () => {
    expect(endpointFor(settings({ provider: 'ollama', apiKey: '', baseUrl: 'http://127.0.0.1:11434', authHeader: 'none' })).ok).toBe(true);
    expect(endpointFor(settings({ provider: 'other-openai', apiKey: '', baseUrl: 'http://10.0.0.2:8000/v1', authHeader: 'bearer' })).ok).toBe(true);
  });
});

describe('configuredEndpoints', () => {
  it('lists the main endpoint first, then every usable saved one', () => {
    const s = settings({
      providerConfigs: {
        ollama: { baseUrl: 'http://localhost:11434', apiKey: '', authHeader: 'none' },
        openai: { baseUrl: 'https://api.openai.com/v1', apiKey: '', authHeader: 'bearer' },
        anthropic: { baseUrl: 'https://stale.example', apiKey: 'old', authHeader: 'x-api-key' },
      },
    });
    expect(configuredEndpoints(s).map((e) => `${e.provider} ${e.baseUrl}`)).toEqual(['anthropic https://api.anthropic.com', 'ollama http://localhost:11434']);
  });
});
