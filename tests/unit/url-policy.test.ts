import { describe, expect, it } from 'vitest';
import { checkOpenableUrl, restrictedPageReason } from '../../lib/tools/url-policy';

describe('checkOpenableUrl', () => {
  it.each([
    ['https://example.com/a?b=c', 'https://example.com/a?b=c'],
    ['  http://127.0.0.1:8080/x ', 'http://127.0.0.1:8080/x'],
    ['about:blank', 'about:blank'],
    ['data:text/plain,hello', 'data:text/plain,hello'],
    ['data:image/png;base64,iVBORw0KGgo=', 'data:image/png;base64,iVBORw0KGgo='],
  ])('opens %s', (raw, url) => {
    expect(checkOpenableUrl(raw)).toEqual({ ok: true, url });
  });

  it.each([
    ['javascript:alert(1)', /javascript: URLs are refused/],
    ['JavaScript:alert(1)', /javascript: URLs are refused/],
    ['data:text/html,<script>alert(1)</script>', /data: URLs that can carry script/],
    ['data:image/svg+xml,<svg onload=alert(1)>', /data: URLs that can carry script/],
    ['data:application/javascript,alert(1)', /data: URLs that can carry script/],
    ['chrome://settings', /browser's own internal pages/],
    ['about:config', /browser's own internal pages/],
    ['moz-extension://x/popup.html', /browser's own internal pages/],
    ['chrome-extension://abc/popup.html', /browser's own internal pages/],
    ['view-source:https://example.com', /browser's own internal pages/],
    ['file:///etc/passwd', /need the user's permission/],
    ['ftp://example.com', /ftp: URLs are not supported/],
    ['example.com', /not an absolute URL/],
    ['', /not an absolute URL/],
  ])('refuses %s', (raw, reason) => {
    const v = checkOpenableUrl(raw);
    expect(v.ok).toBe(false);
    expect(!v.ok && v.reason).toMatch(reason);
  });

  it('opens file: URLs once the user allowed file access', () => {
    expect(checkOpenableUrl('file:///home/me/notes.txt', { fileAccess: true })).toEqual({ ok: true, url: 'file:///home/me/notes.txt' });
  });
});

describe('restrictedPageReason', () => {
  it.each(['https://example.com/', 'http://127.0.0.1:3000/form.html', 'file:///tmp/a.html', 'about:blank', 'https://chrome.google.com/search'])(
    'lets extensions into %s',
    (url) => expect(restrictedPageReason(url)).toBeUndefined(),
  );

  it.each([
    ['chrome://extensions/', /browser-internal/],
    ['about:preferences', /browser-internal/],
    ['moz-extension://uuid/options.html', /browser-internal/],
    ['chrome-extension://id/page.html', /browser-internal/],
    ['view-source:https://example.com/', /view-source/],
    ['https://chromewebstore.google.com/detail/x', /extension store/],
    ['https://chrome.google.com/webstore/detail/x', /extension store/],
    ['https://addons.mozilla.org/en-US/firefox/', /extension store/],
    ['data:text/html,hi', /browser-internal or special/],
    ['', /no readable address/],
  ])('keeps extensions out of %s', (url, reason) => {
    expect(restrictedPageReason(url)).toMatch(reason);
  });
});
