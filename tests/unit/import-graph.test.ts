/**
 * The import graph of lib/ and entrypoints/ has no cycle, and the layers keep their places:
 * contracts at the bottom import nothing above them; the UI, the protocol and the browser
 * adapters never reach into the agent's or the tools' internals; lib/background, the wiring of the
 * services for the background context, sits on top: only entrypoints/background.ts (and
 * lib/background itself) imports it. Read with TypeScript's own
 * pre-processor (imports and re-exports, type-only ones too: a type cycle still ties two
 * modules together for a reader).
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SOURCE = /\.(ts|svelte)$/;

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.posix.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(rel);
    return SOURCE.test(e.name) && !e.name.endsWith('.d.ts') ? [rel] : [];
  });
}

function resolve(from: string, spec: string): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const base = path.posix.normalize(path.posix.join(path.posix.dirname(from), spec));
  for (const candidate of [base, `${base}.ts`, `${base}/index.ts`, base.replace(/\.js$/, '.ts')]) {
    if (SOURCE.test(candidate) && fs.existsSync(path.join(ROOT, candidate)) && fs.statSync(path.join(ROOT, candidate)).isFile()) return candidate;
  }
  return undefined;
}

function importsOf(file: string): string[] {
  let text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  if (file.endsWith('.svelte')) text = [...text.matchAll(/<script[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1]).join('\n');
  const info = ts.preProcessFile(text, true, true);
  return info.importedFiles.map((f) => resolve(file, f.fileName)).filter((f): f is string => !!f);
}

export function importGraph(): Map<string, string[]> {
  const files = [...sourceFiles('lib'), ...sourceFiles('entrypoints')];
  return new Map(files.map((f) => [f, importsOf(f)]));
}

/** Strongly connected components with more than one file (or a file importing itself). */
export function cycles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || graph.get(v)?.includes(v)) out.push(scc.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return out;
}

/** The background's own entrypoint: the one file outside lib/background that may import it. */
const BACKGROUND_ENTRY = 'entrypoints/background.ts';

/**
 * Imports of lib/background (the top layer: the services, the protocol's handlers and the
 * run-events port wired for the background context) from anywhere but lib/background itself and
 * the background's entrypoint. A UI page importing it would build a second run manager in its
 * own context; another lib/ module importing it would turn the layering upside down.
 */
export function backgroundLayerViolations(graph: Map<string, string[]>): string[] {
  const top = (f: string) => f.startsWith('lib/background/');
  return [...graph].flatMap(([file, deps]) => (top(file) || file === BACKGROUND_ENTRY ? [] : deps.filter(top).map((d) => `${file} → ${d}`)));
}

/** The provider presets: data the settings schema and the UI read without the agent's machinery. */
const PROVIDER_DATA = ['lib/agent/providers/provider-ids.ts', 'lib/agent/providers/presets.ts'];
describe('the import graph', () => {
  const graph = importGraph();

  it('has no cycle', () => {
    expect(cycles(graph)).toEqual([]);
  });

  it('finds a cycle when there is one (the check itself works)', () => {
    const g = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
    ]);
    expect(cycles(g)).toEqual([['a', 'b', 'c']]);
  });

  it('keeps the contracts at the bottom: lib/contracts imports only lib/contracts and lib/errors.ts', () => {
    for (const [file, deps] of graph) {
      if (!file.startsWith('lib/contracts/') && file !== 'lib/errors.ts') continue;
      expect(deps.filter((d) => !d.startsWith('lib/contracts/')), file).toEqual([]);
    }
  });

  it("keeps the tool catalog handler-free: the management page loads it, and no tool's code with it", () => {
    expect(graph.get('lib/tools/catalog.ts')?.filter((d) => !d.startsWith('lib/contracts/'))).toEqual([]);
  });

  it('keeps the price table and the context windows pure, so the UI may load them: they import only the settings schema and the contracts', () => {
    expect(graph.get('lib/agent/pricing.ts')?.filter((d) => d !== 'lib/settings.ts' && !d.startsWith('lib/contracts/'))).toEqual([]);
    expect(graph.get('lib/agent/context-window.ts') ?? []).toEqual([]);
  });

  it('keeps the URL policy pure: it imports nothing', () => {
    expect(graph.get('lib/tools/url-policy.ts')).toEqual([]);
  });

  it('keeps the provider presets pure data: they import only each other and the model types', () => {
    for (const file of PROVIDER_DATA) {
      expect(graph.get(file)?.filter((d) => !PROVIDER_DATA.includes(d) && d !== 'lib/agent/model.ts'), file).toEqual([]);
    }
  });

  it('keeps lib/background on top: only entrypoints/background.ts and lib/background import it', () => {
    expect(backgroundLayerViolations(graph)).toEqual([]);
    // The layer is there to be guarded: the entrypoint wires it.
    expect(graph.get(BACKGROUND_ENTRY)?.some((d) => d.startsWith('lib/background/'))).toBe(true);
  });

  it('finds an import of lib/background from below or from another entrypoint (the check itself works)', () => {
    const g = new Map([
      [BACKGROUND_ENTRY, ['lib/background/services.ts', 'lib/browser/index.ts']],
      ['lib/background/services.ts', ['lib/background/run-log.ts', 'lib/agent/run-manager.ts']],
      ['lib/background/run-log.ts', ['lib/agent/model.ts']],
      ['lib/ui/chat/Chat.svelte', ['lib/background/messages.ts']],
      ['lib/agent/run-manager.ts', ['lib/background/run-log.ts']],
      ['entrypoints/popup/main.ts', ['lib/background/services.ts', 'lib/ui/chat/Chat.svelte']],
      ['lib/backgrounds.ts', []],
    ]);
    expect(backgroundLayerViolations(g)).toEqual([
      'lib/ui/chat/Chat.svelte → lib/background/messages.ts',
      'lib/agent/run-manager.ts → lib/background/run-log.ts',
      'entrypoints/popup/main.ts → lib/background/services.ts',
    ]);
  });

  it('keeps the UI, the protocol and the browser adapters out of the agent and the tools', () => {
    const ui = (f: string) => f.startsWith('lib/ui/') || f.startsWith('entrypoints/popup/') || f.startsWith('entrypoints/options/');
    const layered = (f: string) => ui(f) || f === 'lib/protocol.ts' || f.startsWith('lib/browser/');
    // The management page lists the built-in tools (for agent profiles and skill names) from
    // their facts, which lib/tools/catalog.ts holds apart from the handlers.
    // The price table and cost display (lib/agent/pricing.ts) and the context windows are pure:
    // Settings and the popup use them without loading any of the agent's machinery.
    // So are the provider presets (Settings' provider picker).
    // And which pages the browser keeps extensions out of (lib/tools/url-policy.ts imports nothing):
    // the context menu's message says so on those pages.
    const pure = new Set(['lib/agent/pricing.ts', 'lib/agent/context-window.ts', 'lib/tools/url-policy.ts', ...PROVIDER_DATA]);
    const internal = (file: string, dep: string) =>
      (dep.startsWith('lib/agent/') && !pure.has(dep)) || (dep.startsWith('lib/tools/') && !pure.has(dep) && !(file.startsWith('entrypoints/options/') && dep === 'lib/tools/catalog.ts'));
    const offending = [...graph].flatMap(([file, deps]) => (layered(file) ? deps.filter((d) => internal(file, d)).map((d) => `${file} → ${d}`) : []));
    expect(offending).toEqual([]);
  });
});
