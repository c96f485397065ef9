/**
 * Injected into a tab by the screenshot tool (scripting.executeScript with files:
 * ['page-geometry.js']), in the extension's isolated world: it installs
 * window.__pagewrightGeometry(request), which finds the element to crop to with the selectors
 * get_tab_content gives (`>>>` into shadow roots and same-origin frames, lib/extract/selectors.ts),
 * scrolls the page, waits for the page to paint and says where things are, in the top window's
 * CSS pixels. Plain JSON out, errors as { error: { code, message } }, as the page reader does.
 */
import { defineUnlistedScript } from 'wxt/utils/define-unlisted-script';
import { ExtractError } from '../lib/extract/errors';
import { resolveSelectorAll } from '../lib/extract/selectors';
import { errorMessage } from '../lib/errors';
import type { GeometryReply, GeometryRequest } from '../lib/browser/screenshot';

declare global {
  // eslint-disable-next-line no-var
  var __pagewrightGeometry: ((request: GeometryRequest) => Promise<GeometryReply>) | undefined;
}

/** How long to wait for a frame once visible: a shown tab paints within one, a hidden one never does. */
const FRAME_WAIT_MS = 150;
/** How long to wait for a tab being activated to become visible. */
const VISIBLE_WAIT_MS = 2_000;

/** Resolves when the document is visible: the screenshot activates the tab while this runs. */
function visible(): Promise<void> {
  if (!document.hidden) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      document.removeEventListener('visibilitychange', onChange);
      resolve();
    };
    const onChange = () => !document.hidden && done();
    const timer = setTimeout(done, VISIBLE_WAIT_MS);
    document.addEventListener('visibilitychange', onChange);
  });
}

async function nextPaint(): Promise<void> {
  await visible();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, FRAME_WAIT_MS);
    // Two frames: the first runs before the scroll (or the tab's showing) is painted, the second after.
    requestAnimationFrame(() =>
      requestAnimationFrame(() => {
        clearTimeout(timer);
        resolve();
      }),
    );
  });
}

/** The element's box in the top window's viewport: frames add their own offset and border. */
function boxInTop(el: Element): DOMRect {
  const r = el.getBoundingClientRect();
  let x = r.left;
  let y = r.top;
  let win: Window | null = el.ownerDocument.defaultView;
  while (win && win !== window) {
    const frame = win.frameElement;
    if (!frame) break;
    const f = frame.getBoundingClientRect();
    x += f.left + frame.clientLeft;
    y += f.top + frame.clientTop;
    win = frame.ownerDocument.defaultView;
  }
  return new DOMRect(x, y, r.width, r.height);
}

function view() {
  const root = document.documentElement;
  return {
    // innerWidth, not clientWidth: the captured image includes the scroll bars.
    viewport: { width: window.innerWidth, height: window.innerHeight },
    scroll: { x: window.scrollX, y: window.scrollY },
    page: { width: Math.max(root.scrollWidth, document.body?.scrollWidth ?? 0), height: Math.max(root.scrollHeight, document.body?.scrollHeight ?? 0) },
  };
}

async function geometry(request: GeometryRequest): Promise<GeometryReply> {
  try {
    if (request.scrollTo) {
      // 'instant': a page's `scroll-behavior: smooth` would otherwise still be moving at the capture.
      window.scrollTo({ left: request.scrollTo.x, top: request.scrollTo.y, behavior: 'instant' });
    }
    if (!request.selector) {
      await nextPaint();
      return view();
    }
    const found = resolveSelectorAll(document, request.selector);
    if (!found.length) return { error: { code: 'no_match', message: `No element matches the selector ${JSON.stringify(request.selector)}. Read the page with get_tab_content for current selectors.` } };
    if (found.length > 1) {
      return { error: { code: 'ambiguous', message: `The selector ${JSON.stringify(request.selector)} matches ${found.length} elements; give one that matches exactly one (get_tab_content's selectors do).` } };
    }
    const el = found[0]!;
    let box = boxInTop(el);
    if (box.width < 1 || box.height < 1) {
      return {
        error: {
          code: 'zero_size',
          message: `The element ${JSON.stringify(request.selector)} has no size on screen (${Math.round(box.width)}×${Math.round(box.height)} px): it is hidden, collapsed or empty.`,
        },
      };
    }
    const v = view();
    const inView = box.left >= 0 && box.top >= 0 && box.right <= v.viewport.width && box.bottom <= v.viewport.height;
    if (!inView) {
      el.scrollIntoView({ block: box.height > v.viewport.height ? 'start' : 'center', inline: box.width > v.viewport.width ? 'start' : 'center', behavior: 'instant' });
      box = boxInTop(el);
    }
    await nextPaint();
    box = boxInTop(el);
    return { ...view(), rect: { x: box.x, y: box.y, width: box.width, height: box.height } };
  } catch (e) {
    if (e instanceof ExtractError) return { error: { code: 'invalid_selector', message: e.message } };
    return { error: { code: 'internal', message: errorMessage(e) } };
  }
}

export default defineUnlistedScript(() => {
  globalThis.__pagewrightGeometry = geometry;
});
