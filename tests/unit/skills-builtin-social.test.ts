import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { defaultSettings, type Settings } from '../../lib/settings';
import { builtinSkillTools } from '../../lib/skills/builtin';
import { graphUrl } from '../../lib/skills/builtin/graph-api';
import type { SkillServices } from '../../lib/skills/services';
import type { SkillRecord } from '../../lib/skills/types';
import { detachedEnv } from '../../lib/tools/env';
import { ToolRegistry, type ToolContext } from '../../lib/tools/registry';
import { TaskBoard } from '../../lib/tools/task-board';
import { graphErrorAnswer, startGraphApiServer, type GraphApiServer } from '../harness/graph-api-server';

let graph: GraphApiServer;
beforeAll(async () => {
  graph = await startGraphApiServer({ token: 'good-token' });
});
afterAll(() => graph.close());
beforeEach(() => {
  graph.requests.length = 0;
  graph.handle(undefined);
});

const skill = (name: string): SkillRecord => ({ id: name, name, description: '', skill_type: 'builtin', config_json: '{}', is_active: true, created_at: 0, updated_at: 0 });
const services: SkillServices = { profiles: async () => [], mcp: {} as SkillServices['mcp'] };

function configured(extra: Partial<Settings> = {}): Partial<Settings> {
  return {
    instagramUserId: '17841400000000',
    instagramAccessToken: 'good-token',
    instagramApiBase: graph.url,
    whatsappPhoneNumberId: '106540352242922',
    whatsappAccessToken: 'good-token',
    whatsappApiBase: graph.url,
    ...extra,
  };
}

async function harness(name: 'instagram_post' | 'whatsapp_send', settings: Partial<Settings> = configured()) {
  const tools = await builtinSkillTools(skill(name), {}, services);
  const registry = new ToolRegistry(tools);
  const ctx: ToolContext = {
    conversationId: 'c',
    signal: new AbortController().signal,
    tasks: new TaskBoard(),
    env: { ...detachedEnv({ ...defaultSettings(), ...settings }), fetch: globalThis.fetch },
  };
  return async (input: unknown) => {
    const out = await registry.call(name, input, ctx);
    return out.isError ? { error: out.content } : { result: JSON.parse(out.content) };
  };
}

describe('graphUrl', () => {
  it('joins base, id and edge, defaulting to the official Graph API', () => {
    expect(graphUrl('', '123', 'media')).toBe('https://graph.facebook.com/v21.0/123/media');
    expect(graphUrl('http://127.0.0.1:9/v19.0//', '123', 'media_publish')).toBe('http://127.0.0.1:9/v19.0/123/media_publish');
  });
});

describe('instagram_post', () => {
  it('creates a media container, publishes it, and returns the media id', async () => {
    const call = await harness('instagram_post');
    const out = await call({ image_url: 'https://cdn.example/p.jpg', caption: 'Sunset #sky' });
    expect(out).toEqual({ result: { media_id: expect.stringMatching(/^1791/), creation_id: expect.stringMatching(/^1790/), published: true } });
    const [media, publish] = graph.requests;
    expect(media).toMatchObject({ method: 'POST', path: '/v21.0/17841400000000/media', params: { image_url: 'https://cdn.example/p.jpg', caption: 'Sunset #sky', access_token: 'good-token' } });
    expect(media!.headers['content-type']).toMatch(/^application\/x-www-form-urlencoded/);
    expect(publish).toMatchObject({ path: '/v21.0/17841400000000/media_publish', params: { creation_id: out.result.creation_id, access_token: 'good-token' } });
    // The token travels in the body, never in the URL.
    for (const r of graph.requests) {
      expect(r.path).not.toContain('token');
      expect(new URLSearchParams(r.raw).get('access_token')).toBe('good-token');
    }
  });

  it('leaves the caption out when there is none', async () => {
    await (await harness('instagram_post'))({ image_url: 'https://cdn.example/p.jpg' });
    expect(graph.requests[0]!.params).not.toHaveProperty('caption');
  });

  it('tells the user where to set missing credentials, before any request', async () => {
    expect((await (await harness('instagram_post', configured({ instagramAccessToken: '' })))({ image_url: 'https://x/p.jpg' })).error).toBe(
      "Instagram is not set up: the access token is missing. The user can set them in Pagewright's options page → Settings → Social media.",
    );
    expect((await (await harness('instagram_post', configured({ instagramUserId: ' ', instagramAccessToken: '' })))({ image_url: 'https://x/p.jpg' })).error).toMatch(
      /the Instagram user ID and the access token are missing.*Settings → Social media/,
    );
    expect(graph.requests).toHaveLength(0);
  });

  it('shows a Graph error object with its codes and what to do', async () => {
    const call = await harness('instagram_post', configured({ instagramAccessToken: 'expired' }));
    expect((await call({ image_url: 'https://x/p.jpg' })).error).toBe(
      'The Instagram Graph API refused the request (HTTP 401): Invalid OAuth access token - Cannot parse access token (type OAuthException, code 190, fbtrace_id AbCdEfGh123). ' +
        "The access token is invalid or has expired: the user needs to put a new one in Pagewright's options page → Settings → Social media.",
    );
  });

  it('explains an image Instagram could not fetch', async () => {
    graph.enqueue(graphErrorAnswer({ message: 'Only photo or video can be accepted as media type.', code: 9004, error_subcode: 2207052, error_user_title: 'Media download has failed', error_user_msg: 'The media could not be fetched from this URI.' }));
    const out = await (await harness('instagram_post'))({ image_url: 'https://x/page.html' });
    expect(out.error).toMatch(/code 9004, subcode 2207052.*Media download has failed: The media could not be fetched from this URI\..*must be a public URL of a JPEG image/);
    expect(graph.requests).toHaveLength(1);
  });

  it('waits for a container that is not ready yet, then publishes', async () => {
    let tries = 0;
    graph.handle((r) => (r.edge === 'media_publish' && tries++ === 0 ? graphErrorAnswer({ message: 'Media ID is not available', code: 9007, error_subcode: 2207027 }) : undefined));
    const out = await (await harness('instagram_post'))({ image_url: 'https://x/p.jpg' });
    expect(out.result).toMatchObject({ published: true });
    expect(graph.requests.map((r) => r.edge)).toEqual(['media', 'media_publish', 'media_publish']);
  });

  it('refuses answers that are not JSON, or carry no id', async () => {
    const call = await harness('instagram_post');
    graph.enqueue({ status: 200, body: '<html>Maintenance</html>' });
    expect((await call({ image_url: 'https://x/p.jpg' })).error).toMatch(/Instagram Graph API answered with something that is not a JSON object: "<html>Maintenance<\/html>"/);
    graph.enqueue({ status: 200, body: { success: true } });
    expect((await call({ image_url: 'https://x/p.jpg' })).error).toMatch(/created no media container: its answer had no id/);
    graph.enqueue({ status: 503, body: 'Service Unavailable' });
    expect((await call({ image_url: 'https://x/p.jpg' })).error).toMatch(/answered HTTP 503: "Service Unavailable"\. The service failed/);
  });

  it('says when the API cannot be reached', async () => {
    const gone = await startGraphApiServer();
    await gone.close();
    const out = await (await harness('instagram_post', configured({ instagramApiBase: gone.url })))({ image_url: 'https://x/p.jpg' });
    expect(out.error).toMatch(/^Could not reach the Instagram Graph API \(http:\/\/127\.0\.0\.1:\d+\): the request failed/);
  });

  it.each<[string, unknown, RegExp]>([
    ['no image_url', { caption: 'x' }, /"image_url" is required/],
    ['a relative image_url', { image_url: '/p.jpg' }, /image_url.*http:\/\/ or https:\/\/ URL/],
    ['a data: URL', { image_url: 'data:image/png;base64,AAAA' }, /image_url.*http/],
    ['a number as caption', { image_url: 'https://x/p.jpg', caption: 5 }, /caption.*string/],
    ['a caption past 2200 characters', { image_url: 'https://x/p.jpg', caption: 'x'.repeat(2201) }, /caption.*at most 2200/],
    ['an unknown argument', { image_url: 'https://x/p.jpg', video_url: 'https://x/v.mp4' }, /unknown argument "video_url"/],
  ])('refuses %s', async (_name, input, message) => {
    expect((await (await harness('instagram_post'))(input)).error).toMatch(message);
    expect(graph.requests).toHaveLength(0);
  });
});

describe('whatsapp_send', () => {
  it('posts a text message with a bearer token and returns the message id', async () => {
    const out = await (await harness('whatsapp_send'))({ to: '+49 151 1234-5678', text: 'Hello from Pagewright' });
    expect(out).toEqual({ result: { message_id: expect.stringMatching(/^wamid\./), to: '4915112345678', wa_id: '4915112345678' } });
    const [req] = graph.requests;
    expect(req).toMatchObject({ method: 'POST', path: '/v21.0/106540352242922/messages', token: 'good-token' });
    expect(req!.headers.authorization).toBe('Bearer good-token');
    expect(req!.headers['content-type']).toBe('application/json');
    expect(JSON.parse(req!.raw)).toEqual({ messaging_product: 'whatsapp', recipient_type: 'individual', to: '4915112345678', type: 'text', text: { body: 'Hello from Pagewright' } });
  });

  it('tells the user where to set missing credentials', async () => {
    expect((await (await harness('whatsapp_send', configured({ whatsappPhoneNumberId: '' })))({ to: '4915112345678', text: 'x' })).error).toMatch(
      /^WhatsApp is not set up: the WhatsApp phone number ID is missing\. .*Settings → Social media\.$/,
    );
    expect(graph.requests).toHaveLength(0);
  });

  it('shows Graph errors, with the 24-hour window explained', async () => {
    graph.enqueue(graphErrorAnswer({ message: '(#131047) Re-engagement message', type: 'OAuthException', code: 131047, fbtrace_id: 'Fb1' }));
    const out = await (await harness('whatsapp_send'))({ to: '4915112345678', text: 'x' });
    expect(out.error).toMatch(/^The WhatsApp Graph API refused the request \(HTTP 400\): \(#131047\) Re-engagement message \(type OAuthException, code 131047, fbtrace_id Fb1\)\. More than 24 hours/);
  });

  it('reports a wrong token', async () => {
    const out = await (await harness('whatsapp_send', configured({ whatsappAccessToken: 'bad' })))({ to: '4915112345678', text: 'x' });
    expect(out.error).toMatch(/code 190.*Settings → Social media/);
  });

  it('refuses an answer without a message id, and non-JSON', async () => {
    const call = await harness('whatsapp_send');
    graph.enqueue({ status: 200, body: { messaging_product: 'whatsapp', contacts: [] } });
    expect((await call({ to: '4915112345678', text: 'x' })).error).toMatch(/returned no message id, so it is unknown whether the message was sent/);
    graph.enqueue({ status: 200, body: 'OK' });
    expect((await call({ to: '4915112345678', text: 'x' })).error).toMatch(/not a JSON object: "OK"/);
  });

  it.each<[string, unknown, RegExp]>([
    ['no recipient', { text: 'x' }, /"to" is required/],
    ['letters in the number', { to: '49151abc', text: 'x' }, /to.*digits only/],
    ['a national number', { to: '0151 12345678', text: 'x' }, /to.*country code, not 0 or 00/],
    ['a number as to', { to: 4915112345678, text: 'x' }, /to.*string/],
    ['a too-short number', { to: '12345', text: 'x' }, /to.*too short/],
    ['a 16-digit number', { to: '1234567890123456', text: 'x' }, /to.*at most 15 digits/],
    ['no text', { to: '4915112345678' }, /"text" is required/],
    ['a blank text', { to: '4915112345678', text: ' ' }, /text.*must not be empty/],
    ['a text past 4096 characters', { to: '4915112345678', text: 'x'.repeat(4097) }, /text.*at most 4096/],
  ])('refuses %s', async (_name, input, message) => {
    expect((await (await harness('whatsapp_send'))(input)).error).toMatch(message);
    expect(graph.requests).toHaveLength(0);
  });
});
