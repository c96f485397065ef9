/**
 * Pages that try the page reader's robustness (issue 16, "Bad input"), generated so that the unit
 * tests (jsdom), the fixture server (e2e, both browsers) and scripts/bench-bad-input.ts read the
 * very same HTML. The small static ones (framesets, their frames) are in tests/fixtures/bad-input.
 * Each page carries a marker sentence that a correct read must contain.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { FIXTURES_DIR } from './fixtures';

const ARTICLE_WORDS =
  'The reader has to find this paragraph among everything else on the page, and it is long enough ' +
  'to count as the article: several sentences of ordinary prose about nothing in particular.';

function html(title: string, body: string, head = '', attrs = 'lang="en"'): string {
  return `<!doctype html><html ${attrs}><head><meta charset="utf-8"><title>${title}</title>${head}</head><body>${body}</body></html>`;
}

const article = (marker: string, n = 6) =>
  `<article><h1>${marker}</h1>${Array.from({ length: n }, (_, i) => `<p>${i === 0 ? `${marker}. ` : ''}${ARTICLE_WORDS}</p>`).join('')}</article>`;

/** JSON-LD that does not parse (a trailing comma, a bare word, cut short), next to one that does. */
export const BROKEN_JSON_LD_MARKER = 'An article whose structured data is broken';
export function brokenJsonLdPage(): string {
  const head =
    '<script type="application/ld+json">{"@type": "NewsArticle", "headline": "Broken",}</script>' +
    '<script type="application/ld+json">{"@type": "Person", name: unquoted}</script>' +
    '<script type="application/ld+json">{"@context": "https://schema.org", "@type": "Article", "author": {"name": "Cut sho</script>' +
    '<script type="application/ld+json">{"@context": "https://schema.org", "@type": "Article", "author": {"@type": "Person", "name": "Valid Author"}}</script>';
  return html('Broken JSON-LD', `<main>${article(BROKEN_JSON_LD_MARKER)}<script type="application/ld+json">[{"@type": "WebPage"},]</script></main>`, head);
}

/** `n` empty divs, or (`word`) each holding that one word, and a short article after them. */
export const DIVS_MARKER = 'The article after the many divs';
export function manyDivsPage(n = 50_000, word?: string): string {
  const div = word ? `<div>${word}</div>` : '<div></div>';
  return html(`${n} divs`, `<div id="wrap">${div.repeat(n)}</div>${article(DIVS_MARKER, 3)}`);
}

/** An article whose main content is one table of `rows` × `cols` cells. */
export const TABLE_MARKER = 'A table of measurements';
export function hugeTablePage(rows = 20_000, cols = 8): string {
  const head = `<tr>${Array.from({ length: cols }, (_, c) => `<th>Column ${c}</th>`).join('')}</tr>`;
  const body = Array.from({ length: rows }, (_, r) => `<tr>${Array.from({ length: cols }, (_, c) => `<td>r${r}c${c}</td>`).join('')}</tr>`).join('');
  return html('Huge table', `<main><h1>${TABLE_MARKER}</h1><p>${TABLE_MARKER}: every reading of the year, one row each.</p><table id="data"><thead>${head}</thead><tbody>${body}</tbody></table></main>`);
}

/** Arabic and Hebrew prose, right to left, with numbers and a Latin word inside. */
export const ARABIC_SENTENCE = 'هذه فقرة باللغة العربية تُقرأ من اليمين إلى اليسار، وفيها رقم 2024 وكلمة Firefox في وسطها.';
export const HEBREW_SENTENCE = 'זוהי פסקה בעברית הנקראת מימין לשמאל, ויש בה את המספר 42 ואת המילה Chromium.';
export function rtlPage(): string {
  const ps = (s: string) => Array.from({ length: 5 }, () => `<p>${s}</p>`).join('');
  return html(
    'صفحة عربية',
    `<main><article><h1>عنوان المقال</h1>${ps(ARABIC_SENTENCE)}<section lang="he" dir="rtl"><h2>כותרת בעברית</h2>${ps(HEBREW_SENTENCE)}</section></article></main>`,
    '',
    'lang="ar" dir="rtl"',
  );
}

/** Chinese and Japanese without spaces; the Japanese with furigana (ruby) on its kanji. */
export const CHINESE_SENTENCE = '这是一段没有空格的中文文字，阅读器必须按顺序完整地保留它，不能丢掉任何一个字。';
/** The Japanese sentence as it reads (base text only) … */
export const JAPANESE_BASE = '日本語の文章には漢字とかなが混ざっています。';
/** … and as marked up, readings on the kanji (with <rp> parentheses for browsers without ruby). */
export const JAPANESE_RUBY =
  '<ruby>日本語<rp>(</rp><rt>にほんご</rt><rp>)</rp></ruby>の<ruby>文章<rt>ぶんしょう</rt></ruby>には<ruby>漢<rt>かん</rt>字<rt>じ</rt></ruby>とかなが<ruby><rb>混</rb><rt>ま</rt></ruby>ざっています。';
export function cjkPage(): string {
  const zh = Array.from({ length: 6 }, () => `<p>${CHINESE_SENTENCE}</p>`).join('');
  const ja = Array.from({ length: 6 }, () => `<p>${JAPANESE_RUBY}</p>`).join('');
  return html('中文与日本語', `<main><article><h1>中文文章</h1>${zh}<section lang="ja"><h2>日本語の記事</h2>${ja}</section></article></main>`, '', 'lang="zh"');
}

/**
 * A page that never stops changing: on every animation frame it rewrites a counter, adds a node,
 * removes an old one and flips a class; a MutationObserver answers each change with another, and a
 * timer replaces a whole block. The article itself stays.
 */
export const CHURN_MARKER = 'The article that stays while the page churns';
export function churningPage(): string {
  const script = `
    const ticker = document.getElementById('ticker');
    const feed = document.getElementById('feed');
    let n = 0;
    function frame() {
      n++;
      ticker.textContent = 'Tick ' + n;
      const item = document.createElement('li');
      item.textContent = 'Live item ' + n;
      feed.prepend(item);
      while (feed.children.length > 20) feed.lastElementChild.remove();
      document.body.classList.toggle('odd', n % 2 === 1);
      requestAnimationFrame(frame);
    }
    requestAnimationFrame(frame);
    let echoes = 0;
    new MutationObserver(() => {
      if (++echoes % 2) document.getElementById('echo').setAttribute('data-n', String(echoes));
    }).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
    setInterval(() => {
      const old = document.getElementById('swap');
      const next = document.createElement('div');
      next.id = 'swap';
      next.innerHTML = '<p>Swapped block ' + n + '</p><button type="button">Act ' + n + '</button>';
      old.replaceWith(next);
    }, 5);
    document.title = 'Churning page (ready)';`;
  return html(
    'Churning page',
    `<nav><a href="/a">Home</a> <span id="ticker">Tick 0</span></nav><main>${article(CHURN_MARKER)}<div id="swap"><p>Swapped block 0</p></div><ul id="feed"></ul><p id="echo">echo</p></main><script>${script}</script>`,
  );
}

/** The frameset page of tests/fixtures/bad-input, as the fixture server sends it. */
export function framesetPage(): string {
  return readFileSync(path.join(FIXTURES_DIR, 'bad-input', 'frameset.html'), 'utf8');
}
export const FRAMED_MARKER = 'FRAMED-ARTICLE';

/**
 * jsdom loads no frames: gives the frameset's same-origin frames the documents a browser would
 * load into them, and makes the data: frame cross-origin (its document unreachable), as it is there.
 */
export function fillFramesetInJsdom(doc: Document): void {
  for (const frame of Array.from(doc.querySelectorAll('frame'))) {
    const src = frame.getAttribute('src') ?? '';
    if (src.startsWith('data:')) {
      Object.defineProperty(frame, 'contentDocument', { get: () => null });
      continue;
    }
    const inner = (frame as HTMLFrameElement).contentDocument!;
    const source = new DOMParserLike(readFileSync(path.join(FIXTURES_DIR, 'bad-input', src), 'utf8'));
    inner.replaceChildren(inner.importNode(source.documentElement(doc), true));
  }
}

/** Parses HTML with the DOMParser of the document's own window (jsdom has no global one). */
class DOMParserLike {
  constructor(private html: string) {}
  documentElement(doc: Document): Element {
    const Parser = (doc.defaultView as unknown as { DOMParser: typeof DOMParser }).DOMParser;
    return new Parser().parseFromString(this.html, 'text/html').documentElement;
  }
}

/** Every generated page by name (the fixture server serves each as /bad-input/NAME.html). */
export const BAD_PAGES: Record<string, () => string> = {
  'broken-json-ld': brokenJsonLdPage,
  frameset: framesetPage,
  'empty-divs': () => manyDivsPage(50_000),
  'word-divs': () => manyDivsPage(50_000, 'word'),
  'huge-table': () => hugeTablePage(20_000, 8),
  rtl: rtlPage,
  cjk: cjkPage,
  churning: churningPage,
};
