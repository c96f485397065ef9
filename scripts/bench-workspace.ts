/**
 * The OPFS workspace (lib/workspace) timed in real headless Chromium, not Node: Node has no OPFS,
 * and what costs here is the browser's file-system IPC.
 *
 * lib/workspace is bundled for the page with vite's build API (an IIFE exposing
 * window.PagewrightWorkspace), served from 127.0.0.1 with every other request blocked, and
 * driven with puppeteer-core (/usr/bin/chromium). Each measure runs in a fresh folder under the
 * OPFS root; all timing happens inside the page (performance.now()), so the puppeteer round trip
 * is not counted.
 *
 *   write + read 50 MB binary     write(bytes) then read() (auto → blob: bytes + MIME)   ≤ 2 s
 *   write + read 50 MB text       write(string) then read() (auto → text: sniff, decode,
 *                                 count ~1M lines, first 200)                            ≤ 2 s
 *   write 50 MB as a data URL     write("data:…;base64,…") (decode + write), then read   (no target)
 *   list 10,000 files             list() of a folder of 10,000 files, all of them
 *                                 (limit: Infinity; size + time each)                    ≤ 1 s
 *                                 the first 1,000 entries of it (list()'s default page)
 *                                 beside it: getFile() one by one, what list() avoids
 * And which contexts expose OPFS and createWritable (window, dedicated worker, service worker).
 *
 *   npx vite-node scripts/bench-workspace.ts [--repeat N] [--firefox]
 *
 * --repeat N: runs per measure (default 3; best and median shown). --firefox: the same page in
 * Firefox (/usr/bin/firefox-esr, over WebDriver BiDi) instead of Chromium. The 10,000 files are
 * created empty (getFileHandle with create, no write: writing them takes ~20 ms each in Firefox);
 * Firefox makes such a file real on its first getFile(), so there the first list of a run is far
 * slower than any list of written files — read the warm figure.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { launchBenchBrowser, offlinePage } from './offline-browser';
import { build, type Rollup } from 'vite';
import type * as WorkspaceModule from '../lib/workspace/index';

const ROOT = path.resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);
const repeatAt = args.indexOf('--repeat');
const REPEAT = Math.max(1, Number(repeatAt >= 0 ? args[repeatAt + 1] : 3) || 3);
const FIREFOX_RUN = args.includes('--firefox');

const MB = 1024 * 1024;
const BIG_BYTES = 50 * MB;
const LIST_FILES = 10_000;

/** lib/workspace as one script for the page. */
async function bundleWorkspace(): Promise<string> {
  const result = await build({
    configFile: false,
    logLevel: 'silent',
    root: ROOT,
    build: {
      write: false,
      minify: false,
      lib: { entry: path.join(ROOT, 'lib/workspace/index.ts'), formats: ['iife'], name: 'PagewrightWorkspace', fileName: () => 'workspace.js' },
    },
  });
  const outputs = (Array.isArray(result) ? result : [result]) as Rollup.RollupOutput[];
  const chunk = outputs.flatMap((o) => o.output).find((o): o is Rollup.OutputChunk => o.type === 'chunk');
  if (!chunk) throw new Error('vite produced no bundle for lib/workspace');
  return chunk.code;
}

/** Reports which OPFS APIs a context exposes, by message or return value. */
const PROBE = `async () => {
  const out = {
    getDirectory: typeof navigator.storage?.getDirectory === 'function',
    createWritable: typeof globalThis.FileSystemFileHandle?.prototype.createWritable === 'function',
    createSyncAccessHandle: typeof globalThis.FileSystemFileHandle?.prototype.createSyncAccessHandle === 'function',
  };
  try {
    const root = await navigator.storage.getDirectory();
    const name = 'probe-' + Math.random().toString(36).slice(2);
    const file = await root.getFileHandle(name, { create: true });
    const w = await file.createWritable();
    await w.write('ok');
    await w.close();
    out.writeWorks = (await (await file.getFile()).text()) === 'ok';
    await root.removeEntry(name);
  } catch (e) {
    out.writeWorks = String(e);
  }
  return out;
}`;

const PAGE = '<!doctype html><meta charset="utf-8"><title>workspace bench</title><script src="/workspace.js"></script>';

interface FileTimings {
  binaryWrite: number;
  binaryRead: number;
  textWrite: number;
  textRead: number;
  textDeepRead: number;
  textLines: number;
  dataUrlWrite: number;
  dataUrlRead: number;
  checks: string[];
}

interface ListTimings {
  listMs: number[];
  listPageMs: number;
  listSequentialMs: number;
  listed: number;
  checks: string[];
}

type Timings = FileTimings & ListTimings;

interface ProbeResult {
  getDirectory: boolean;
  createWritable: boolean;
  createSyncAccessHandle: boolean;
  writeWorks: boolean | string;
}

type WorkspaceApi = typeof WorkspaceModule;

/** Big files, timed in the page. Self-contained: puppeteer sends its source. */
async function benchFiles(bigBytes: number): Promise<FileTimings> {
  const W = (window as unknown as { PagewrightWorkspace: WorkspaceApi }).PagewrightWorkspace;
  const opfs = await navigator.storage.getDirectory();
  const checks: string[] = [];
  const fresh = async () => {
    const name = `bench-${crypto.randomUUID()}`;
    const dir = await opfs.getDirectoryHandle(name, { create: true });
    return { ws: new W.Workspace(dir), dispose: () => opfs.removeEntry(name, { recursive: true }) };
  };
  const time = async <T>(fn: () => Promise<T>): Promise<[T, number]> => {
    const t0 = performance.now();
    const value = await fn();
    return [value, performance.now() - t0];
  };

  // Pseudo-random bytes (xorshift32): incompressible and full of NULs, so plainly binary.
  const bytes = new Uint8Array(bigBytes);
  const words = new Uint32Array(bytes.buffer);
  let x = 2463534242;
  for (let i = 0; i < words.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    words[i] = x >>> 0;
  }

  let { ws, dispose } = await fresh();
  const [, binaryWrite] = await time(() => ws.write('big/random.bin', bytes));
  const [binary, binaryRead] = await time(() => ws.read('big/random.bin'));
  if (binary.kind !== 'blob' || binary.bytes.length !== bytes.length || binary.bytes[bytes.length - 1] !== bytes[bytes.length - 1]) checks.push('binary round trip differs');
  await dispose();

  // ~50 MB of text in lines of ~50 characters (~1M lines).
  const parts: string[] = [];
  let size = 0;
  for (let i = 1; size < bigBytes; i++) {
    const line = `line ${i}: the quick brown fox jumps over the dog\n`;
    parts.push(line);
    size += line.length;
  }
  const text = parts.join('');
  ({ ws, dispose } = await fresh());
  const [, textWrite] = await time(() => ws.write('big/text.log', text));
  const [first, textRead] = await time(() => ws.read('big/text.log'));
  if (first.kind !== 'text' || first.lines !== 200 || first.total_lines !== parts.length) checks.push(`text read: ${first.kind} ${first.kind === 'text' ? `${first.lines}/${first.total_lines}` : ''}`);
  const [deep, textDeepRead] = await time(() => ws.read('big/text.log', { offset: parts.length - 100, limit: 50 }));
  if (deep.kind !== 'text' || !deep.content.startsWith(`line ${parts.length - 100}:`)) checks.push('deep read is wrong');
  await dispose();

  // The tool path for binary content: a base64 data URL decoded and written.
  const base64 = (bytes as unknown as { toBase64(): string }).toBase64();
  const dataUrl = `data:application/octet-stream;base64,${base64}`;
  ({ ws, dispose } = await fresh());
  const [, dataUrlWrite] = await time(() => ws.write('big/from-data-url.bin', dataUrl));
  const [decoded, dataUrlRead] = await time(() => ws.read('big/from-data-url.bin', { mode: 'blob' }));
  if (decoded.kind !== 'blob' || decoded.bytes.length !== bytes.length || decoded.bytes[12345] !== bytes[12345]) checks.push('data URL round trip differs');
  await dispose();

  return { binaryWrite, binaryRead, textWrite, textRead, textDeepRead, textLines: parts.length, dataUrlWrite, dataUrlRead, checks };
}

/**
 * Listing, timed in a freshly loaded page: the 50 MB strings and arrays of benchFiles would
 * otherwise still be on the heap and slow every garbage collection the 10,000 Files cause.
 */
async function benchList(listFiles: number, listRuns: number): Promise<ListTimings> {
  const W = (window as unknown as { PagewrightWorkspace: WorkspaceApi }).PagewrightWorkspace;
  const opfs = await navigator.storage.getDirectory();
  const checks: string[] = [];
  const time = async <T>(fn: () => Promise<T>): Promise<[T, number]> => {
    const t0 = performance.now();
    const value = await fn();
    return [value, performance.now() - t0];
  };
  const name = `bench-${crypto.randomUUID()}`;
  const ws = new W.Workspace(await opfs.getDirectoryHandle(name, { create: true }));

  // A folder of `listFiles` files; creating them is set-up, not timed.
  const many = await ws.root.getDirectoryHandle('many', { create: true });
  for (let i = 0; i < listFiles; i += 500) {
    await Promise.all(Array.from({ length: Math.min(500, listFiles - i) }, (_, j) => many.getFileHandle(`file-${i + j}.txt`, { create: true })));
  }
  const listMs: number[] = [];
  let listed = 0;
  for (let run = 0; run < listRuns; run++) {
    const [result, ms] = await time(() => ws.list('many', { limit: Number.POSITIVE_INFINITY }));
    listMs.push(ms);
    listed = result.files;
  }
  const [page, listPageMs] = await time(() => ws.list('many'));
  if (page.entries.length !== 1000 || page.total !== listFiles) checks.push(`list page: ${page.entries.length} of ${page.total}`);
  const [, listSequentialMs] = await time(async () => {
    for await (const handle of many.values()) if (handle.kind === 'file') await (handle as FileSystemFileHandle).getFile();
  });
  await opfs.removeEntry(name, { recursive: true });

  return { listMs, listPageMs, listSequentialMs, listed, checks };
}

const bundle = await bundleWorkspace();
const server = http.createServer((req, res) => {
  const url = req.url ?? '/';
  if (url === '/') return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
  if (url === '/workspace.js') return void res.writeHead(200, { 'content-type': 'text/javascript' }).end(bundle);
  if (url === '/worker.js') return void res.writeHead(200, { 'content-type': 'text/javascript' }).end(`(${PROBE})().then((r) => postMessage(r));`);
  if (url === '/sw.js') return void res.writeHead(200, { 'content-type': 'text/javascript' }).end(`self.addEventListener('message', (e) => (${PROBE})().then((r) => e.source.postMessage(r)));`);
  res.writeHead(404).end();
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

const browser = await launchBenchBrowser({ firefox: FIREFOX_RUN });
try {
  const page = await offlinePage(browser, origin);
  await page.goto(`${origin}/`, { waitUntil: 'load' });
  console.log(`${await browser.version()}, ${REPEAT} run${REPEAT === 1 ? '' : 's'} (best, median); ${os.cpus().length} CPUs, load average ${os.loadavg()[0]!.toFixed(1)} at the start\n`);

  const probes: [string, ProbeResult][] = [];
  probes.push(['window', (await page.evaluate(`(${PROBE})()`)) as ProbeResult]);
  probes.push(['dedicated worker', (await page.evaluate(() => new Promise((resolve) => (new Worker('/worker.js').onmessage = (e) => resolve(e.data))))) as ProbeResult]);
  probes.push([
    'service worker',
    (await page.evaluate(async () => {
      const registration = await navigator.serviceWorker.register('/sw.js');
      await navigator.serviceWorker.ready;
      return new Promise((resolve) => {
        navigator.serviceWorker.onmessage = (e) => resolve(e.data);
        registration.active!.postMessage('probe');
      });
    })) as ProbeResult,
  ]);
  for (const [where, p] of probes) {
    console.log(`${where.padEnd(17)} getDirectory ${p.getDirectory ? 'yes' : 'NO'}, createWritable ${p.createWritable ? 'yes' : 'NO'}, createSyncAccessHandle ${p.createSyncAccessHandle ? 'yes' : 'no'}, write works: ${p.writeWorks}`);
  }
  console.log('');

  const runs: Timings[] = [];
  for (let i = 0; i < REPEAT; i++) {
    await page.reload({ waitUntil: 'load' });
    const files = await page.evaluate(benchFiles, BIG_BYTES);
    await page.reload({ waitUntil: 'load' });
    const list = await page.evaluate(benchList, LIST_FILES, 3);
    runs.push({ ...files, ...list, checks: [...files.checks, ...list.checks] });
  }

  const stat = (pick: (t: Timings) => number) => {
    const xs = runs.map(pick).sort((a, b) => a - b);
    return { best: xs[0]!, median: xs[Math.floor((xs.length - 1) / 2)]! };
  };
  const ms = (x: number) => `${Math.round(x)} ms`.padStart(8);
  const row = (label: string, pick: (t: Timings) => number, target?: number, detail = '') => {
    const { best, median } = stat(pick);
    const verdict = target === undefined ? '' : `  target ≤ ${target} ms: ${median <= target ? 'met' : 'MISSED'}`;
    console.log(`${label.padEnd(44)} ${ms(best)} ${ms(median)}${verdict}${detail ? `  ${detail}` : ''}`);
  };
  console.log(`${''.padEnd(44)} ${'best'.padStart(8)} ${'median'.padStart(8)}`);
  row('50 MB binary: write', (t) => t.binaryWrite);
  row('50 MB binary: read (auto → blob)', (t) => t.binaryRead);
  row('50 MB binary: write + read', (t) => t.binaryWrite + t.binaryRead, 2000);
  row('50 MB text: write (string)', (t) => t.textWrite);
  row('50 MB text: read (auto → first 200 lines)', (t) => t.textRead, undefined, `${runs[0]!.textLines.toLocaleString('en')} lines counted`);
  row('50 MB text: write + read', (t) => t.textWrite + t.textRead, 2000);
  row('50 MB text: read offset near the end', (t) => t.textDeepRead);
  row('50 MB as base64 data URL: decode + write', (t) => t.dataUrlWrite);
  row('50 MB from data URL: read (blob)', (t) => t.dataUrlRead);
  row(`list ${LIST_FILES.toLocaleString('en')} files, all (3 lists per run)`, (t) => t.listMs[0]!, 1000, '(first list of a run)');
  row(`list ${LIST_FILES.toLocaleString('en')} files, all, warm`, (t) => Math.min(...t.listMs.slice(1)));
  row(`list ${LIST_FILES.toLocaleString('en')} files, default page (1,000)`, (t) => t.listPageMs, 1000);
  row(`  beside it: getFile() one by one`, (t) => t.listSequentialMs);
  const problems = runs.flatMap((t) => t.checks);
  if (runs.some((t) => t.listed !== LIST_FILES)) problems.push(`list returned ${runs.map((t) => t.listed).join(', ')} files`);
  console.log(problems.length ? `\nPROBLEMS: ${problems.join('; ')}` : '\nall results checked (round trips byte-identical, line counts, listing complete)');
  if (problems.length) process.exitCode = 1;
} finally {
  await browser.close();
  server.close();
}
