/**
 * Settings' model provider group: presets fill the base URL and say whether a key is needed, each
 * provider's connection is kept when switching away and restored when switching back, the model
 * list feeds a picker while free text still works, and the Test button says what happened for each
 * outcome. The background's listModels / testProvider are stood in for by recording fakes.
 */
import { describe, expect, test } from 'vitest';
import { page, userEvent } from 'vitest/browser';
import { render } from 'vitest-browser-svelte';
import type { ProviderValues } from '../../entrypoints/options/provider-form';
import type { ModelListResult, ProviderForm, TestResult } from '../../lib/agent/providers/presets';
import Host from './ProviderSettingsHost.svelte';

const anthropic = (): ProviderValues => ({
  provider: 'anthropic',
  baseUrl: 'https://api.anthropic.com',
  apiKey: 'sk-ant',
  authHeader: 'x-api-key',
  model: 'claude-sonnet-5-5',
  providerConfigs: {},
});

async function setup(opts: { debounceMs?: number; initial?: ProviderValues; list?: (f: ProviderForm) => ModelListResult | Promise<ModelListResult>; test?: (f: ProviderForm) => TestResult | Promise<TestResult> } = {}) {
  const listCalls: ProviderForm[] = [];
  const testCalls: ProviderForm[] = [];
  let values!: ProviderValues;
  await render(Host, {
    initial: opts.initial ?? anthropic(),
    listModels: async (f: ProviderForm) => (listCalls.push(f), (opts.list ?? (() => ({ ok: true, models: [] })))(f)),
    testProvider: async (f: ProviderForm) => (testCalls.push(f), (opts.test ?? (() => ({ ok: true, calledTool: true })))(f)),
    expose: (v: ProviderValues) => (values = v),
    ...(opts.debounceMs ? { debounceMs: opts.debounceMs } : {}),
  });
  return { listCalls, testCalls, values: () => values };
}

const providerPicker = () => page.getByRole('combobox', { name: 'Model provider' });
const baseUrl = () => page.getByRole('textbox', { name: 'Base URL' });
const keyLabel = () => document.querySelector('label[for="apiKey"]')?.textContent?.trim();
const modelInput = () => page.getByRole('combobox', { name: 'Model', exact: true });
const testResult = () => document.querySelector('[data-provider-test-result]');
const listHint = () => document.getElementById('model-list');

describe('presets', () => {
  test('picking a preset fills its base URL and whether a key is needed; the old connection is kept and comes back', async () => {
    const { values } = await setup();
    await baseUrl().fill('https://proxy.example/anthropic');
    expect(keyLabel()).toBe('API key');

    await providerPicker().selectOptions('ollama');
    await expect.element(baseUrl()).toHaveValue('http://localhost:11434');
    await expect.poll(keyLabel).toBe('API key (optional)');
    await expect.element(page.getByText('Local servers run without a key; enter one only if yours is set to require it.')).toBeVisible();
    await expect.element(page.getByRole('textbox', { name: 'API key (optional)' })).toHaveValue('');
    expect(values().providerConfigs.anthropic).toEqual({ baseUrl: 'https://proxy.example/anthropic', apiKey: 'sk-ant', authHeader: 'x-api-key', model: 'claude-sonnet-5-5' });
    expect(values()).toMatchObject({ provider: 'ollama', authHeader: 'bearer', model: '' });
    // Only the Other presets let the user pick the auth header.
    expect(document.getElementById('authHeader')).toBeNull();

    await providerPicker().selectOptions('deepseek');
    await expect.element(baseUrl()).toHaveValue('https://api.deepseek.com/anthropic');
    await expect.poll(keyLabel).toBe('API key');
    await expect.element(modelInput()).toHaveValue('deepseek-v4-pro');
    await page.getByRole('textbox', { name: 'API key' }).fill('sk-deep');

    await providerPicker().selectOptions('anthropic');
    await expect.element(baseUrl()).toHaveValue('https://proxy.example/anthropic');
    await expect.element(page.getByRole('textbox', { name: 'API key' })).toHaveValue('sk-ant');
    // The model comes back with its provider; a provider left without one keeps none.
    await expect.element(modelInput()).toHaveValue('claude-sonnet-5-5');
    expect(values().providerConfigs).toEqual({
      ollama: { baseUrl: 'http://localhost:11434', apiKey: '', authHeader: 'bearer' },
      deepseek: { baseUrl: 'https://api.deepseek.com/anthropic', apiKey: 'sk-deep', authHeader: 'x-api-key', model: 'deepseek-v4-pro' },
    });

    await providerPicker().selectOptions('deepseek');
    await expect.element(page.getByRole('textbox', { name: 'API key' })).toHaveValue('sk-deep');
  });

  test('the Other presets start empty and let the user choose how the key is sent, down to none', async () => {
    const { values } = await setup();
    await providerPicker().selectOptions('other-openai');
    await expect.element(baseUrl()).toHaveValue('');
    const auth = page.getByRole('combobox', { name: 'Send the key as' });
    await expect.element(auth).toHaveValue('bearer');
    await auth.selectOptions('none');
    expect(values().authHeader).toBe('none');
    // No key travels, so there is no key field.
    await expect.poll(() => document.getElementById('apiKey')).toBeNull();
    await expect.element(page.getByText(/Speaks the OpenAI Chat Completions API/)).toBeVisible();
    // Looked at and left without an address: nothing is kept for it (an empty URL would make the
    // whole form unsaveable).
    await providerPicker().selectOptions('groq');
    await expect.element(baseUrl()).toHaveValue('https://api.groq.com/openai/v1');
    expect(values().providerConfigs['other-openai']).toBeUndefined();
  });

  test('local and cloud presets are grouped, brand names as they are', async () => {
    await setup();
    const groups = [...document.querySelectorAll('#provider optgroup')].map((g) => [g.getAttribute('label'), [...g.querySelectorAll('option')].map((o) => o.textContent)]);
    expect(groups).toEqual([
      ['Cloud', ['Anthropic', 'DeepSeek', 'Moonshot (Kimi)', 'Zhipu (Z.ai)', 'MiniMax', 'OpenAI', 'OpenRouter', 'Groq', 'Mistral', 'Google Gemini']],
      ['On this computer', ['Ollama', 'llama.cpp server', 'LM Studio', 'vLLM']],
      ['Other', ['Other — Anthropic-compatible', 'Other — OpenAI-compatible']],
    ]);
  });
});

describe('the model list', () => {
  test('is fetched after edits (debounced, once), shows as a picker, and free text still works', async () => {
    const { listCalls, values } = await setup({ debounceMs: 400, list: () => ({ ok: true, models: ['claude-haiku-5-5', 'claude-sonnet-5-5'] }) });
    // Opening the page asks for nothing.
    expect(listCalls).toEqual([]);
    await page.getByRole('textbox', { name: 'API key' }).fill('sk-n');
    await userEvent.type(page.getByRole('textbox', { name: 'API key' }), 'ew');
    await expect.poll(() => listHint()?.textContent?.trim()).toBe('2 models listed by the server: pick one or type a name.');
    expect(listCalls).toEqual([{ provider: 'anthropic', baseUrl: 'https://api.anthropic.com', apiKey: 'sk-new', authHeader: 'x-api-key', model: 'claude-sonnet-5-5' }]);
    expect([...document.querySelectorAll('#model-options option')].map((o) => (o as HTMLOptionElement).value)).toEqual(['claude-haiku-5-5', 'claude-sonnet-5-5']);
    expect(document.getElementById('model')?.getAttribute('list')).toBe('model-options');

    await modelInput().fill('my-fine-tune-7');
    expect(values().model).toBe('my-fine-tune-7');

    await page.getByRole('button', { name: 'Refresh models' }).click();
    await expect.poll(() => listCalls.length).toBe(2);
  });

  test('a failed list says why, and the model can still be typed', async () => {
    await setup({ list: () => ({ ok: false, problem: { kind: 'bad_key', status: 401, message: 'invalid x-api-key' } }) });
    await page.getByRole('button', { name: 'Refresh models' }).click();
    await expect
      .poll(() => listHint()?.textContent?.trim())
      .toBe('Could not list the models: The key was refused (HTTP 401): invalid x-api-key You can still type the model\'s name.');
    await modelInput().fill('claude-opus-5');
    await expect.element(modelInput()).toHaveValue('claude-opus-5');
  });

  test('a provider without a documented list says so and offers no refresh', async () => {
    const { listCalls } = await setup();
    await providerPicker().selectOptions('zhipu');
    await expect.poll(() => listHint()?.textContent?.trim()).toBe('Zhipu (Z.ai) publishes no model list for this endpoint; type the model\'s name.');
    await expect.element(page.getByRole('button', { name: 'Refresh models' })).toBeDisabled();
    await new Promise((r) => setTimeout(r, 150));
    expect(listCalls).toEqual([]);
  });
});

describe('the Test button', () => {
  const cases: [string, Partial<ProviderValues>, TestResult, string, 'ok' | 'failed'][] = [
    ['ok with a tool call', {}, { ok: true, model: 'claude-sonnet-5-5-20261001', calledTool: true }, 'OK — claude-sonnet-5-5-20261001 answered and called the tool.', 'ok'],
    ['ok without a tool call', {}, { ok: true, calledTool: false }, 'claude-sonnet-5-5 answered but did not call the tool: Pagewright needs a model that calls tools.', 'failed'],
    ['bad key', {}, { ok: false, problem: { kind: 'bad_key', status: 401, message: 'invalid x-api-key' } }, 'The key was refused (HTTP 401): invalid x-api-key', 'failed'],
    ['unknown model', {}, { ok: false, problem: { kind: 'unknown_model', status: 404, message: 'model: claude-nope' } }, 'The server does not know this model (HTTP 404): model: claude-nope', 'failed'],
    [
      'no tools',
      { provider: 'ollama', baseUrl: 'http://localhost:11434', model: 'gemma3:4b' },
      { ok: false, problem: { kind: 'no_tools', status: 400, message: 'registry.ollama.ai/library/gemma3:4b does not support tools' } },
      'This model does not call tools; Pagewright needs one that does. The server said: registry.ollama.ai/library/gemma3:4b does not support tools',
      'failed',
    ],
    [
      'unreachable',
      { provider: 'lmstudio', baseUrl: 'http://localhost:1234', apiKey: '', authHeader: 'bearer' },
      { ok: false, problem: { kind: 'unreachable', message: 'Connection error. (ECONNREFUSED)' } },
      'Could not reach http://localhost:1234: Connection error. (ECONNREFUSED)',
      'failed',
    ],
    [
      'origin refused by Ollama',
      { provider: 'ollama', baseUrl: 'http://localhost:11434', apiKey: '', authHeader: 'bearer' },
      { ok: false, problem: { kind: 'origin_refused', status: 403 } },
      "Ollama refused the extension's requests (HTTP 403). Set OLLAMA_ORIGINS=chrome-extension://*,moz-extension://* in Ollama's environment, then restart Ollama.",
      'failed',
    ],
    [
      'origin refused by another local server',
      { provider: 'other-anthropic', baseUrl: 'http://192.168.1.9:8080', apiKey: '' },
      { ok: false, problem: { kind: 'origin_refused', status: 403 } },
      "The server at http://192.168.1.9:8080 refused the extension's origin (HTTP 403). Allow the origins chrome-extension://* and moz-extension://* in its settings.",
      'failed',
    ],
    ['other, with the server\'s message', {}, { ok: false, problem: { kind: 'other', status: 529, message: 'Overloaded' } }, 'It did not work: HTTP 529: Overloaded', 'failed'],
  ];

  test.each(cases)('%s', async (_name, over, result, text, state) => {
    const initial = { ...anthropic(), ...over };
    const { testCalls } = await setup({ initial, test: () => result });
    await page.getByRole('button', { name: 'Test' }).click();
    await expect.poll(() => testResult()?.getAttribute('data-state')).toBe(state);
    expect(testResult()?.textContent?.trim()).toBe(text);
    expect(testCalls).toEqual([{ provider: initial.provider, baseUrl: initial.baseUrl, apiKey: initial.apiKey, authHeader: initial.authHeader, model: initial.model }]);
  });

  test('says it is testing while the request runs, and reports a failed message call', async () => {
    let finish!: (r: TestResult) => void;
    let calls = 0;
    await setup({ test: () => (++calls === 1 ? new Promise<TestResult>((r) => (finish = r)) : Promise.reject(new Error('Could not establish connection.'))) });
    await page.getByRole('button', { name: 'Test' }).click();
    await expect.poll(() => testResult()?.textContent?.trim()).toBe('Testing…');
    await expect.element(page.getByRole('button', { name: 'Test' })).toBeDisabled();
    finish({ ok: true, calledTool: true });
    await expect.poll(() => testResult()?.getAttribute('data-state')).toBe('ok');
    await page.getByRole('button', { name: 'Test' }).click();
    await expect.poll(() => testResult()?.textContent?.trim()).toBe('It did not work: Could not establish connection.');
  });
});
