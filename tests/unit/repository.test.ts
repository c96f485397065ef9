/**
 * Rules about the repository as a whole that a reviewer would otherwise have to remember:
 * a clone tests itself (no absolute path of someone's machine, nothing read from beside the
 * repository), and one place chooses the browser.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);
const TEXT = /\.(ts|mts|mjs|js|svelte|json|md|sh|html|css|yml|yaml|txt)$|^\.ci\/|^\.gitignore$/;
// Third-party test data keeps its own text (saved pages mention paths of their own sites).
const ours = tracked.filter((f) => TEXT.test(f) && !f.startsWith('tests/fixtures/') && f !== 'package-lock.json');
const read = (f: string) => fs.readFileSync(path.join(ROOT, f), 'utf8');

describe('the repository', () => {
  it('names no absolute path of a machine and nothing beside the repository', () => {
    // Debian's binaries (/usr/bin/chromium) are where the README's setup puts them on any machine.
    const machinePath = /(^|[\s'"`(=])(\/work\/|\/home\/[\w.-]+\/|\/root\/|\/Users\/|[A-Z]:\\\\Users)|\.\.\/shared\//;
    // The one exception: the extraction bench reads trafilatura's evaluation corpus (146 MB,
    // third-party, so kept out of the repository) from beside it when it is there, and says how to
    // get it when not (issue 16). Only that line of that bench; no test may need it.
    const allowed = (f: string, line: string) => f === 'scripts/bench-extract.ts' && /path\.resolve\(ROOT, '\.\.\/shared\/fixtures\/trafilatura-eval'\)/.test(line);
    const offending = ours.flatMap((f) =>
      read(f)
        .split('\n')
        .map((line, i) => [line, i] as const)
        .filter(([line]) => machinePath.test(line) && !allowed(f, line))
        .map(([line, i]) => `${f}:${i + 1}: ${line.trim().slice(0, 120)}`),
    );
    expect(offending).toEqual([]);
  });

  it('chooses the browser in one place: lib/browser/index.ts', () => {
    const readers = ours.filter((f) => /^(lib|entrypoints)\//.test(f) && /\.(ts|svelte)$/.test(f) && /import\.meta\.env\.(FIREFOX|CHROME|BROWSER|MANIFEST_VERSION)/.test(read(f)));
    expect(readers).toEqual(['lib/browser/index.ts']);
  });
});
