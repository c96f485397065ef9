/**
 * @modelcontextprotocol/server-everything — the MCP project's own reference server, which nobody
 * here wrote — run over Streamable HTTP as a child process, for tests that must meet a real server
 * (images, resources, elicitation, tasks, progress) rather than one built to our expectations.
 *
 * The server takes its port from PORT and reports only the number it was given, so a free port is
 * found first; it listens on every interface, and tests use it at 127.0.0.1 only.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { createRequire } from 'node:module';
import path from 'node:path';

export interface EverythingServer {
  /** The MCP endpoint, http://127.0.0.1:PORT/mcp */
  url: string;
  /** What the server printed, for a failing test's message. */
  output(): string;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** Starts the server and resolves once it accepts connections (at most `timeoutMs`). */
export async function startEverythingServer({ timeoutMs = 20_000 } = {}): Promise<EverythingServer> {
  const require = createRequire(import.meta.url);
  const entry = path.join(path.dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')), 'dist/index.js');
  let lastError: unknown;
  // A port found free can be taken before the child binds it: try another then.
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    let log = '';
    // process.execPath: the Node running the tests (22, which the server needs).
    const child: ChildProcess = spawn(process.execPath, [entry, 'streamableHttp'], {
      env: { ...process.env, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (d) => (log += d));
    child.stderr!.on('data', (d) => (log += d));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const listening = new Promise<void>((resolve) => {
      const check = (d: Buffer) => {
        if (String(d).includes('listening on port')) resolve();
      };
      child.stderr!.on('data', check);
      child.stdout!.on('data', check);
    });
    const timer = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), timeoutMs));
    const outcome = await Promise.race([listening.then(() => 'up' as const), exited.then(() => 'exited' as const), timer]);
    if (outcome === 'up') {
      return {
        url: `http://127.0.0.1:${port}/mcp`,
        output: () => log,
        close: async () => {
          if (child.exitCode !== null || child.signalCode !== null) return;
          child.kill('SIGTERM');
          const done = await Promise.race([exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 3000))]);
          if (!done) child.kill('SIGKILL');
        },
      };
    }
    child.kill('SIGKILL');
    lastError = new Error(`server-everything did not start (${outcome}) on port ${port}:\n${log}`);
  }
  throw lastError;
}
