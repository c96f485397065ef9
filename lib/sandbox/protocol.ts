import { defineExtensionMessaging } from '@webext-core/messaging';
import type { SandboxEngine } from './engines';
import type { FunctionLanguage, SandboxOutcome } from './types';

/**
 * Extension pages → background: run code in the sandbox. Used by the e2e tests and the bench
 * (and open to any extension page); the agent's tools call the SandboxHost directly.
 */
export interface SandboxProtocol {
  /** `engine` picks a Chrome engine other than the host's (tests, bench); Firefox ignores it. */
  sandboxRun(data: { runId: string; code: string; timeoutMs: number; maxOutputChars?: number; engine?: SandboxEngine }): SandboxOutcome;
  /** A function skill's call, as the agent's tool makes it (SandboxHost.runFunction). */
  sandboxFunction(data: { runId: string; language: FunctionLanguage; code: string; args: Record<string, unknown>; timeoutMs: number }): SandboxOutcome;
  /** Stops the run with that id; a no-op when it has finished. */
  sandboxAbort(data: { runId: string }): void;
}

export const sandboxMessaging = defineExtensionMessaging<SandboxProtocol>();
