/**
 * Text a person cannot see stays out of get_tab_content (lib/extract/visibility.ts), in the real
 * page reader of the built extension, in both browsers. Pages: tests/fixtures/hidden (see its
 * SOURCE.md); each has visible text marked VISIBLE-… or LEGIT-… and hidden text marked HIDDEN-….
 */
import { describe, expect, it } from 'vitest';
import type { BrowserName } from '../harness/browsers';
import { agentSession } from '../harness/session';

const browsers: BrowserName[] = ['chromium', 'firefox'];
const PAGES = ['opacity', 'clipped', 'offscreen', 'font-size', 'colour', 'aria-hidden', 'all', 'legitimate', 'modal'] as const;
type PageName = (typeof PAGES)[number];

/** Each hiding method: its page, the marker of its visible text and the prefix of its hidden ones. */
const METHODS: [method: string, page: PageName, visible: string[], hidden: string][] = [
  ['opacity 0, on the element or an ancestor', 'opacity', ['VISIBLE-OPACITY', 'VISIBLE-HALF-OPACITY'], 'HIDDEN-OPACITY'],
  ['zero size with overflow hidden, clip, clip-path, visually-hidden prose', 'clipped', ['VISIBLE-CLIP', 'VISIBLE-CLIP-BOX'], 'HIDDEN-CLIP'],
  ['off-screen positioning and text-indent', 'offscreen', ['VISIBLE-OFFSCREEN', 'VISIBLE-POSITIONED'], 'HIDDEN-OFFSCREEN'],
  ['font-size 0 and ≤ 1px', 'font-size', ['VISIBLE-FONTSIZE', 'VISIBLE-FONTSIZE-RESET', 'VISIBLE-FONTSIZE-SMALL'], 'HIDDEN-FONTSIZE'],
  ['text coloured like its background', 'colour', ['VISIBLE-COLOUR', 'VISIBLE-COLOUR-PANEL', 'VISIBLE-COLOUR-FAINT', 'VISIBLE-COLOUR-YELLOW'], 'HIDDEN-COLOUR'],
  ['aria-hidden subtrees', 'aria-hidden', ['VISIBLE-ARIA', 'VISIBLE-ARIA-LINK'], 'HIDDEN-ARIA'],
  ['every method in one article', 'all', ['VISIBLE-ALL'], 'HIDDEN-ALL'],
];

describe.each(browsers)('hidden text in %s', (name) => {
  const session = agentSession(name);

  // One agent run reads every page (a browser launch and a popup per page would be most of the
  // file's time); each test then looks at its own page's content. Once per browser, whichever
  // test asks first: a test run alone or retried on a fresh profile reads them itself.
  const read = async (page: PageName): Promise<string> => {
    const reads = await session.once('every page read', async () => {
      const tabs: number[] = [];
      for (const p of PAGES) tabs.push(await session.openTab(`/hidden/${p}.html`));
      const results = await session.agentRuns(tabs.map((tab_id) => () => ({ name: 'get_tab_content', input: { tab_id } })));
      return Object.fromEntries(
        PAGES.map((p, i) => {
          const r = results[i];
          if (r?.isError !== false) throw new Error(`get_tab_content on ${p}.html failed: ${JSON.stringify(r?.content).slice(0, 300)}`);
          return [p, r.content.content as string];
        }),
      ) as Record<PageName, string>;
    });
    return reads[page];
  };

  it.each(METHODS)('drops %s', async (_method, page, visible, hidden) => {
    const md = await read(page);
    for (const marker of visible) expect(md).toContain(marker);
    expect(md.match(new RegExp(`${hidden}[A-Z-]*`, 'g')) ?? []).toEqual([]);
  });

  it('keeps an aria-hidden icon\'s link and button, without the icon\'s text', async () => {
    const md = await read('aria-hidden');
    expect(md).toContain('[Read the documentation VISIBLE-ARIA-LINK](/docs)');
    expect(md).toMatch(/\[button "Close the banner" \{[^}]+\}\]/);
  });

  it('names controls by their visually hidden labels, never as prose', async () => {
    const md = await read('legitimate');
    expect(md).toContain('VISIBLE-LEGIT');
    // Each once, inside its control: a button's annotation, a link's text.
    expect(md).toMatch(/\[button "Search the site LEGIT-SRONLY-BUTTON" \{[^}]+\}\]/);
    expect(md).toContain('[Shopping cart LEGIT-SRONLY-LINK](/cart)');
    for (const marker of ['LEGIT-SRONLY-BUTTON', 'LEGIT-SRONLY-LINK']) expect(md.split(marker)).toHaveLength(2);
    expect(md).toContain('[Help centre LEGIT-ICON-LINK](/help)');
    expect(md).not.toContain('ICON-GLYPH');
    // A visually hidden checkbox is listed at its label; a transparent file input over its button.
    expect(md).toMatch(/\[checkbox "Remember me LEGIT-CHECKBOX" \{[^}]+\}\]/);
    expect(md).toMatch(/\[input file "Upload a photo LEGIT-FILE" \{[^}]+\}\]/);
  });

  it('keeps light text on dark, text on a background image or a photo, and a scrolled pane', async () => {
    const md = await read('legitimate');
    for (const marker of ['LEGIT-DARK', '[a link LEGIT-DARK-LINK](/more)', 'LEGIT-HERO', 'LEGIT-PHOTO', 'LEGIT-SCROLLED']) expect(md).toContain(marker);
  });

  it('reads the page behind an open modal dialog, which the dialog set aria-hidden', async () => {
    const md = await read('modal');
    expect(md).toContain('LEGIT-BEHIND-MODAL');
    expect(md).toContain('LEGIT-DIALOG');
    expect(md).not.toContain('HIDDEN-MODAL-ICON');
  });
});
