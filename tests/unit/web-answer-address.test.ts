import { describe, expect, it } from 'vitest';
import { RequestLog } from '../../lib/browser/request-log';
import { answerProblem, answerProblemError, resolvedProblem, type RequestChain } from '../../lib/web/answer-address';

const answered = (...hops: RequestChain['hops']): RequestChain => ({ state: 'answered', hops });
const never = new AbortController().signal;
/** The problem, fetch() having ended where the first chain did. */
const problemOf = (chains: readonly RequestChain[]) => answerProblem(chains, chains[0]?.hops.at(-1)?.url ?? 'https://example.com/');

describe('answerProblem', () => {
  it('accepts an answer from a public address', () => {
    expect(problemOf([answered({ url: 'https://example.com/', ip: '93.184.216.34' })])).toBeNull();
  });

  it('refuses a public name whose answer came from this computer or the local network', () => {
    for (const ip of ['127.0.0.1', '::1', '::ffff:127.0.0.1', '192.168.1.20', '10.0.0.5', '169.254.169.254', '100.100.1.1', 'fd00::5', 'fe80::1']) {
      const problem = problemOf([answered({ url: 'http://rebind.example/a', ip })]);
      expect(problem, ip).toMatchObject({ kind: 'private', hop: 0, ip });
    }
    const error = answerProblemError(problemOf([answered({ url: 'http://rebind.example/a', ip: '127.0.0.1' })])!, 'http://rebind.example/a');
    expect(error.code).toBe('private_answer');
    expect(error.message).toBe(
      'rebind.example resolved to a loopback address (127.0.0.1); Pagewright does not read the local network unless the user allows it in Settings (Let web_fetch reach this computer and the local network).',
    );
  });

  it('checks every redirect hop, and names the hop that answered from the local network', () => {
    const chain = answered({ url: 'https://public.example/go', ip: '93.184.216.34' }, { url: 'http://intranet.example/wiki', ip: '192.168.1.10' });
    const problem = problemOf([chain]);
    expect(problem).toMatchObject({ kind: 'private', hop: 1, ip: '192.168.1.10' });
    expect(answerProblemError(problem!, 'https://public.example/go').message).toMatch(
      /^https:\/\/public\.example\/go redirected to http:\/\/intranet\.example\/wiki: intranet\.example resolved to a private-network address \(192\.168\.1\.10\); Pagewright does not read the local network/,
    );
    // A redirect hop that answered from a private address counts even when the final one is public.
    expect(problemOf([answered({ url: 'http://a.example/', ip: '10.1.1.1' }, { url: 'https://b.example/', ip: '93.184.216.34' })])).toMatchObject({ hop: 0 });
  });

  it('skips a redirect the browser made itself (no ip: HSTS, an extension rule), and checks where it led', () => {
    expect(problemOf([answered({ url: 'http://example.com/' }, { url: 'https://example.com/', ip: '93.184.216.34' })])).toBeNull();
    expect(problemOf([answered({ url: 'http://example.com/' }, { url: 'https://example.com/', ip: '127.0.0.1' })])).toMatchObject({ hop: 1 });
  });

  it('fails closed when a name answered and the browser did not say from where', () => {
    const problem = problemOf([answered({ url: 'https://example.com/page' })]);
    expect(problem).toEqual({ kind: 'unverified', url: 'https://example.com/page' });
    const error = answerProblemError(problem!, 'https://example.com/page');
    expect(error.code).toBe('unverified_answer');
    expect(error.message).toMatch(/^The browser did not report which address example\.com answered from, so the answer was discarded.*Try again/);
    // …and when the report is not an address.
    expect(problemOf([answered({ url: 'https://example.com/', ip: 'garbage' })])).toMatchObject({ kind: 'unverified' });
  });

  it('accepts an IP literal without a report: the URL already said where it connects', () => {
    expect(problemOf([answered({ url: 'http://93.184.216.34/' })])).toBeNull();
    expect(problemOf([answered({ url: 'http://[2606:4700:4700::1111]/' })])).toBeNull();
  });

  it('cannot judge a proxied answer (the ip is the proxy\'s) and lets it through', () => {
    expect(problemOf([answered({ url: 'https://example.com/', ip: '127.0.0.1', proxied: true })])).toBeNull();
    expect(problemOf([answered({ url: 'https://example.com/', proxied: true })])).toBeNull();
  });

  it('is unverified with no request seen, or one still pending', () => {
    expect(answerProblem([], 'https://example.com/')).toEqual({ kind: 'unverified', url: 'https://example.com/' });
    // An IP literal was judged by its spelling; with no report, what fetch() says is all there is.
    expect(answerProblem([], 'http://93.184.216.34/')).toBeNull();
    expect(problemOf([{ state: 'pending', hops: [{ url: 'https://example.com/' }] }])).toMatchObject({ kind: 'unverified', url: 'https://example.com/' });
  });

  it('takes the union of concurrent requests of the URL: any private one refuses, all must be accounted for', () => {
    const ours = answered({ url: 'https://example.com/', ip: '93.184.216.34' });
    expect(problemOf([ours, answered({ url: 'https://example.com/', ip: '127.0.0.1' })])).toMatchObject({ kind: 'private', ip: '127.0.0.1' });
    expect(problemOf([ours, { state: 'pending', hops: [{ url: 'https://example.com/' }] }])).toMatchObject({ kind: 'unverified' });
    // A concurrent request that failed answered nothing anyone reads.
    expect(problemOf([ours, { state: 'failed', hops: [{ url: 'https://example.com/' }] }])).toBeNull();
  });
});

describe('resolvedProblem (Firefox resolves before sending)', () => {
  it('finds the first local address among those a name resolved to', () => {
    expect(resolvedProblem(['93.184.216.34', '2606:2800:220:1::1'])).toBeNull();
    expect(resolvedProblem(['127.0.0.1', '::1'])).toMatchObject({ ip: '127.0.0.1', reason: expect.stringMatching(/loopback/) });
    // One private address among public ones is enough: the browser may connect to any of them.
    expect(resolvedProblem(['93.184.216.34', '10.0.0.7'])).toMatchObject({ ip: '10.0.0.7' });
  });
});

describe('RequestLog (webRequest events → the chains of a watched fetch)', () => {
  it('follows a request through its redirects by requestId and settles on its answer', async () => {
    const log = new RequestLog();
    const watch = await log.watch('http://a.example/start#frag');
    const settled = watch.settled(1000, never);
    log.record({ type: 'request', requestId: '7', url: 'http://a.example/start' });
    log.record({ type: 'redirect', requestId: '7', url: 'http://a.example/start', redirectUrl: 'http://b.example/next', ip: '93.184.216.34' });
    log.record({ type: 'request', requestId: '7', url: 'http://b.example/next' });
    log.record({ type: 'response', requestId: '7', url: 'http://b.example/next', ip: '192.168.0.9' });
    expect(await settled).toEqual([
      {
        state: 'answered',
        hops: [
          { url: 'http://a.example/start', ip: '93.184.216.34' },
          { url: 'http://b.example/next', ip: '192.168.0.9' },
        ],
      },
    ]);
    watch.stop();
    expect(log.size).toBe(0);
  });

  it('waits for events that arrive after fetch() resolved', async () => {
    const log = new RequestLog();
    const watch = await log.watch('https://x.example/');
    setTimeout(() => {
      log.record({ type: 'request', requestId: '1', url: 'https://x.example/' });
      setTimeout(() => log.record({ type: 'response', requestId: '1', url: 'https://x.example/', ip: '93.184.216.34' }), 20);
    }, 20);
    const t0 = Date.now();
    const chains = await watch.settled(2000, never);
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(problemOf(chains)).toBeNull();
    watch.stop();
  });

  it('gives what it has after the grace when a report never comes', async () => {
    const log = new RequestLog();
    const watch = await log.watch('https://x.example/');
    log.record({ type: 'request', requestId: '1', url: 'https://x.example/' });
    const chains = await watch.settled(50, never);
    expect(chains).toEqual([{ state: 'pending', hops: [{ url: 'https://x.example/' }] }]);
    expect(problemOf(chains)).toMatchObject({ kind: 'unverified' });
    expect(await (await log.watch('https://y.example/')).settled(30, never)).toEqual([]);
  });

  it('ignores requests of other URLs and requests that started before the watch', async () => {
    const log = new RequestLog();
    log.record({ type: 'request', requestId: 'early', url: 'https://x.example/' });
    const watch = await log.watch('https://x.example/');
    log.record({ type: 'response', requestId: 'early', url: 'https://x.example/', ip: '127.0.0.1' });
    log.record({ type: 'request', requestId: 'other', url: 'https://x.example/other' });
    log.record({ type: 'response', requestId: 'other', url: 'https://x.example/other', ip: '127.0.0.1' });
    // A request of another URL that redirects into the watched one is not the watched fetch.
    log.record({ type: 'request', requestId: 'into', url: 'https://z.example/' });
    log.record({ type: 'redirect', requestId: 'into', url: 'https://z.example/', redirectUrl: 'https://x.example/', ip: '127.0.0.1' });
    log.record({ type: 'request', requestId: 'into', url: 'https://x.example/' });
    log.record({ type: 'request', requestId: 'ours', url: 'https://x.example/' });
    log.record({ type: 'response', requestId: 'ours', url: 'https://x.example/', ip: '93.184.216.34' });
    const chains = await watch.settled(500, never);
    expect(chains).toEqual([{ state: 'answered', hops: [{ url: 'https://x.example/', ip: '93.184.216.34' }] }]);
    watch.stop();
    for (const requestId of ['early', 'other', 'into']) log.record({ type: 'completed', requestId, url: 'https://x.example/' });
    expect(log.size).toBe(0);
  });

  it('counts every request of the URL in the window: another one from the local network refuses the fetch', async () => {
    const log = new RequestLog();
    const watch = await log.watch('https://x.example/');
    const settled = watch.settled(1000, never);
    // Which of the two is the fetch's own cannot be told from the events.
    log.record({ type: 'request', requestId: 'a', url: 'https://x.example/' });
    log.record({ type: 'request', requestId: 'b', url: 'https://x.example/' });
    log.record({ type: 'response', requestId: 'a', url: 'https://x.example/', ip: '93.184.216.34' });
    log.record({ type: 'response', requestId: 'b', url: 'https://x.example/', ip: '127.0.0.1' });
    expect(problemOf(await settled)).toMatchObject({ kind: 'private', ip: '127.0.0.1' });
    watch.stop();
  });

  it('opens watches of one URL one after the other, so two fetches of it never share a window', async () => {
    const log = new RequestLog();
    const first = await log.watch('https://x.example/');
    let secondOpen = false;
    const second = log.watch('https://x.example/').then((w) => ((secondOpen = true), w));
    const elsewhere = await log.watch('https://y.example/'); // another URL does not wait
    await new Promise((r) => setTimeout(r, 20));
    expect(secondOpen).toBe(false);
    log.record({ type: 'request', requestId: '1', url: 'https://x.example/' });
    log.record({ type: 'response', requestId: '1', url: 'https://x.example/', ip: '127.0.0.1' });
    expect(problemOf(await first.settled(500, never))).toMatchObject({ kind: 'private' });
    first.stop();
    const next = await second;
    expect(secondOpen).toBe(true);
    log.record({ type: 'request', requestId: '2', url: 'https://x.example/' });
    log.record({ type: 'response', requestId: '2', url: 'https://x.example/', ip: '93.184.216.34' });
    // The first fetch's private answer is not the second's.
    expect(problemOf(await next.settled(500, never))).toBeNull();
    next.stop();
    elsewhere.stop();
  });

  it('marks a request that failed, and one answered through a proxy', async () => {
    const log = new RequestLog();
    const watch = await log.watch('https://x.example/');
    log.record({ type: 'request', requestId: 'f', url: 'https://x.example/' });
    log.record({ type: 'error', requestId: 'f', url: 'https://x.example/' });
    log.record({ type: 'request', requestId: 'p', url: 'https://x.example/' });
    log.record({ type: 'completed', requestId: 'p', url: 'https://x.example/', ip: '10.0.0.1', proxied: true });
    const chains = await watch.settled(500, never);
    expect(chains).toEqual([
      { state: 'failed', hops: [{ url: 'https://x.example/' }] },
      { state: 'answered', hops: [{ url: 'https://x.example/', ip: '10.0.0.1', proxied: true }] },
    ]);
    expect(problemOf(chains)).toBeNull();
    watch.stop();
  });

  it('stops waiting when the fetch is stopped', async () => {
    const log = new RequestLog();
    const watch = await log.watch('https://x.example/');
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 20);
    const t0 = Date.now();
    await watch.settled(5000, stop.signal);
    expect(Date.now() - t0).toBeLessThan(1000);
    watch.stop();
  });
});
