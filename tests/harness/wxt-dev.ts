import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { until } from './until';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * A copy of the checkout to edit freely: every tracked file as it is in the work tree (edits not
 * yet committed included), never .git or .output. node_modules is linked, not installed: a real
 * folder of links to each installed package, because Vite keeps its dev cache in
 * node_modules/.vite, and one link to the whole folder would have the dev server write there, into
 * the checkout's (or a shared) install.
 */
export async function copyProject(): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'pagewright-dev-'));
  try {
    const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' }).split('\0').filter(Boolean);
    await Promise.all([...new Set(tracked.map((f) => path.dirname(f)))].map((d) => fs.mkdir(path.join(dir, d), { recursive: true })));
    for (let i = 0; i < tracked.length; i += 64) {
      await Promise.all(
        tracked.slice(i, i + 64).map((f) =>
          // A tracked file deleted in the work tree is not part of what is being developed.
          fs.cp(path.join(root, f), path.join(dir, f), { verbatimSymlinks: true }).catch((e) => {
            if (e.code !== 'ENOENT') throw e;
          }),
        ),
      );
    }
    // What `npm install` leaves in every checkout (postinstall: wxt prepare). Without it Vite's
    // dependency scan at dev-server start fails on tsconfig.json's missing base and skips
    // pre-bundling, which is not the session a developer gets.
    if (existsSync(path.join(root, '.wxt'))) await fs.cp(path.join(root, '.wxt'), path.join(dir, '.wxt'), { recursive: true });
    const modules = await fs.realpath(path.join(root, 'node_modules'));
    await fs.mkdir(path.join(dir, 'node_modules'));
    for (const entry of await fs.readdir(modules)) {
      if (entry !== '.vite') await fs.symlink(path.join(modules, entry), path.join(dir, 'node_modules', entry));
    }
    return dir;
  } catch (e) {
    await fs.rm(dir, { recursive: true, force: true });
    throw e;
  }
}

/** `wxt` (dev mode) running in a project folder, its browser runner off. */
export interface WxtDev {
  readonly dir: string;
  /** The unpacked extension it builds and keeps rebuilding. */
  readonly chromeBuild: string;
  /** Everything it printed so far, colours stripped. */
  output(): string;
  /** Kills its whole process group and removes the folder. */
  stop(): Promise<void>;
}

/** Starts `wxt` in `dir` and resolves once the first build is on disk. */
export async function startWxtDev(dir: string, { timeout = 60_000 }: { timeout?: number } = {}): Promise<WxtDev> {
  const chromeBuild = path.join(dir, '.output/chrome-mv3-dev');
  let printed = '';
  let exited: string | undefined;
  // stdin is a pipe kept open for the whole session: at EOF wxt exits after the first change.
  // detached: its own process group, so that stop() also ends the Vite and esbuild children.
  const child: ChildProcess = spawn(process.execPath, [path.join(dir, 'node_modules/wxt/bin/wxt.mjs')], {
    cwd: dir,
    env: { ...developerEnv(process.env), WXT_HEADLESS: '1' },
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  const collect = (chunk: Buffer) => (printed += chunk.toString().replace(/\x1b\[[0-9;]*[A-Za-z]/g, ''));
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  // Should the test process end without stop() (a killed run), its detached wxt must not outlive it.
  const killGroup = () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {}
  };
  process.once('exit', killGroup);
  const gone = new Promise<void>((r) =>
    child.once('exit', (code, signal) => {
      exited = `wxt exited (${signal ?? code})`;
      process.off('exit', killGroup);
      r();
    }),
  );

  const dev: WxtDev = {
    dir,
    chromeBuild,
    output: () => printed,
    async stop() {
      if (!exited && child.pid) {
        try {
          process.kill(-child.pid, 'SIGTERM');
        } catch {}
        const killed = await Promise.race([gone.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 5000))]);
        if (!killed) {
          killGroup();
          await gone;
        }
      }
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
  try {
    // WXT writes the manifest last, once every entrypoint of the build is on disk.
    await until(
      () => {
        if (exited) throw new Error(`${exited} before its first build:\n${printed}`);
        return existsSync(path.join(chromeBuild, 'manifest.json'));
      },
      { timeout, interval: 200, what: `wxt's first build in ${chromeBuild}` },
    );
    return dev;
  } catch (e) {
    await dev.stop();
    throw new Error(`${(e as Error).message}\nwxt printed:\n${printed}`, { cause: e });
  }
}

/**
 * The environment a developer's shell would give wxt: without vitest's NODE_ENV=test, TEST and
 * VITEST*, under which Vite builds for "test" and WXT's logger (consola) prints warnings only.
 */
function developerEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([k]) => k !== 'NODE_ENV' && k !== 'TEST' && !k.startsWith('VITEST')));
}
