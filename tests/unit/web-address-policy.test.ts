import { describe, expect, it } from 'vitest';
import { checkFetchUrl, isIpHost, privateAddressReason, privateIpReason } from '../../lib/web/address-policy';
import { WebFetchError } from '../../lib/web/errors';

const reason = (raw: string) => privateAddressReason(new URL(raw));

describe('privateAddressReason', () => {
  it.each([
    // IPv4 in every form the WHATWG parser folds into 127.0.0.1
    ['http://127.0.0.1/', /loopback/],
    ['http://127.1/', /loopback/],
    ['http://2130706433/', /loopback/],
    ['http://0x7f.1/', /loopback/],
    ['http://0x7f000001/', /loopback/],
    ['http://017700000001/', /loopback/],
    ['http://%31%32%37.0.0.1/', /loopback/],
    ['http://127.0.0.1./', /loopback/],
    ['http://127.255.255.254:8080/x', /loopback/],
    ['http://0.0.0.0/', /this network/],
    ['http://0/', /this network/],
    ['http://10.1.2.3/', /10\.0\.0\.0\/8/],
    ['http://172.16.0.1/', /172\.16\.0\.0\/12/],
    ['http://172.31.255.255/', /172\.16\.0\.0\/12/],
    ['http://192.168.1.1/admin', /192\.168\.0\.0\/16/],
    ['http://169.254.169.254/latest/meta-data/', /link-local.*metadata/],
    ['http://100.64.0.1/', /shared-address-space/],
    ['http://100.127.255.255/', /shared-address-space/],
    ['http://224.0.0.1/', /multicast/],
    ['http://255.255.255.255/', /reserved or broadcast/],
    // IPv6
    ['http://[::1]/', /IPv6 loopback/],
    ['http://[0:0:0:0:0:0:0:1]/', /IPv6 loopback/],
    ['http://[::]/', /unspecified/],
    ['http://[::ffff:127.0.0.1]/', /IPv6 form of a loopback/],
    ['http://[::ffff:7f00:1]/', /IPv6 form of a loopback/],
    ['http://[::ffff:192.168.0.10]/', /IPv6 form of a private-network/],
    ['http://[::ffff:a9fe:a9fe]/', /IPv6 form of a link-local/],
    ['http://[::127.0.0.1]/', /IPv6 form of a loopback/],
    ['http://[64:ff9b::10.0.0.1]/', /IPv6 form of a private-network/],
    ['http://[2002:c0a8:101::1]/', /6to4 form of a private-network/],
    ['http://[fc00::1]/', /unique-local/],
    ['http://[fd12:3456:789a::1]/', /unique-local/],
    ['http://[fe80::1]/', /link-local IPv6/],
    ['http://[febf::1]/', /link-local IPv6/],
    ['http://[ff02::1]/', /multicast IPv6/],
    // names
    ['http://localhost/', /localhost/],
    ['http://LOCALHOST:3000/', /localhost/],
    ['http://localhost./', /localhost/],
    ['http://app.localhost/', /localhost/],
    ['http://a.b.localhost./', /localhost/],
    ['http://localhost.localdomain/', /localdomain/],
    ['http://printer.local/', /mDNS/],
    ['http://nas.home.arpa/', /home-network/],
    ['http://db.corp.internal/', /\.internal/],
    ['http://router/', /single-label/],
    ['http://intranet:8080/wiki', /single-label/],
  ])('refuses %s', (url, why) => {
    expect(reason(url)).toMatch(why);
  });

  it.each([
    'https://example.com/',
    'http://93.184.216.34/',
    'http://8.8.8.8/',
    'http://172.15.255.255/', // just below 172.16/12
    'http://172.32.0.1/', // just above
    'http://100.63.255.255/', // just below 100.64/10
    'http://100.128.0.1/',
    'http://169.253.1.1/',
    'http://192.169.0.1/',
    'http://[2606:4700:4700::1111]/',
    'http://[::ffff:8.8.8.8]/',
    'http://[2002:808:808::1]/', // 6to4 of a public address
    'http://localhost.example.com/', // only the special-use suffix counts
    'http://notlocalhost.com/x',
    'http://xn--nxasmq6b.com/',
    'http://local.example.org/',
  ])('lets %s through', (url) => {
    expect(reason(url)).toBeNull();
  });

  it('does not see DNS: a public-looking name that resolves to loopback passes', () => {
    expect(reason('http://127.0.0.1.nip.io/')).toBeNull();
  });
});

describe('privateIpReason (an address as webRequest reports it)', () => {
  it.each([
    ['127.0.0.1', /loopback/],
    ['127.8.9.10', /loopback/],
    ['0.0.0.0', /this network/],
    ['10.0.0.5', /10\.0\.0\.0\/8/],
    ['172.16.5.4', /172\.16\.0\.0\/12/],
    ['192.168.1.1', /192\.168\.0\.0\/16/],
    ['169.254.169.254', /link-local/],
    ['169.254.0.1', /link-local/],
    ['100.64.0.1', /shared-address-space/],
    ['100.127.255.254', /shared-address-space/],
    ['::1', /IPv6 loopback/],
    ['[::1]', /IPv6 loopback/],
    ['::', /unspecified/],
    ['::ffff:127.0.0.1', /IPv6 form of a loopback/],
    ['::ffff:7f00:1', /IPv6 form of a loopback/],
    ['::FFFF:C0A8:0101', /IPv6 form of a private-network/],
    ['::ffff:0:127.0.0.1', /IPv6 form of a loopback/],
    ['64:ff9b::a9fe:a9fe', /IPv6 form of a link-local/],
    ['64:ff9b:1::5', /local-use NAT64/],
    ['fc00::1', /unique-local/],
    ['fdff:ffff::1', /unique-local/],
    ['fe80::1', /link-local IPv6/],
    ['fe80::1%eth0', /link-local IPv6/],
    ['febf:ffff::1', /link-local IPv6/],
  ])('%s is local', (ip, why) => {
    expect(privateIpReason(ip)).toMatch(why);
  });

  it.each(['93.184.216.34', '8.8.8.8', '100.63.255.255', '100.128.0.0', '169.253.255.255', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808', '2001:db8::1', 'fbff::1', 'fe7f::1'])(
    '%s is not',
    (ip) => {
      expect(privateIpReason(ip)).toBeNull();
    },
  );

  it('says when the report is not an address at all, so the caller does not trust it', () => {
    for (const junk of ['', 'localhost', '127.0.0.256', '1.2.3', ':::1', 'fe80::1::2', 'example.com']) expect(privateIpReason(junk), junk).toBeUndefined();
  });

  it('tells IP hosts from names', () => {
    expect(isIpHost(new URL('http://127.0.0.1:8080/'))).toBe(true);
    expect(isIpHost(new URL('http://[::1]/'))).toBe(true);
    expect(isIpHost(new URL('http://2130706433/'))).toBe(true);
    expect(isIpHost(new URL('http://rebind.example/'))).toBe(false);
    expect(isIpHost(new URL('http://127.0.0.1.nip.io/'))).toBe(false);
  });
});

describe('checkFetchUrl', () => {
  const refusal = (raw: string, options?: { allowPrivate?: boolean }) => {
    try {
      checkFetchUrl(raw, options);
    } catch (e) {
      expect(e).toBeInstanceOf(WebFetchError);
      return e as WebFetchError;
    }
    throw new Error(`${raw} was accepted`);
  };

  it('returns the parsed, canonical URL', () => {
    const url = checkFetchUrl('  https://Example.COM:443/a b?q=1#frag ');
    expect(url.href).toBe('https://example.com/a%20b?q=1#frag');
    expect(checkFetchUrl('http://ÉXAMPLE.com/').hostname).toBe('xn--xample-9ua.com');
  });

  it.each([
    ['file:///etc/passwd', /file: URLs are refused/],
    ['FILE:///C:/Windows/win.ini', /file: URLs are refused/],
    ['data:text/html,<b>hi</b>', /data: URLs are refused/],
    ['javascript:alert(1)', /javascript: URLs are refused/],
    ['ftp://ftp.example.com/pub', /ftp: URLs are not supported/],
    ['ws://example.com/socket', /ws: URLs are not supported/],
    ['chrome://settings', /browser's own internal pages/],
    ['about:blank', /browser's own internal pages/],
    ['moz-extension://uuid/page.html', /browser's own internal pages/],
    ['view-source:https://example.com', /browser's own internal pages/],
    ['blob:https://example.com/uuid', /belong to the page/],
    ['gopher://example.com/', /gopher: URLs are not supported/],
  ])('refuses the scheme of %s', (raw, message) => {
    const e = refusal(raw);
    expect(e.code).toBe('scheme');
    expect(e.message).toMatch(message);
  });

  it.each(['example.com', '/relative/path', '', 'http://', 'https://exa mple.com/', 'http://1.2.3.4.5/', 'http://[::1/'])(
    'refuses the malformed %j',
    (raw) => {
      expect(refusal(raw).code).toBe('invalid_url');
    },
  );

  it('refuses credentials, including the disguise user@host', () => {
    const e = refusal('https://user:secret@example.com/');
    expect(e.code).toBe('credentials');
    expect(e.message).toMatch(/user name or password/);
    expect(refusal('https://www.bank.example@evil.example/login').code).toBe('credentials');
  });

  it('refuses ports browsers block, and names the port', () => {
    const e = refusal('http://example.com:25/');
    expect(e.code).toBe('blocked_port');
    expect(e.message).toMatch(/Port 25/);
    expect(checkFetchUrl('http://example.com:8080/').port).toBe('8080');
  });

  it('refuses private targets by default and explains how to allow them', () => {
    const e = refusal('http://0x7f.1:8000/');
    expect(e.code).toBe('private_address');
    expect(e.message).toMatch(/^127\.0\.0\.1 is a loopback address/);
    expect(e.message).toMatch(/settings/);
    expect(refusal('http://[::ffff:7f00:1]/').code).toBe('private_address');
    expect(refusal('http://localhost:5173/').code).toBe('private_address');
  });

  it('lets private targets through when allowed, but still checks the rest', () => {
    expect(checkFetchUrl('http://127.0.0.1:3000/x', { allowPrivate: true }).href).toBe('http://127.0.0.1:3000/x');
    expect(checkFetchUrl('http://localhost/', { allowPrivate: true }).hostname).toBe('localhost');
    expect(refusal('file:///etc/hosts', { allowPrivate: true }).code).toBe('scheme');
    expect(refusal('http://u:p@127.0.0.1/', { allowPrivate: true }).code).toBe('credentials');
  });
});
