/**
 * The screenshot tool in the built extension: the fake model calls it, and the test decodes the
 * image the model's request carries (PNG, with pngjs) and checks its size and known pixel colours
 * of a canvas fixture; a crop to an element (also one in a shadow root); full_page; the OpenAI
 * format (the image follows the tool message in a user message); the card's thumbnail; bad input.
 */
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserName } from '../harness/browsers';
import { text, toolCall } from '../harness/fake-anthropic';
import { FakeOpenAI, text as openaiText, toolCall as openaiToolCall } from '../harness/fake-openai';
import { setSettings } from '../harness/popup';
import { agentSession } from '../harness/session';

const browsers: BrowserName[] = ['chromium', 'firefox'];

type Rgb = [number, number, number];

interface Decoded {
  width: number;
  height: number;
  pixel(x: number, y: number): Rgb;
}

function decode(base64: string): Decoded {
  const png = PNG.sync.read(Buffer.from(base64, 'base64'));
  return {
    width: png.width,
    height: png.height,
    pixel(x, y) {
      const i = (Math.floor(y) * png.width + Math.floor(x)) * 4;
      return [png.data[i]!, png.data[i + 1]!, png.data[i + 2]!];
    },
  };
}

/** Scaling blends neighbours at an edge; inside a block of colour the colour is exact to a few levels. */
const near = (actual: Rgb, expected: Rgb, tolerance = 6) => actual.every((c, i) => Math.abs(c - expected[i]!) <= tolerance);

const RED: Rgb = [255, 0, 0];
const BLUE: Rgb = [0, 0, 255];
const GREEN: Rgb = [0, 160, 0];
const AMBER: Rgb = [255, 200, 0];
const MAGENTA: Rgb = [255, 0, 255];

/** The screenshot's tool_result in the request that followed it: its words (JSON) and its image blocks. */
function screenshotResult(body: any): { words: any; images: { media_type: string; data: string }[]; isError: boolean } {
  const block = body.messages.at(-1).content.find((b: any) => b.type === 'tool_result');
  if (typeof block.content === 'string') return { words: block.content, images: [], isError: !!block.is_error };
  const words = block.content.filter((c: any) => c.type === 'text').map((c: any) => c.text).join('');
  const unfenced = words.replace(/^<untrusted-content[^>]*>\n/, '').replace(/\n<\/untrusted-content[^>]*>$/, '');
  return { words: JSON.parse(unfenced), images: block.content.filter((c: any) => c.type === 'image').map((c: any) => c.source), isError: !!block.is_error };
}

describe.each(browsers)('screenshot in %s', (name) => {
  const session = agentSession(name);
  const { fake, fixtures, openTab } = session;
  const openai = new FakeOpenAI();
  beforeAll(() => openai.start());
  afterAll(() => openai.stop());

  /** One run: the model calls screenshot with `input`, then ends; the request after the call. */
  async function shoot(input: unknown, finalText: string) {
    const start = fake.requests.length;
    fake.script(toolCall('screenshot', input), text(finalText));
    await session.popup.send('Look at the page');
    await session.popup.waitForAssistantText(finalText, 40_000);
    return screenshotResult(fake.requests[start + 1]!.body);
  }

  it('sends the visible area as an image block of the stated size, with the canvas colours where they were drawn', async () => {
    const tab = await openTab('/canvas.html', 'Canvas fixture (drawn)');
    const activeTab = () =>
      session.popup.page.evaluate(async (id) => {
        const api = (globalThis as any).browser ?? (globalThis as any).chrome;
        const { windowId } = await api.tabs.get(id);
        return (await api.tabs.query({ active: true, windowId }))[0]?.id as number;
      }, tab);
    // The fixture tab opened in the background: the capture shows it for a moment, then gives the window back.
    const before = await activeTab();
    expect(before).not.toBe(tab);
    const t0 = Date.now();
    const r = await shoot({ tab_id: tab }, 'Seen (1).');
    expect(await activeTab()).toBe(before);
    console.log(`[metric] ${name}: screenshot round trip incl. two model turns ${Date.now() - t0} ms`);
    expect(r.isError, JSON.stringify(r.words).slice(0, 300)).toBe(false);
    expect(r.images).toHaveLength(1);
    expect(r.images[0]!.media_type).toBe('image/png');
    const img = decode(r.images[0]!.data);
    console.log(`[metric] ${name}: visible area ${r.words.region.width}×${r.words.region.height} CSS px → image ${img.width}×${img.height}, ${r.words.tokens} tokens`);
    expect(r.words).toMatchObject({ tab_id: tab, url: `${fixtures.url}/canvas.html`, width: img.width, height: img.height, media_type: 'image/png' });
    expect(Math.max(img.width, img.height)).toBeLessThanOrEqual(1568);
    expect(r.words.tokens).toBe(Math.min(1600, Math.ceil((img.width * img.height) / 750)));
    // Image pixels per CSS pixel: the device pixel ratio, times any scaling down.
    const scale = img.width / r.words.region.width;
    expect(near(img.pixel(100 * scale, 150 * scale), RED), String(img.pixel(100 * scale, 150 * scale))).toBe(true);
    expect(near(img.pixel(300 * scale, 150 * scale), BLUE), String(img.pixel(300 * scale, 150 * scale))).toBe(true);
    expect(near(img.pixel(480 * scale, 70 * scale), GREEN), String(img.pixel(480 * scale, 70 * scale))).toBe(true);

    // The card shows a thumbnail and what the image costs in tokens.
    const card = await session.popup.page.waitForFunction(
      () => {
        const el = document.querySelector('details[data-tool="screenshot"] [data-result-image]');
        const img = el?.querySelector('img') as HTMLImageElement | null;
        return img?.complete && img.naturalWidth > 0 ? { width: img.naturalWidth, tokens: el!.getAttribute('data-tokens'), text: el!.textContent } : null;
      },
      { timeout: 10_000, polling: 100 },
    );
    const shown = (await card.jsonValue()) as { width: number; tokens: string; text: string };
    expect(shown.width).toBe(img.width);
    expect(Number(shown.tokens)).toBe(r.words.tokens);
    expect(shown.text).toContain(`${img.width}×${img.height}`);
    expect(shown.text).toContain(r.words.tokens.toLocaleString('en-US'));
  });

  it('crops to an element, also one inside a shadow root', async () => {
    const tab = await openTab('/canvas.html', 'Canvas fixture (drawn)');
    const badge = await shoot({ tab_id: tab, selector: '#badge' }, 'Seen (2).');
    expect(badge.isError, JSON.stringify(badge.words).slice(0, 300)).toBe(false);
    const img = decode(badge.images[0]!.data);
    const scale = img.width / 120;
    expect(badge.words).toMatchObject({ width: img.width, height: img.height, region: { x: 420, y: 40, width: 120, height: 60 } });
    expect(img.height).toBeCloseTo(60 * scale, 0);
    for (const [x, y] of [[2, 2], [img.width / 2, img.height / 2], [img.width - 3, img.height - 3]] as const) {
      expect(near(img.pixel(x, y), GREEN), `${x},${y}: ${img.pixel(x, y)}`).toBe(true);
    }

    const chip = await shoot({ tab_id: tab, selector: '#chip-host >>> #chip' }, 'Seen (3).');
    expect(chip.isError, JSON.stringify(chip.words).slice(0, 300)).toBe(false);
    const c = decode(chip.images[0]!.data);
    expect(chip.words.region).toEqual({ x: 600, y: 40, width: 80, height: 40 });
    expect(near(c.pixel(c.width / 2, c.height / 2), AMBER), String(c.pixel(c.width / 2, c.height / 2))).toBe(true);
  });

  it('captures the whole page with full_page, scrolled and stitched, and puts the scroll back', async () => {
    const tab = await openTab('/canvas.html', 'Canvas fixture (drawn)');
    const r = await shoot({ tab_id: tab, full_page: true }, 'Seen (4).');
    expect(r.isError, JSON.stringify(r.words).slice(0, 300)).toBe(false);
    const img = decode(r.images[0]!.data);
    expect(r.words.region.y).toBe(0);
    expect(r.words.region.height).toBeGreaterThanOrEqual(2200);
    expect(img.height).toBeGreaterThan(img.width);
    // A page over 1,568 px tall is scaled down to that long edge: the canvas path, not the browser's PNG.
    expect(img.height).toBe(1568);
    const scale = img.height / r.words.region.height;
    // The top (first screen) and the magenta block 1,900 px down (a later screen).
    expect(near(img.pixel(100 * scale, 150 * scale), RED, 12), String(img.pixel(100 * scale, 150 * scale))).toBe(true);
    expect(near(img.pixel(70 * scale, 1950 * scale), MAGENTA, 12), String(img.pixel(70 * scale, 1950 * scale))).toBe(true);
    const scrollY = await session.popup.page.evaluate(async (id) => {
      const api = (globalThis as any).browser ?? (globalThis as any).chrome;
      const [res] = await api.scripting.executeScript({ target: { tabId: id }, func: () => window.scrollY });
      return res.result as number;
    }, tab);
    expect(scrollY).toBe(0);
  });

  it('gives clear errors: a selector matching nothing or several, an element of no size, a closed tab, a restricted page', async () => {
    const tab = await openTab('/canvas.html', 'Canvas fixture (drawn)');
    const closed = await openTab('/index.html');
    await session.popup.page.evaluate(async (id) => {
      const api = (globalThis as any).browser ?? (globalThis as any).chrome;
      await api.tabs.remove(id);
    }, closed);
    const { id: restricted, close: closeRestricted } = await session.openRestrictedTab();
    const results = await session.agentRuns([
      () => ({ name: 'screenshot', input: { tab_id: tab, selector: '#nothing-here' } }),
      () => ({ name: 'screenshot', input: { tab_id: tab, selector: '.twin' } }),
      () => ({ name: 'screenshot', input: { tab_id: tab, selector: '#empty' } }),
      () => ({ name: 'screenshot', input: { tab_id: tab, selector: 'div[' } }),
      () => ({ name: 'screenshot', input: { tab_id: closed } }),
      () => ({ name: 'screenshot', input: { tab_id: restricted } }),
      () => ({ name: 'screenshot', input: { tab_id: tab, selector: '#badge', full_page: true } }),
    ]);
    await closeRestricted();
    expect(results[0]).toMatchObject({ isError: true, content: expect.stringMatching(/No element matches the selector "#nothing-here"/) });
    expect(results[1]).toMatchObject({ isError: true, content: expect.stringMatching(/matches 2 elements/) });
    expect(results[2]).toMatchObject({ isError: true, content: expect.stringMatching(/has no size on screen/) });
    expect(results[3]).toMatchObject({ isError: true, content: expect.stringMatching(/Invalid selector "div\["/) });
    expect(results[4]).toMatchObject({ isError: true, content: expect.stringMatching(new RegExp(`No tab with id ${closed}`)) });
    expect(results[5]).toMatchObject({ isError: true, content: expect.stringMatching(/cannot be read or scripted: it is a browser-internal/) });
    expect(results[6]).toMatchObject({ isError: true, content: expect.stringMatching(/selector or full_page, not both/) });
  });

  it('on an OpenAI-compatible provider, the image follows the tool message in a user message', async () => {
    const tab = await openTab('/canvas.html', 'Canvas fixture (drawn)');
    openai.reset();
    await setSettings(session.popup.page, { provider: 'other-openai', baseUrl: openai.url, authHeader: 'bearer', model: 'fake-model' });
    try {
      openai.script(openaiToolCall('screenshot', { tab_id: tab, selector: '#badge' }), openaiText('Seen over Chat Completions.'));
      await session.popup.send('Look at the badge');
      await session.popup.waitForAssistantText('Seen over Chat Completions.', 40_000);
      const messages: any[] = openai.requests[1]!.body.messages;
      const toolAt = messages.findIndex((m) => m.role === 'tool');
      expect(messages[toolAt].content).toContain('[This result includes an image: it follows in the next user message.]');
      const next = messages[toolAt + 1];
      expect(next.role).toBe('user');
      const part = next.content.find((p: any) => p.type === 'image_url');
      const url: string = part.image_url.url;
      expect(url.startsWith('data:image/png;base64,')).toBe(true);
      const img = decode(url.slice(url.indexOf(',') + 1));
      const words = JSON.parse(messages[toolAt].content.replace(/^<untrusted-content[^>]*>\n/, '').replace(/\n<\/untrusted-content[^>]*>\n[\s\S]*$/, ''));
      expect(words).toMatchObject({ width: img.width, height: img.height });
      expect(near(img.pixel(img.width / 2, img.height / 2), GREEN)).toBe(true);
    } finally {
      await setSettings(session.popup.page, { provider: 'anthropic', baseUrl: fake.url, authHeader: 'x-api-key' });
    }
  });
});
