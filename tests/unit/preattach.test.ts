import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { RUN_EVENTS_PORT } from '../../lib/protocol';

// public/preattach.js is a classic script outside the bundle: it must keep speaking the protocol.
describe('public/preattach.js', () => {
  const source = fs.readFileSync(new URL('../../public/preattach.js', import.meta.url), 'utf8');

  it('opens the run-events port by its protocol name', () => {
    expect(source).toContain(`name: '${RUN_EVENTS_PORT}'`);
  });

  it('attaches to the latest conversation and hands the port to the client', () => {
    expect(source).toContain("postMessage({ type: 'attach', conversationId: null })");
    expect(source).toContain('globalThis.__pagewrightEarlyPort = early');
  });
});
