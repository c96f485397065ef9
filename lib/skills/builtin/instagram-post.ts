/**
 * instagram_post: Instagram content publishing through the Graph API — a media container from
 * the image URL, then media_publish. Instagram fetches the image itself, so the URL must be public.
 */
import * as v from 'valibot';
import { defineTool, ToolError, type ToolDefinition } from '../../tools/registry';
import { skillFacts } from '../facts';
import type { SkillRecord } from '../types';
import { skillDescription, sleep } from './common';
import { GraphApiError, graphPost, graphUrl, SOCIAL_SETTINGS } from './graph-api';

/** Instagram's own caption limit. */
export const CAPTION_MAX_CHARS = 2200;
/**
 * A container is not publishable until Instagram has fetched and processed the image; publishing
 * earlier fails with code 9007. Waits between tries (about 16 s in all).
 */
export const PUBLISH_RETRY_DELAYS_MS = [1000, 2000, 3000, 5000, 5000];

const httpsUrl = v.pipe(
  v.string('must be a URL string'),
  v.trim(),
  v.nonEmpty('must not be empty'),
  v.maxLength(4096, 'must be at most 4096 characters'),
  v.check((s) => {
    try {
      const u = new URL(s);
      return u.protocol === 'https:' || u.protocol === 'http:';
    } catch {
      return false;
    }
  }, 'must be an http:// or https:// URL of an image that anyone can download'),
);

const input = v.strictObject({
  image_url: v.pipe(httpsUrl, v.description('Public URL of the image (JPEG); Instagram downloads it from there')),
  caption: v.optional(
    v.pipe(v.string('must be a string'), v.maxLength(CAPTION_MAX_CHARS, `must be at most ${CAPTION_MAX_CHARS} characters (Instagram's limit)`), v.description('Caption (hashtags and @mentions allowed)')),
  ),
});

export function instagramPostTool(skill: SkillRecord): ToolDefinition<typeof input> {
  return defineTool({
    name: skill.name,
    ...skillFacts(skill, 'instagram_post'),
    description: skillDescription(
      skill,
      "Publish an image post on the user's Instagram account.",
      'Takes image_url (a public JPEG URL; Instagram downloads it) and an optional caption; returns the new media id. Posting is public: do it only when the user asked for it.',
    ),
    input,
    async run({ image_url, caption }, ctx) {
      const { instagramUserId: userId, instagramAccessToken: token, instagramApiBase: base } = ctx.env.settings;
      if (!userId.trim() || !token.trim()) {
        const missing = [!userId.trim() && 'the Instagram user ID', !token.trim() && 'the access token'].filter(Boolean).join(' and ');
        throw new ToolError(`Instagram is not set up: ${missing} ${missing.includes(' and ') ? 'are' : 'is'} missing. The user can set them in ${SOCIAL_SETTINGS}.`);
      }
      // The token goes in the body, not the query: URLs end up in logs.
      const container = await graphPost(ctx.env.fetch, {
        service: 'Instagram',
        url: graphUrl(base, userId.trim(), 'media'),
        body: new URLSearchParams({ image_url, ...(caption ? { caption } : {}), access_token: token.trim() }),
        signal: ctx.signal,
      });
      const creationId = idOf(container);
      if (!creationId) throw new ToolError(`Instagram created no media container: its answer had no id (${JSON.stringify(container).slice(0, 300)}).`);

      for (let attempt = 0; ; attempt++) {
        try {
          const published = await graphPost(ctx.env.fetch, {
            service: 'Instagram',
            url: graphUrl(base, userId.trim(), 'media_publish'),
            body: new URLSearchParams({ creation_id: creationId, access_token: token.trim() }),
            signal: ctx.signal,
          });
          const mediaId = idOf(published);
          if (!mediaId) throw new ToolError(`Instagram did not say whether the post was published: its answer had no id (${JSON.stringify(published).slice(0, 300)}).`);
          return { media_id: mediaId, creation_id: creationId, published: true };
        } catch (e) {
          const notReady = e instanceof GraphApiError && (e.graphCode === 9007 || e.subcode === 2207027);
          if (!notReady || attempt >= PUBLISH_RETRY_DELAYS_MS.length) {
            if (notReady) throw new ToolError(`${e.message} The media container ${creationId} was still not ready after ${PUBLISH_RETRY_DELAYS_MS.reduce((a, b) => a + b, 0) / 1000} s; try again later.`);
            throw e;
          }
          await sleep(PUBLISH_RETRY_DELAYS_MS[attempt]!, ctx.signal);
        }
      }
    },
  });
}

function idOf(answer: Record<string, unknown>): string | undefined {
  const id = answer.id;
  return typeof id === 'string' && id ? id : typeof id === 'number' ? String(id) : undefined;
}
