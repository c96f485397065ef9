/** What Settings says about a provider test or a model list, in the user's language. */
import { looksLikeOllama, PROVIDER_PRESETS, type ProbeProblem, type ProviderId, type TestResult } from '../../lib/agent/providers/presets';
import { t } from '../../lib/i18n';

export const providerName = (id: ProviderId): string => {
  const p = PROVIDER_PRESETS[id];
  return p.nameKey ? t(p.nameKey) : p.name;
};

/** The test's one line: what happened, and for an Origin refusal exactly what to set. */
export function testWords(r: TestResult, form: { provider: ProviderId; baseUrl: string; model: string }): string {
  if (r.ok) return t(r.calledTool ? 'provider_test_ok_tool' : 'provider_test_ok_no_tool', r.model ?? form.model);
  return problemWords(r.problem, form);
}

export function problemWords(p: ProbeProblem, form: { provider: ProviderId; baseUrl: string }): string {
  switch (p.kind) {
    case 'bad_key':
      return t('provider_problem_bad_key', p.status, p.message);
    case 'unknown_model':
      return t('provider_problem_unknown_model', p.status, p.message);
    case 'no_tools':
      return t('provider_problem_no_tools', p.message);
    case 'unreachable':
      return t('provider_problem_unreachable', form.baseUrl, p.message);
    case 'origin_refused':
      return looksLikeOllama(form.provider, form.baseUrl) ? t('provider_problem_origin_ollama') : t('provider_problem_origin_other', form.baseUrl);
    case 'other':
      return t('provider_problem_other', p.status ? `HTTP ${p.status}: ${p.message}` : p.message);
  }
}
