/**
 * The screenshot tool's pure parts and the path that carries its image to the model: scaling and
 * stitching math, token pricing from the image's own header, the tool_result as each provider
 * format receives it, storage (export and import), the context view, and bad input.
 */
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { ContextManager } from '../../lib/agent/context';
import { parseImport, toJson, toMarkdown } from '../../lib/agent/conversation-export';
import { toolResultBlock } from '../../lib/agent/loop';
import { toApiMessages } from '../../lib/agent/messages';
import { toChatRequest } from '../../lib/agent/providers/openai-chat';
import { ScopedTools } from '../../lib/agent/sub-agents';
import { estimateContentTokens, IMAGE_TOKENS } from '../../lib/agent/token-estimate';
import { fullPageStops, planImage, ScreenshotError, visiblePart, type ScreenshotAdapter, type ScreenshotOptions } from '../../lib/browser/screenshot';
import { TabError, type TabInfo, type TabsAdapter } from '../../lib/browser/tabs';
import { idleRun, type Conversation, type StoredMessage } from '../../lib/contracts/conversation';
import { fitLongEdge, imageDimensions, imageTokens, MAX_IMAGE_TOKENS, ResultWithImages, resultImages, type ToolImage } from '../../lib/images';
import { defaultSettings } from '../../lib/settings';
import { BUILTIN_TOOL_FACTS } from '../../lib/tools/catalog';
import { detachedEnv, type ToolEnv } from '../../lib/tools/env';
import { defineTool, ToolRegistry, type ToolContext } from '../../lib/tools/registry';
import { screenshotTools } from '../../lib/tools/screenshot';
import { TaskBoard } from '../../lib/tools/task-board';
import { STUB_FACTS } from './helpers';
import * as v from 'valibot';

function png(width: number, height: number, rgb: [number, number, number] = [255, 0, 0]): string {
  const image = new PNG({ width, height });
  for (let i = 0; i < width * height; i++) image.data.set([...rgb, 255], i * 4);
  return PNG.sync.write(image).toString('base64');
}

/** The smallest JPEG header that says its size: SOI, an APP0 segment, then SOF0. */
function jpegHeader(width: number, height: number): string {
  const app0 = [0xff, 0xe0, 0x00, 0x10, ...Array.from('JFIF\0', (c) => c.charCodeAt(0)), 1, 1, 0, 0, 1, 0, 1, 0, 0];
  const sof = [0xff, 0xc0, 0x00, 0x11, 0x08, height >> 8, height & 0xff, width >> 8, width & 0xff, 3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1];
  return Buffer.from([0xff, 0xd8, ...app0, ...sof, 0xff, 0xd9]).toString('base64');
}

const shot = (width: number, height: number): ToolImage => ({ mediaType: 'image/png', data: png(width, height), width, height });

describe('image sizes and prices', () => {
  it('scales the long edge down to 1,568 px, never up, keeping the aspect', () => {
    expect(fitLongEdge({ width: 1280, height: 800 })).toEqual({ width: 1280, height: 800, scale: 1 });
    expect(fitLongEdge({ width: 2560, height: 1600 })).toMatchObject({ width: 1568, height: 980 });
    expect(fitLongEdge({ width: 1000, height: 8000 })).toMatchObject({ width: 196, height: 1568 });
    expect(fitLongEdge({ width: 100_000, height: 1 })).toMatchObject({ width: 1568, height: 1 });
  });

  it("prices an image by Anthropic's (w × h) / 750 rule, capped at 1,600", () => {
    expect(imageTokens({ width: 1280, height: 800 })).toBe(Math.ceil((1280 * 800) / 750));
    expect(imageTokens({ width: 200, height: 100 })).toBe(27);
    expect(imageTokens({ width: 1568, height: 1568 })).toBe(MAX_IMAGE_TOKENS);
    expect(imageTokens({ width: 4000, height: 100 })).toBe(Math.ceil((1568 * 39) / 750));
    expect(imageTokens({ width: 0, height: 0 })).toBe(0);
  });

  it('reads the size from PNG, JPEG and GIF headers, and nothing from other data', () => {
    expect(imageDimensions(png(37, 21))).toEqual({ width: 37, height: 21 });
    expect(imageDimensions(jpegHeader(1280, 720), 'image/jpeg')).toEqual({ width: 1280, height: 720 });
    expect(imageDimensions(Buffer.from('GIF89a\x40\x01\xf0\x00', 'latin1').toString('base64'))).toEqual({ width: 320, height: 240 });
    expect(imageDimensions('not base64 at all!')).toBeUndefined();
    expect(imageDimensions('iVBORw0KGgo'.repeat(3))).toBeUndefined();
    expect(imageDimensions('')).toBeUndefined();
  });

  it('prices image blocks in the context estimate by their size', () => {
    const small = { type: 'image' as const, source: { type: 'base64' as const, media_type: 'image/png' as const, data: png(150, 100) } };
    expect(estimateContentTokens([small])).toBe(20);
    const unreadable = { type: 'image' as const, source: { type: 'base64' as const, media_type: 'image/png' as const, data: 'AAAA' } };
    expect(estimateContentTokens([unreadable])).toBe(IMAGE_TOKENS);
    const result = toolResultBlock('t1', { content: '{"width":150}', isError: false, images: [shot(150, 100)] });
    expect(estimateContentTokens([result])).toBeGreaterThan(20);
    expect(estimateContentTokens([result])).toBeLessThan(40);
  });
});

describe('scaling and stitching plans', () => {
  it('plans the output size from the region and the device pixel ratio', () => {
    expect(planImage({ width: 1280, height: 800 }, 1)).toEqual({ out: { width: 1280, height: 800 }, factor: 1 });
    const hiDpi = planImage({ width: 1280, height: 800 }, 2);
    expect(hiDpi.out).toEqual({ width: 1568, height: 980 });
    expect(hiDpi.factor).toBeCloseTo(1568 / 2560);
    expect(planImage({ width: 1280, height: 6400 }, 1).out).toEqual({ width: 314, height: 1568 });
  });

  it('cuts an element to the visible area, and finds none when it is off screen', () => {
    const vp = { width: 800, height: 600 };
    expect(visiblePart({ x: 10, y: 20, width: 100, height: 50 }, vp)).toEqual({ x: 10, y: 20, width: 100, height: 50 });
    expect(visiblePart({ x: -50, y: 500, width: 100, height: 300 }, vp)).toEqual({ x: 0, y: 500, width: 50, height: 100 });
    expect(visiblePart({ x: 0, y: 700, width: 100, height: 50 }, vp)).toBeUndefined();
  });

  it('scrolls a full page one screen at a time, at most 8 screens', () => {
    expect(fullPageStops(2000, 800)).toEqual([0, 800, 1600]);
    expect(fullPageStops(500, 800)).toEqual([0]);
    expect(fullPageStops(100_000, 800)).toHaveLength(8);
  });
});

describe('the tool-result path with images', () => {
  const image = shot(60, 40);
  const withImage = defineTool({
    name: 'picture',
    ...STUB_FACTS,
    description: 'Returns a picture (tests only).',
    input: v.strictObject({}),
    run: () => new ResultWithImages({ width: 60, height: 40 }, [image]),
  });
  const ctx = (): ToolContext => ({ conversationId: 'c', signal: new AbortController().signal, tasks: new TaskBoard(), env: detachedEnv(defaultSettings()) });

  it('the registry passes the words as JSON and the images beside them', async () => {
    const out = await new ToolRegistry([withImage]).call('picture', {}, ctx());
    expect(out).toMatchObject({ isError: false, content: '{"width":60,"height":40}' });
    expect(out.images).toEqual([image]);
  });

  it('a fenced tool fences the words only', async () => {
    const fenced = defineTool({ ...withImage, name: 'fenced_picture', thirdPartyText: true });
    const gate = { authorize: async () => ({ allowed: true }), taint() {}, fence: (t: string) => `<f>${t}</f>` };
    const out = await new ToolRegistry([fenced]).call('fenced_picture', {}, { ...ctx(), gate: gate as never });
    expect(out.content).toBe('<f>{"width":60,"height":40}</f>');
    expect(out.images).toHaveLength(1);
  });

  it('is an image block inside the tool_result on the Messages API; a result without images stays a string', () => {
    expect(toolResultBlock('t1', { content: 'plain', isError: false })).toEqual({ type: 'tool_result', tool_use_id: 't1', content: 'plain' });
    const block = toolResultBlock('t1', { content: '{"w":60}', isError: false, images: [image] });
    expect(block.content).toEqual([
      { type: 'text', text: '{"w":60}' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: image.data } },
    ]);
    const api = toApiMessages([{ role: 'user', at: 1, content: [block] }]);
    expect(api[0]!.content).toEqual([block]);
  });

  it('follows the tool message as a user message with an image_url data URL on Chat Completions', () => {
    const chat = toChatRequest({
      model: 'm',
      maxTokens: 10,
      system: [],
      tools: [],
      messages: [
        { role: 'user', content: 'Look at tab 1' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'call_1', name: 'screenshot', input: { tab_id: 1 } }] },
        { role: 'user', content: [toolResultBlock('call_1', { content: '{"width":60}', isError: false, images: [image] })] },
      ],
    });
    expect(chat.messages.slice(2)).toEqual([
      { role: 'tool', tool_call_id: 'call_1', content: '{"width":60}\n[This result includes an image: it follows in the next user message.]' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Image from tool call call_1:' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${image.data}` } },
        ],
      },
    ]);
  });

  it('shows the images of a stored result with their sizes and prices', () => {
    const [shown] = resultImages(toolResultBlock('t', { content: '{}', isError: false, images: [shot(1280, 800)] }));
    expect(shown).toMatchObject({ mediaType: 'image/png', size: { width: 1280, height: 800 }, tokens: 1366 });
  });
});

describe('conversations with images', () => {
  const messages = (images: ToolImage[]): StoredMessage[] => [
    { role: 'user', at: 1, content: [{ type: 'text', text: 'What does tab 3 show?' }] },
    { role: 'assistant', at: 2, content: [{ type: 'tool_use', id: 'toolu_1', name: 'screenshot', input: { tab_id: 3 } }] },
    { role: 'user', at: 3, content: [toolResultBlock('toolu_1', { content: '{"width":64,"height":48}', isError: false, images })] },
    { role: 'assistant', at: 4, content: [{ type: 'text', text: 'A red square.' }] },
  ];
  const conversation = (m: StoredMessage[]): Conversation => ({ id: 'c1', title: 'Tab 3', createdAt: 1, updatedAt: 4, messages: m, run: { ...idleRun(50), status: 'done' } });

  it('exports and imports again with the image, and the Markdown names it', () => {
    const c = conversation(messages([shot(64, 48)]));
    const back = parseImport(toJson(c));
    expect(back.ok).toBe(true);
    expect(back.ok && back.conversations[0]!.messages[2]).toEqual(c.messages[2]);
    expect(toMarkdown(c)).toContain('*[image 64×48]*');
  });

  it('still imports a file from before images, and refuses an image that is not base64', () => {
    expect(parseImport(toJson(conversation(messages([])))).ok).toBe(true);
    const bad = conversation(messages([shot(2, 2)]));
    (bad.messages[2]!.content[0] as { content: { source?: { data: string } }[] }).content[1]!.source!.data = 'not base64!';
    const parsed = parseImport(toJson(bad));
    expect(parsed).toMatchObject({ ok: false, error: expect.stringMatching(/messages\[2\]\.content\[0\]\.content/) });
  });

  it('an older screenshot leaves the model view (its words stay, its image goes) when the context is tight', async () => {
    const big = messages([shot(1200, 1000)]);
    const tail: StoredMessage[] = [
      { role: 'user', at: 5, content: [{ type: 'text', text: 'And now?' }] },
    ];
    const manager = new ContextManager({
      client: { stream: async () => { throw new Error('no model here'); } },
      model: 'm',
      noteModel: 'm',
      maxTokens: 100,
      window: 2_000,
      threshold: 0.5,
      view: { elidedBefore: 0 },
      changed: async () => {},
    } as never);
    manager.setFixed([], []);
    const view = await manager.prepare([...big, ...tail], { model: 'm', maxTokens: 100, system: [], tools: [] }, new AbortController().signal).catch((e: unknown) => e);
    expect(view).not.toBeInstanceOf(Error);
    const sent = JSON.stringify((view as { api: unknown }).api);
    expect(sent).not.toContain('"type":"image"');
    expect(sent).toContain('elided to save context');
    expect(sent).toContain('{\\"width\\":64,\\"height\\":48}');
  });
});

describe('the screenshot tool', () => {
  const tabs: TabInfo[] = [
    { id: 1, window_id: 1, url: 'http://127.0.0.1/canvas.html', title: 'Canvas', active: true, audible: false, status: 'complete' },
    { id: 2, window_id: 1, url: 'chrome://settings/', title: 'Settings', active: false, audible: false, status: 'complete' },
    { id: 3, window_id: 1, url: 'https://chromewebstore.google.com/detail/x', title: 'Store', active: false, audible: false, status: 'complete' },
  ];
  const fakeTabs = {
    get: async (id: number) => {
      const t = tabs.find((x) => x.id === id);
      if (!t) throw new TabError('not_found', `No tab with id ${id}: it was closed or never existed. Call list_tabs to see the open tabs.`);
      return t;
    },
  } as unknown as TabsAdapter;
  const calls: ScreenshotOptions[] = [];
  const screenshots: ScreenshotAdapter = {
    async capture(_tab, options) {
      calls.push(options);
      if (options.selector === '#missing') throw new ScreenshotError('no_match', 'No element matches the selector "#missing".');
      return { image: shot(64, 48), region: { x: 0, y: 0, width: 64, height: 48 }, scale: 1, notes: [] };
    },
  };
  const call = (input: unknown) => {
    const env: ToolEnv = { ...detachedEnv(defaultSettings()), tabs: fakeTabs, screenshots };
    return new ToolRegistry(screenshotTools).call('screenshot', input, { conversationId: 'c', signal: new AbortController().signal, tasks: new TaskBoard(), env });
  };

  it('is a read of the site, for the sub-agents that read tabs', () => {
    const facts = BUILTIN_TOOL_FACTS.find((f) => f.name === 'screenshot');
    expect(facts).toMatchObject({ risk: 'read_site', thirdPartyText: true });
    expect(facts?.subAgents).toEqual(expect.arrayContaining(['page_operator', 'researcher', 'general']));
  });

  it('returns its facts in words and the image beside them', async () => {
    const out = await call({ tab_id: 1 });
    expect(out.isError).toBe(false);
    expect(JSON.parse(out.content)).toEqual({
      tab_id: 1, url: 'http://127.0.0.1/canvas.html', title: 'Canvas', width: 64, height: 48, media_type: 'image/png', tokens: 5,
      region: { x: 0, y: 0, width: 64, height: 48 },
    });
    expect(out.images?.[0]).toMatchObject({ width: 64, height: 48 });
  });

  it("a page_operator sub-agent on tab 1 gets it, with the image, and is kept to its tab", async () => {
    const env: ToolEnv = { ...detachedEnv(defaultSettings()), tabs: fakeTabs, screenshots };
    const scoped = new ScopedTools(new ToolRegistry(screenshotTools), 'page_operator', 1);
    expect(scoped.modelTools().map((t) => t.name)).toEqual(['screenshot']);
    const ctx = { conversationId: 'c', signal: new AbortController().signal, tasks: new TaskBoard(), env };
    const out = await scoped.call('screenshot', { tab_id: 1 }, ctx);
    expect(out.images).toHaveLength(1);
    expect((await scoped.call('screenshot', { tab_id: 3 }, ctx)).isError).toBe(true);
  });

  it('refuses bad input with a clear message, never a crash', async () => {
    expect((await call({})).content).toMatch(/"tab_id" is required/);
    expect((await call({ tab_id: 'one' })).content).toMatch(/"tab_id": must be a number/);
    expect((await call({ tab_id: 1, selector: '' })).content).toMatch(/"selector": must not be empty/);
    expect((await call({ tab_id: 1, full_page: 'yes' })).content).toMatch(/"full_page": must be true or false/);
    expect((await call({ tab_id: 1, zoom: 2 })).content).toMatch(/unknown argument "zoom"/);
    expect((await call({ tab_id: 1, selector: '#a', full_page: true })).content).toMatch(/selector or full_page, not both/);
    expect((await call({ tab_id: 99 })).content).toMatch(/No tab with id 99/);
    expect((await call({ tab_id: 2 })).content).toMatch(/Tab 2 cannot be read or scripted: .*browser-internal/);
    expect((await call({ tab_id: 3 })).content).toMatch(/Tab 3 cannot be read or scripted: .*extension store/);
    const missing = await call({ tab_id: 1, selector: '#missing' });
    expect(missing).toMatchObject({ isError: true, content: expect.stringMatching(/No element matches the selector "#missing"/) });
  });
});
