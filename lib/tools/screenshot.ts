/**
 * screenshot: what a tab shows, as an image the model sees (issue 18; an addition to the
 * contract's 17 tools). For what the DOM does not hold: canvas apps, charts, maps, layout.
 */
import * as v from 'valibot';
import { ScreenshotError } from '../browser/screenshot';
import { imageTokens, MAX_IMAGE_EDGE, ResultWithImages } from '../images';
import { builtinFacts } from './catalog';
import { inTab, requireReadableTab } from './pages';
import { defineTool, ToolError } from './registry';
import { tabId, tabTargets } from './tabs';

export const screenshot = defineTool({
  ...builtinFacts('screenshot'),
  description:
    `See a tab as shown: its visible area, one element (selector), or the whole page (full_page, at most 8 screens), ` +
    `long edge at most ${MAX_IMAGE_EDGE} px. For what page text lacks: canvas, charts, layout. Returns {tab_id, url, title, width, height, tokens, region} and the image`,
  input: v.strictObject({
    tab_id: tabId,
    selector: v.optional(
      v.pipe(
        v.string('must be a CSS selector string'),
        v.nonEmpty('must not be empty'),
        v.maxLength(2000, 'must be at most 2000 characters'),
        v.description('Only this element'),
      ),
    ),
    full_page: v.optional(v.pipe(v.boolean('must be true or false'), v.description('Scroll and stitch the page'))),
  }),
  targets: (input, ctx) => tabTargets(ctx, input.tab_id, 'read'),
  async run(input, ctx) {
    if (input.selector && input.full_page) {
      throw new ToolError('Give selector or full_page, not both: an element is captured where it is, scrolled into view.');
    }
    const tab = await requireReadableTab(ctx, input.tab_id);
    const shot = await ctx.env.screenshots
      .capture(tab.id, { ...(input.selector ? { selector: input.selector } : {}), ...(input.full_page ? { fullPage: true } : {}) }, ctx.signal)
      .catch((e: unknown) => {
        if (e instanceof ScreenshotError && e.code === 'restricted') throw new ToolError(`Tab ${tab.id} cannot be captured: ${e.message}`);
        return inTab(e, tab.id);
      });
    const { image } = shot;
    return new ResultWithImages(
      {
        tab_id: tab.id,
        url: tab.url,
        title: tab.title,
        width: image.width,
        height: image.height,
        media_type: image.mediaType,
        tokens: imageTokens(image),
        // Where the image sits on the page, in CSS px: what a click at a point of it would need.
        region: roundRect(shot.region),
        ...(shot.notes.length ? { note: shot.notes.join(' ') } : {}),
      },
      [image],
    );
  },
});

const roundRect = (r: { x: number; y: number; width: number; height: number }) => ({
  x: Math.round(r.x),
  y: Math.round(r.y),
  width: Math.round(r.width),
  height: Math.round(r.height),
});

export const screenshotTools = [screenshot];
