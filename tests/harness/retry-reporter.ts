import type { Reporter, TestCase, TestModule, Vitest } from 'vitest/node';

interface Retried {
  file: string;
  name: string;
  retries: number;
  passed: boolean;
}

/**
 * The e2e project retries a failed test once (vitest.config.ts). A test that needs its retry is
 * flaky, yet in a full run the default reporter folds it into its file's one passing line: this
 * names each retried test at the end of the run, and in CI fails a run that passed only thanks to
 * a retry.
 *
 * Failing CI on a retried-then-passed test is right here because retries are rare: the retry is
 * there for a browser launch that goes wrong now and then on a loaded 2-core machine, and none of
 * the e2e runs made while adding this reporter needed one (tabs, pages, chat, sandbox, function
 * skills and the dev session, at a load average near 10). A test that needed it is a race to fix
 * (as the sub-agent test's hung requests were), and a red CI that names it gets it fixed rather
 * than piling up. Should retries become common, the answer is fixing those tests, not this; a
 * one-off can be waved through with PAGEWRIGHT_FAIL_ON_RETRY=0. The retry still earns its keep in
 * CI: the summary tells "flaky" (passed on its retry) from "failed" (every attempt).
 */
export class RetryReporter implements Reporter {
  private vitest?: Vitest;
  private e2eTests = 0;
  private retried: Retried[] = [];

  constructor(private readonly project = 'e2e') {}

  onInit(vitest: Vitest) {
    this.vitest = vitest;
  }

  onTestRunStart() {
    this.e2eTests = 0;
    this.retried = [];
  }

  onTestCaseResult(test: TestCase) {
    if (test.project.name !== this.project) return;
    this.e2eTests++;
    const retries = test.diagnostic()?.retryCount ?? 0;
    if (retries > 0) this.retried.push({ file: test.module.relativeModuleId, name: test.fullName, retries, passed: test.result().state === 'passed' });
  }

  onTestRunEnd(_modules: ReadonlyArray<TestModule>) {
    // A unit or component run has no e2e tests: say nothing rather than "none".
    if (this.e2eTests === 0) return;
    const log = (line: string) => (this.vitest ? this.vitest.logger.log(line) : console.log(line));
    if (this.retried.length === 0) {
      log('\ne2e retries: none');
      return;
    }
    log(`\n==== e2e retries: ${this.retried.length} test(s) needed a retry ====`);
    for (const r of this.retried) {
      log(`  ${r.passed ? 'FLAKY (passed on retry)' : 'FAILED (every attempt)'}  ${r.file} > ${r.name}  [${r.retries} ${r.retries === 1 ? 'retry' : 'retries'}]`);
    }
    log('==== end of e2e retries ====');
    const flaky = this.retried.filter((r) => r.passed);
    if (flaky.length > 0 && failOnRetry(process.env)) {
      log(`e2e retries: failing the run: ${flaky.length} test(s) passed only on a retry (CI or PAGEWRIGHT_FAIL_ON_RETRY=1; PAGEWRIGHT_FAIL_ON_RETRY=0 lets it pass).`);
      process.exitCode = 1;
    }
  }
}

export function failOnRetry(env: NodeJS.ProcessEnv): boolean {
  if (env.PAGEWRIGHT_FAIL_ON_RETRY === '0') return false;
  return env.PAGEWRIGHT_FAIL_ON_RETRY === '1' || (!!env.CI && env.CI !== 'false' && env.CI !== '0');
}
