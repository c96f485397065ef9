/**
 * The documentation's internal links hold (issue 31): in README.md and every Markdown file under
 * docs/, each relative link — Markdown `[text](path#anchor)` and `![alt](path)`, reference
 * definitions `[id]: path`, HTML `<a href>` and `<img src>` — names a file or folder that exists in
 * the repository, and each `#anchor`, on the same page or another Markdown page, is a heading
 * there (by GitHub's slug rules) or an explicit `<a id>` / `<a name>`. Absolute URLs (any scheme:
 * http:, https:, mailto:, chrome:…) are not checked, nor is anything inside code (fenced blocks
 * and inline code spans). A page moved or a heading renamed fails here, naming the file, the link
 * and what is missing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

// ---- Markdown, as far as links and headings need it ----

/** The file's lines with fenced code blocks blanked (kept as empty lines, so numbers stay right). */
function withoutFences(text: string): string[] {
  const lines = text.split(/\r?\n/);
  let fence: { char: string; length: number } | undefined;
  return lines.map((line) => {
    const m = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line);
    const marks = m?.[1] ?? '';
    const info = m?.[2] ?? '';
    if (!fence) {
      // A backtick fence's info string may not contain a backtick.
      if (m && !(marks[0] === '`' && info.includes('`'))) {
        fence = { char: marks.charAt(0), length: marks.length };
        return '';
      }
      return line;
    }
    if (m && marks[0] === fence.char && marks.length >= fence.length && info.trim() === '') fence = undefined;
    return '';
  });
}

/** Inline code spans, found as CommonMark does: a run of N backticks closed by a run of exactly N. */
function codeSpans(line: string): { start: number; end: number; content: string }[] {
  const spans: { start: number; end: number; content: string }[] = [];
  const re = /`+/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(line))) {
    const ticks = m[0];
    const close = new RegExp(`(?<!\`)${ticks}(?!\`)`, 'g');
    close.lastIndex = m.index + ticks.length;
    const c = close.exec(line);
    if (!c) continue;
    let content = line.slice(m.index + ticks.length, c.index);
    if (/^ .* $/.test(content) && content.trim() !== '') content = content.slice(1, -1);
    spans.push({ start: m.index, end: c.index + ticks.length, content });
    re.lastIndex = c.index + ticks.length;
  }
  return spans;
}

/** The line with its inline code spans blanked out (same length), so links inside them are not seen. */
function blankCode(line: string): string {
  let out = line;
  for (const s of codeSpans(line)) out = out.slice(0, s.start) + ' '.repeat(s.end - s.start) + out.slice(s.end);
  return out;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };
function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === '#') return String.fromCodePoint(name.charAt(1).toLowerCase() === 'x' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10));
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

/**
 * A heading's text as GitHub renders it (its text content): code spans keep their content
 * literally; links and images become their text; emphasis markers, HTML tags and backslash escapes
 * go; entities are decoded.
 */
export function headingText(raw: string): string {
  const spans = codeSpans(raw);
  let out = '';
  let at = 0;
  const prose = (s: string) =>
    decodeEntities(
      s
        .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
        .replace(/!?\[([^\]]*)\]\[[^\]]*\]/g, '$1')
        .replace(/<\/?[a-z][^>]*>/gi, '')
        .replace(/\\([!-/:-@[-`{-~])/g, '$1')
        .replace(/\*+/g, '')
        .replace(/(^|[^\p{L}\p{N}])_+|_+(?=[^\p{L}\p{N}]|$)/gu, '$1'),
    );
  for (const s of spans) {
    out += prose(raw.slice(at, s.start)) + s.content;
    at = s.end;
  }
  return (out + prose(raw.slice(at))).trim();
}

/**
 * GitHub's anchor for a heading (github-slugger): lower-case; every character that is not a
 * letter, a mark, a number, connector punctuation (`_`), `-` or a space removed; each space
 * becomes `-` (so `A → B` gives `a--b`).
 */
export function slug(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
}

/** Slugs for headings in order, as GitHub makes them unique: the second `x` is `x-1`, the third `x-2`. */
export function uniqueSlugs(headings: string[]): string[] {
  const seen = new Map<string, number>();
  return headings.map((h) => {
    const base = slug(h);
    let candidate = base;
    while (seen.has(candidate)) {
      seen.set(base, seen.get(base)! + 1);
      candidate = `${base}-${seen.get(base)}`;
    }
    seen.set(candidate, 0);
    return candidate;
  });
}

/** Every anchor a Markdown file offers: its headings' slugs and its explicit `<a id>` / `<a name>`. */
export function anchorsOf(text: string): Set<string> {
  const lines = withoutFences(text);
  const headings: string[] = [];
  const explicit: string[] = [];
  lines.forEach((line, i) => {
    const atx = /^ {0,3}#{1,6}(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/.exec(line);
    if (atx) headings.push(headingText(atx[1] ?? ''));
    else if (/^ {0,3}(=+|-+)[ \t]*$/.test(line) && i > 0) {
      const prev = lines[i - 1] ?? '';
      const paragraph = prev.trim() !== '' && !/^ {0,3}(#|>|[-*+] |\d+[.)] |\||<)/.test(prev) && !/^ {0,3}(=+|-+)[ \t]*$/.test(prev);
      if (paragraph && (i < 2 || (lines[i - 2] ?? '').trim() === '')) headings.push(headingText(prev));
    }
    for (const m of blankCode(line).matchAll(/<a\s[^>]*?\b(?:id|name)\s*=\s*["']([^"']+)["']/gi)) explicit.push(m[1] ?? '');
  });
  return new Set([...uniqueSlugs(headings), ...explicit]);
}

export interface Link {
  line: number;
  target: string;
}

/** The links of a Markdown file: inline links and images, reference definitions, `<a href>` and `<img src>`. */
export function linksOf(text: string): Link[] {
  const links: Link[] = [];
  withoutFences(text).forEach((raw, i) => {
    const line = blankCode(raw);
    const add = (target: string) => links.push({ line: i + 1, target: target.trim() });
    // [text](dest "title") and ![alt](dest): the text may hold one level of brackets (an image in a link).
    for (const m of line.matchAll(/\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+("[^"]*"|'[^']*'|\([^)]*\)))?\s*\)/g)) add((m[1] ?? '').replace(/^<|>$/g, ''));
    const def = /^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)/.exec(line);
    if (def) add((def[1] ?? '').replace(/^<|>$/g, ''));
    for (const m of line.matchAll(/<(?:a|img)\s[^>]*?\b(?:href|src)\s*=\s*("[^"]*"|'[^']*')/gi)) add((m[1] ?? '').slice(1, -1));
  });
  return links;
}

// ---- Checking ----

export interface Repo {
  /** Repository-relative POSIX path → whether a file or folder is there. */
  exists(rel: string): boolean;
  /** A Markdown file's text (repository-relative path). */
  read(rel: string): string;
}

/** What is wrong with the links of `file` (repository-relative), one sentence per broken link. */
export function brokenLinks(file: string, repo: Repo): string[] {
  const problems: string[] = [];
  const anchors = new Map<string, Set<string>>();
  const anchorsIn = (rel: string) => {
    if (!anchors.has(rel)) anchors.set(rel, anchorsOf(repo.read(rel)));
    return anchors.get(rel)!;
  };
  for (const { line, target } of linksOf(repo.read(file))) {
    const where = `${file}:${line}: link "${target}"`;
    if (target === '' || /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) continue;
    const hash = target.indexOf('#');
    const pathPart = hash < 0 ? target : target.slice(0, hash);
    const anchor = hash < 0 ? undefined : target.slice(hash + 1);
    let decoded: string;
    try {
      decoded = decodeURIComponent(pathPart.split('?')[0] ?? '');
    } catch {
      problems.push(`${where}: the path is not valid URL encoding`);
      continue;
    }
    const rel = decoded === '' ? file : decoded.startsWith('/') ? path.posix.normalize(decoded.slice(1)) : path.posix.normalize(path.posix.join(path.posix.dirname(file), decoded));
    if (rel.startsWith('../') || rel === '..') {
      problems.push(`${where}: points outside the repository (${rel})`);
      continue;
    }
    const targetFile = rel.replace(/\/$/, '') || '.';
    if (!repo.exists(targetFile)) {
      problems.push(`${where}: no file or folder ${targetFile}`);
      continue;
    }
    if (anchor === undefined || !/\.md$/i.test(targetFile)) continue;
    let name: string;
    try {
      name = decodeURIComponent(anchor);
    } catch {
      problems.push(`${where}: the anchor is not valid URL encoding`);
      continue;
    }
    if (name === '') continue;
    if (!anchorsIn(targetFile).has(name)) problems.push(`${where}: ${targetFile} has no heading or anchor "#${name}"`);
  }
  return problems;
}

function markdownUnder(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.posix.join(dir, e.name);
    if (e.isDirectory()) return markdownUnder(rel);
    return e.name.endsWith('.md') ? [rel] : [];
  });
}

const diskRepo: Repo = {
  exists: (rel) => fs.existsSync(path.join(ROOT, rel)),
  read: (rel) => fs.readFileSync(path.join(ROOT, rel), 'utf8'),
};

/** A repository in memory, for testing the checker itself. */
function memoryRepo(files: Record<string, string>): Repo {
  const folders = new Set(Object.keys(files).flatMap((f) => f.split('/').slice(0, -1).map((_, i, parts) => parts.slice(0, i + 1).join('/'))));
  return {
    exists: (rel) => rel in files || folders.has(rel),
    read: (rel) => {
      const text = files[rel];
      if (text === undefined) throw new Error(`no ${rel}`);
      return text;
    },
  };
}

// ---- Tests ----

describe("the documentation's links", () => {
  const files = ['README.md', ...markdownUnder('docs')];

  it('covers the README and the docs tree, docs/spec included', () => {
    expect(files).toContain('README.md');
    expect(files).toContain('docs/spec/builtin-tools.md');
    expect(files.length).toBeGreaterThan(3);
  });

  it('every relative link resolves and every anchor exists', () => {
    expect(files.flatMap((f) => brokenLinks(f, diskRepo))).toEqual([]);
  });
});

describe('GitHub heading slugs', () => {
  it.each([
    ['Development with `wxt dev`', 'development-with-wxt-dev'],
    ['Beyond the contract: `page_action` (issue 18)', 'beyond-the-contract-page_action-issue-18'],
    ['Management page → Agent → Settings', 'management-page--agent--settings'],
    ['Trust & permissions', 'trust--permissions'],
    ['Export — and import', 'export--and-import'],
    ['Why is Firefox MV2?', 'why-is-firefox-mv2'],
    ['MCP sign-in (OAuth 2.1, issue 19)', 'mcp-sign-in-oauth-21-issue-19'],
    ['See [Providers](guide/providers.md) first', 'see-providers-first'],
    ['Sign in to &lt;server&gt;', 'sign-in-to-server'],
    ['**Bold** and _emphasis_ in snake_case', 'bold-and-emphasis-in-snake_case'],
    ['Çalışma alanı', 'çalışma-alanı'],
    ['``a `tick` inside``', 'a-tick-inside'],
  ])('%s → #%s', (heading, expected) => {
    expect(slug(headingText(heading))).toBe(expected);
  });

  it('numbers duplicates as GitHub does', () => {
    expect(uniqueSlugs(['Tests', 'Tests', 'Tests', 'Tests 1'])).toEqual(['tests', 'tests-1', 'tests-2', 'tests-1-1']);
  });

  it('takes ATX and setext headings and explicit anchors, and nothing inside a code block', () => {
    const text = ['# Title #', '', 'Setext', '======', '', '```md', '# Not a heading', '```', '<a id="here"></a>', '## Title'].join('\n');
    expect([...anchorsOf(text)].sort()).toEqual(['here', 'setext', 'title', 'title-1']);
  });
});

describe('the link checker', () => {
  it('finds Markdown links, images, reference definitions and HTML links, but none in code', () => {
    const text = [
      'See [a](a.md#x "title"), ![pic](img/p.png) and [b](<b c.md>).',
      '[ref]: ref.md',
      '<img src="p.png" alt=""> <a href="d.md#y">d</a>',
      'Not `[code](code.md)`.',
      '```',
      '[fenced](fenced.md)',
      '```',
    ].join('\n');
    expect(linksOf(text).map((l) => l.target)).toEqual(['a.md#x', 'img/p.png', 'b c.md', 'ref.md', 'p.png', 'd.md#y']);
  });

  it('names the file, the link and what is missing', () => {
    const repo = memoryRepo({
      'README.md': '# Top\n\n[ok](docs/a.md#part-one) [web](https://example.com/x.md#nope) [same](#top-1)\n',
      'docs/a.md': '# A\n\n## Part one\n\n[up](../README.md#top) [gone](b.md) [bad anchor](../README.md#missing) [folder](../docs/) [out](../../x.md)\n',
    });
    expect(brokenLinks('README.md', repo)).toEqual(['README.md:3: link "#top-1": README.md has no heading or anchor "#top-1"']);
    expect(brokenLinks('docs/a.md', repo)).toEqual([
      'docs/a.md:5: link "b.md": no file or folder docs/b.md',
      'docs/a.md:5: link "../README.md#missing": README.md has no heading or anchor "#missing"',
      'docs/a.md:5: link "../../x.md": points outside the repository (../x.md)',
    ]);
  });
});
