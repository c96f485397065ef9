/**
 * Screenshots of a tab for the model: tabs.captureVisibleTab in both browsers (it captures the
 * active tab of a window, so a background tab is made active for the capture and the tab that was
 * active is restored), cropped to an element or stitched from several screens, then scaled so the
 * long edge is at most MAX_IMAGE_EDGE. The canvas work runs where the background runs: Chrome's
 * service worker and Firefox's background page both have OffscreenCanvas and createImageBitmap.
 */
import { browser } from 'wxt/browser';
import { errorMessage, ModelFacingError } from '../errors';
import { fitLongEdge, imageDimensions, MAX_IMAGE_EDGE, type ImageMediaType, type Size, type ToolImage } from '../images';

export type ScreenshotErrorCode = 'restricted' | 'invalid_selector' | 'no_match' | 'ambiguous' | 'zero_size' | 'capture_failed' | 'timeout';

export class ScreenshotError extends ModelFacingError<ScreenshotErrorCode> {
  override name = 'ScreenshotError';
}

/** What page-geometry.js is asked (entrypoints/page-geometry.ts). */
export interface GeometryRequest {
  selector?: string;
  /** Scroll the top window here first (CSS px), for one screen of a full-page capture. */
  scrollTo?: { x: number; y: number };
}

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface PageView {
  viewport: Size;
  scroll: { x: number; y: number };
  page: Size;
}

export type GeometryReply =
  | (PageView & { rect?: Rect })
  | { error: { code: ScreenshotErrorCode | 'internal'; message: string } };

export interface ScreenshotOptions {
  selector?: string;
  fullPage?: boolean;
}

export interface Screenshot {
  image: ToolImage;
  /** The part of the page the image shows, in CSS pixels from the page's top left. */
  region: Rect;
  /** Image pixels per CSS pixel (device pixel ratio × the scaling down). */
  scale: number;
  /** Said to the model: what was left out, or what the image is not. */
  notes: string[];
}

export interface ScreenshotAdapter {
  capture(tabId: number, options: ScreenshotOptions, signal: AbortSignal): Promise<Screenshot>;
}

/** A full page is stitched from at most this many screens: beyond it, scaled to 1,568 px, text is unreadable anyway. */
export const MAX_FULL_PAGE_SCREENS = 8;
/** Anthropic refuses images over 5 MB of base64 (3.75 MB of bytes): a PNG larger than this goes as JPEG. */
const MAX_PNG_BYTES = 3_500_000;
const JPEG_QUALITY = 0.85;
const GEOMETRY_FILE = '/page-geometry.js';
const STEP_TIMEOUT_MS = 10_000;

/** Where the browsers differ, chosen once at start-up (lib/browser/index.ts). */
export interface ScreenshotPlatform {
  /**
   * The least time between two captures. Chrome allows two captureVisibleTab calls a second
   * (MAX_CAPTURE_VISIBLE_TAB_CALLS_PER_SECOND) and fails a third; Firefox has no such quota.
   */
  captureIntervalMs: number;
}

export const CHROME_SCREENSHOTS: ScreenshotPlatform = { captureIntervalMs: 510 };
export const FIREFOX_SCREENSHOTS: ScreenshotPlatform = { captureIntervalMs: 0 };

/** A crop and a scale: which pixels of the captured images go where in the result. */
export interface StitchPlan {
  /** The result's size in pixels. */
  out: Size;
  /** Output pixels per captured pixel. */
  factor: number;
}

/**
 * How big the result is: `region` (CSS px) at `ratio` captured pixels per CSS pixel, scaled down
 * so its long edge is at most `maxEdge`. Pure, for the unit tests.
 */
export function planImage(region: Size, ratio: number, maxEdge = MAX_IMAGE_EDGE): StitchPlan {
  const captured = { width: region.width * ratio, height: region.height * ratio };
  const out = fitLongEdge(captured, maxEdge);
  return { out: { width: out.width, height: out.height }, factor: captured.width > 0 ? out.width / captured.width : 1 };
}

/**
 * The visible part of `rect` (viewport CSS px) inside a viewport of `viewport`, or undefined when
 * nothing of it is visible. An element larger than the screen is cut to the screen.
 */
export function visiblePart(rect: Rect, viewport: Size): Rect | undefined {
  const x = Math.max(0, rect.x);
  const y = Math.max(0, rect.y);
  const right = Math.min(viewport.width, rect.x + rect.width);
  const bottom = Math.min(viewport.height, rect.y + rect.height);
  if (right - x < 1 || bottom - y < 1) return undefined;
  return { x, y, width: right - x, height: bottom - y };
}

/** The scroll positions (CSS px) of the screens a full-page capture takes, top to bottom. */
export function fullPageStops(pageHeight: number, viewportHeight: number, maxScreens = MAX_FULL_PAGE_SCREENS): number[] {
  const height = Math.min(pageHeight, viewportHeight * maxScreens);
  const stops: number[] = [];
  for (let y = 0; y < height; y += viewportHeight) stops.push(y);
  return stops.length ? stops : [0];
}

function withTimeout<T>(promise: Promise<T>, signal: AbortSignal, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new ScreenshotError('timeout', `${what} took longer than ${STEP_TIMEOUT_MS / 1000} s.`)), STEP_TIMEOUT_MS);
    const onAbort = () => reject(new ScreenshotError('timeout', 'Stopped by the user.'));
    if (signal.aborted) onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    });
  });
}

/** The browser's refusals, in words the model can act on. */
function captureError(e: unknown): ScreenshotError {
  const message = errorMessage(e);
  if (/cannot (access|be scripted)|cannot script|missing host permission|extensions gallery|chrome:\/\/|about:|moz-extension|permission is required|not allowed/i.test(message)) {
    return new ScreenshotError('restricted', `The browser does not let extensions capture this page (${message}).`);
  }
  return new ScreenshotError('capture_failed', `The browser could not capture the tab: ${message}`);
}

async function geometryIn(tabId: number, request: GeometryRequest, signal: AbortSignal): Promise<PageView & { rect?: Rect }> {
  const ask = async () => {
    const [first] = await browser.scripting.executeScript({
      target: { tabId },
      func: (r: GeometryRequest) => {
        const g = (globalThis as { __pagewrightGeometry?: (r: GeometryRequest) => Promise<unknown> }).__pagewrightGeometry;
        return g ? g(r) : null;
      },
      args: [request],
    });
    return first?.result as GeometryReply | null | undefined;
  };
  const run = async () => {
    // Installed by an earlier call into this page, it answers at once; else one injection first.
    let reply = await ask();
    if (reply === null) {
      await browser.scripting.executeScript({ target: { tabId }, files: [GEOMETRY_FILE] });
      reply = await ask();
      if (reply === null) throw new ScreenshotError('capture_failed', 'The page geometry script did not load.');
    }
    return reply;
  };
  let reply: GeometryReply | undefined;
  try {
    reply = await withTimeout(run(), signal, 'Measuring the page');
  } catch (e) {
    throw e instanceof ScreenshotError ? e : captureError(e);
  }
  if (!reply) throw new ScreenshotError('capture_failed', 'The page returned nothing (it may have navigated away meanwhile).');
  if ('error' in reply) throw new ScreenshotError(reply.error.code === 'internal' ? 'capture_failed' : reply.error.code, reply.error.message);
  return reply;
}

const dataOf = (dataUrl: string) => dataUrl.slice(dataUrl.indexOf(',') + 1);

async function base64Of(blob: Blob): Promise<string> {
  const bytes = new Uint8Array(await blob.arrayBuffer());
  let binary = '';
  // In slices: String.fromCharCode with millions of arguments overflows the stack.
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

async function encode(canvas: OffscreenCanvas): Promise<ToolImage> {
  let blob = await canvas.convertToBlob({ type: 'image/png' });
  let mediaType: ImageMediaType = 'image/png';
  if (blob.size > MAX_PNG_BYTES) {
    // A photo-heavy page: PNG is too big to send, JPEG is a tenth of it.
    blob = await canvas.convertToBlob({ type: 'image/jpeg', quality: JPEG_QUALITY });
    mediaType = 'image/jpeg';
  }
  return { mediaType, data: await base64Of(blob), width: canvas.width, height: canvas.height };
}

const decode = async (dataUrl: string) => createImageBitmap(await (await fetch(dataUrl)).blob());

/**
 * Any image for the model (an MCP tool's, issue 19) brought to the screenshot's size: returned as
 * it is when its long edge is within MAX_IMAGE_EDGE, else decoded, scaled and encoded again (PNG,
 * or JPEG when the PNG would be too large). Runs wherever the background runs (OffscreenCanvas).
 */
export async function fitToolImage(image: ToolImage, maxEdge = MAX_IMAGE_EDGE): Promise<ToolImage> {
  const size = imageDimensions(image.data, image.mediaType) ?? { width: image.width, height: image.height };
  const out = fitLongEdge(size, maxEdge);
  if (out.scale === 1) return { ...image, width: size.width, height: size.height };
  const bitmap = await decode(`data:${image.mediaType};base64,${image.data}`);
  try {
    const canvas = new OffscreenCanvas(out.width, out.height);
    const ctx = canvas.getContext('2d')!;
    ctx.imageSmoothingQuality = 'high';
    ctx.drawImage(bitmap, 0, 0, out.width, out.height);
    return await encode(canvas);
  } finally {
    bitmap.close();
  }
}

export function createScreenshots(platform: ScreenshotPlatform): ScreenshotAdapter {
  let lastCapture = 0;
  /** One capture at a time: two tools capturing two tabs of one window would activate each other's. */
  let queue: Promise<unknown> = Promise.resolve();

  /**
   * The window's picture, checked to be the tab's: captureVisibleTab takes a window, not a tab, and
   * the user may switch tabs meanwhile. The policy allowed reading this tab's site, not another's.
   */
  async function captureTab(tabId: number, windowId: number, signal: AbortSignal): Promise<string> {
    const wait = lastCapture + platform.captureIntervalMs - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const shown = async () => {
      const [active] = await browser.tabs.query({ active: true, windowId });
      if (active?.id !== tabId) throw new ScreenshotError('capture_failed', `Another tab was brought to the front while tab ${tabId} was being captured; nothing was captured. Try again.`);
    };
    try {
      await shown();
      const dataUrl = await withTimeout(browser.tabs.captureVisibleTab(windowId, { format: 'png' }), signal, 'Capturing the tab');
      await shown();
      return dataUrl;
    } catch (e) {
      throw e instanceof ScreenshotError ? e : captureError(e);
    } finally {
      lastCapture = Date.now();
    }
  }

  /**
   * Runs `work` with the tab active in its window. The window gets its active tab back after the
   * result is out (the model need not wait for it), but before the next capture starts (`settled`).
   */
  async function whileActive<T>(tabId: number, work: (windowId: number, shown: Promise<unknown>) => Promise<T>): Promise<{ result: T; settled: Promise<void> }> {
    const tab = await browser.tabs.get(tabId);
    let restore: number | undefined;
    let shown: Promise<unknown> = Promise.resolve();
    if (!tab.active) {
      const [previous] = await browser.tabs.query({ active: true, windowId: tab.windowId });
      restore = previous?.id;
      // Not awaited here: the page is measured meanwhile, and its geometry script waits until the
      // tab is visible and painted (entrypoints/page-geometry.ts). The capture waits for both.
      shown = browser.tabs.update(tabId, { active: true });
      shown.catch(() => {});
    }
    const giveBack = async () => {
      await shown.catch(() => {});
      if (restore !== undefined) await browser.tabs.update(restore, { active: true }).then(() => {}, () => {});
    };
    try {
      return { result: await work(tab.windowId!, shown), settled: giveBack() };
    } catch (e) {
      await giveBack();
      throw e;
    }
  }

  async function visible(tabId: number, windowId: number, shown: Promise<unknown>, selector: string | undefined, signal: AbortSignal): Promise<Screenshot> {
    const [g] = await Promise.all([geometryIn(tabId, selector ? { selector } : {}, signal), shown]);
    const dataUrl = await captureTab(tabId, windowId, signal);
    const notes: string[] = [];
    const captured = imageDimensions(dataOf(dataUrl), 'image/png');
    if (!captured) throw new ScreenshotError('capture_failed', 'The browser returned an image that is not a PNG.');
    const ratio = captured.width / g.viewport.width;
    let crop: Rect = { x: 0, y: 0, width: g.viewport.width, height: g.viewport.height };
    if (g.rect) {
      const part = visiblePart(g.rect, g.viewport);
      if (!part) throw new ScreenshotError('zero_size', `The element ${JSON.stringify(selector)} is outside the visible area even after scrolling to it.`);
      if (part.width < g.rect.width - 1 || part.height < g.rect.height - 1) {
        notes.push(`The element (${Math.round(g.rect.width)}×${Math.round(g.rect.height)} CSS px) is larger than the visible area: only its visible part is shown.`);
      }
      crop = part;
    }
    // The whole screen is what the image holds (a window resized meanwhile may differ from the page's measure).
    if (!g.rect) crop = { x: 0, y: 0, width: captured.width / ratio, height: captured.height / ratio };
    const region = { x: crop.x + g.scroll.x, y: crop.y + g.scroll.y, width: crop.width, height: crop.height };
    const plan = planImage(crop, ratio);
    // The whole screen, small enough already: the browser's own PNG, with no decode and re-encode.
    if (!g.rect && plan.out.width === captured.width && plan.out.height === captured.height) {
      return { image: { mediaType: 'image/png', data: dataOf(dataUrl), width: captured.width, height: captured.height }, region, scale: ratio, notes };
    }
    const bitmap = await decode(dataUrl);
    try {
      const canvas = new OffscreenCanvas(plan.out.width, plan.out.height);
      const ctx = canvas.getContext('2d')!;
      ctx.imageSmoothingQuality = 'high';
      ctx.drawImage(bitmap, crop.x * ratio, crop.y * ratio, crop.width * ratio, crop.height * ratio, 0, 0, plan.out.width, plan.out.height);
      return { image: await encode(canvas), region, scale: ratio * plan.factor, notes };
    } finally {
      bitmap.close();
    }
  }

  async function fullPage(tabId: number, windowId: number, shown: Promise<unknown>, signal: AbortSignal): Promise<Screenshot> {
    const [start] = await Promise.all([geometryIn(tabId, {}, signal), shown]);
    const stops = fullPageStops(start.page.height, start.viewport.height);
    const height = Math.min(start.page.height, start.viewport.height * MAX_FULL_PAGE_SCREENS);
    const notes: string[] = [];
    if (start.page.height > height) notes.push(`The page is ${start.page.height} CSS px tall: only its first ${height} px (${MAX_FULL_PAGE_SCREENS} screens) are shown.`);
    if (stops.length > 1) notes.push('Stitched from screens captured while scrolling: fixed or sticky elements (headers, banners) may appear more than once.');
    let canvas: OffscreenCanvas | undefined;
    let plan: StitchPlan | undefined;
    let ratio = 1;
    try {
      for (const stop of stops) {
        const g = await geometryIn(tabId, { scrollTo: { x: start.scroll.x, y: stop } }, signal);
        const dataUrl = await captureTab(tabId, windowId, signal);
        const bitmap = await decode(dataUrl);
        try {
          if (!canvas) {
            ratio = bitmap.width / g.viewport.width;
            plan = planImage({ width: g.viewport.width, height }, ratio);
            canvas = new OffscreenCanvas(plan.out.width, plan.out.height);
          }
          // The page may stop short of the stop (its last screen): draw where it really is.
          const f = plan!.factor * ratio;
          canvas.getContext('2d')!.drawImage(bitmap, 0, g.scroll.y * f, bitmap.width * plan!.factor, bitmap.height * plan!.factor);
        } finally {
          bitmap.close();
        }
      }
    } finally {
      // The user's scroll position back, whatever happened.
      await geometryIn(tabId, { scrollTo: start.scroll }, signal).catch(() => {});
    }
    return { image: await encode(canvas!), region: { x: start.scroll.x, y: 0, width: start.viewport.width, height }, scale: ratio * plan!.factor, notes };
  }

  return {
    capture(tabId, options, signal) {
      const run = () =>
        whileActive(tabId, (windowId, shown) => (options.fullPage ? fullPage(tabId, windowId, shown, signal) : visible(tabId, windowId, shown, options.selector, signal)));
      const next = queue.then(run, run);
      queue = next.then((r) => r.settled, () => {});
      return next.then((r) => r.result);
    },
  };
}
