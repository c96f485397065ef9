/**
 * Prints the annotated Markdown get_tab_content would give for a saved page, through the same
 * pipeline as in the browser: jsdom parses the file, then extractPage(dom.window.document).
 *
 *   npm run extract -- page.html [--url URL] [--selector SEL] [--max-length N] [--json]
 *
 * jsdom runs no scripts and lays nothing out: hidden means hidden in the markup only.
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { JSDOM } from 'jsdom';
import { ExtractError, extractPage, type ExtractOptions } from '../lib/extract';

function parseArgs(argv: string[]): { file: string; opts: ExtractOptions; json: boolean } {
  const opts: ExtractOptions = {};
  let file = '';
  let json = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    if (a === '--') continue;
    else if (a === '--url') opts.url = value();
    else if (a === '--selector') opts.selector = value();
    else if (a === '--max-length') opts.maxLength = Number(value());
    else if (a === '--json') json = true;
    else if (a.startsWith('--')) throw new Error(`unknown option ${a}`);
    else file = a;
  }
  if (!file) throw new Error('usage: extract page.html [--url URL] [--selector SEL] [--max-length N] [--json]');
  return { file, opts, json };
}

function main(): number {
  let args;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (e) {
    console.error((e as Error).message);
    return 2;
  }
  const html = readFileSync(args.file, 'utf8');
  const url = args.opts.url ?? pathToFileURL(args.file).href;
  const dom = new JSDOM(html, { url });
  try {
    const t0 = performance.now();
    const result = extractPage(dom.window.document, { ...args.opts, url });
    const ms = performance.now() - t0;
    if (args.json) console.log(JSON.stringify(result, null, 2));
    else {
      console.log(result.content);
      console.error(`\n[title: ${result.title} | used_selector: ${result.usedSelector} | ${result.content.length} chars${result.truncated ? ', truncated' : ''} | ${ms.toFixed(1)} ms]`);
    }
    return 0;
  } catch (e) {
    if (e instanceof ExtractError) {
      console.error(`${e.code}: ${e.message}`);
      return 1;
    }
    throw e;
  } finally {
    dom.window.close();
  }
}

process.exitCode = main();
