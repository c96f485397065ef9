import { describe, expect, it } from 'vitest';
import { localOriginTargets, originFixFor } from '../../lib/agent/providers/local-origin';
import { dnrLocalOrigin, FIRST_RULE_ID, originRules, type OriginRule, type SessionRulesApi } from '../../lib/browser/local-origin';
import { defaultSettings, type Settings } from '../../lib/settings';
import { ollamaAllowsOrigin } from '../harness/fake-anthropic';

const settings = (patch: Partial<Settings> = {}): Settings => ({ ...defaultSettings(), apiKey: 'sk-main', ...patch });
const none = { apiKey: '', authHeader: 'none' as const };

describe('originFixFor', () => {
  it('gives a loopback server its own origin, whatever the path, port or spelling', () => {
    expect(originFixFor('http://localhost:11434')).toBe('http://localhost:11434');
    expect(originFixFor('http://127.0.0.1:8080/anthropic/')).toBe('http://127.0.0.1:8080');
    expect(originFixFor('http://127.1.2.3:1234')).toBe('http://127.1.2.3:1234');
    expect(originFixFor('http://[::1]:8000/v1')).toBe('http://[::1]:8000');
    expect(originFixFor('HTTP://LocalHost:11434')).toBe('http://localhost:11434');
    expect(originFixFor('http://ollama.localhost:11434')).toBe('http://ollama.localhost:11434');
    expect(originFixFor('http://0.0.0.0:11434')).toBe('http://0.0.0.0:11434');
    // The default port is not part of an origin, and a request URL then has none either.
    expect(originFixFor('http://localhost:80/')).toBe('http://localhost');
    expect(originFixFor('https://localhost:8443')).toBe('https://localhost:8443');
  });

  it('gives a private-network server the fix only for a preset marked local', () => {
    for (const url of ['http://192.168.1.20:11434', 'http://10.0.0.2:8000', 'http://172.20.0.5:1234', 'http://[fd00::5]:11434']) {
      expect(originFixFor(url), url).toBeUndefined();
      expect(originFixFor(url, { local: true }), url).toBe(new URL(url).origin);
    }
  });

  it('never touches a public host, look-alikes of local ones, or what is not http', () => {
    for (const url of ['https://api.anthropic.com', 'http://172.32.0.1:11434', 'http://8.8.8.8', 'http://localhost.example.com:11434', 'http://127.0.0.1.nip.io:11434', 'http://[2001:db8::1]:11434']) {
      expect(originFixFor(url, { local: true }), url).toBeUndefined();
    }
    expect(originFixFor('ftp://localhost/')).toBeUndefined();
    expect(originFixFor('not a url')).toBeUndefined();
  });
});

describe('localOriginTargets', () => {
  it('covers the main provider and every saved connection that would get the fix, each server once', () => {
    const s = settings({
      provider: 'ollama',
      baseUrl: 'http://localhost:11434',
      ...none,
      providerConfigs: {
        anthropic: { baseUrl: 'https://api.anthropic.com', apiKey: 'sk', authHeader: 'x-api-key' },
        lmstudio: { baseUrl: 'http://192.168.1.9:1234', ...none },
        vllm: { baseUrl: 'http://localhost:11434/other', ...none },
        'other-anthropic': { baseUrl: 'http://127.0.0.1:4000', ...none },
        'other-openai': { baseUrl: 'http://10.1.1.1:8000/v1', ...none },
      },
    });
    expect(localOriginTargets(s)).toEqual(['http://127.0.0.1:4000', 'http://192.168.1.9:1234', 'http://localhost:11434']);
  });

  it('has nothing to fix for the default settings, and drops a provider the settings no longer have', () => {
    expect(localOriginTargets(defaultSettings())).toEqual([]);
    const withOllama = settings({ providerConfigs: { ollama: { baseUrl: 'http://localhost:11434', ...none } } });
    expect(localOriginTargets(withOllama)).toEqual(['http://localhost:11434']);
    expect(localOriginTargets(settings({ providerConfigs: {} }))).toEqual([]);
  });
});

describe('originRules', () => {
  it('sets the Origin of the extension’s own requests to exactly that server', () => {
    expect(originRules(['http://127.0.0.1:11434'], 'abcdefghijklmnopabcdefghijklmnop')).toEqual([
      {
        id: FIRST_RULE_ID,
        priority: 1,
        action: { type: 'modifyHeaders', requestHeaders: [{ header: 'origin', operation: 'set', value: 'http://127.0.0.1:11434' }] },
        condition: { urlFilter: '|http://127.0.0.1:11434/', initiatorDomains: ['abcdefghijklmnopabcdefghijklmnop'], resourceTypes: ['xmlhttprequest'] },
      },
    ]);
  });
});

/** declarativeNetRequest's session rules, as far as the adapter uses them. */
function fakeSessionRules(initial: { id: number }[] = []) {
  let rules: ({ id: number } | OriginRule)[] = [...initial];
  const calls: { removeRuleIds?: number[]; addRules?: OriginRule[] }[] = [];
  let fail = false;
  const api: SessionRulesApi = {
    getSessionRules: async () => rules,
    updateSessionRules: async (o) => {
      calls.push(o);
      if (fail) throw new Error('Rule with id 15000 does not have a valid condition');
      rules = [...rules.filter((r) => !o.removeRuleIds?.includes(r.id)), ...(o.addRules ?? [])];
    },
  };
  return { api, calls, rules: () => rules, failNext: (f: boolean) => (fail = f) };
}

describe('dnrLocalOrigin', () => {
  it('replaces its own rules in one call, leaves other rules alone, and skips a call that changes nothing', async () => {
    const dnr = fakeSessionRules([{ id: 1 }, { id: FIRST_RULE_ID + 3 }]);
    const adapter = dnrLocalOrigin(dnr.api, 'ext-host');
    await adapter.apply(['http://localhost:11434', 'http://127.0.0.1:1234']);
    expect(dnr.calls).toHaveLength(1);
    expect(dnr.calls[0]!.removeRuleIds).toEqual([FIRST_RULE_ID + 3]);
    expect(dnr.rules().map((r) => r.id)).toEqual([1, FIRST_RULE_ID, FIRST_RULE_ID + 1]);
    await adapter.apply(['http://localhost:11434', 'http://127.0.0.1:1234']);
    expect(dnr.calls).toHaveLength(1);
    await adapter.apply([]);
    expect(dnr.rules().map((r) => r.id)).toEqual([1]);
  });

  it('applies calls in order, and tries again after the browser refused the rules', async () => {
    const dnr = fakeSessionRules();
    const adapter = dnrLocalOrigin(dnr.api, 'ext-host');
    dnr.failNext(true);
    await expect(adapter.apply(['http://localhost:11434'])).resolves.toBeUndefined();
    dnr.failNext(false);
    void adapter.apply(['http://localhost:1']);
    await adapter.apply(['http://localhost:11434']);
    expect(dnr.rules().map((r) => (r as OriginRule).action.requestHeaders[0]!.value)).toEqual(['http://localhost:11434']);
  });

  it('does nothing, and breaks nothing, where the browser has no session rules', async () => {
    await expect(dnrLocalOrigin(undefined, 'ext-host').apply(['http://localhost:11434'])).resolves.toBeUndefined();
  });
});

describe('the fake server’s Origin check (as a default Ollama)', () => {
  it('lets through no Origin, its own, and local web origins; refuses extensions and other sites', () => {
    const host = '127.0.0.1:11434';
    for (const o of [undefined, 'http://127.0.0.1:11434', 'http://localhost', 'http://localhost:5173', 'https://127.0.0.1:3000', 'app://obsidian.md', 'vscode-webview://abc']) {
      expect(ollamaAllowsOrigin(o, host), String(o)).toBe(true);
    }
    for (const o of ['chrome-extension://abcdefghijklmnop', 'moz-extension://6a1f2c4e-9b3d', 'http://shop.pagewright.test:11434', 'null', 'http://192.168.1.2:11434']) {
      expect(ollamaAllowsOrigin(o, host), o).toBe(false);
    }
  });
});
