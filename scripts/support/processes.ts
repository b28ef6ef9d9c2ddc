/**
 * Child processes of `npm start`, the tests and the benchmark, and the loopback ports they listen on.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { join } from 'node:path';

const SUPERVISE = join(__dirname, 'supervise.cjs');

export interface Supervised {
  child: ChildProcess;
  /** Output collected when started with `quiet` (for error messages). */
  output(): string;
  /** Stops the command and everything it started; resolves once it has exited. */
  stop(): Promise<void>;
}

/**
 * Starts `command` under scripts/support/supervise.cjs, which stops it when this process ends in any way, including
 * SIGKILL: nothing started here can outlive its parent and keep a port.
 */
export function spawnSupervised(
  command: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; quiet?: boolean; onLine?: (line: string) => void } = {},
): Supervised {
  const piped = options.quiet || options.onLine !== undefined;
  const child = spawn(process.execPath, [SUPERVISE, command, ...args], {
    cwd: options.cwd,
    env: options.env ?? process.env,
    // stdin is the lifeline the supervisor watches: never written, closed by the kernel when we end.
    stdio: ['pipe', piped ? 'pipe' : 'inherit', piped ? 'pipe' : 'inherit'],
  });
  let output = '';
  for (const stream of [child.stdout, child.stderr]) {
    let partial = '';
    stream?.on('data', (chunk: Buffer) => {
      const text = chunk.toString();
      // Only the tail matters for an error message.
      output = (output + text).slice(-50_000);
      if (!options.onLine) return;
      const lines = (partial + text).split('\n');
      partial = lines.pop()!;
      for (const line of lines) options.onLine(line);
    });
  }
  const exited = once(child, 'exit');
  return {
    child,
    output: () => output,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.stdin?.end();
      await exited;
    },
  };
}

/** Resolves true when nothing listens on 127.0.0.1:`port`. */
export function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

/** A free loopback port chosen by the OS. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Polls `ready` until it resolves true, or fails with `describe()` once `timeoutMs` passed or `alive()` is false. */
export async function waitUntil(
  ready: () => Promise<boolean>,
  options: { timeoutMs: number; alive: () => boolean; describe: () => string },
): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    if (!options.alive()) throw new Error(`${options.describe()} (it exited)`);
    if (await ready().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`${options.describe()} (no answer within ${options.timeoutMs / 1000} s)`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
