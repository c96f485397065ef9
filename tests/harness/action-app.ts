/**
 * The page_action fixture app (tests/fixtures/page-actions/app.jsx), bundled at test time from the
 * real Preact on npm with esbuild, and served by a FixtureServer: a framework's controlled inputs,
 * not a hand-written imitation of them.
 */
import { build } from 'esbuild';
import fs from 'node:fs/promises';
import path from 'node:path';
import { FIXTURES_DIR } from './fixtures';
import type { FixtureServer } from './fixture-server';

const DIR = path.join(FIXTURES_DIR, 'page-actions');

export async function bundleActionApp(): Promise<string> {
  const out = await build({
    entryPoints: [path.join(DIR, 'app.jsx')],
    bundle: true,
    write: false,
    format: 'iife',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    target: 'es2020',
    minify: true,
    logLevel: 'silent',
  });
  return out.outputFiles[0]!.text;
}

/** /page-actions/app.js (the bundle), and the app's page at its client-side routes too. */
export async function serveActionApp(server: FixtureServer): Promise<void> {
  const [js, html] = await Promise.all([bundleActionApp(), fs.readFile(path.join(DIR, 'app.html'), 'utf8')]);
  server.serve('/page-actions/app.js', 'text/javascript', js);
  server.serve('/page-actions/done', 'text/html; charset=utf-8', html);
}
