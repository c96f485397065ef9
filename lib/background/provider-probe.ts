/**
 * The background's side of Settings' model list and Test button: the form's values (not the saved
 * settings: the user tests before saving) become an endpoint with the preset's API kind, and
 * lib/agent/providers/probe.ts does the rest.
 */
import * as v from 'valibot';
import { createModelClient } from '../agent/providers';
import { PROVIDER_PRESETS, type ModelListResult, type ProbeProblem, type TestResult } from '../agent/providers/presets';
import { endpointOf, listModels, ProviderFormSchema, testEndpoint, type ProviderForm } from '../agent/providers/probe';
import { originFixFor } from '../agent/providers/local-origin';

/**
 * Runs a probe with the Origin fix for the form's URL in place (where it is one that gets the
 * fix once saved), so Test says what a run will meet rather than what an unsaved URL meets.
 */
export type WithOrigin = <T>(origin: string | undefined, work: () => Promise<T>) => Promise<T>;
const asIs: WithOrigin = (_origin, work) => work();
const originOf = (form: ProviderForm) => originFixFor(form.baseUrl, { local: PROVIDER_PRESETS[form.provider].local });

/** A model list comes back quickly or not at all; a test waits for a slow (local, cold) model a while. */
const LIST_TIMEOUT_MS = 15_000;
const TEST_TIMEOUT_MS = 60_000;

export async function listProviderModels(data: unknown, fetchFn: typeof fetch = globalThis.fetch.bind(globalThis), withOrigin: WithOrigin = asIs): Promise<ModelListResult> {
  const form = parseForm(data);
  if (!form.ok) return form;
  const preset = PROVIDER_PRESETS[form.value.provider];
  if (!preset.models) return { ok: false, problem: { kind: 'other', message: `${preset.name} documents no model list: type the model's name.` } };
  const models = preset.models;
  return withOrigin(originOf(form.value), () => listModels(endpointOf(form.value), fetchFn, AbortSignal.timeout(LIST_TIMEOUT_MS), models));
}

export async function testProvider(data: unknown, withOrigin: WithOrigin = asIs): Promise<TestResult> {
  const form = parseForm(data);
  if (!form.ok) return form;
  if (!form.value.model) return { ok: false, problem: { kind: 'other', message: 'Enter a model first.' } };
  const endpoint = endpointOf(form.value);
  const model = form.value.model;
  return withOrigin(originOf(form.value), () => testEndpoint(endpoint, model, createModelClient(endpoint), AbortSignal.timeout(TEST_TIMEOUT_MS)));
}

function parseForm(data: unknown): { ok: true; value: ProviderForm } | { ok: false; problem: ProbeProblem } {
  const r = v.safeParse(ProviderFormSchema, data);
  return r.success ? { ok: true, value: r.output } : { ok: false, problem: { kind: 'other', message: r.issues[0].message } };
}
