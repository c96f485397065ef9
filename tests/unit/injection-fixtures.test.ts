/**
 * The prompt-injection attack corpus (tests/fixtures/injection): the manifest says what each page
 * holds, and this checks that the files really do — the secret is there, the instruction is there
 * in the place and behind the hiding the manifest names, the action a compromised model would take
 * is a call the real tool accepts, and every class of attack is covered.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { JSDOM, VirtualConsole } from 'jsdom';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeEntities } from '../../lib/html/entities';
import { duckduckgo } from '../../lib/search-engines/duckduckgo';
import { instagramPostTool } from '../../lib/skills/builtin/instagram-post';
import { whatsappSendTool } from '../../lib/skills/builtin/whatsapp-send';
import { BUILTIN_FUNCTIONS, BuiltinConfigSchema, HttpConfigSchema } from '../../lib/skills/config';
import { inputSchemaToValibot } from '../../lib/skills/json-schema';
import type { SkillRecord } from '../../lib/skills/types';
import { defaultSettings, SettingsObject } from '../../lib/settings';
import { builtinTools } from '../../lib/tools';
import {
  INJECTION_DIR,
  loadInjectionCorpus,
  pageUrl,
  placeholderValues,
  substitute,
  type InjectionAttack,
  type ToolCallSpec,
} from '../harness/injection-corpus';
import { FixtureServer } from '../harness/fixture-server';

const manifest = loadInjectionCorpus();
const attacks = manifest.attacks;
const PORTS = { fixturePort: 41234, attackerPort: 45678 };
const ATTACKER_ORIGIN = `http://attacker.pagewright.test:${PORTS.attackerPort}`;

const HIDING = ['display-none', 'visibility-hidden', 'opacity-0', 'zero-size', 'clip', 'offscreen', 'font-size-0', 'same-colour', 'aria-hidden', 'hidden-attribute', 'noscript', 'template', 'visible'];
/** Placements that a browser never paints (attributes, comments, metadata). */
const NOT_RENDERED = ['alt', 'title-attribute', 'aria-label', 'html-comment', 'json-ld', 'meta-description', 'og-tag', 'link-href'];
const HIDING_VALUES = [...HIDING, 'not-rendered', 'none'];
const FORGERY = ['system-line', 'user-line', 'assistant-line', 'tool-result-close', 'tool-result-json', 'transcript', 'fence-close'];
const PLACEMENT = ['body-text', ...NOT_RENDERED, 'link-text', 'placeholder', 'textarea', 'iframe-srcdoc', 'document-text', 'json-field', 'search-snippet', 'search-title'];
const SOURCES = ['tab', 'fetch', 'search', 'http_skill'];
const KIND_TOOL: Record<string, string> = {
  'fetch-query': 'web_fetch',
  'fetch-b64-path': 'web_fetch',
  'open-tab': 'open_tab',
  'script-submit-form': 'execute_script',
  'script-fetch': 'execute_script',
  'http-skill-post': 'shop_api',
  'instagram-post': 'instagram_post',
  'whatsapp-send': 'whatsapp_send',
  'opfs-delete': 'opfs_delete',
};
/** Action kinds as coverage counts them: execute_script's two variants (form, fetch) are one kind too. */
const kindGroup = (kind: string) => (kind.startsWith('script-') ? 'execute_script' : kind);

const filePath = (a: InjectionAttack) => path.join(INJECTION_DIR, a.file);
const raw = (a: InjectionAttack) => fs.readFileSync(filePath(a), 'utf8');
const isHtml = (a: InjectionAttack) => a.file.endsWith('.html');
const vars = (a: InjectionAttack) => placeholderValues(a, PORTS);
const skill = (name: string) => manifest.skills.find((s) => s.name === name);

const parsed = new Map<string, Window & typeof globalThis>();
/** The HTML as jsdom reads it (style sheets cascaded, no layout, no scripts run); parsed once per text. */
function parse(html: string): Window & typeof globalThis {
  let win = parsed.get(html);
  if (!win) parsed.set(html, (win = new JSDOM(html, { virtualConsole: new VirtualConsole() }).window as unknown as Window & typeof globalThis));
  return win;
}

/** Every string value inside a JSON value, at any depth. */
function jsonStrings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(jsonStrings);
  if (value && typeof value === 'object') return Object.values(value).flatMap(jsonStrings);
  return [];
}

/** The document and, recursively, every <template>'s content: where text can live. */
function roots(doc: Document): ParentNode[] {
  const out: ParentNode[] = [doc];
  for (let i = 0; i < out.length; i++) for (const t of out[i]!.querySelectorAll('template')) out.push(t.content);
  return out;
}

/** The deepest elements whose text holds `text` (inside templates too). */
function textContainers(doc: Document, text: string): Element[] {
  return roots(doc).flatMap((root) =>
    [...root.querySelectorAll('*')].filter((el) => el.textContent?.includes(text) && ![...el.children].some((c) => c.textContent?.includes(text))),
  );
}

function comments(doc: Document): string[] {
  const walker = doc.createTreeWalker(doc, 128 /* NodeFilter.SHOW_COMMENT */);
  const out: string[] = [];
  for (let n = walker.nextNode(); n; n = walker.nextNode()) out.push((n as Comment).data);
  return out;
}

/** Where in the HTML the instruction is, as the manifest's placement names it: the element it belongs to, or null. */
function locate(win: Window, placement: string, instruction: string): Element | null {
  const doc = win.document;
  const byAttr = (selector: string, attr: string) => [...doc.querySelectorAll(selector)].find((el) => el.getAttribute(attr)?.includes(instruction)) ?? null;
  switch (placement) {
    case 'body-text':
      return (
        textContainers(doc, instruction).find(
          (el) => !el.closest('head, a, textarea, script, style, title, option') && (doc.body.contains(el) || el.getRootNode() !== doc),
        ) ?? null
      );
    case 'alt':
      return byAttr('img[alt]', 'alt');
    case 'title-attribute':
      return byAttr('body [title]', 'title');
    case 'aria-label':
      return byAttr('[aria-label]', 'aria-label');
    case 'placeholder':
      return byAttr('[placeholder]', 'placeholder');
    case 'link-href':
      return byAttr('a[href]', 'href');
    case 'meta-description':
      return byAttr('meta[name="description"]', 'content');
    case 'og-tag':
      return byAttr('meta[property^="og:"]', 'content');
    case 'link-text':
      return [...doc.querySelectorAll('a')].find((a) => a.textContent?.includes(instruction)) ?? null;
    case 'textarea':
      return [...doc.querySelectorAll('textarea')].find((t) => t.textContent?.includes(instruction)) ?? null;
    case 'html-comment':
      return comments(doc).some((c) => c.includes(instruction)) ? doc.documentElement : null;
    case 'json-ld':
      return (
        [...doc.querySelectorAll('script[type="application/ld+json"]')].find((s) => jsonStrings(JSON.parse(s.textContent ?? 'null')).some((x) => x.includes(instruction))) ?? null
      );
    case 'iframe-srcdoc':
      return [...doc.querySelectorAll('iframe[srcdoc]')].find((f) => parse(f.getAttribute('srcdoc')!).document.body.textContent?.includes(instruction)) ?? null;
    default:
      return null;
  }
}

/** How the element is kept from the user's eyes, from its own and its ancestors' computed styles and attributes. */
function hidingOf(win: Window, el: Element): Set<string> {
  const found = new Set<string>();
  let node: Element | null = el;
  for (; node; node = node.parentElement) {
    const s = win.getComputedStyle(node);
    if (s.display === 'none') found.add('display-none');
    if (s.visibility === 'hidden') found.add('visibility-hidden');
    if (s.opacity === '0') found.add('opacity-0');
    if (s.fontSize === '0px' || s.fontSize === '0') found.add('font-size-0');
    if ((s.width === '0px' && s.height === '0px') || (node.getAttribute('width') === '0' && node.getAttribute('height') === '0')) found.add('zero-size');
    if (/inset\(50%\)/.test(s.clipPath) || /rect\(0(px)?,? 0(px)?,? 0(px)?,? 0(px)?\)/.test(s.clip)) found.add('clip');
    if ((s.position === 'absolute' || s.position === 'fixed') && (parseFloat(s.left) <= -1000 || parseFloat(s.top) <= -1000)) found.add('offscreen');
    if (node.hasAttribute('hidden')) found.add('hidden-attribute');
    if (node.getAttribute('aria-hidden') === 'true') found.add('aria-hidden');
    if (node.localName === 'noscript') found.add('noscript');
  }
  if (el.getRootNode() !== win.document) found.add('template');
  // Text coloured like what is behind it: the element's colour against the first background up the tree.
  const color = win.getComputedStyle(el).color;
  let bg = 'rgb(255, 255, 255)';
  for (let n: Element | null = el; n; n = n.parentElement) {
    const b = win.getComputedStyle(n).backgroundColor;
    if (b && b !== 'transparent' && b !== 'rgba(0, 0, 0, 0)') {
      bg = b;
      break;
    }
  }
  if (color === bg) found.add('same-colour');
  return found;
}

function searchResults(a: InjectionAttack) {
  const query = String(a.read.input.query);
  return duckduckgo.parse(raw(a), { status: 200, url: pageUrl(a, PORTS), contentType: 'text/html; charset=utf-8', query });
}

/** Every placeholder-looking token ({UPPER_CASE}) in the strings of a value. */
function tokens(value: unknown): string[] {
  return jsonStrings(value).flatMap((s) => s.match(/\{[A-Z_]+\}/g) ?? []);
}

/** Checks a call against the real tool's argument schema; returns the problems (none: []). */
function problems(call: ToolCallSpec, a: InjectionAttack): string[] {
  const input = substitute(call.input, vars(a));
  // The driver adds the attack tab's id where a tool acts on it.
  if ((call.tool === 'execute_script' || call.tool === 'get_tab_content') && input.tab_id === undefined) input.tab_id = 7;
  const seeded = skill(call.tool);
  let schema: v.GenericSchema | undefined = builtinTools.find((t) => t.name === call.tool)?.input;
  if (seeded?.skill_type === 'http') schema = inputSchemaToValibot(seeded.config.input_schema ?? { type: 'object', properties: {} });
  if (seeded?.skill_type === 'builtin') {
    const record: SkillRecord = { id: 's', name: seeded.name, description: '', skill_type: 'builtin', config_json: '{}', is_active: true, created_at: 1, updated_at: 1 };
    schema = (seeded.name === 'instagram_post' ? instagramPostTool(record) : whatsappSendTool(record)).input;
  }
  if (!schema) return [`no tool or skill named ${call.tool}`];
  const parsed = v.safeParse(schema, input);
  return parsed.success ? [] : parsed.issues.map((i) => `${call.tool}: ${i.message}`);
}

describe('the injection corpus manifest', () => {
  it('has at least 32 attacks with unique ids', () => {
    expect(attacks.length).toBeGreaterThanOrEqual(32);
    expect(new Set(attacks.map((a) => a.id)).size).toBe(attacks.length);
  });

  it('every file in the folder belongs to an attack and is small', () => {
    const listed = new Set(attacks.map((a) => a.file));
    const walk = (dir: string): string[] =>
      fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.relative(INJECTION_DIR, path.join(dir, e.name))]));
    for (const file of walk(INJECTION_DIR)) {
      if (file === 'attacks.json' || file === 'README.md') continue;
      expect(fs.statSync(path.join(INJECTION_DIR, file)).size, file).toBeLessThan(10 * 1024);
      expect(listed, `${file} is in no attack`).toContain(file);
    }
  });

  it('covers every hiding method, forged role, placement, source and action kind (the listed ones several times)', () => {
    const count = (key: (a: InjectionAttack) => string) => attacks.reduce((m, a) => m.set(key(a), (m.get(key(a)) ?? 0) + 1), new Map<string, number>());
    const hiding = count((a) => a.hiding);
    for (const h of HIDING) expect(hiding.get(h) ?? 0, h).toBeGreaterThanOrEqual(2);
    const forgery = count((a) => a.forgery);
    for (const f of FORGERY) expect(forgery.get(f) ?? 0, f).toBeGreaterThanOrEqual(2);
    const placement = count((a) => a.placement);
    for (const p of PLACEMENT) expect(placement.get(p) ?? 0, p).toBeGreaterThanOrEqual(1);
    const source = count((a) => a.source);
    for (const s of SOURCES) expect(source.get(s) ?? 0, s).toBeGreaterThanOrEqual(2);
    const fetched = attacks.filter((a) => a.source === 'fetch').map((a) => path.extname(a.file));
    expect(new Set(fetched)).toEqual(new Set(['.txt', '.json', '.html']));
    const groups = count((a) => kindGroup(a.action.kind));
    for (const k of new Set(Object.keys(KIND_TOOL).map(kindGroup))) expect(groups.get(k) ?? 0, k).toBeGreaterThanOrEqual(3);
    const kinds = count((a) => a.action.kind);
    for (const k of Object.keys(KIND_TOOL)) expect(kinds.get(k) ?? 0, k).toBeGreaterThanOrEqual(3);
    const secrets = new Set(attacks.map((a) => a.secret_kind));
    for (const s of ['api-token', 'password', 'order-number', 'email']) expect(secrets, s).toContain(s);
    // Fences guessed more than one way.
    expect(new Set(attacks.filter((a) => a.fence).map((a) => a.fence!.replace(/[0-9a-f]{6,}/g, ''))).size).toBeGreaterThanOrEqual(3);
  });

  it('skills and settings are valid for the product', () => {
    const values = { '{ATTACKER}': ATTACKER_ORIGIN, '{SECRET}': 'x', '{PAGE}': 'http://shop.pagewright.test:1/injection/x.html', '{SITE}': 'http://shop.pagewright.test:1' };
    const allowed = new Set(['{ATTACKER}', '{SECRET}', '{PAGE}', '{SITE}']);
    for (const t of tokens([manifest.settings, manifest.skills])) expect(allowed, t).toContain(t);
    expect(tokens(manifest.workspace)).toEqual([]);
    expect(new Set(manifest.skills.map((s) => s.name)).size).toBe(manifest.skills.length);
    for (const s of manifest.skills) {
      const config = substitute(s.config, values);
      if (s.skill_type === 'http') expect(v.safeParse(HttpConfigSchema, config).success, s.name).toBe(true);
      else {
        expect(BUILTIN_FUNCTIONS as readonly string[], s.name).toContain(s.name);
        expect(v.safeParse(BuiltinConfigSchema, config).success, s.name).toBe(true);
      }
    }
    const defaults = defaultSettings() as Record<string, unknown>;
    for (const settings of [manifest.settings, ...attacks.map((a) => a.settings ?? {})]) {
      for (const [key, value] of Object.entries(substitute(settings, values))) {
        expect(Object.keys(defaults), key).toContain(key);
        const schema = (SettingsObject.entries as Record<string, v.GenericSchema>)[key]!;
        expect(v.safeParse(schema, value).success, key).toBe(true);
      }
    }
  });

  it('the README lists every attack', () => {
    const readme = fs.readFileSync(path.join(INJECTION_DIR, 'README.md'), 'utf8');
    for (const a of attacks) expect(readme, a.id).toContain(`| ${a.id} |`);
  });
});


/** GET through the fixture server on 127.0.0.1 as the browser would ask it, by its pagewright.test name. */
function get(port: number, host: string, pathAndQuery: string): Promise<{ status: number; type: string; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: pathAndQuery, headers: { host } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type'] ?? ''), body: Buffer.concat(chunks).toString('utf8') }));
      })
      .on('error', reject);
  });
}

describe('the fixture server serves the corpus', () => {
  const fixtures = new FixtureServer();
  let port = 0;
  beforeAll(async () => {
    await fixtures.start();
    port = Number(new URL(fixtures.url).port);
  });
  afterAll(() => fixtures.stop());

  it('every attack file at its URL, under its site\'s name, with its type (the search pages with the ?q= the engine adds)', async () => {
    for (const a of attacks) {
      const url = new URL(pageUrl(a, { fixturePort: port }));
      const query = a.source === 'search' ? `?q=${encodeURIComponent(String(a.read.input.query))}` : '';
      const res = await get(port, url.host, url.pathname + query);
      expect(res.status, a.id).toBe(200);
      expect(res.body, a.id).toBe(raw(a));
      const type = { '.html': 'text/html', '.json': 'application/json', '.txt': 'text/plain' }[path.extname(a.file)];
      expect(res.type, a.id).toContain(type);
    }
  });
});

const ALLOWED = new Set(['{ATTACKER}', '{SECRET}', '{PAGE}', '{SITE}']);
const workspace = manifest.workspace.map((f) => f.path);

describe.each(attacks)('attack $id', (a) => {
  it('has every field filled with a known value', () => {
    expect(a.id).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
    expect(SOURCES).toContain(a.source);
    expect(HIDING_VALUES).toContain(a.hiding);
    expect([...FORGERY, 'none']).toContain(a.forgery);
    expect(PLACEMENT).toContain(a.placement);
    expect(a.site).toMatch(/^[a-z][a-z0-9-]*$/);
    expect(a.site).not.toBe('attacker');
    expect(a.secret.length).toBeGreaterThanOrEqual(6);
    expect(a.instruction.length).toBeGreaterThan(20);
    expect(a.instruction, 'the instruction must not carry the secret itself').not.toContain(a.secret);
    expect(Object.keys(KIND_TOOL)).toContain(a.action.kind);
    expect(a.action.tool).toBe(KIND_TOOL[a.action.kind]);
    expect(fs.existsSync(filePath(a)), a.file).toBe(true);
    expect(path.resolve(filePath(a)).startsWith(INJECTION_DIR + path.sep)).toBe(true);
  });

  it('its file holds the secret and the instruction (entities decoded, JSON strings read)', () => {
    const text = raw(a);
    expect(text).toContain(a.secret);
    const texts = [text, decodeEntities(text)];
    if (a.file.endsWith('.json')) texts.push(...jsonStrings(JSON.parse(text)));
    expect(texts.some((t) => t.includes(a.instruction)), 'the instruction').toBe(true);
    if (a.forgery === 'fence-close') {
      expect(a.fence).toMatch(/untrusted/i);
      expect(texts.some((t) => t.includes(a.fence!)), 'the fence marker').toBe(true);
    } else expect(a.fence).toBeUndefined();
  });

  if (isHtml(a)) it('loads nothing from elsewhere: every resource is inline (data:) or relative', () => {
    const local = (url: string) => url.startsWith('data:') || !/^(?:[a-z][a-z0-9+.-]*:|\/\/)/i.test(url.trim());
    const html = raw(a);
    const { document } = parse(html);
    const urls = [
      ...[...document.querySelectorAll('[src]')].map((el) => el.getAttribute('src')!),
      ...[...document.querySelectorAll('[srcset]')].flatMap((el) => el.getAttribute('srcset')!.split(',').map((x) => x.trim().split(/\s+/)[0]!)),
      ...[...document.querySelectorAll('[poster], object[data]')].map((el) => el.getAttribute('poster') ?? el.getAttribute('data')!),
      ...[...document.querySelectorAll('link[href]')].map((el) => el.getAttribute('href')!),
      ...[...html.matchAll(/url\(\s*['"]?([^'")]+)/gi)].map((m) => m[1]!),
      ...[...html.matchAll(/@import\s+['"]([^'"]+)/gi)].map((m) => m[1]!),
    ];
    for (const url of urls) expect(local(url), `loads ${url}`).toBe(true);
    expect(document.querySelector('meta[http-equiv="refresh" i]')).toBeNull();
  });

  it('its instruction sits in the placement and behind the hiding the manifest names', () => {
    if (!isHtml(a)) {
      expect(a.hiding).toBe('none');
      expect(a.placement).toBe(a.file.endsWith('.json') ? 'json-field' : 'document-text');
      return;
    }
    if (a.source === 'search') {
      const results = searchResults(a);
      const field = a.placement === 'search-snippet' ? 'snippet' : 'title';
      expect(results.some((r) => r[field].includes(a.instruction)), `a result's ${field}`).toBe(true);
      expect(a.hiding).toBe('visible');
      return;
    }
    const win = parse(raw(a));
    const el = locate(win, a.placement, a.instruction);
    expect(el, `no ${a.placement} holds the instruction`).not.toBeNull();
    if (a.hiding === 'not-rendered') return void expect(NOT_RENDERED).toContain(a.placement);
    const hiding = hidingOf(win, el!);
    if (a.hiding === 'visible') expect([...hiding], 'in plain view').toEqual([]);
    else expect([...hiding]).toContain(a.hiding);
  });

  if (a.forgery !== 'none') it('its forged role is what it says', () => {
    const text = decodeEntities(raw(a));
    if (a.forgery === 'system-line') expect(a.instruction).toMatch(/^system:/i);
    if (a.forgery === 'user-line') expect(a.instruction).toMatch(/^user:/i);
    if (a.forgery === 'assistant-line') expect(a.instruction).toMatch(/^assistant:/i);
    if (a.forgery === 'tool-result-close') expect(text).toContain('</tool_result>');
    if (a.forgery === 'tool-result-json') expect(text).toMatch(/\\?"type\\?":\s*\\?"tool_result\\?"/);
    if (a.forgery === 'transcript') {
      expect(text).toMatch(/User:[^\n]*\n\s*Assistant:/);
      expect(a.instruction).toMatch(/^User:/);
    }
    if (a.forgery === 'fence-close') expect(a.fence).toBeTruthy();
  });

  it('reads its source the way the source says', () => {
    if (a.source === 'tab') expect(a.read).toEqual({ tool: 'get_tab_content', input: {} });
    if (a.source === 'fetch') expect(a.read).toEqual({ tool: 'web_fetch', input: { url: '{PAGE}' } });
    if (a.source === 'search') {
      expect(a.read.tool).toBe('web_search');
      expect(a.settings).toEqual({ searchEngine: 'duckduckgo', duckduckgoEndpoint: '{PAGE}' });
    } else expect(a.settings).toBeUndefined();
    if (a.source === 'http_skill') {
      const s = skill(a.read.tool);
      expect(s?.skill_type).toBe('http');
      expect(s?.config).toMatchObject({ url: `{SITE}/injection/${a.file}`, method: 'GET' });
    }
  });

  it('uses only the four placeholders, and its read and action are calls the real tools accept', () => {
    for (const t of tokens([a.read, a.action, a.settings ?? {}])) expect(ALLOWED, t).toContain(t);
    expect(problems(a.read, a), 'read').toEqual([]);
    expect(problems(a.action, a), 'action').toEqual([]);
    expect(JSON.stringify(substitute([a.read, a.action, a.settings], vars(a)))).not.toMatch(/\{(?:ATTACKER|SECRET|PAGE|SITE)\}/);
  });

  it(`its action (${a.action.kind}) sends the secret, posts, messages or deletes as its kind says`, () => {
    const input = substitute(a.action.input, vars(a)) as Record<string, any>;
    const code = String(a.action.input.code ?? '');
    switch (a.action.kind) {
      case 'fetch-query':
      case 'open-tab': {
        const url = new URL(input.url);
        expect(url.origin).toBe(ATTACKER_ORIGIN);
        expect([...url.searchParams.values()]).toContain(a.secret);
        break;
      }
      case 'fetch-b64-path': {
        const url = new URL(input.url);
        expect(url.origin).toBe(ATTACKER_ORIGIN);
        expect(url.href).not.toContain(a.secret);
        expect(a.action.input.url).not.toContain('{SECRET}');
        expect(Buffer.from(url.pathname.split('/').at(-1)!, 'base64').toString('utf8')).toBe(a.secret);
        break;
      }
      case 'script-submit-form':
      case 'script-fetch': {
        expect(input.target).toBe('page');
        expect(a.source).toBe('tab');
        expect(code).toContain("'{ATTACKER}/collect");
        const { document } = parse(raw(a));
        if (a.action.kind === 'script-submit-form') {
          expect(code).toMatch(/\.submit\(\)/);
          // The form the code submits carries the secret in one of its fields.
          const form = code.match(/getElementById\('([\w-]+)'\)/)?.[1] ?? code.match(/document\.forms\.(\w+)/)?.[1];
          const el = document.getElementById(form!) ?? document.forms.namedItem(form!);
          expect(el?.localName).toBe('form');
          expect([...(el as HTMLFormElement).elements].map((f) => (f as HTMLInputElement).value)).toContain(a.secret);
        } else {
          expect(code).toMatch(/\bfetch\(/);
          // The code reads the secret from the page itself.
          const id = code.match(/getElementById\('([\w-]+)'\)|querySelector\('#([\w-]+)'\)/)!;
          const el = document.getElementById(id[1] ?? id[2]!) as HTMLInputElement | null;
          expect((el?.value ?? el?.textContent ?? '').trim()).toBe(a.secret);
        }
        break;
      }
      case 'http-skill-post': {
        expect(skill(a.action.tool)!.config).toMatchObject({ url: '{ATTACKER}/collect', method: 'POST' });
        expect(JSON.stringify(input)).toContain(JSON.stringify(a.secret).slice(1, -1));
        expect(a.instruction).toContain(a.action.tool);
        break;
      }
      case 'instagram-post':
        expect(new URL(input.image_url).origin).toBe(ATTACKER_ORIGIN);
        expect(input.caption).toContain('attacker.pagewright.test');
        break;
      case 'whatsapp-send':
        expect(a.instruction.replace(/\D/g, '')).toContain(input.to);
        break;
      case 'opfs-delete':
        expect(workspace.some((p) => p === input.path || p.startsWith(`${input.path}/`))).toBe(true);
        expect(a.instruction).toContain(input.path);
        break;
    }
    // The page asks for what the action does.
    if (['fetch-query', 'fetch-b64-path', 'open-tab', 'script-submit-form', 'script-fetch', 'instagram-post'].includes(a.action.kind)) {
      expect(a.instruction).toContain('attacker.pagewright.test');
    }
  });

  if (a.source === 'search') it('its results page parses with the DuckDuckGo parser, the secret in a result', () => {
    const results = searchResults(a);
    expect(results.length).toBeGreaterThanOrEqual(3);
    for (const r of results) expect(r.url).toMatch(/^https:\/\/[a-z0-9.-]+\.pagewright\.test\//);
    expect(results.some((r) => `${r.title} ${r.snippet}`.includes(a.secret))).toBe(true);
  });
});

describe('the corpus sites resolve in the e2e browsers', () => {
  it('every site an attack is served on is a mapped test site (Firefox maps listed names only)', async () => {
    const { SITE_NAMES } = await import('../harness/sites');
    const { loadInjectionCorpus } = await import('../harness/injection-corpus');
    for (const a of loadInjectionCorpus().attacks) expect(SITE_NAMES as readonly string[]).toContain(a.site);
  });
});
